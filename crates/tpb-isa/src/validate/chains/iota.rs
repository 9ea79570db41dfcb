//! `D4_IOTA`: `is_valid_iota` (isa-facts §9).

use super::super::common::*;
use super::super::{Confidence, Ctx, Flow};
use super::data_count_text;
use crate::wire::{D4Iota, View};
use Confidence::Observed;

rule!(
    IOTA_RESERVED,
    "d4_iota_reserved_zero",
    "reserved0..reserved2 are zero",
    "isa-facts §9",
    Observed
);
rule!(
    IOTA_COUNT,
    "d4_iota_same_src_dst_count",
    "d4d_element_count(src) == t4d_element_count(dst)",
    "isa-facts §9",
    Observed
);

#[inline(always)]
pub(super) fn check<const M: u8>(cx: &mut Ctx<M>, s: &View<'_, D4Iota>) -> Flow {
    reserved_zero(cx, &IOTA_RESERVED, at!(D4Iota.reserved0), &s.reserved0().0)?;
    reserved_zero(cx, &IOTA_RESERVED, at!(D4Iota.reserved1), &s.reserved1().0)?;
    reserved_zero(cx, &IOTA_RESERVED, at!(D4Iota.reserved2), &s.reserved2().0)?;
    dtype_out(cx, s.out_dtype(), at!(D4Iota.out_dtype))?;
    let n = s.num_active_channels();
    channel_range(cx, n, at!(D4Iota.num_active_channels))?;
    start_addr_active_channels(
        cx,
        s.dst_mem_pattern().start_addr,
        n,
        at!(D4Iota.dst_mem_pattern),
    )?;
    let dst = &s.dst_mem_pattern();
    tensor_valid(
        cx,
        dst,
        Operand {
            at: at!(D4Iota.dst_mem_pattern),
            dtype: s.out_dtype(),
            write: true,
            psum: true,
            sbuf: true,
        },
    )?;
    cx.check(
        &IOTA_COUNT,
        s.src_data_pattern().element_count() == dst.element_count(),
        || {
            detail(
                at!(D4Iota.dst_mem_pattern).num_elem::<4>(),
                count_text(dst),
                format!(
                    "src_data_pattern count {}",
                    data_count_text(&s.src_data_pattern())
                ),
            )
        },
    )?;
    Ok(())
}
