//! `S3D3_TS_SELECT`: TensorScalarSelect (isa-facts §10.1).

use super::super::common::*;
use super::super::{Confidence, Ctx, Flow};
use super::immediates::imm_by_src;
use crate::tables::ImmSrc;
use crate::wire::{S3d3TsSelect, View};
use Confidence::{Assumed, Inferred};

rule!(
    SEL_DTYPE_PRED,
    "tensor_scalar_select_dtypes",
    "pred_imm_dtype is an 8/16/32-bit integer of the same width as dtype",
    "isa-facts §10.1",
    Inferred
);
rule!(
    SEL_REVERSED,
    "tensor_scalar_select_valid",
    "reversed_pred ∈ {0, 1}",
    "isa-facts §10.1",
    Inferred
);
rule!(
    SEL_PRED_INLINE,
    "tensor_scalar_select_valid",
    "an instruction-immediate predicate is 0 or 1",
    "isa-facts §10.1",
    Inferred
);
rule!(
    SEL_RESERVED,
    "s3d3_ts_select_reserved_zero",
    "reserved0 and reserved1 are zero",
    "isa-facts §10.1",
    Assumed
);
rule!(
    SEL_COUNT,
    "same_element_count_m3d",
    "element count of src0 == of dst",
    "isa-facts §10.1",
    Inferred
);

#[inline(always)]
pub(super) fn check<const M: u8>(cx: &mut Ctx<M>, s: &View<'_, S3d3TsSelect>) -> Flow {
    dtype_in(cx, s.dtype(), at!(S3d3TsSelect.dtype))?;
    let p = s.pred_imm_dtype();
    cx.check(
        &SEL_DTYPE_PRED,
        p.is_int_datapath() && p.size() == s.dtype().size(),
        || {
            detail(
                at!(S3d3TsSelect.pred_imm_dtype),
                p,
                format!("an integer type of {} bytes", s.dtype().size().unwrap_or(0)),
            )
        },
    )?;
    cx.check(&SEL_REVERSED, s.reversed_pred() <= 1, || {
        detail(at!(S3d3TsSelect.reversed_pred), s.reversed_pred(), "0, 1")
    })?;
    if s.pred_imm_src() == ImmSrc::INSTRUCTION {
        cx.check(&SEL_PRED_INLINE, s.pred_imm().0 <= 1, || {
            detail(at!(S3d3TsSelect.pred_imm), s.pred_imm().0, "0, 1")
        })?;
    } else {
        imm_by_src(
            cx,
            s.pred_imm_src(),
            s.pred_imm(),
            at!(S3d3TsSelect.pred_imm_src),
            at!(S3d3TsSelect.pred_imm),
            true,
            p,
            s.num_active_channels(),
        )?;
    }
    if s.src1_imm_src() != ImmSrc::INSTRUCTION {
        imm_by_src(
            cx,
            s.src1_imm_src(),
            s.src1_imm(),
            at!(S3d3TsSelect.src1_imm_src),
            at!(S3d3TsSelect.src1_imm),
            true,
            s.dtype(),
            s.num_active_channels(),
        )?;
    }
    reserved_zero(
        cx,
        &SEL_RESERVED,
        at!(S3d3TsSelect.reserved0),
        &s.reserved0().0,
    )?;
    reserved_zero(
        cx,
        &SEL_RESERVED,
        at!(S3d3TsSelect.reserved1),
        &s.reserved1().0,
    )?;
    let n = s.num_active_channels();
    channel_range(cx, n, at!(S3d3TsSelect.num_active_channels))?;
    let (src, dst) = (&s.src0_mem_pattern(), &s.dst_mem_pattern());
    let rw = |at, write| Operand {
        at,
        dtype: s.dtype(),
        write,
        psum: true,
        sbuf: true,
    };
    tensor_valid(cx, src, rw(at!(S3d3TsSelect.src0_mem_pattern), false))?;
    tensor_valid(cx, dst, rw(at!(S3d3TsSelect.dst_mem_pattern), true))?;
    cx.check(
        &SEL_COUNT,
        src.element_count() == dst.element_count(),
        || {
            detail(
                at!(S3d3TsSelect.dst_mem_pattern).num_elem::<3>(),
                count_text(dst),
                format!("src0 count {}", count_text(src)),
            )
        },
    )?;
    start_addr_active_channels(cx, src.start_addr, n, at!(S3d3TsSelect.src0_mem_pattern))?;
    start_addr_active_channels(cx, dst.start_addr, n, at!(S3d3TsSelect.dst_mem_pattern))?;
    Ok(())
}
