//! DMA_GATHER_TRANSPOSE (0xF1, isa-facts-pe-act-dma §3.9): the family's validator chain,
//! `FamilyVisitor::dma_gather_transpose` (the generated impl calls this).

use super::*;

pub(in super::super) fn check<const M: u8>(
    cx: &mut Ctx<M>,
    _: &InstView<'_>,
    _: Row,
    sem::DmaGatherTranspose::GatherTranspose: sem::DmaGatherTranspose,
    s: View<'_, DmaGatherXpose>,
) -> Flow {
    chain::dma::check_gather_transpose(cx, &s.owned())
}
