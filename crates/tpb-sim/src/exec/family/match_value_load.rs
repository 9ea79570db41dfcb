//! MatchValueLoad (0x6D), an `S2_BN` sibling of ImmLd (isa-facts §6): the family's executor,
//! `FamilyVisitor::match_value_load` (the generated impl calls this).

use super::*;

/// Its cost formula (docs/engines.md "Published figures"): nothing published: `max(MIN_II, N)` (ASSUMED, assumption `engine-timing`).
pub(in super::super) const COST: Formula = Formula::Assumed;

pub(in super::super) fn execute(
    cx: &mut Cx<'_>,
    _: Row,
    sem::MatchValueLoad::MatchValueLoad: sem::MatchValueLoad,
    s: &S2Bn,
) -> Executed {
    exec::search::match_value_load(cx, s) // the lane match keys (isa-facts-dve-pool §16.4)
}
