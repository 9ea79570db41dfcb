//! Activate2 (0x25, isa-facts-pe-act-dma §2.6): the family's validator chain,
//! `FamilyVisitor::activate2` (the generated impl calls this).

use super::*;

pub(in super::super) fn check<const M: u8>(
    cx: &mut Ctx<M>,
    _: &InstView<'_>,
    _: Row,
    sem::Activate2::Activate2: sem::Activate2,
    s: View<'_, S2d2Ac>,
) -> Flow {
    chain::act::check_activate2(cx, &s)
}
