//! The search cluster: `is_valid_max8` / `is_valid_find_index8` (`S4D2_BN`) and
//! `is_valid_match_replace8` (`S4D4_MR`) (isa-facts-dve-pool §16.3). The sheet quotes the
//! validators as summaries; the clauses it does not quote but the byte map requires
//! (reserved bytes zero, channel range, descriptor validity) are tagged MED/INFERRED.

use super::super::common::*;
use super::super::{Confidence, Ctx, Flow};
use crate::opcode::sem;
use crate::tables::Dtype;
use crate::wire::View;
use crate::wire::{S4d2Bn, S4d4Mr};
use Confidence::{Inferred, Observed};

rule!(
    SEARCH_SRC_COUNT,
    "is_valid_max8 / is_valid_find_index8",
    "src element count in 8..=16384",
    "isa-facts-dve-pool §16.3",
    Observed
);
rule!(
    SEARCH_DST_COUNT,
    "is_valid_max8 / is_valid_find_index8",
    "dst element count == 8",
    "isa-facts-dve-pool §16.3",
    Observed
);
rule!(
    SEARCH_ZERO_COUNTS,
    "s4d2_bn_zero_counts",
    "even_count == 0.0 and odd_count == 0.0",
    "isa-facts-dve-pool §16.1, §16.3",
    Observed
);
rule!(
    FIND_INDEX8_DST_TYPE,
    "has_find_index8_dst_type",
    "out_dtype ∈ {uint16, uint32}",
    "isa-facts-dve-pool §16.3",
    Observed
);
rule!(
    SEARCH_RESERVED,
    "s4d2_bn_reserved_zero / s4d4_mr_reserved_zero",
    "reserved bytes are zero",
    "isa-facts-dve-pool §16.1, §16.2 (byte map: must be 0)",
    Inferred
);
rule!(
    MR_SRC_COUNT,
    "is_valid_match_replace8",
    "src element count <= 16384",
    "isa-facts-dve-pool §16.3",
    Observed
);
rule!(
    MR_COUNT,
    "is_valid_match_replace8",
    "src element count == dst element count",
    "isa-facts-dve-pool §16.3",
    Observed
);
rule!(
    MR_DTYPES,
    "match_replace_dtypes",
    "in and out ∈ {fp16, bfloat16, uint8, uint16, uint32, fp32, int32}",
    "isa-facts-dve-pool §16.3",
    Observed
);
rule!(
    SEARCH_TENSORS,
    "tensor4d_valid / tensor2d_valid",
    "src readable, dst writable, SBUF or PSUM (not quoted; as every DVE operand)",
    "isa-facts-dve-pool §16.3",
    Inferred
);

/// The largest search input per lane (isa-facts-dve-pool §16.3).
pub(crate) const SEARCH_MAX_ELEMENTS: u64 = 16384;

/// `match_replace_dtypes(d)`: the dtype set, and `is_valid_dtype` (so FP32R is refused).
pub(crate) const fn match_replace_dtype_ok(d: Dtype) -> bool {
    matches!(
        d,
        Dtype::FP16
            | Dtype::BFLOAT16
            | Dtype::UINT8
            | Dtype::UINT16
            | Dtype::UINT32
            | Dtype::FP32
            | Dtype::INT32
    )
}

/// `has_find_index8_dst_type(d)`.
pub(crate) const fn find_index8_dst_ok(d: Dtype) -> bool {
    matches!(d, Dtype::UINT16 | Dtype::UINT32)
}

