//! Reciprocal (0x48, isa-facts-dve-pool §5): the family's validator chain,
//! `FamilyVisitor::reciprocal` (the generated impl calls this).

use super::*;

pub(in super::super) fn check<const M: u8>(
    cx: &mut Ctx<M>,
    _: &InstView<'_>,
    _: Row,
    sem::Reciprocal::Reciprocal: sem::Reciprocal,
    s: View<'_, S4d4Tr>,
) -> Flow {
    chain::s4d4_tr::check_reciprocal(cx, &s)
}
