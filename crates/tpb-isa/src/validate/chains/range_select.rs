//! `S2D2_RS`: RangeSelect (isa-facts §10.2).

use super::super::common::*;
use super::super::{Confidence, Ctx, Flow};
use super::immediates::imm_by_src;
use crate::gen::Gen;
use crate::tables::{AccumCmd, AluOp, Dtype, ImmSrc};
use crate::wire::{Header, S2d2Rs, View};
use Confidence::{Assumed, Observed};

rule!(
    RS_GEN,
    "has_valid_nc_rs",
    "RangeSelect exists from cayman (NC-v3)",
    "isa-facts §10.2",
    Observed
);
rule!(
    RS_REDUCE_CMD,
    "range_select_valid",
    "reduce_cmd ∈ {Idle, Accumulate, ZeroAccumulate}",
    "isa-facts §10.2",
    Observed
);
rule!(
    RS_REDUCE_OP,
    "range_select_valid",
    "reduce_op == Max",
    "isa-facts §10.2",
    Observed
);
rule!(
    RS_FILL,
    "range_select_valid",
    "fill_val bits == 0xff7fffff (−FLT_MAX)",
    "isa-facts §10.2",
    Observed
);
rule!(
    RS_BASE,
    "range_select_valid",
    "base + element count <= 2^24",
    "isa-facts §10.2",
    Observed
);
rule!(
    RS_CMP,
    "range_select_valid",
    "comp_op ∈ {is_eq, is_gt, is_ge, is_le, is_lt}",
    "isa-facts §10.2",
    Observed
);
rule!(
    RS_DTYPE_IN,
    "is_valid_fp_dtype_datapath",
    "input is fp8 ×3, fp16, bf16 or fp32",
    "isa-facts §10.2",
    Observed
);
rule!(
    RS_DTYPE_OUT,
    "is_valid_fp_dtype_datapath",
    "output is fp8 ×3, fp16, bf16, fp32 or fp32r",
    "isa-facts §10.2",
    Observed
);
rule!(
    RS_COUNT,
    "has_same_elem_count_rs_src_dst",
    "element count of src == of dst",
    "isa-facts §10.2",
    Observed
);
rule!(
    RS_RESERVED,
    "s2d2_rs_reserved_zero",
    "reserved1 is zero",
    "isa-facts §10.2",
    Assumed
);

#[inline(always)]
pub(super) fn check<const M: u8>(cx: &mut Ctx<M>, s: &View<'_, S2d2Rs>) -> Flow {
    let gen = cx.gen;
    cx.check(&RS_GEN, gen != Gen::Sunda, || {
        detail(
            at!(Header.opcode).under("header."),
            "RangeSelect",
            "cayman, mariana, maverick",
        )
    })?;
    let rc = s.reduce_cmd();
    cx.check(
        &RS_REDUCE_CMD,
        matches!(
            rc,
            AccumCmd::IDLE | AccumCmd::ACCUMULATE | AccumCmd::ZERO_ACCUMULATE
        ),
        || {
            detail(
                at!(S2d2Rs.reduce_cmd),
                rc,
                "idle, accumulate, zero_accumulate",
            )
        },
    )?;
    cx.check(&RS_REDUCE_OP, s.reduce_op() == AluOp::MAX, || {
        detail(at!(S2d2Rs.reduce_op), s.reduce_op(), "max")
    })?;
    cx.check(&RS_FILL, s.fill_val().0 == 0xFF7F_FFFF, || {
        detail(
            at!(S2d2Rs.fill_val),
            format!("{:#010x}", s.fill_val().0),
            "0xff7fffff",
        )
    })?;
    let count = s.src_mem_pattern().element_count() as f64;
    let base = s.base().value() as f64;
    cx.check(&RS_BASE, base + count <= 16_777_216.0, || {
        detail(
            at!(S2d2Rs.base),
            format!("{} + {count}", s.base().value()),
            "<= 2^24",
        )
    })?;
    for (o, at) in [
        (s.comp_op0(), at!(S2d2Rs.comp_op0)),
        (s.comp_op1(), at!(S2d2Rs.comp_op1)),
    ] {
        cx.check(&RS_CMP, matches!(o.0, 0x12..=0x16), || {
            detail(at, o, "is_eq, is_gt, is_ge, is_le, is_lt")
        })?;
    }
    let (lo, hi) = (s.in_out_dtype().lo(), s.in_out_dtype().hi());
    cx.check(&RS_DTYPE_IN, lo.is_fp_datapath(false), || {
        detail(
            at!(S2d2Rs.in_out_dtype).part(".dtype_lo"),
            lo,
            "fp8_exp3, fp8_exp4, fp8_exp5, fp16, bfloat16, fp32",
        )
    })?;
    cx.check(&RS_DTYPE_OUT, hi.is_fp_datapath(true), || {
        detail(
            at!(S2d2Rs.in_out_dtype).part(".dtype_hi"),
            hi,
            "fp8 ×3, fp16, bfloat16, fp32, fp32r",
        )
    })?;
    let n = s.num_active_channels();
    channel_range(cx, n, at!(S2d2Rs.num_active_channels))?;
    let (src, dst) = (&s.src_mem_pattern(), &s.dst_mem_pattern());
    tensor_valid(
        cx,
        src,
        Operand {
            at: at!(S2d2Rs.src_mem_pattern),
            dtype: lo,
            write: false,
            psum: true,
            sbuf: true,
        },
    )?;
    tensor_valid(
        cx,
        dst,
        Operand {
            at: at!(S2d2Rs.dst_mem_pattern),
            dtype: hi,
            write: true,
            psum: true,
            sbuf: true,
        },
    )?;
    cx.check(
        &RS_COUNT,
        src.element_count() == dst.element_count(),
        || {
            detail(
                at!(S2d2Rs.dst_mem_pattern).num_elem::<2>(),
                count_text(dst),
                format!("src count {}", count_text(src)),
            )
        },
    )?;
    for (src_kind, v, src_at, at) in [
        (
            s.bound0_src(),
            s.bound0(),
            at!(S2d2Rs.bound0_src),
            at!(S2d2Rs.bound0),
        ),
        (
            s.bound1_src(),
            s.bound1(),
            at!(S2d2Rs.bound1_src),
            at!(S2d2Rs.bound1),
        ),
    ] {
        if src_kind == ImmSrc::INSTRUCTION {
            continue; // any FP32 value
        }
        imm_by_src(cx, src_kind, v, src_at, at, false, Dtype::FP32, n)?;
    }
    start_addr_active_channels(cx, src.start_addr, n, at!(S2d2Rs.src_mem_pattern))?;
    start_addr_active_channels(cx, dst.start_addr, n, at!(S2d2Rs.dst_mem_pattern))?;
    reserved_zero(cx, &RS_RESERVED, at!(S2d2Rs.reserved1), &s.reserved1().0)?;
    Ok(())
}
