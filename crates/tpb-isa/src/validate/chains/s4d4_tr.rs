//! `S4D4_TR`: `is_valid_copy` / `is_valid_cast` (0x46/0x47), `is_valid_reciprocal` (0x48),
//! the TensorReduce family (0x42/0x52/0x83/0x84, sunda 0x8c/0x8d), `is_valid_stream_shuffle`
//! (0x6a) and `is_valid_stream_transpose` (0x6b) (isa-facts-dve-pool §4.3, §5, §7.3, §7.5,
//! §14.1, §15; docs/reference/isa.md "S4D4_TR").

use super::super::common::*;
use super::super::{Confidence, Ctx, Flow};
use super::s3s3d3_tt::is_valid_dtype_64;
use crate::opcode::sem;
use crate::tables::{AluOp, Dtype, TensorSubdim};
use crate::wire::View;
use crate::wire::{S4d4Tr, Tensor4};
use Confidence::{Assumed, Observed};

rule!(
    TR_RESERVED,
    "s4d4_tr_reserved_zero",
    "reserved1[5] is zero",
    "isa-facts-dve-pool §4.3",
    Observed
);
rule!(
    TR_MASK_ZERO,
    "mask_enable_zero",
    "mask_enable == 0",
    "isa-facts-dve-pool §0.3.2, §4.3",
    Observed
);
rule!(
    TR_MASK_VALID,
    "mask_enable_valid",
    "mask_enable ∈ {0, 1}",
    "isa-facts-dve-pool §15",
    Observed
);
rule!(
    TR_ZERO_SUBDIM,
    "is_zero_subdim",
    "op_dim ∈ {UNUSED, X}",
    "isa-facts-dve-pool §0.3.2",
    Observed
);
rule!(
    TR_SAME_COUNT,
    "s4d4_tr_same_src_dst_count",
    "src and dst have the same element count",
    "isa-facts-dve-pool §0.3.2",
    Observed
);
rule!(
    TR_BYPASS,
    "s4d4_tr_op_bypass",
    "op == Bypass",
    "isa-facts-dve-pool §0.3.2",
    Observed
);
rule!(
    TR_SAME_TYPE,
    "s4d4_tr_same_src_dst_type",
    "out_dtype == in_dtype",
    "isa-facts-dve-pool §0.3.2",
    Observed
);
rule!(
    TR_ZERO_NEGATED,
    "has_zero_negated_field",
    "negated == 0",
    "isa-facts-dve-pool §0.3.2",
    Observed
);
rule!(
    TR_MULTIPLE_32,
    "has_multiple_32_channels",
    "num_active_channels ∈ {32, 64, 96, 128}",
    "isa-facts-dve-pool §0.3.2",
    Observed
);
rule!(
    TR_TRANSPOSE_SRC_COUNT,
    "has_transpose_src_element_count_t4d",
    "the src element count is a multiple of 32",
    "isa-facts-dve-pool §0.3.2",
    Observed
);
rule!(
    TR_TRANSPOSE_DST_COUNT,
    "s4d4_tr_transpose_src_dst_count",
    "dst element count <= src element count (unless a shape comes from a register)",
    "isa-facts-dve-pool §15",
    Observed
);
rule!(
    TR_REDUCE_IN_DTYPE,
    "is_valid_dtype_64",
    "in_dtype is a plain datapath type, UINT64 or INT64 (no FP32R)",
    "isa-facts-dve-pool §7.3 (64-bit conflict: recommended reading)",
    Observed
);
rule!(
    TR_REDUCE_OUT_DTYPE,
    "is_valid_dtype_64",
    "out_dtype is a plain datapath type, FP32R, UINT64 or INT64",
    "isa-facts-dve-pool §7.3 (64-bit conflict: recommended reading)",
    Observed
);
rule!(
    TR_REDUCE_OP,
    "tensor_reduce_valid_alu_op",
    "arith ⇒ is_general_arith_op || is_valid_tensor_reduce_int_op (= int-aluops + AMAX/AMIN, Q8); bitvec ⇒ is_general_bitvec_op (ASSUMED)",
    "isa-facts-dve-pool §7.3, Q8",
    Assumed
);
rule!(
    TR_REDUCE_BITVEC_DTYPE,
    "tensor_reduce_valid_dtype",
    "bitvec ⇒ in == out ∈ {UINT8, UINT16, UINT32, INT32}; LogicalShiftRight only on INT32",
    "isa-facts-dve-pool §7.3 (as TensorCumulative, Q8)",
    Assumed
);
rule!(
    TR_REDUCE_NEGATED,
    "has_valid_reduce_negated",
    "negated ∈ {0, 1} (arith opcodes); 0 for the bitvec opcodes (ASSUMED)",
    "isa-facts-dve-pool §7.2",
    Observed
);
rule!(
    TR_REDUCE_SUBDIM,
    "is_valid_subdim",
    "op_dim ∈ {X, XY, XYZ, XYZW}",
    "isa-facts-dve-pool §0.3.2, §7.2",
    Observed
);
rule!(
    TR_REDUCE_COLLAPSE,
    "tensor_reduce_collapse_contract",
    "dst element count == product of the src counts op_dim keeps (body not public, Q9)",
    "isa-facts-dve-pool §7.3, Q9",
    Assumed
);
rule!(
    TR_REDUCE_TRANSPOSE_LINT,
    "transpose_tensor_reduce_shape",
    "TransposeTensorReduce: channels ∈ {32, 64, 96, 128} and src count % 32 == 0 (StreamTranspose's rules, Q10)",
    "isa-facts-dve-pool Q10",
    Assumed,
    lint
);
rule!(
    TR_BF16_IN,
    "has_valid_tensor_reduce_bf16_in_dtype",
    "in_dtype == BFLOAT16",
    "isa-facts-dve-pool §7.5",
    Observed
);
rule!(
    TR_BF16_PATTERN,
    "tensor_reduce_bf16_access_pattern_check",
    "src 4-byte aligned, num_elem[0] even, step_elem[0] == 1",
    "isa-facts-dve-pool §7.5",
    Observed
);
rule!(
    TR_BF16_OP,
    "tensor_reduce_bf16_op",
    "0x8c ⇒ op == Add, 0x8d ⇒ op == Max (the header's \"only addition / only maximum\")",
    "isa-facts-dve-pool §7.5",
    Assumed
);

