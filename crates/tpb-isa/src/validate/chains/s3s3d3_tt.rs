//! `S3S3D3_TT`: `is_valid_tensor_tensor` (0x41/0x51), `is_valid_tensor_tensor_bf16`
//! (sunda 0x8a/0x8b/0x8f) and `is_valid_copy_cast_predicated` (0x72/0x99)
//! (isa-facts-dve-pool §1.3, §1.7, §2.3; docs/reference/isa.md "S3S3D3_TT").
//!
//! The full ordered TensorTensor chain is not public: the pieces run in the order §1.3 lists
//! them, after the header (Q1, ASSUMED); every pattern may be in PSUM or SBUF (Q1).

use super::super::common::*;
use super::super::{Confidence, Ctx, Flow};
use crate::gen::Gen;
use crate::geometry::{Geometry, Space};
use crate::opcode::sem;
use crate::tables::{AluOp, Dtype};
use crate::wire::View;
use crate::wire::{Addr4, S3s3d3Tt, Tensor3};
use Confidence::{Assumed, Observed};

rule!(
    TT_OUT_DTYPE,
    "is_valid_dtype_64",
    "out_dtype is a plain datapath type, FP32R, UINT64 or INT64",
    "isa-facts-dve-pool §1.3",
    Observed
);
rule!(
    TT_IN_DTYPE,
    "is_valid_dtype_64",
    "dtype_lo and dtype_hi are plain datapath types, UINT64 or INT64 (no FP32R)",
    "isa-facts-dve-pool §1.3",
    Observed
);
rule!(
    TT_VALID_OP,
    "s3s3d3_tt_valid_op",
    "bitvec ⇒ is_general_bitvec_op(op); arith ⇒ is_general_arith_op(op) || op == Pow || is_valid_int_aluop(op)",
    "isa-facts-dve-pool §1.3",
    Observed
);
rule!(
    TT_BITVEC_DTYPE,
    "s3s3d3_tt_dtype",
    "bitvec ⇒ is_valid_int_dtype(out_dtype) (INT/UINT 8/16/32/64; 64-bit membership ASSUMED)",
    "isa-facts-dve-pool §1.3",
    Observed
);
rule!(
    TT_SRC_DST_DTYPE,
    "s3s3d3_tt_src_dst_dtype",
    "bitvec ⇒ dtype_lo == dtype_hi == out_dtype, or a shift of a 64-bit value by a UINT32 count",
    "isa-facts-dve-pool §1.3",
    Observed
);
rule!(
    TT_INT_SIGNNESS,
    "s3s3d3_tt_valid_int_signness",
    "an int-aluop's src0, src1 and out dtypes are all signed (signed op) or all unsigned (unsigned op)",
    "isa-facts-dve-pool §1.3, isa-facts §5.2",
    Observed
);
rule!(
    TT_SRC_COUNT,
    "s3s3d3_tt_src_element_cnt_check",
    "src0 and src1 have the same element count (unless a shape comes from a register)",
    "isa-facts-dve-pool §1.3",
    Observed
);
rule!(
    TT_DST_COUNT,
    "s3s3d3_tt_dst_element_cnt_check",
    "src0 and dst have the same element count (unless a shape comes from a register)",
    "isa-facts-dve-pool §1.3",
    Observed
);
rule!(
    TT_PARTITIONS,
    "tt_valid_partitions",
    "at most one of src0/src1 in PSUM; two SBUF sources share a quadrant",
    "isa-facts-dve-pool §0.3.2",
    Observed
);
rule!(
    TT_BF16_OP,
    "has_valid_tensor_tensor_bf16_op",
    "0x8a ⇒ Add, 0x8b ⇒ Mult, 0x8f ⇒ Subtract",
    "isa-facts-dve-pool §1.7",
    Observed
);
rule!(
    TT_BF16_IN,
    "has_valid_tensor_tensor_bf16_in_dtype",
    "dtype_lo == dtype_hi == BFLOAT16",
    "isa-facts-dve-pool §1.7",
    Observed
);
rule!(
    TT_BF16_PATTERN,
    "tensor_tensor_bf16_access_pattern_check",
    "src num_elem[0] even, step_elem[0] == 1, higher steps even (where num_elem > 1: unit dims carry the packer's step 1, ASSUMED)",
    "isa-facts-dve-pool §1.7",
    Observed
);
rule!(
    TT_BF16_COUNT,
    "s3s3d3_tt_element_cnt_check",
    "src0, src1 and dst have the same element count (counted in bf16 elements, Q2)",
    "isa-facts-dve-pool §1.7, Q2",
    Assumed
);
rule!(
    CP_PRED_DTYPE,
    "s3s3d3_copy_pred_src0_dtype",
    "is_valid_int_dtype_datapath(dtype_lo): INT/UINT 8/16/32",
    "isa-facts-dve-pool §2.3",
    Observed
);
rule!(
    CP_SAME_DTYPE,
    "s3s3d3_copy_cast_pred_src1_dst_dtype",
    "CastPredicated, or dtype_hi == out_dtype (copy cannot change dtype)",
    "isa-facts-dve-pool §2.3",
    Observed
);
rule!(
    CP_BYPASS,
    "s3s3d3_tt_is_zero_op",
    "op == Bypass",
    "isa-facts-dve-pool §2.3",
    Observed
);
rule!(
    CP_OUT_DTYPE,
    "is_valid_dtype",
    "out_dtype is a plain datapath type (FP32R not allowed here)",
    "isa-facts-dve-pool §2.3",
    Observed
);

