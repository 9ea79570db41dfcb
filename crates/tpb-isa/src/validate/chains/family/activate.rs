//! Activate (0x21, isa-facts-pe-act-dma §2.2): the family's validator chain,
//! `FamilyVisitor::activate` (the generated impl calls this).

use super::*;

pub(in super::super) fn check<const M: u8>(
    cx: &mut Ctx<M>,
    _: &InstView<'_>,
    _: Row,
    sem::Activate::Activate: sem::Activate,
    s: View<'_, S3d3Ac>,
) -> Flow {
    chain::act::check_activate(cx, &s)
}