rule!(
    TR_REDUCE_UNKNOWN,
    "is_valid_tensor_reduce (unknown clauses)",
    "not public: the whole chain's order, is_valid_tensor_reduce_int_op's body, the collapse contract's body, the engine arms' elided clauses (Q8, Q9)",
    "isa-facts-dve-pool §7.3",
    Assumed,
    lint
);

/// The reduce axes `op_dim` covers: X = slot 0 … W = slot 3 (Q9, ASSUMED); `None` for an
/// axis code that is not a reduce axis.
pub fn reduced_slots(op_dim: TensorSubdim) -> Option<usize> {
    match op_dim {
        TensorSubdim::X => Some(1),
        TensorSubdim::XY => Some(2),
        TensorSubdim::XYZ => Some(3),
        TensorSubdim::XYZW => Some(4),
        _ => None,
    }
}

/// `is_valid_tensor_reduce_int_op` (Q8, ASSUMED): the int-aluops plus argmax/argmin.
pub fn is_tensor_reduce_int_op(op: AluOp) -> bool {
    op.is_valid_int_aluop() || matches!(op.0, 0xDE..=0xE1)
}

fn place(at: Loc, dtype: Dtype, write: bool) -> Operand {
    Operand {
        at,
        dtype,
        write,
        psum: true,
        sbuf: true,
    }
}

fn is_zero_subdim(d: TensorSubdim) -> bool {
    d == TensorSubdim::UNUSED || d == TensorSubdim::X
}

fn multiple_32(n: u8) -> bool {
    matches!(n, 32 | 64 | 96 | 128)
}

/// Channel range, placement and `tensor4d_valid` of both patterns.
fn patterns<const M: u8>(cx: &mut Ctx<M>, s: &View<'_, S4d4Tr>, src_dtype: Dtype) -> Flow {
    let n = s.num_active_channels();
    channel_range(cx, n, at!(S4d4Tr.num_active_channels))?;
    let (src_at, dst_at) = (at!(S4d4Tr.src_mem_pattern), at!(S4d4Tr.dst_mem_pattern));
    start_addr_active_channels(cx, s.src_mem_pattern().start_addr, n, src_at)?;
    start_addr_active_channels(cx, s.dst_mem_pattern().start_addr, n, dst_at)?;
    tensor_valid(cx, &s.src_mem_pattern(), place(src_at, src_dtype, false))?;
    tensor_valid(cx, &s.dst_mem_pattern(), place(dst_at, s.out_dtype(), true))?;
    Ok(())
}