rule!(
    TT_UNKNOWN,
    "is_valid_tensor_tensor (unknown clauses)",
    "not public: the chain's order and each pattern's PSUM/SBUF flags (all allowed here, Q1)",
    "isa-facts-dve-pool §1.3, Q1",
    Assumed,
    lint
);

/// `is_valid_dtype_64(d, fp32r, U64=True, I64=True)`.
pub(crate) fn is_valid_dtype_64(d: Dtype, fp32r: bool) -> bool {
    d.is_valid_dtype(fp32r) || is_64b_int(d)
}

/// `is_valid_64b_int_dtype`.
pub(crate) fn is_64b_int(d: Dtype) -> bool {
    d == Dtype::INT64 || d == Dtype::UINT64
}

fn is_signed_int(d: Dtype) -> bool {
    matches!(d, Dtype::INT8 | Dtype::INT16 | Dtype::INT32 | Dtype::INT64)
}

fn is_unsigned_int(d: Dtype) -> bool {
    matches!(
        d,
        Dtype::UINT8 | Dtype::UINT16 | Dtype::UINT32 | Dtype::UINT64
    )
}

/// `is_signed_alu_op` (isa-facts §5.2).
pub(crate) fn is_signed_alu_op(op: AluOp) -> bool {
    matches!(op.0, 0xC4..=0xC8 | 0x1B | 0xC9..=0xCD | 0xCF..=0xD4)
}

/// `is_unsigned_alu_op` (isa-facts §5.2).
pub(crate) fn is_unsigned_alu_op(op: AluOp) -> bool {
    matches!(op.0, 0xC4..=0xC8 | 0x1B | 0xDC | 0xDD | 0xDB | 0xC9 | 0xCA | 0xD5..=0xDA)
}

/// `s3s3d3_tt_valid_int_signness`: only int-aluops constrain the dtypes.
pub(crate) fn int_signness_ok(op: AluOp, lo: Dtype, hi: Dtype, out: Dtype) -> bool {
    if !op.is_valid_int_aluop() {
        return true;
    }
    let all_signed = is_signed_int(lo) && is_signed_int(hi) && is_signed_int(out);
    let all_unsigned = is_unsigned_int(lo) && is_unsigned_int(hi) && is_unsigned_int(out);
    (is_signed_alu_op(op) && all_signed) || (is_unsigned_alu_op(op) && all_unsigned)
}

/// `s3s3d3_tt_valid_op` for the Arith (0x41) or Bitvec (0x51) opcode.
pub(crate) fn tt_valid_op(op: AluOp, bitvec: bool, gen: Gen) -> bool {
    if bitvec {
        op.is_general_bitvec_op()
    } else {
        op.is_general_arith_op(gen) || op == AluOp::POW || op.is_valid_int_aluop()
    }
}

