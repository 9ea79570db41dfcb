//! DMA_IMMEDIATE (0xBA, maverick, isa-facts-pe-act-dma §3.11): the family's validator chain,
//! `FamilyVisitor::dma_immediate` (the generated impl calls this).

use super::*;

pub(in super::super) fn check<const M: u8>(
    cx: &mut Ctx<M>,
    _: &InstView<'_>,
    _: Row,
    sem::DmaImmediate::Descriptors: sem::DmaImmediate,
    s: View<'_, DmaImmediate>,
) -> Flow {
    chain::dma::check_immediate(cx, &s.owned())
}