fn same_count<const M: u8>(cx: &mut Ctx<M>, s: &View<'_, S4d4Tr>) -> Flow {
    let (src, dst) = (&s.src_mem_pattern(), &s.dst_mem_pattern());
    cx.check(
        &TR_SAME_COUNT,
        src.element_count() == dst.element_count(),
        || count_detail(src, dst),
    )?;
    Ok(())
}

fn count_detail(src: &Tensor4, dst: &Tensor4) -> super::super::Detail {
    detail(
        at!(S4d4Tr.dst_mem_pattern).num_elem::<4>(),
        count_text(dst),
        format!("src count {}", count_text(src)),
    )
}

fn bypass<const M: u8>(cx: &mut Ctx<M>, s: &View<'_, S4d4Tr>) -> Flow {
    cx.check(&TR_BYPASS, s.op() == AluOp::BYPASS, || {
        detail(at!(S4d4Tr.op), s.op(), "bypass")
    })?;
    Ok(())
}

fn same_type<const M: u8>(cx: &mut Ctx<M>, s: &View<'_, S4d4Tr>) -> Flow {
    cx.check(&TR_SAME_TYPE, s.in_dtype() == s.out_dtype(), || {
        detail2(
            at!(S4d4Tr.in_dtype),
            at!(S4d4Tr.out_dtype),
            format!("{} -> {}", s.in_dtype(), s.out_dtype()),
            "out_dtype == in_dtype",
        )
    })?;
    Ok(())
}

fn zero_negated<const M: u8>(cx: &mut Ctx<M>, s: &View<'_, S4d4Tr>) -> Flow {
    cx.check(&TR_ZERO_NEGATED, s.negated() == 0, || {
        detail(at!(S4d4Tr.negated), s.negated(), "0")
    })?;
    Ok(())
}

fn multiple_32_channels<const M: u8>(cx: &mut Ctx<M>, s: &View<'_, S4d4Tr>) -> Flow {
    let n = s.num_active_channels();
    cx.check(&TR_MULTIPLE_32, multiple_32(n), || {
        detail(at!(S4d4Tr.num_active_channels), n, "32, 64, 96, 128")
    })?;
    Ok(())
}

/// The gates Copy, Cast, Reciprocal and StreamShuffle share (§4.3 clauses 3–10, §5 1–6).
fn copy_class_gates<const M: u8>(cx: &mut Ctx<M>, s: &View<'_, S4d4Tr>) -> Flow {
    reserved_zero(cx, &TR_RESERVED, at!(S4d4Tr.reserved1), &s.reserved1().0)?;
    cx.check(&TR_MASK_ZERO, s.mask_enable() == 0, || {
        detail(at!(S4d4Tr.mask_enable), s.mask_enable(), "0")
    })?;
    dtype_in(cx, s.in_dtype(), at!(S4d4Tr.in_dtype))?;
    dtype_out(cx, s.out_dtype(), at!(S4d4Tr.out_dtype))?;
    aluop_valid(cx, s.op(), at!(S4d4Tr.op))?;
    cx.check(&TR_ZERO_SUBDIM, is_zero_subdim(s.op_dim()), || {
        detail(at!(S4d4Tr.op_dim), s.op_dim(), "unused, x")
    })?;
    patterns(cx, s, s.in_dtype())?;
    Ok(())
}

/// `is_valid_copy` / `is_valid_cast` (§4.3, verbatim order).
pub(super) fn check_copy_cast<const M: u8>(
    cx: &mut Ctx<M>,
    v: sem::CopyCast,
    s: &View<'_, S4d4Tr>,
) -> Flow {
    copy_class_gates(cx, s)?;
    same_count(cx, s)?;
    bypass(cx, s)?;
    match v {
        sem::CopyCast::Copy => same_type(cx, s)?,
        sem::CopyCast::Cast => {}
    }
    zero_negated(cx, s)
}

/// `is_valid_reciprocal` (§5).
pub(super) fn check_reciprocal<const M: u8>(cx: &mut Ctx<M>, s: &View<'_, S4d4Tr>) -> Flow {
    copy_class_gates(cx, s)?;
    same_count(cx, s)?;
    bypass(cx, s)?;
    zero_negated(cx, s)
}

