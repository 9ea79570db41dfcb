//! `S2D2_TS_AS`: `is_valid_s2d2_ts_as` (seed 002 §3.5).

use super::super::common::*;
use super::super::{Confidence, Ctx, Flow};
use super::data_count_text;
use crate::gen::Gen;
use crate::tables::{AffineSelectCmp, CodeEnum};
use crate::wire::{S2d2TsAs, View};
use Confidence::Observed;

rule!(
    AS_COUNT_SRC_DST,
    "s2d2_ts_as_valid_elem_count",
    "t2d_element_count(src) == t2d_element_count(dst)",
    "seed 002 §3.5",
    Observed
);
rule!(
    AS_COUNT_MASK,
    "s2d2_ts_as_valid_elem_count",
    "d4d_element_count(mask) == t2d_element_count(src)",
    "seed 002 §3.1",
    Observed
);
rule!(
    AS_CMP,
    "is_valid_enum",
    "fill_mode ∈ {gt, ge, eq, ne}",
    "seed 002 §3.3",
    Observed
);

#[inline(always)]
pub(super) fn check<const M: u8>(cx: &mut Ctx<M>, s: &View<'_, S2d2TsAs>) -> Flow {
    let gen = cx.gen;
    let n = s.num_active_channels();
    let (lo, hi) = (s.in_out_dtype().lo(), s.in_out_dtype().hi());
    channel_range(cx, n, at!(S2d2TsAs.num_active_channels))?;
    let psum = gen == Gen::Sunda; // seed 002 §7: SUNDA True, CAYMAN+ False
    tensor_valid(
        cx,
        &s.src_mem_pattern(),
        Operand {
            at: at!(S2d2TsAs.src_mem_pattern),
            dtype: lo,
            write: false,
            psum,
            sbuf: true,
        },
    )?;
    tensor_valid(
        cx,
        &s.dst_mem_pattern(),
        Operand {
            at: at!(S2d2TsAs.dst_mem_pattern),
            dtype: hi,
            write: true,
            psum,
            sbuf: true,
        },
    )?;
    start_addr_active_channels(
        cx,
        s.src_mem_pattern().start_addr,
        n,
        at!(S2d2TsAs.src_mem_pattern),
    )?;
    start_addr_active_channels(
        cx,
        s.dst_mem_pattern().start_addr,
        n,
        at!(S2d2TsAs.dst_mem_pattern),
    )?;
    let escape = gen != Gen::Sunda
        && (s.src_mem_pattern().start_addr.shape_from_register()
            || s.dst_mem_pattern().start_addr.shape_from_register());
    let (src, dst, mask) = (
        &s.src_mem_pattern(),
        &s.dst_mem_pattern(),
        &s.mask_pattern(),
    );
    cx.check(
        &AS_COUNT_SRC_DST,
        escape || src.element_count() == dst.element_count(),
        || {
            detail(
                at!(S2d2TsAs.dst_mem_pattern).num_elem::<2>(),
                count_text(dst),
                format!("src count {}", count_text(src)),
            )
        },
    )?;
    cx.check(
        &AS_COUNT_MASK,
        escape || mask.element_count() == src.element_count(),
        || {
            detail(
                at!(S2d2TsAs.mask_pattern).num_elem::<4>(),
                data_count_text(mask),
                format!("src count {}", count_text(src)),
            )
        },
    )?;
    dtype_out(cx, hi, at!(S2d2TsAs.in_out_dtype).part(".dtype_hi"))?;
    dtype_in(cx, lo, at!(S2d2TsAs.in_out_dtype).part(".dtype_lo"))?;
    cx.check(&AS_CMP, s.fill_mode().is_valid(gen), || {
        detail(
            at!(S2d2TsAs.fill_mode),
            s.fill_mode(),
            enum_names::<AffineSelectCmp>(gen),
        )
    })?;
    cx.check(
        &REGISTER_READ,
        (s.fill_reg() as u32) < crate::geometry::NUM_REGISTERS,
        || detail(at!(S2d2TsAs.fill_reg), s.fill_reg(), "0..=63"),
    )?;
    Ok(())
}
