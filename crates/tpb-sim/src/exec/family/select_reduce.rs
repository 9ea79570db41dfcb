//! SelectReduce (0xea), isa-facts-dve-pool §11: the family's executor,
//! `FamilyVisitor::select_reduce` (the generated impl calls this).

use super::*;

/// Its cost formula (docs/engines.md "Published figures"): nothing published: `max(MIN_II, N)` (ASSUMED, assumption `engine-timing`).
pub(in super::super) const COST: Formula = Formula::Assumed;

pub(in super::super) fn execute(
    cx: &mut Cx<'_>,
    row: Row,
    sem::SelectReduce::SelectReduce: sem::SelectReduce,
    s: &S2s2d2Stt,
) -> Executed {
    exec::stt::execute(cx, s, row, exec::stt::SttMode::Select)
}