/// `is_valid_stream_shuffle` (§14.1).
pub(super) fn check_stream_shuffle<const M: u8>(cx: &mut Ctx<M>, s: &View<'_, S4d4Tr>) -> Flow {
    copy_class_gates(cx, s)?;
    bypass(cx, s)?;
    same_type(cx, s)?;
    same_count(cx, s)?;
    multiple_32_channels(cx, s)?;
    zero_negated(cx, s)
}

/// `is_valid_stream_transpose` (§15, verbatim order).
pub(super) fn check_stream_transpose<const M: u8>(cx: &mut Ctx<M>, s: &View<'_, S4d4Tr>) -> Flow {
    reserved_zero(cx, &TR_RESERVED, at!(S4d4Tr.reserved1), &s.reserved1().0)?;
    cx.check(&TR_MASK_VALID, s.mask_enable() <= 1, || {
        detail(at!(S4d4Tr.mask_enable), s.mask_enable(), "0, 1")
    })?;
    dtype_in(cx, s.in_dtype(), at!(S4d4Tr.in_dtype))?;
    dtype_out(cx, s.out_dtype(), at!(S4d4Tr.out_dtype))?;
    same_type(cx, s)?;
    cx.check(&TR_ZERO_SUBDIM, is_zero_subdim(s.op_dim()), || {
        detail(at!(S4d4Tr.op_dim), s.op_dim(), "unused, x")
    })?;
    patterns(cx, s, s.in_dtype())?;
    let (src, dst) = (&s.src_mem_pattern(), &s.dst_mem_pattern());
    let fewer = src.start_addr.shape_from_register()
        || dst.start_addr.shape_from_register()
        || dst.element_count() <= src.element_count();
    cx.check(&TR_TRANSPOSE_DST_COUNT, fewer, || count_detail(src, dst))?;
    bypass(cx, s)?;
    multiple_32_channels(cx, s)?;
    cx.check(
        &TR_TRANSPOSE_SRC_COUNT,
        src.element_count().is_multiple_of(32),
        || {
            detail(
                at!(S4d4Tr.src_mem_pattern).num_elem::<4>(),
                count_text(src),
                "a multiple of 32",
            )
        },
    )?;
    zero_negated(cx, s)?;
    Ok(())
}

