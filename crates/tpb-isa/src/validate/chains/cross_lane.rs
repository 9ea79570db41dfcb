//! `S4D4_CR`: `is_valid_cross_lane_reduce` (0x7c / 0x7d), clause by clause in the header's
//! order (isa-facts-dve-pool §8.3), plus the op/opcode pairing the compiler's roster names
//! but no page quotes (ASSUMED, Q12).

use super::super::common::*;
use super::super::{Confidence, Ctx, Flow};
use crate::opcode::sem;
use crate::tables::{ReduceAxis, ReduceOp};
use crate::wire::S4d4Cr;
use crate::wire::View;
use Confidence::{Assumed, Observed};

rule!(
    CR_RESERVED,
    "s4d4_cr_reserved_zero",
    "reserved0[0..3] == 0",
    "isa-facts-dve-pool §8.3",
    Observed
);
rule!(
    CR_AXIS,
    "valid_reduce_axis_enum",
    "reduce_axis ∈ {all (0), partitions (1)}",
    "isa-facts-dve-pool §8.3",
    Observed
);
rule!(
    CR_DST_COUNT,
    "valid_axis_dst_element_cnt",
    "all ⇒ dst has one element (or a register shape); partitions ⇒ dst count == src count",
    "isa-facts-dve-pool §8.3",
    Observed
);
rule!(
    CR_OP,
    "valid_reduce_op_for_opcode",
    "0x7c ⇒ reduce_op ∈ {add, average, max}; 0x7d ⇒ {bitwise_or, bitwise_and, bitwise_xor} with integer in == out (body not public)",
    "isa-facts-dve-pool §8.3, Q12",
    Assumed
);

/// `valid_reduce_op_for_opcode` as tpb assumes it (Q12).
pub(crate) fn cross_lane_op_ok(bitvec: bool, s: &View<'_, S4d4Cr>) -> bool {
    if bitvec {
        matches!(
            s.reduce_op(),
            ReduceOp::BITWISE_OR | ReduceOp::BITWISE_AND | ReduceOp::BITWISE_XOR
        ) && s.in_dtype() == s.out_dtype()
            && s.in_dtype().is_int_datapath()
    } else {
        matches!(
            s.reduce_op(),
            ReduceOp::ADD | ReduceOp::AVERAGE | ReduceOp::MAX
        )
    }
}

/// `valid_axis_dst_element_cnt`.
pub(crate) fn cross_lane_dst_count_ok(s: &View<'_, S4d4Cr>) -> bool {
    let dst = &s.dst_mem_pattern();
    match s.reduce_axis() {
        ReduceAxis::ALL => dst.start_addr.shape_from_register() || dst.num_elem == [1, 1, 1, 1],
        ReduceAxis::PARTITIONS => dst.element_count() == s.src_mem_pattern().element_count(),
        _ => false,
    }
}

pub(super) fn check<const M: u8>(
    cx: &mut Ctx<M>,
    v: sem::CrossLaneReduce,
    s: &View<'_, S4d4Cr>,
) -> Flow {
    let bitvec = match v {
        sem::CrossLaneReduce::Arith => false,
        sem::CrossLaneReduce::Bitvec => true,
    };
    reserved_zero(cx, &CR_RESERVED, at!(S4d4Cr.reserved0), &s.reserved0().0)?;
    dtype_in(cx, s.in_dtype(), at!(S4d4Cr.in_dtype))?;
    dtype_out(cx, s.out_dtype(), at!(S4d4Cr.out_dtype))?;
    let n = s.num_active_channels();
    let (src, dst) = (&s.src_mem_pattern(), &s.dst_mem_pattern());
    start_addr_active_channels(cx, src.start_addr, n, at!(S4d4Cr.src_mem_pattern))?;
    start_addr_active_channels(cx, dst.start_addr, 1, at!(S4d4Cr.dst_mem_pattern))?;
    channel_range(cx, n, at!(S4d4Cr.num_active_channels))?;
    let sbuf_only = |at, dtype, write| Operand {
        at,
        dtype,
        write,
        psum: false,
        sbuf: true,
    };
    tensor_valid(
        cx,
        src,
        sbuf_only(at!(S4d4Cr.src_mem_pattern), s.in_dtype(), false),
    )?;
    tensor_valid(
        cx,
        dst,
        sbuf_only(at!(S4d4Cr.dst_mem_pattern), s.out_dtype(), true),
    )?;
    cx.check(&CR_AXIS, s.reduce_axis().0 <= 1, || {
        detail(at!(S4d4Cr.reduce_axis), s.reduce_axis(), "all, partitions")
    })?;
    cx.check(&CR_DST_COUNT, cross_lane_dst_count_ok(s), || {
        detail(
            at!(S4d4Cr.dst_mem_pattern).num_elem::<4>(),
            count_text(dst),
            format!(
                "1 for reduce_axis all; src count {} for partitions",
                count_text(src)
            ),
        )
    })?;
    cx.check(&CR_OP, cross_lane_op_ok(bitvec, s), || {
        detail(
            at!(S4d4Cr.reduce_op),
            format!("{} ({} -> {})", s.reduce_op(), s.in_dtype(), s.out_dtype()),
            if bitvec {
                "bitwise_or, bitwise_and, bitwise_xor with integer in == out"
            } else {
                "add, average, max"
            },
        )
    })?;
    Ok(())
}
