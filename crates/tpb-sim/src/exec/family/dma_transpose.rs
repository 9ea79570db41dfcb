//! DMA_TRANSPOSE (0xBD, isa-facts-pe-act-dma §3.8): the family's executor,
//! `FamilyVisitor::dma_transpose` (the generated impl calls this).

use super::*;

pub(in super::super) fn execute(
    _: &mut Cx<'_>,
    row: Row,
    sem::DmaTranspose::Transpose: sem::DmaTranspose,
    _: &DmaDirect2dXpose,
) -> Executed {
    Err(not_executed(row))
}
