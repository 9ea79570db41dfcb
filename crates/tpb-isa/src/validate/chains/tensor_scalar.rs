//! `S3D3_TS`: `is_valid_tensor_scalar_op` / `_ptr_op` (isa-facts §7).

use super::super::common::*;
use super::super::{Confidence, Ctx, Flow};
use super::immediates::{imm_by_src, ts_ptr_imm_chk};
use super::{four_byte, names};
use crate::gen::Gen;
use crate::opcode::sem;
use crate::tables::{AccumCmd, AluOp, CodeEnum, ImmSrc, RevOps};
use crate::wire::{S3d3Ts, Tensor3, View};
use Confidence::Observed;

rule!(
    TS_OPS_ENUM,
    "tensor_scalar_valid_ops",
    "op0 and op1 are valid ALU_OPs, neither Divide/Pow/Mod",
    "isa-facts §7",
    Observed
);
rule!(
    TS_OPS_BITVEC,
    "tensor_scalar_valid_ops",
    "bitvec ⇒ is_bitvec_op(op0) && is_bitvec_op(op1)",
    "isa-facts §7, §5.2 conflict 1",
    Observed
);
rule!(TS_OPS_ARITH, "tensor_scalar_valid_ops", "arith ⇒ both is_general_arith_op, or Rsqrt+Bypass with zero immediates (maverick: or both in is_valid_int_aluop_dve)", "isa-facts §7", Observed);
rule!(
    TS_OPS_ORDER,
    "tensor_scalar_valid_ops",
    "(op0 != Bypass) || (op1 == Bypass)",
    "isa-facts §7",
    Observed
);
rule!(
    TS_TYPES,
    "tensor_scalar_valid_types",
    "bitvec ⇒ in_dtype == out_dtype ∈ {int8, uint8, int16, uint16, int32, uint32}",
    "isa-facts §7",
    Observed
);
rule!(
    TS_PTR_SRC,
    "tensor_scalar_ptr_imm_src",
    "TensorScalarPtr forces imm0_src == imm1_src == 0",
    "isa-facts §7",
    Observed
);
rule!(
    TS_SHIFT,
    "tensor_scalar_shift_chk",
    "ArithShiftRight, or ShiftLeft then ShiftRight, needs a 4-byte dtype",
    "isa-facts §5.2",
    Observed
);
rule!(
    TS_REVERSE,
    "tensor_scalar_reverse_chk",
    "reverse_operands is a valid TENS_SCALAR_REV_OPS",
    "isa-facts §7",
    Observed
);
rule!(
    TS_RESERVED,
    "s3d3_ts_reserved_zero",
    "reserved0 is zero",
    "isa-facts §7",
    Observed
);
rule!(
    TS_ACCUM,
    "has_zero_accum_cmd_field",
    "accumulator_cmd == Idle",
    "isa-facts §7",
    Observed
);
rule!(
    TS_COUNT,
    "same_element_count_m3d",
    "element count of src == of dst",
    "isa-facts §7",
    Observed
);

