//! DveReadIndices (0xe9, isa-facts-dve-pool §13.2): the family's executor,
//! `FamilyVisitor::dve_read_indices` (the generated impl calls this).

use super::*;

/// Its cost formula (docs/engines.md "Published figures"): nothing published: `max(MIN_II, N)` (ASSUMED, assumption `engine-timing`).
pub(in super::super) const COST: Formula = Formula::Assumed;

pub(in super::super) fn execute(
    cx: &mut Cx<'_>,
    _: Row,
    sem::DveReadIndices::DveReadIndices: sem::DveReadIndices,
    s: &D4Mr,
) -> Executed {
    exec::search::read_indices(cx, s) // the index flops MatchReplace8 leaves (17b)
}
