//! Iota (0x7E, isa-facts §9): the family's validator chain, `FamilyVisitor::iota` (the generated
//! impl calls this).

use super::*;

pub(in super::super) fn check<const M: u8>(
    cx: &mut Ctx<M>,
    _: &InstView<'_>,
    _: Row,
    sem::Iota::Iota: sem::Iota,
    s: View<'_, D4Iota>,
) -> Flow {
    chain::iota::check(cx, &s)
}