#[inline(always)]
pub(super) fn check<const M: u8>(
    cx: &mut Ctx<M>,
    v: sem::TensorScalar,
    s: &View<'_, S3d3Ts>,
) -> Flow {
    let gen = cx.gen;
    let (bitvec, ptr_form) = match v {
        sem::TensorScalar::ImmArith => (false, false),
        sem::TensorScalar::ImmBitvec => (true, false),
        sem::TensorScalar::PtrArith => (false, true),
        sem::TensorScalar::PtrBitvec => (true, true),
    };
    let (op0_at, op1_at) = (at!(S3d3Ts.op0), at!(S3d3Ts.op1));
    let (in_at, out_at) = (at!(S3d3Ts.in_dtype), at!(S3d3Ts.out_dtype));
    let (op0, op1) = (s.op0(), s.op1());
    let banned = |o: AluOp| matches!(o, AluOp::DIVIDE | AluOp::POW | AluOp::MOD);
    for (o, at) in [(op0, op0_at), (op1, op1_at)] {
        cx.check(&TS_OPS_ENUM, o.defined_on(gen) && !banned(o), || {
            detail(
                at,
                o,
                "any ALU_OP of this generation except divide, pow, mod",
            )
        })?;
    }
    if bitvec {
        for (o, at) in [(op0, op0_at), (op1, op1_at)] {
            cx.check(&TS_OPS_BITVEC, o.is_bitvec_op(), || {
                detail(at, o, names(|o| o.is_bitvec_op()))
            })?;
        }
        let ok = s.in_dtype() == s.out_dtype() && s.in_dtype().is_int_datapath();
        cx.check(&TS_TYPES, ok, || {
            detail2(
                in_at,
                out_at,
                format!("{} -> {}", s.in_dtype(), s.out_dtype()),
                "in == out ∈ {int8, uint8, int16, uint16, int32, uint32}",
            )
        })?;
    } else {
        let general = op0.is_general_arith_op(gen) && op1.is_general_arith_op(gen);
        let rsqrt = op0 == AluOp::RSQRT
            && op1 == AluOp::BYPASS
            && s.imm0().0 == 0
            && s.imm0_src() == ImmSrc::INSTRUCTION
            && s.imm1().0 == 0
            && s.imm1_src() == ImmSrc::INSTRUCTION;
        let dve_int =
            gen == Gen::Maverick && op0.is_valid_int_aluop_dve() && op1.is_valid_int_aluop_dve();
        cx.check(&TS_OPS_ARITH, general || rsqrt || dve_int, || {
            detail2(
                op0_at,
                op1_at,
                format!("{op0}, {op1}"),
                names(|o| o.is_general_arith_op(gen)),
            )
        })?;
    }
    cx.check(
        &TS_OPS_ORDER,
        op0 != AluOp::BYPASS || op1 == AluOp::BYPASS,
        || detail(at!(S3d3Ts.op1), op1, "bypass when op0 is bypass"),
    )?;
    if ptr_form {
        cx.check(
            &TS_PTR_SRC,
            s.imm0_src().0 == 0 && s.imm1_src().0 == 0,
            || {
                detail2(
                    at!(S3d3Ts.imm0_src),
                    at!(S3d3Ts.imm1_src),
                    format!("{}, {}", s.imm0_src(), s.imm1_src()),
                    "0 (both are pointers)",
                )
            },
        )?;
        for (v, at) in [(s.imm0(), at!(S3d3Ts.imm0)), (s.imm1(), at!(S3d3Ts.imm1))] {
            ts_ptr_imm_chk(cx, v, at, bitvec, s.in_dtype(), s.num_active_channels())?;
        }
    } else {
        for (src, v, src_at, at) in [
            (
                s.imm0_src(),
                s.imm0(),
                at!(S3d3Ts.imm0_src),
                at!(S3d3Ts.imm0),
            ),
            (
                s.imm1_src(),
                s.imm1(),
                at!(S3d3Ts.imm1_src),
                at!(S3d3Ts.imm1),
            ),
        ] {
            imm_by_src(
                cx,
                src,
                v,
                src_at,
                at,
                bitvec,
                s.in_dtype(),
                s.num_active_channels(),
            )?;
        }
    }
    let shift_bad = (op0 == AluOp::ARITH_SHIFT_RIGHT || op1 == AluOp::ARITH_SHIFT_RIGHT)
        || (matches!(op0, AluOp::ARITH_SHIFT_LEFT | AluOp::LOGICAL_SHIFT_LEFT)
            && matches!(op1, AluOp::ARITH_SHIFT_RIGHT | AluOp::LOGICAL_SHIFT_RIGHT));
    cx.check(&TS_SHIFT, !shift_bad || four_byte(s.in_dtype()), || {
        detail(
            at!(S3d3Ts.in_dtype),
            s.in_dtype(),
            "a 4-byte dtype for this shift combination",
        )
    })?;
    let (src, dst) = (&s.src_mem_pattern(), &s.dst_mem_pattern());
    src_dst_valid(cx, s, src, dst)?;
    cx.check(
        &TS_COUNT,
        src.element_count() == dst.element_count(),
        || {
            detail(
                at!(S3d3Ts.dst_mem_pattern).num_elem::<3>(),
                count_text(dst),
                format!("src count {}", count_text(src)),
            )
        },
    )?;
    cx.check(&TS_REVERSE, s.reverse_operands().is_valid(gen), || {
        detail(
            at!(S3d3Ts.reverse_operands),
            s.reverse_operands(),
            enum_names::<RevOps>(gen),
        )
    })?;
    reserved_zero(cx, &TS_RESERVED, at!(S3d3Ts.reserved0), &s.reserved0().0)?;
    dtype_in(cx, s.in_dtype(), at!(S3d3Ts.in_dtype))?;
    dtype_out(cx, s.out_dtype(), at!(S3d3Ts.out_dtype))?;
    aluop_valid(cx, op0, at!(S3d3Ts.op0))?;
    aluop_valid(cx, op1, at!(S3d3Ts.op1))?;
    cx.check(&TS_ACCUM, s.accumulator_cmd() == AccumCmd::IDLE, || {
        detail(at!(S3d3Ts.accumulator_cmd), s.accumulator_cmd(), "idle")
    })?;
    let n = s.num_active_channels();
    channel_range(cx, n, at!(S3d3Ts.num_active_channels))?;
    start_addr_active_channels(cx, src.start_addr, n, at!(S3d3Ts.src_mem_pattern))?;
    start_addr_active_channels(cx, dst.start_addr, n, at!(S3d3Ts.dst_mem_pattern))?;
    Ok(())
}

/// `tensorNd_valid` of an `S3D3_TS` source (read, `in_dtype`) and destination (written,
/// `out_dtype`), each allowed in SBUF or PSUM (TensorScalar and TensorScalarCacheReduce).
#[inline(always)]
pub(super) fn src_dst_valid<const M: u8>(
    cx: &mut Ctx<M>,
    s: &View<'_, S3d3Ts>,
    src: &Tensor3,
    dst: &Tensor3,
) -> Flow {
    let rw = |at, dtype, write| Operand {
        at,
        dtype,
        write,
        psum: true,
        sbuf: true,
    };
    tensor_valid(
        cx,
        src,
        rw(at!(S3d3Ts.src_mem_pattern), s.in_dtype(), false),
    )?;
    tensor_valid(
        cx,
        dst,
        rw(at!(S3d3Ts.dst_mem_pattern), s.out_dtype(), true),
    )
}