pub(super) fn check_bn<const M: u8>(cx: &mut Ctx<M>, v: sem::Search, s: &View<'_, S4d2Bn>) -> Flow {
    let (src, dst) = (&s.src_mem_pattern(), &s.dst_mem_pattern());
    let n_src = src.element_count();
    cx.check(
        &SEARCH_SRC_COUNT,
        (8..=SEARCH_MAX_ELEMENTS).contains(&n_src),
        || {
            detail(
                at!(S4d2Bn.src_mem_pattern).num_elem::<4>(),
                count_text(src),
                "8..=16384",
            )
        },
    )?;
    cx.check(&SEARCH_DST_COUNT, dst.element_count() == 8, || {
        detail(
            at!(S4d2Bn.dst_mem_pattern).num_elem::<2>(),
            count_text(dst),
            "8",
        )
    })?;
    cx.check(
        &SEARCH_ZERO_COUNTS,
        s.even_count().0 == 0 && s.odd_count().0 == 0,
        || {
            detail2(
                at!(S4d2Bn.even_count),
                at!(S4d2Bn.odd_count),
                format!("{:#x}, {:#x}", s.even_count().0, s.odd_count().0),
                "0.0, 0.0",
            )
        },
    )?;
    dtype_in(cx, s.in_dtype(), at!(S4d2Bn.in_dtype))?;
    let find = match v {
        sem::Search::Max8 => false,
        sem::Search::FindIndex8 => true,
    };
    if find {
        cx.check(
            &FIND_INDEX8_DST_TYPE,
            find_index8_dst_ok(s.out_dtype()),
            || detail(at!(S4d2Bn.out_dtype), s.out_dtype(), "uint16, uint32"),
        )?;
    } else {
        dtype_out(cx, s.out_dtype(), at!(S4d2Bn.out_dtype))?;
    }
    let n = s.num_active_channels();
    channel_range(cx, n, at!(S4d2Bn.num_active_channels))?;
    reserved_zero(
        cx,
        &SEARCH_RESERVED,
        at!(S4d2Bn.reserved0),
        &s.reserved0().0,
    )?;
    reserved_zero(
        cx,
        &SEARCH_RESERVED,
        at!(S4d2Bn.reserved1),
        &s.reserved1().0,
    )?;
    let op = |at, dtype, write| Operand {
        at,
        dtype,
        write,
        psum: true,
        sbuf: true,
    };
    tensor_valid(
        cx,
        src,
        op(at!(S4d2Bn.src_mem_pattern), s.in_dtype(), false),
    )?;
    tensor_valid(
        cx,
        dst,
        op(at!(S4d2Bn.dst_mem_pattern), s.out_dtype(), true),
    )?;
    cx.check(&SEARCH_TENSORS, true, || {
        detail(at!(S4d2Bn.src_mem_pattern), "checked above", "SBUF or PSUM")
    })?;
    start_addr_active_channels(cx, src.start_addr, n, at!(S4d2Bn.src_mem_pattern))?;
    start_addr_active_channels(cx, dst.start_addr, n, at!(S4d2Bn.dst_mem_pattern))?;
    Ok(())
}

pub(super) fn check_mr<const M: u8>(cx: &mut Ctx<M>, s: &View<'_, S4d4Mr>) -> Flow {
    let (src, dst) = (&s.src_mem_pattern(), &s.dst_mem_pattern());
    cx.check(
        &MR_SRC_COUNT,
        src.element_count() <= SEARCH_MAX_ELEMENTS,
        || {
            detail(
                at!(S4d4Mr.src_mem_pattern).num_elem::<4>(),
                count_text(src),
                "<= 16384",
            )
        },
    )?;
    cx.check(
        &MR_COUNT,
        src.element_count() == dst.element_count(),
        || {
            detail(
                at!(S4d4Mr.dst_mem_pattern).num_elem::<4>(),
                count_text(dst),
                format!("src count {}", count_text(src)),
            )
        },
    )?;
    let n = s.num_active_channels();
    channel_range(cx, n, at!(S4d4Mr.num_active_channels))?;
    for (d, at) in [
        (s.in_dtype(), at!(S4d4Mr.in_dtype)),
        (s.out_dtype(), at!(S4d4Mr.out_dtype)),
    ] {
        cx.check(&MR_DTYPES, match_replace_dtype_ok(d), || {
            detail(at, d, "fp16, bfloat16, uint8, uint16, uint32, fp32, int32")
        })?;
    }
    reserved_zero(
        cx,
        &SEARCH_RESERVED,
        at!(S4d4Mr.reserved0),
        &s.reserved0().0,
    )?;
    let op = |at, dtype, write| Operand {
        at,
        dtype,
        write,
        psum: true,
        sbuf: true,
    };
    tensor_valid(
        cx,
        src,
        op(at!(S4d4Mr.src_mem_pattern), s.in_dtype(), false),
    )?;
    tensor_valid(
        cx,
        dst,
        op(at!(S4d4Mr.dst_mem_pattern), s.out_dtype(), true),
    )?;
    cx.check(&SEARCH_TENSORS, true, || {
        detail(at!(S4d4Mr.src_mem_pattern), "checked above", "SBUF or PSUM")
    })?;
    start_addr_active_channels(cx, src.start_addr, n, at!(S4d4Mr.src_mem_pattern))?;
    start_addr_active_channels(cx, dst.start_addr, n, at!(S4d4Mr.dst_mem_pattern))?;
    Ok(())
}
