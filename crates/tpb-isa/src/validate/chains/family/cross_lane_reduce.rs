//! CrossLaneReduce (0x7c/0x7d), isa-facts-dve-pool §8: the family's validator chain,
//! `FamilyVisitor::cross_lane_reduce` (the generated impl calls this).

use super::*;

pub(in super::super) fn check<const M: u8>(
    cx: &mut Ctx<M>,
    _: &InstView<'_>,
    _: Row,
    v: sem::CrossLaneReduce,
    s: View<'_, S4d4Cr>,
) -> Flow {
    chain::cross_lane::check(cx, v, &s)
}
