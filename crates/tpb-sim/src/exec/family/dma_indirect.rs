//! DMA_INDIRECT (0xBB, isa-facts-pe-act-dma §3.7): the family's executor,
//! `FamilyVisitor::dma_indirect` (the generated impl calls this).

use super::*;

pub(in super::super) fn execute(
    _: &mut Cx<'_>,
    row: Row,
    sem::DmaIndirect::Indirect1d: sem::DmaIndirect,
    _: &DmaIndirect1d,
) -> Executed {
    Err(not_executed(row))
}
