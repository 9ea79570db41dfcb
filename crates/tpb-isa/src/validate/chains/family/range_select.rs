//! RangeSelect (0xBC, isa-facts §10.2): the family's validator chain, `FamilyVisitor::range_select`
//! (the generated impl calls this).

use super::*;

pub(in super::super) fn check<const M: u8>(
    cx: &mut Ctx<M>,
    _: &InstView<'_>,
    _: Row,
    sem::RangeSelect::RangeSelect: sem::RangeSelect,
    s: View<'_, S2d2Rs>,
) -> Flow {
    chain::range_select::check(cx, &s)
}
