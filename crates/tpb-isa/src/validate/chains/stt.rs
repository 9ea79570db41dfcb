//! `S2S2D2_STT`: `is_valid_scalar_tensor_tensor` (0x9d / 0x9e), `is_valid_tensor_tensor_scan`
//! (0xe5) and `is_valid_select_reduce` (0xea) (isa-facts-dve-pool §9.3, §10, §11.3).
//! Each clause is a small named predicate; the three chains share the struct's common
//! clauses and differ in the listed ones.

use super::super::common::*;
use super::super::{Confidence, Ctx, Flow};
use super::immediates::imm_by_src;
use crate::gen::Gen;
use crate::geometry::Geometry;
use crate::tables::{AccumCmd, AluOp, CodeEnum, Dtype, ImmSrc, RevOps};
use crate::wire::View;
use crate::wire::{Addr4, S2s2d2Stt, Tensor2};
use Confidence::{Assumed, Inferred, Observed};

rule!(
    STT_OPS,
    "has_valid_scalar_tensor_tensor_op",
    "arith ⇒ is_general_arith_op(op0) && is_general_arith_op(op1); bitvec ⇒ is_general_bitvec_op for both",
    "isa-facts-dve-pool §9.3",
    Observed
);
rule!(
    STT_IMM0_DTYPE,
    "s2s2d2_stt_imm0_dtype",
    "bitvec || imm0_src ∈ {Ptr, RegPtr} || imm0_dtype == fp32 (an inline arith scalar is fp32)",
    "isa-facts-dve-pool §9.3",
    Observed
);
rule!(
    STT_INT_DTYPES,
    "has_valid_scalar_tensor_tensor_dtypes",
    "bitvec ⇒ src0, src1, imm0 and out dtypes are integer datapath types",
    "isa-facts-dve-pool §9.3",
    Observed
);
rule!(
    STT_SRC_DST_DTYPE,
    "s2s2d2_stt_src_dst_dtype",
    "bitvec ⇒ src0 == out && src1 == out && imm0_dtype == out",
    "isa-facts-dve-pool §9.3",
    Observed
);
rule!(
    STT_ACCUM,
    "has_valid_s2s2d2_stt_accum_cmd",
    "bitvec (0x9e) ⇒ Idle; arith (0x9d) ⇒ Idle, Accumulate or ZeroAccumulate",
    "isa-facts-dve-pool §9.3",
    Observed
);
rule!(
    STT_SRC_COUNT,
    "s2s2d2_stt_src_element_cnt_check",
    "shape from a register, or src0 and src1 have the same element count",
    "isa-facts-dve-pool §9.3",
    Observed
);
rule!(
    STT_DST_COUNT,
    "s2s2d2_stt_dst_element_cnt_check",
    "shape from a register, or src0 and dst have the same element count",
    "isa-facts-dve-pool §9.3",
    Observed
);
rule!(
    STT_PARTITIONS,
    "tt_valid_partitions",
    "src0/src1: at most one in PSUM; two SBUF operands start in the same 32-partition quadrant",
    "isa-facts-dve-pool §0.3.2",
    Observed
);
rule!(
    STT_REVERSE,
    "is_valid_enum",
    "reverse_operands ∈ TENS_SCALAR_REV_OPS",
    "isa-facts-dve-pool §10, §11.3 (carried to 0x9d/0x9e, MED)",
    Inferred
);
rule!(
    STT_RESERVED,
    "has_s2s2d2_stt_reserved_zero",
    "reserved[0..3] == 0",
    "isa-facts-dve-pool §9.3",
    Observed
);
rule!(
    STT_DST_TENSOR,
    "tensor2d_valid",
    "dst: WriteTensor, PSUM and SBUF allowed (quoted for 0xe5/0xea, carried to 0x9d/0x9e)",
    "isa-facts-dve-pool §9.3",
    Inferred
);
rule!(
    STT_QUADRANT,
    "s2s2d2_stt_quadrant_check",
    "UNKNOWN clause: the NEURON-3759 same-quadrant erratum gate's body is not public; tpb checks nothing beyond tt_valid_partitions (isa-facts-dve-pool Q14)",
    "isa-facts-dve-pool §9.3, Q14",
    Assumed,
    lint
);
rule!(
    SCAN_OPS,
    "has_valid_tensor_tensor_scan_op",
    "is_general_arith_op(op0) && is_general_arith_op(op1)",
    "isa-facts-dve-pool §10",
    Observed
);
rule!(
    SCAN_ACCUM,
    "has_zero_accum_cmd",
    "accumulator_cmd == Idle (0)",
    "isa-facts-dve-pool §10",
    Observed
);
rule!(
    SR_DTYPES,
    "has_valid_select_reduce_dtypes",
    "is_valid_int_dtype_datapath(src0 dtype) && src1 dtype is not int32/uint32",
    "isa-facts-dve-pool §11.3",
    Observed
);
rule!(
    SR_OPS,
    "has_valid_select_reduce_op",
    "op0 == Bypass && op1 == Max (both general arith ops)",
    "isa-facts-dve-pool §11.3",
    Observed
);
rule!(
    SR_ACCUM,
    "has_valid_s2s2d2_cpr_accum_cmd",
    "accumulator_cmd ∈ {Idle, Accumulate, ZeroAccumulate}",
    "isa-facts-dve-pool §11.3",
    Observed
);
rule!(
    SR_REVERSE,
    "has_valid_select_reduce_rev_ops",
    "reverse_operands ∈ {None, First}",
    "isa-facts-dve-pool §11.3",
    Observed
);