/// `s3s3d3_tt_src_dst_dtype`.
pub(crate) fn tt_src_dst_dtype_ok(s: &View<'_, S3s3d3Tt>, bitvec: bool) -> bool {
    let (lo, hi) = (s.in0_in1_dtype().lo(), s.in0_in1_dtype().hi());
    !bitvec
        || (lo == s.out_dtype() && hi == s.out_dtype())
        || (s.op().is_shift_op() && is_64b_int(lo) && hi == Dtype::UINT32)
}

/// `s3s3d3_tt_{src,dst}_element_cnt_check`: equal products unless a shape is in a register.
fn counts_match(a: &Tensor3, b: &Tensor3) -> bool {
    a.start_addr.shape_from_register()
        || b.start_addr.shape_from_register()
        || a.element_count() == b.element_count()
}

/// `tt_valid_partitions(a0, a1)` (isa-facts-dve-pool §0.3.2).
pub(crate) fn tt_valid_partitions(gen: Gen, a0: Addr4, a1: Addr4) -> bool {
    use crate::wire::AddrForm;
    if matches!(a0.form(), AddrForm::Register(_)) || matches!(a1.form(), AddrForm::Register(_)) {
        return true;
    }
    let g = Geometry::of(gen);
    let (x, y) = (a0.byte_addr(), a1.byte_addr());
    let (xp, yp) = (g.in_psum(x), g.in_psum(y));
    let (xs, ys) = (!xp && g.in_sbuf(x), !yp && g.in_sbuf(y));
    let quadrant = |a: Addr4| match a.locate(gen) {
        Some((Space::Sbuf, p, _)) => Some(p / 32),
        _ => None,
    };
    (xp && ys) || (xs && yp) || (xs && ys && quadrant(a0) == quadrant(a1))
}

fn operand(at: Loc, dtype: Dtype, write: bool) -> Operand {
    Operand {
        at,
        dtype,
        write,
        psum: true,
        sbuf: true,
    }
}

/// The three patterns: channel range, placement, `tensor3d_valid`, counts, partitions.
fn patterns<const M: u8>(
    cx: &mut Ctx<M>,
    s: &View<'_, S3s3d3Tt>,
    src_dtypes: (Dtype, Dtype),
) -> Flow {
    let n = s.num_active_channels();
    channel_range(cx, n, at!(S3s3d3Tt.num_active_channels))?;
    let (s0, s1, d) = (
        &s.src0_mem_pattern(),
        &s.src1_mem_pattern(),
        &s.dst_mem_pattern(),
    );
    let (s0_at, s1_at, d_at) = (
        at!(S3s3d3Tt.src0_mem_pattern),
        at!(S3s3d3Tt.src1_mem_pattern),
        at!(S3s3d3Tt.dst_mem_pattern),
    );
    start_addr_active_channels(cx, s0.start_addr, n, s0_at)?;
    start_addr_active_channels(cx, s1.start_addr, n, s1_at)?;
    start_addr_active_channels(cx, d.start_addr, n, d_at)?;
    tensor_valid(cx, s0, operand(s0_at, src_dtypes.0, false))?;
    tensor_valid(cx, s1, operand(s1_at, src_dtypes.1, false))?;
    tensor_valid(cx, d, operand(d_at, s.out_dtype(), true))?;
    cx.check(&TT_SRC_COUNT, counts_match(s0, s1), || {
        detail(
            s1_at.num_elem::<3>(),
            count_text(s1),
            format!("src0 count {}", count_text(s0)),
        )
    })?;
    cx.check(&TT_DST_COUNT, counts_match(s0, d), || {
        detail(
            d_at.num_elem::<3>(),
            count_text(d),
            format!("src0 count {}", count_text(s0)),
        )
    })?;
    let gen = cx.gen;
    cx.check(
        &TT_PARTITIONS,
        tt_valid_partitions(gen, s0.start_addr, s1.start_addr),
        || {
            detail2(
                s0_at.start_addr(),
                s1_at.start_addr(),
                format!(
                    "{}, {}",
                    crate::wire::Field::to_text(&s0.start_addr, gen),
                    crate::wire::Field::to_text(&s1.start_addr, gen)
                ),
                "one PSUM + one SBUF, or two SBUF sources in the same 32-partition quadrant",
            )
        },
    )?;
    Ok(())
}

