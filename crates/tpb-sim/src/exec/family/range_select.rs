//! RangeSelect (0xBC, isa-facts §10.2): the family's executor, `FamilyVisitor::range_select` (the
//! generated impl calls this).

use super::*;

/// Its cost formula (docs/engines.md "Published figures"): `max(MIN_II, N)` (ISA-2.26).
pub(in super::super) const COST: Formula = Formula::MinIi { perf_mode: false };

pub(in super::super) fn execute(
    cx: &mut Cx<'_>,
    _: Row,
    sem::RangeSelect::RangeSelect: sem::RangeSelect,
    s: &S2d2Rs,
) -> Executed {
    exec::range_select::execute(cx, s)
}