/// `is_const_ptr_dve(src)`: the scalar comes through a pointer (isa-facts-dve-pool §0.3.2).
pub(crate) const fn is_const_ptr_dve(src: ImmSrc) -> bool {
    matches!(src, ImmSrc::POINTER | ImmSrc::REG_PTR)
}

/// `s2s2d2_stt_imm0_dtype`.
pub(crate) const fn stt_imm0_dtype_ok(bitvec: bool, src: ImmSrc, imm0_dtype: Dtype) -> bool {
    bitvec || is_const_ptr_dve(src) || imm0_dtype.0 == Dtype::FP32.0
}

/// `has_valid_scalar_tensor_tensor_op`.
pub(crate) const fn stt_ops_ok(bitvec: bool, op0: AluOp, op1: AluOp, gen: Gen) -> bool {
    if bitvec {
        op0.is_general_bitvec_op() && op1.is_general_bitvec_op()
    } else {
        op0.is_general_arith_op(gen) && op1.is_general_arith_op(gen)
    }
}

/// `has_valid_s2s2d2_stt_accum_cmd`.
pub(crate) const fn stt_accum_ok(bitvec: bool, cmd: AccumCmd) -> bool {
    if bitvec {
        cmd.0 == AccumCmd::IDLE.0
    } else {
        matches!(
            cmd,
            AccumCmd::IDLE | AccumCmd::ACCUMULATE | AccumCmd::ZERO_ACCUMULATE
        )
    }
}

/// `has_valid_select_reduce_dtypes`.
pub(crate) const fn select_reduce_dtypes_ok(pred: Dtype, data: Dtype) -> bool {
    pred.is_int_datapath() && !matches!(data, Dtype::INT32 | Dtype::UINT32)
}

/// `has_valid_select_reduce_op` (both also general arith ops, which Bypass and Max are).
pub(crate) const fn select_reduce_ops_ok(op0: AluOp, op1: AluOp) -> bool {
    op0.0 == AluOp::BYPASS.0 && op1.0 == AluOp::MAX.0
}

/// `tt_valid_partitions(a0, a1)` (isa-facts-dve-pool §0.3.2).
pub(crate) fn tt_valid_partitions(gen: Gen, a0: Addr4, a1: Addr4) -> bool {
    // `addr_from_register`: the 0x80 register marker bypasses the check.
    if a0.marker() & Addr4::MARKER_ADDR_REG != 0 || a1.marker() & Addr4::MARKER_ADDR_REG != 0 {
        return true;
    }
    let g = Geometry::of(gen);
    let (x, y) = (a0.byte_addr(), a1.byte_addr());
    let (px, py) = (g.in_psum(x), g.in_psum(y));
    let (sx, sy) = (!px && g.in_sbuf(x), !py && g.in_sbuf(y));
    let quadrant = |a: u32| g.locate(a).map(|(_, p, _)| p / 32);
    (px && sy) || (sx && py) || (sx && sy && quadrant(x) == quadrant(y))
}

/// Element count check with the shape-from-register bypass.
fn same_count(a: &Tensor2, b: &Tensor2) -> bool {
    a.start_addr.shape_from_register()
        || b.start_addr.shape_from_register()
        || a.element_count() == b.element_count()
}

