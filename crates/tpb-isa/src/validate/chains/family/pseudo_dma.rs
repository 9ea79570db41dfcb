//! PSEUDO_DMA_DIRECT2D (0xD4, host only, isa-facts-pe-act-dma §3.6): the family's validator chain,
//! `FamilyVisitor::pseudo_dma` (the generated impl calls this).

use super::*;

pub(in super::super) fn check<const M: u8>(
    cx: &mut Ctx<M>,
    _: &InstView<'_>,
    _: Row,
    sem::PseudoDma::Lowered: sem::PseudoDma,
    s: View<'_, PseudoDmaDirect2d>,
) -> Flow {
    chain::dma::check_pseudo(cx, &s.owned())
}
