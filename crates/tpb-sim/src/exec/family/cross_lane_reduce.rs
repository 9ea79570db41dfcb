//! CrossLaneReduce (0x7c/0x7d), isa-facts-dve-pool §8: the family's executor,
//! `FamilyVisitor::cross_lane_reduce` (the generated impl calls this).

use super::*;

/// Its cost formula (docs/engines.md "Published figures"): nothing published: `max(MIN_II, N)` (ASSUMED, assumption `engine-timing`).
pub(in super::super) const COST: Formula = Formula::Assumed;

pub(in super::super) fn execute(
    cx: &mut Cx<'_>,
    _: Row,
    sem: sem::CrossLaneReduce,
    s: &S4d4Cr,
) -> Executed {
    let bitvec = match sem {
        sem::CrossLaneReduce::Arith => false,
        sem::CrossLaneReduce::Bitvec => true,
    };
    exec::cross_lane::execute(cx, s, bitvec)
}
