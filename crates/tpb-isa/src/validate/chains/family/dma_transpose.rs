//! DMA_TRANSPOSE (0xBD, isa-facts-pe-act-dma §3.8): the family's validator chain,
//! `FamilyVisitor::dma_transpose` (the generated impl calls this).

use super::*;

pub(in super::super) fn check<const M: u8>(
    cx: &mut Ctx<M>,
    _: &InstView<'_>,
    _: Row,
    sem::DmaTranspose::Transpose: sem::DmaTranspose,
    s: View<'_, DmaDirect2dXpose>,
) -> Flow {
    chain::dma::check_transpose(cx, &s.owned())
}
