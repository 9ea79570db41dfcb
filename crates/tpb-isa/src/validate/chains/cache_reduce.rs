//! `S3D3_TS` cache ops `is_valid_tensor_scalar_cache_reduce` (0x9a) /
//! `_cumulative` (0xe6), and `D1_RD`'s `is_valid_dve_read_accumulator` (0x9b)
//! (isa-facts-dve-pool §12.3, §13.1).

use super::super::common::*;
use super::super::{Confidence, Ctx, Flow};
use super::immediates::imm_by_src;
use crate::tables::{AccumCmd, AluOp, Dtype, ImmSrc, RevOps};
use crate::wire::View;
use crate::wire::{D1Rd, S3d3Ts};
use Confidence::Observed;

rule!(
    CR_OPS,
    "tensor_scalar_cache_reduce_valid_ops",
    "is_general_arith_op(op0) && is_valid_cache_reduce_op(op1): op1 ∈ {add, subtract, mult, max, min}",
    "isa-facts-dve-pool §12.3",
    Observed
);
rule!(
    CR_TYPES,
    "tensor_scalar_cache_reduce_valid_types",
    "in_dtype is an fp datapath type (no fp32r) or an 8/16-bit integer",
    "isa-facts-dve-pool §12.3",
    Observed
);
rule!(
    CR_IMM1,
    "tensor_scalar_cache_reduce_immediates_check",
    "imm1 is used only by LoadAccumulate; otherwise imm1_src == 0 and imm1 == 0",
    "isa-facts-dve-pool §12.3",
    Observed
);
rule!(
    CR_COUNT,
    "same_element_count_m3d",
    "element count of src == of dst",
    "isa-facts-dve-pool §12.3",
    Observed
);
rule!(
    CR_REVERSE,
    "tensor_scalar_cache_reduce_reverse_chk",
    "reverse_operands == None (the header beats the compiler's scan-direction reading)",
    "isa-facts-dve-pool §12.3, §0.2 decision 7",
    Observed
);
rule!(
    CR_RESERVED,
    "s3d3_ts_reserved_zero",
    "reserved0 is zero",
    "isa-facts-dve-pool §12.3",
    Observed
);
rule!(
    CR_ACCUM,
    "has_valid_tensor_scalar_cache_reduce_accum_cmd",
    "accumulator_cmd ∈ {ZeroAccumulate, Accumulate, LoadAccumulate}",
    "isa-facts-dve-pool §12.3",
    Observed
);
rule!(
    RD_TYPE,
    "dve_read_accumulator_type_check",
    "dtype is fp8 ×3, fp16, bfloat16, fp32 or fp32r",
    "isa-facts-dve-pool §13.1",
    Observed
);
rule!(
    RD_CHANNELS,
    "dve_read_accumulator_channels",
    "num_active_channels <= POOLING_NUM_CHANNELS (128)",
    "isa-facts-dve-pool §13.1",
    Observed
);
rule!(
    RD_SIZE,
    "read_accumulator_dst_size",
    "dst_element_count == 1",
    "isa-facts-dve-pool §13.1",
    Observed
);
rule!(
    RD_NEGATED,
    "d1_rd_has_valid_negated_field",
    "negated ∈ {0, 1}",
    "isa-facts-dve-pool §13.1",
    Observed
);
rule!(
    RD_RESERVED,
    "d1_rd_reserved_zero",
    "reserved0, reserved1 and reserved2 are zero",
    "isa-facts-dve-pool §13.1",
    Observed
);

/// `is_valid_cache_reduce_op(op)`.
pub(crate) const fn is_valid_cache_reduce_op(op: AluOp) -> bool {
    matches!(
        op,
        AluOp::ADD | AluOp::SUBTRACT | AluOp::MULT | AluOp::MAX | AluOp::MIN
    )
}

/// `tensor_scalar_cache_reduce_valid_types(in_dtype)`.
pub(crate) const fn cache_reduce_type_ok(d: Dtype) -> bool {
    d.is_fp_datapath(false) || (d.is_int_datapath() && !matches!(d, Dtype::INT32 | Dtype::UINT32))
}

/// `has_valid_tensor_scalar_cache_reduce_accum_cmd`.
pub(crate) const fn cache_reduce_accum_ok(cmd: AccumCmd) -> bool {
    matches!(
        cmd,
        AccumCmd::ZERO_ACCUMULATE | AccumCmd::ACCUMULATE | AccumCmd::LOAD_ACCUMULATE
    )
}