/// `is_valid_tensor_tensor` (§1.3).
pub(super) fn check_tensor_tensor<const M: u8>(
    cx: &mut Ctx<M>,
    v: sem::TensorTensor,
    s: &View<'_, S3s3d3Tt>,
) -> Flow {
    // `tpb explain` lists what is not known about this chain (a lint that always holds).
    cx.check(&TT_UNKNOWN, true, || {
        detail(at!(S3s3d3Tt.op), s.op(), "see isa-facts-dve-pool Q1")
    })?;
    let gen = cx.gen;
    let bitvec = match v {
        sem::TensorTensor::Arith => false,
        sem::TensorTensor::Bitvec => true,
    };
    let (lo, hi) = (s.in0_in1_dtype().lo(), s.in0_in1_dtype().hi());
    let pair_at = at!(S3s3d3Tt.in0_in1_dtype);
    cx.check(
        &TT_OUT_DTYPE,
        is_valid_dtype_64(s.out_dtype(), true),
        || {
            detail(
                at!(S3s3d3Tt.out_dtype),
                s.out_dtype(),
                format!("{PLAIN_DTYPES}, fp32r, uint64, int64"),
            )
        },
    )?;
    for (d, part) in [(lo, ".dtype_lo"), (hi, ".dtype_hi")] {
        cx.check(&TT_IN_DTYPE, is_valid_dtype_64(d, false), || {
            detail(
                pair_at.part(part),
                d,
                format!("{PLAIN_DTYPES}, uint64, int64"),
            )
        })?;
    }
    aluop_valid(cx, s.op(), at!(S3s3d3Tt.op))?;
    cx.check(&TT_VALID_OP, tt_valid_op(s.op(), bitvec, gen), || {
        let allowed = if bitvec {
            "bitwise_not, bitwise_and/or/xor, the four shifts, bypass"
        } else {
            "is_general_arith_op, pow, or an int-aluop (not divide, rsqrt)"
        };
        detail(at!(S3s3d3Tt.op), s.op(), allowed)
    })?;
    if bitvec {
        let int_out = s.out_dtype().is_int_datapath() || is_64b_int(s.out_dtype());
        cx.check(&TT_BITVEC_DTYPE, int_out, || {
            detail(
                at!(S3s3d3Tt.out_dtype),
                s.out_dtype(),
                "int8, uint8, int16, uint16, int32, uint32, int64, uint64",
            )
        })?;
    }
    cx.check(&TT_SRC_DST_DTYPE, tt_src_dst_dtype_ok(s, bitvec), || {
        detail2(
            pair_at,
            at!(S3s3d3Tt.out_dtype),
            format!("{lo}, {hi} -> {}", s.out_dtype()),
            "dtype_lo == dtype_hi == out_dtype (or 64-bit value << uint32 count)",
        )
    })?;
    cx.check(
        &TT_INT_SIGNNESS,
        int_signness_ok(s.op(), lo, hi, s.out_dtype()),
        || {
            detail2(
                pair_at,
                at!(S3s3d3Tt.out_dtype),
                format!("{} on {lo}, {hi} -> {}", s.op(), s.out_dtype()),
                "all signed ints for a signed op, all unsigned for an unsigned op",
            )
        },
    )?;
    patterns(cx, s, (lo, hi))?;
    Ok(())
}

