//! RangeSelect (0xBC, isa-facts §10.2): the family's executor, `FamilyVisitor::range_select` (the
//! generated impl calls this).

use super::*;

pub(in super::super) fn execute(
    cx: &mut Cx<'_>,
    _: Row,
    sem::RangeSelect::RangeSelect: sem::RangeSelect,
    s: &S2d2Rs,
) -> Executed {
    exec::range_select::execute(cx, s)
}
