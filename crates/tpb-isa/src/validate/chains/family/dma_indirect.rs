//! DMA_INDIRECT (0xBB, isa-facts-pe-act-dma §3.7): the family's validator chain,
//! `FamilyVisitor::dma_indirect` (the generated impl calls this).

use super::*;

pub(in super::super) fn check<const M: u8>(
    cx: &mut Ctx<M>,
    _: &InstView<'_>,
    _: Row,
    sem::DmaIndirect::Indirect1d: sem::DmaIndirect,
    s: View<'_, DmaIndirect1d>,
) -> Flow {
    chain::dma::check_indirect(cx, &s.owned())
}
