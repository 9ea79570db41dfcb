//! DMA_MEMCPY2 (0xB9, maverick, isa-facts-pe-act-dma §3.10): the family's validator chain,
//! `FamilyVisitor::dma_memcpy2` (the generated impl calls this).

use super::*;

pub(in super::super) fn check<const M: u8>(
    cx: &mut Ctx<M>,
    _: &InstView<'_>,
    _: Row,
    sem::DmaMemcpy2::Copy2d: sem::DmaMemcpy2,
    s: View<'_, DmaCopy2d>,
) -> Flow {
    chain::dma::check_copy2d(cx, &s.owned())
}