/// `is_valid_tensor_tensor_bf16` (§1.7).
pub(super) fn check_bf16<const M: u8>(
    cx: &mut Ctx<M>,
    v: sem::TensorTensorBf16,
    s: &View<'_, S3s3d3Tt>,
) -> Flow {
    // The op is pinned by the behaviour (0x8a Add, 0x8b Mult, 0x8f Subtract).
    let want = match v {
        sem::TensorTensorBf16::Add => AluOp::ADD,
        sem::TensorTensorBf16::Mult => AluOp::MULT,
        sem::TensorTensorBf16::Sub => AluOp::SUBTRACT,
    };
    cx.check(&TT_BF16_OP, s.op() == want, || {
        detail(at!(S3s3d3Tt.op), s.op(), want.to_string())
    })?;
    let (lo, hi) = (s.in0_in1_dtype().lo(), s.in0_in1_dtype().hi());
    cx.check(
        &TT_BF16_IN,
        lo == Dtype::BFLOAT16 && hi == Dtype::BFLOAT16,
        || {
            detail(
                at!(S3s3d3Tt.in0_in1_dtype),
                format!("{lo}, {hi}"),
                "bfloat16, bfloat16",
            )
        },
    )?;
    dtype_out(cx, s.out_dtype(), at!(S3s3d3Tt.out_dtype))?;
    for (t, at) in [
        (&s.src0_mem_pattern(), at!(S3s3d3Tt.src0_mem_pattern)),
        (&s.src1_mem_pattern(), at!(S3s3d3Tt.src1_mem_pattern)),
    ] {
        let ok = t.num_elem[0].is_multiple_of(2)
            && t.step_elem[0] == 1
            && t.step_elem[1..]
                .iter()
                .zip(&t.num_elem[1..])
                .all(|(s, &m)| m <= 1 || s % 2 == 0);
        cx.check(&TT_BF16_PATTERN, ok, || {
            detail(
                at,
                format!("steps {:?}, counts {:?}", t.step_elem, t.num_elem),
                "num_elem[0] even, step_elem[0] == 1, other steps even",
            )
        })?;
    }
    let n = s.num_active_channels();
    channel_range(cx, n, at!(S3s3d3Tt.num_active_channels))?;
    // `tensor3d_valid(src, UINT32, …)`: two bf16 per 4-byte word (Q2).
    tensor_valid(
        cx,
        &s.src0_mem_pattern(),
        operand(at!(S3s3d3Tt.src0_mem_pattern), Dtype::UINT32, false),
    )?;
    tensor_valid(
        cx,
        &s.src1_mem_pattern(),
        operand(at!(S3s3d3Tt.src1_mem_pattern), Dtype::UINT32, false),
    )?;
    tensor_valid(
        cx,
        &s.dst_mem_pattern(),
        operand(at!(S3s3d3Tt.dst_mem_pattern), s.out_dtype(), true),
    )?;
    let c = s.src0_mem_pattern().element_count();
    let ok = s.src1_mem_pattern().element_count() == c && s.dst_mem_pattern().element_count() == c;
    cx.check(&TT_BF16_COUNT, ok, || {
        detail(
            at!(S3s3d3Tt.dst_mem_pattern).num_elem::<3>(),
            count_text(&s.dst_mem_pattern()),
            format!("src0 count {}", count_text(&s.src0_mem_pattern())),
        )
    })?;
    Ok(())
}

/// `is_valid_copy_cast_predicated` (§2.3, verbatim order after header/events; its first
/// clause, `has_copy_cast_predicated_opcode`, is the dispatch on the row's behaviour).
pub(super) fn check_predicated<const M: u8>(
    cx: &mut Ctx<M>,
    v: sem::CopyCastPredicated,
    s: &View<'_, S3s3d3Tt>,
) -> Flow {
    let (lo, hi) = (s.in0_in1_dtype().lo(), s.in0_in1_dtype().hi());
    let pair_at = at!(S3s3d3Tt.in0_in1_dtype);
    cx.check(&CP_OUT_DTYPE, s.out_dtype().is_valid_dtype(false), || {
        detail(at!(S3s3d3Tt.out_dtype), s.out_dtype(), PLAIN_DTYPES)
    })?;
    dtype_in(cx, lo, pair_at.part(".dtype_lo"))?;
    dtype_in(cx, hi, pair_at.part(".dtype_hi"))?;
    cx.check(&CP_PRED_DTYPE, lo.is_int_datapath(), || {
        detail(
            pair_at.part(".dtype_lo"),
            lo,
            "int8, int16, int32, uint8, uint16, uint32",
        )
    })?;
    let cast = match v {
        sem::CopyCastPredicated::Copy => false,
        sem::CopyCastPredicated::Cast => true,
    };
    cx.check(&CP_SAME_DTYPE, cast || hi == s.out_dtype(), || {
        detail2(
            pair_at,
            at!(S3s3d3Tt.out_dtype),
            format!("{hi} -> {}", s.out_dtype()),
            "dtype_hi == out_dtype for CopyPredicated",
        )
    })?;
    cx.check(&CP_BYPASS, s.op() == AluOp::BYPASS, || {
        detail(at!(S3s3d3Tt.op), s.op(), "bypass")
    })?;
    patterns(cx, s, (lo, hi))?;
    Ok(())
}