/// The TensorReduce family (§7.3, §7.5): `is_valid_tensor_reduce_common` then the op, axis,
/// negate and shape rules.
pub(super) fn check_reduce<const M: u8>(
    cx: &mut Ctx<M>,
    v: sem::TensorReduce,
    s: &View<'_, S4d4Tr>,
) -> Flow {
    // `tpb explain` lists what is not known about this chain (a lint that always holds).
    cx.check(&TR_REDUCE_UNKNOWN, true, || {
        detail(at!(S4d4Tr.op), s.op(), "see isa-facts-dve-pool Q8, Q9")
    })?;
    let gen = cx.gen;
    use sem::TensorReduce as V;
    // (the op sunda's bf16 pair pins, bit-vector, transposed first)
    let (bf16_op, bitvec, transposed) = match v {
        V::Arith => (None, false, false),
        V::Bitvec => (None, true, false),
        V::TransposeArith => (None, false, true),
        V::TransposeBitvec => (None, true, true),
        V::AddBf16 => (Some(AluOp::ADD), false, false),
        V::MaxBf16 => (Some(AluOp::MAX), false, false),
    };
    let bf16 = bf16_op.is_some();
    reserved_zero(cx, &TR_RESERVED, at!(S4d4Tr.reserved1), &s.reserved1().0)?;
    cx.check(&TR_MASK_ZERO, s.mask_enable() == 0, || {
        detail(at!(S4d4Tr.mask_enable), s.mask_enable(), "0")
    })?;
    if bf16 {
        dtype_in(cx, s.in_dtype(), at!(S4d4Tr.in_dtype))?;
        dtype_out(cx, s.out_dtype(), at!(S4d4Tr.out_dtype))?;
    } else {
        cx.check(
            &TR_REDUCE_IN_DTYPE,
            is_valid_dtype_64(s.in_dtype(), false),
            || {
                detail(
                    at!(S4d4Tr.in_dtype),
                    s.in_dtype(),
                    format!("{PLAIN_DTYPES}, uint64, int64"),
                )
            },
        )?;
        cx.check(
            &TR_REDUCE_OUT_DTYPE,
            is_valid_dtype_64(s.out_dtype(), true),
            || {
                detail(
                    at!(S4d4Tr.out_dtype),
                    s.out_dtype(),
                    format!("{PLAIN_DTYPES}, fp32r, uint64, int64"),
                )
            },
        )?;
    }
    patterns(cx, s, s.in_dtype())?;
    aluop_valid(cx, s.op(), at!(S4d4Tr.op))?;
    if let Some(want) = bf16_op {
        cx.check(&TR_BF16_OP, s.op() == want, || {
            detail(at!(S4d4Tr.op), s.op(), want.to_string())
        })?;
        cx.check(&TR_BF16_IN, s.in_dtype() == Dtype::BFLOAT16, || {
            detail(at!(S4d4Tr.in_dtype), s.in_dtype(), "bfloat16")
        })?;
        let t = &s.src_mem_pattern();
        let aligned = t.start_addr.byte_addr().is_multiple_of(4);
        let ok = aligned && t.num_elem[0].is_multiple_of(2) && t.step_elem[0] == 1;
        cx.check(&TR_BF16_PATTERN, ok, || {
            detail(
                at!(S4d4Tr.src_mem_pattern),
                format!(
                    "start {:#x}, step_elem[0] {}, num_elem[0] {}",
                    t.start_addr.byte_addr(),
                    t.step_elem[0],
                    t.num_elem[0]
                ),
                "4-byte aligned, step_elem[0] == 1, num_elem[0] even",
            )
        })?;
    } else {
        let ok = if bitvec {
            s.op().is_general_bitvec_op()
        } else {
            s.op().is_general_arith_op(gen) || is_tensor_reduce_int_op(s.op())
        };
        cx.check(&TR_REDUCE_OP, ok, || {
            let allowed = if bitvec {
                "bitwise_and/or/xor/not, the shifts, bypass"
            } else {
                "is_general_arith_op, an int-aluop, amax/amin_int/uint"
            };
            detail(at!(S4d4Tr.op), s.op(), allowed)
        })?;
    }
    if bitvec {
        let d = s.in_dtype();
        let ok = d == s.out_dtype()
            && matches!(
                d,
                Dtype::UINT8 | Dtype::UINT16 | Dtype::UINT32 | Dtype::INT32
            )
            && (s.op() != AluOp::LOGICAL_SHIFT_RIGHT || d == Dtype::INT32);
        cx.check(&TR_REDUCE_BITVEC_DTYPE, ok, || {
            detail2(
                at!(S4d4Tr.in_dtype),
                at!(S4d4Tr.out_dtype),
                format!("{} -> {}", s.in_dtype(), s.out_dtype()),
                "in == out ∈ {uint8, uint16, uint32, int32}",
            )
        })?;
    }
    let max_negated = if bitvec { 0 } else { 1 };
    cx.check(&TR_REDUCE_NEGATED, s.negated() <= max_negated, || {
        detail(
            at!(S4d4Tr.negated),
            s.negated(),
            if bitvec { "0" } else { "0, 1" },
        )
    })?;
    let axes = reduced_slots(s.op_dim());
    cx.check(&TR_REDUCE_SUBDIM, axes.is_some(), || {
        detail(at!(S4d4Tr.op_dim), s.op_dim(), "x, xy, xyz, xyzw")
    })?;
    let (src, dst) = (&s.src_mem_pattern(), &s.dst_mem_pattern());
    if let Some(k) = axes {
        let kept: u64 = src.num_elem[k..].iter().map(|&m| u64::from(m)).product();
        let shaped = src.start_addr.shape_from_register() || dst.start_addr.shape_from_register();
        // TransposeTensorReduce's shape after the transpose is not public (Q10): only the
        // element products are checked there (`reduced_count` of the transposed tile).
        let ok = shaped || transposed || dst.element_count() == kept;
        cx.check(&TR_REDUCE_COLLAPSE, ok, || {
            detail(
                at!(S4d4Tr.dst_mem_pattern).num_elem::<4>(),
                count_text(dst),
                format!("{kept} (src counts op_dim keeps)"),
            )
        })?;
        if transposed {
            let n = s.num_active_channels();
            let ok = multiple_32(n) && src.element_count().is_multiple_of(32);
            cx.check(&TR_REDUCE_TRANSPOSE_LINT, ok, || {
                detail(
                    at!(S4d4Tr.num_active_channels),
                    format!("{n} channels, src count {}", src.element_count()),
                    "32/64/96/128 channels, src count a multiple of 32",
                )
            })?;
        }
    }
    Ok(())
}