pub(super) fn check<const M: u8>(cx: &mut Ctx<M>, s: &View<'_, S3d3Ts>) -> Flow {
    let gen = cx.gen;
    let (op0, op1) = (s.op0(), s.op1());
    cx.check(
        &CR_OPS,
        op0.is_general_arith_op(gen) && is_valid_cache_reduce_op(op1),
        || {
            detail2(
                at!(S3d3Ts.op0),
                at!(S3d3Ts.op1),
                format!("{op0}, {op1}"),
                "op0 a general arith op; op1 add, subtract, mult, max or min",
            )
        },
    )?;
    cx.check(&CR_TYPES, cache_reduce_type_ok(s.in_dtype()), || {
        detail(
            at!(S3d3Ts.in_dtype),
            s.in_dtype(),
            "fp8_exp3, fp8_exp4, fp8_exp5, fp16, bfloat16, fp32, int8, int16, uint8, uint16",
        )
    })?;
    let n = s.num_active_channels();
    imm_by_src(
        cx,
        s.imm0_src(),
        s.imm0(),
        at!(S3d3Ts.imm0_src),
        at!(S3d3Ts.imm0),
        false,
        s.in_dtype(),
        n,
    )?;
    if s.accumulator_cmd() == AccumCmd::LOAD_ACCUMULATE {
        imm_by_src(
            cx,
            s.imm1_src(),
            s.imm1(),
            at!(S3d3Ts.imm1_src),
            at!(S3d3Ts.imm1),
            false,
            s.in_dtype(),
            n,
        )?;
    } else {
        cx.check(
            &CR_IMM1,
            s.imm1_src() == ImmSrc::INSTRUCTION && s.imm1().0 == 0,
            || {
                detail2(
                    at!(S3d3Ts.imm1_src),
                    at!(S3d3Ts.imm1),
                    format!("{}, {:#x}", s.imm1_src(), s.imm1().0),
                    "imm, 0 unless accumulator_cmd is load_accumulate",
                )
            },
        )?;
    }
    let (src, dst) = (&s.src_mem_pattern(), &s.dst_mem_pattern());
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
    )?;
    cx.check(
        &CR_COUNT,
        src.element_count() == dst.element_count(),
        || {
            detail(
                at!(S3d3Ts.dst_mem_pattern).num_elem::<3>(),
                count_text(dst),
                format!("src count {}", count_text(src)),
            )
        },
    )?;
    cx.check(&CR_REVERSE, s.reverse_operands() == RevOps::NONE, || {
        detail(at!(S3d3Ts.reverse_operands), s.reverse_operands(), "none")
    })?;
    reserved_zero(cx, &CR_RESERVED, at!(S3d3Ts.reserved0), &s.reserved0().0)?;
    cx.check(
        &CR_ACCUM,
        cache_reduce_accum_ok(s.accumulator_cmd()),
        || {
            detail(
                at!(S3d3Ts.accumulator_cmd),
                s.accumulator_cmd(),
                "zero_accumulate, accumulate, load_accumulate",
            )
        },
    )?;
    dtype_in(cx, s.in_dtype(), at!(S3d3Ts.in_dtype))?;
    dtype_out(cx, s.out_dtype(), at!(S3d3Ts.out_dtype))?;
    aluop_valid(cx, op0, at!(S3d3Ts.op0))?;
    aluop_valid(cx, op1, at!(S3d3Ts.op1))?;
    channel_range(cx, n, at!(S3d3Ts.num_active_channels))?;
    start_addr_active_channels(cx, src.start_addr, n, at!(S3d3Ts.src_mem_pattern))?;
    start_addr_active_channels(cx, dst.start_addr, n, at!(S3d3Ts.dst_mem_pattern))?;
    Ok(())
}

pub(super) fn check_read_accumulator<const M: u8>(cx: &mut Ctx<M>, s: &View<'_, D1Rd>) -> Flow {
    cx.check(&RD_TYPE, s.dtype().is_fp_datapath(true), || {
        detail(
            at!(D1Rd.dtype),
            s.dtype(),
            "fp8_exp3, fp8_exp4, fp8_exp5, fp16, bfloat16, fp32, fp32r",
        )
    })?;
    cx.check(&RD_CHANNELS, s.num_active_channels() <= 128, || {
        detail(
            at!(D1Rd.num_active_channels),
            s.num_active_channels(),
            "0..=128",
        )
    })?;
    tensor_valid(
        cx,
        &s.dst_mem_pattern(),
        Operand {
            at: at!(D1Rd.dst_mem_pattern),
            dtype: s.dtype(),
            write: true,
            psum: true,
            sbuf: true,
        },
    )?;
    cx.check(&RD_SIZE, s.dst_element_count() == 1, || {
        detail(at!(D1Rd.dst_element_count), s.dst_element_count(), "1")
    })?;
    cx.check(&RD_NEGATED, s.negated() <= 1, || {
        detail(at!(D1Rd.negated), s.negated(), "0 or 1")
    })?;
    for (at, bytes) in [
        (at!(D1Rd.reserved0), &s.reserved0().0[..]),
        (at!(D1Rd.reserved1), &s.reserved1().0[..]),
        (at!(D1Rd.reserved2), &s.reserved2().0[..]),
    ] {
        reserved_zero(cx, &RD_RESERVED, at, bytes)?;
    }
    Ok(())
}