/// Which of the three `S2S2D2_STT` chains runs (from the row's behaviour, `chains/family/`).
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum SttChain {
    /// ScalarTensorTensor, arithmetic (0x9d) or bit-vector (0x9e).
    Stt {
        /// The bit-vector twin.
        bitvec: bool,
    },
    /// TensorTensorScan (0xe5).
    Scan,
    /// SelectReduce (0xea).
    Select,
}

pub(super) fn check<const M: u8>(
    cx: &mut Ctx<M>,
    chain: SttChain,
    s: &View<'_, S2s2d2Stt>,
) -> Flow {
    let gen = cx.gen;
    let bitvec = matches!(chain, SttChain::Stt { bitvec: true });
    let (lo, hi) = (s.in0_in1_dtype().lo(), s.in0_in1_dtype().hi());
    let dt = at!(S2s2d2Stt.in0_in1_dtype);
    dtype_in(cx, lo, dt.part(".dtype_lo"))?;
    dtype_in(cx, hi, dt.part(".dtype_hi"))?;
    dtype_in(cx, s.imm0_dtype(), at!(S2s2d2Stt.imm0_dtype))?;
    dtype_out(cx, s.out_dtype(), at!(S2s2d2Stt.out_dtype))?;
    cx.check(
        &STT_IMM0_DTYPE,
        stt_imm0_dtype_ok(bitvec, s.imm0_src(), s.imm0_dtype()),
        || {
            detail(
                at!(S2s2d2Stt.imm0_dtype),
                format!("{} with imm0_src {}", s.imm0_dtype(), s.imm0_src()),
                "fp32 for an inline arith scalar",
            )
        },
    )?;
    aluop_valid(cx, s.op0(), at!(S2s2d2Stt.op0))?;
    aluop_valid(cx, s.op1(), at!(S2s2d2Stt.op1))?;
    let ops = |s: &View<'_, S2s2d2Stt>| format!("{}, {}", s.op0(), s.op1());
    match chain {
        SttChain::Scan => {
            cx.check(&SCAN_OPS, stt_ops_ok(false, s.op0(), s.op1(), gen), || {
                detail2(
                    at!(S2s2d2Stt.op0),
                    at!(S2s2d2Stt.op1),
                    ops(s),
                    "general arith ops",
                )
            })?;
        }
        SttChain::Select => {
            cx.check(&SR_DTYPES, select_reduce_dtypes_ok(lo, hi), || {
                detail(
                    dt,
                    format!("{lo} -> {hi}"),
                    "predicate int8/uint8/int16/uint16/int32/uint32; data not int32/uint32",
                )
            })?;
            cx.check(&SR_OPS, select_reduce_ops_ok(s.op0(), s.op1()), || {
                detail2(
                    at!(S2s2d2Stt.op0),
                    at!(S2s2d2Stt.op1),
                    ops(s),
                    "bypass, max",
                )
            })?;
        }
        SttChain::Stt { .. } => {
            cx.check(&STT_OPS, stt_ops_ok(bitvec, s.op0(), s.op1(), gen), || {
                let allowed = if bitvec {
                    "general bitvec ops"
                } else {
                    "general arith ops"
                };
                detail2(at!(S2s2d2Stt.op0), at!(S2s2d2Stt.op1), ops(s), allowed)
            })?;
            cx.check(
                &STT_INT_DTYPES,
                !bitvec
                    || [lo, hi, s.imm0_dtype(), s.out_dtype()]
                        .iter()
                        .all(|d| d.is_int_datapath()),
                || {
                    detail(
                        dt,
                        format!("{lo}, {hi}, imm0 {}, out {}", s.imm0_dtype(), s.out_dtype()),
                        "integer datapath types",
                    )
                },
            )?;
            cx.check(
                &STT_SRC_DST_DTYPE,
                !bitvec
                    || (lo == s.out_dtype()
                        && hi == s.out_dtype()
                        && s.imm0_dtype() == s.out_dtype()),
                || {
                    detail(
                        dt,
                        format!("{lo}, {hi}, imm0 {}, out {}", s.imm0_dtype(), s.out_dtype()),
                        "all equal to out_dtype",
                    )
                },
            )?;
        }
    }
    let n = s.num_active_channels();
    if s.imm0_src() != ImmSrc::INSTRUCTION {
        // `has_valid_s2s2d2_stt_immediate`: a pointer is aligned for imm0_dtype.
        imm_by_src(
            cx,
            s.imm0_src(),
            s.imm0(),
            at!(S2s2d2Stt.imm0_src),
            at!(S2s2d2Stt.imm0),
            true,
            s.imm0_dtype(),
            n,
        )?;
    }
    let (src0, src1, dst) = (
        &s.src0_mem_pattern(),
        &s.src1_mem_pattern(),
        &s.dst_mem_pattern(),
    );
    start_addr_active_channels(cx, src0.start_addr, n, at!(S2s2d2Stt.src0_mem_pattern))?;
    start_addr_active_channels(cx, src1.start_addr, n, at!(S2s2d2Stt.src1_mem_pattern))?;
    start_addr_active_channels(cx, dst.start_addr, n, at!(S2s2d2Stt.dst_mem_pattern))?;
    let read = |at, dtype| Operand {
        at,
        dtype,
        write: false,
        psum: true,
        sbuf: true,
    };
    tensor_valid(cx, src0, read(at!(S2s2d2Stt.src0_mem_pattern), lo))?;
    tensor_valid(cx, src1, read(at!(S2s2d2Stt.src1_mem_pattern), hi))?;
    tensor_valid(
        cx,
        dst,
        Operand {
            write: true,
            ..read(at!(S2s2d2Stt.dst_mem_pattern), s.out_dtype())
        },
    )?;
    if matches!(chain, SttChain::Stt { .. }) {
        cx.check(&STT_DST_TENSOR, true, || {
            detail(
                at!(S2s2d2Stt.dst_mem_pattern),
                "checked above",
                "SBUF or PSUM",
            )
        })?;
    }
    channel_range(cx, n, at!(S2s2d2Stt.num_active_channels))?;
    cx.check(&STT_SRC_COUNT, same_count(src0, src1), || {
        detail(
            at!(S2s2d2Stt.src1_mem_pattern).num_elem::<2>(),
            count_text(src1),
            format!("src0 count {}", count_text(src0)),
        )
    })?;
    cx.check(&STT_DST_COUNT, same_count(src0, dst), || {
        detail(
            at!(S2s2d2Stt.dst_mem_pattern).num_elem::<2>(),
            count_text(dst),
            format!("src0 count {}", count_text(src0)),
        )
    })?;
    cx.check(
        &STT_PARTITIONS,
        tt_valid_partitions(gen, src0.start_addr, src1.start_addr),
        || {
            detail2(
                at!(S2s2d2Stt.src0_mem_pattern).start_addr(),
                at!(S2s2d2Stt.src1_mem_pattern).start_addr(),
                format!("{:#010x}, {:#010x}", src0.start_addr.0, src1.start_addr.0),
                "one PSUM and one SBUF, or both SBUF in the same quadrant",
            )
        },
    )?;
    let cmd = s.accumulator_cmd();
    let accum_at = at!(S2s2d2Stt.accumulator_cmd);
    match chain {
        SttChain::Scan => {
            cx.check(&SCAN_ACCUM, cmd == AccumCmd::IDLE, || {
                detail(accum_at, cmd, "idle")
            })?;
        }
        SttChain::Select => {
            cx.check(&SR_ACCUM, stt_accum_ok(false, cmd), || {
                detail(accum_at, cmd, "idle, accumulate, zero_accumulate")
            })?;
        }
        SttChain::Stt { .. } => {
            cx.check(&STT_ACCUM, stt_accum_ok(bitvec, cmd), || {
                let allowed = if bitvec {
                    "idle"
                } else {
                    "idle, accumulate, zero_accumulate"
                };
                detail(accum_at, cmd, allowed)
            })?;
        }
    }
    let rev = s.reverse_operands();
    cx.check(&STT_REVERSE, rev.is_valid(gen), || {
        detail(
            at!(S2s2d2Stt.reverse_operands),
            rev,
            "none, first, second, both",
        )
    })?;
    reserved_zero(cx, &STT_RESERVED, at!(S2s2d2Stt.reserved), &s.reserved().0)?;
    match chain {
        SttChain::Select => {
            cx.check(
                &SR_REVERSE,
                matches!(rev, RevOps::NONE | RevOps::FIRST),
                || detail(at!(S2s2d2Stt.reverse_operands), rev, "none, first"),
            )?;
        }
        SttChain::Stt { .. } => {
            cx.check(&STT_QUADRANT, true, || {
                detail(
                    at!(S2s2d2Stt.src0_mem_pattern).start_addr(),
                    "not checked",
                    "unknown (isa-facts-dve-pool Q14)",
                )
            })?;
        }
        SttChain::Scan => {}
    }
    Ok(())
}
