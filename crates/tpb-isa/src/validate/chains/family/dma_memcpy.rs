//! DMAMEMCPY (0xB8, isa-facts-pe-act-dma §3.4): the family's validator chain,
//! `FamilyVisitor::dma_memcpy` (the generated impl calls this).

use super::*;

pub(in super::super) fn check<const M: u8>(
    cx: &mut Ctx<M>,
    _: &InstView<'_>,
    _: Row,
    sem::DmaMemcpy::Direct2d: sem::DmaMemcpy,
    s: View<'_, DmaDirect2d>,
) -> Flow {
    chain::dma::check_memcpy(cx, &s.owned())
}
