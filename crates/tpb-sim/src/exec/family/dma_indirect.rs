//! DMA_INDIRECT (0xBB, isa-facts-pe-act-dma §3.7): the family's executor,
//! `FamilyVisitor::dma_indirect` (the generated impl calls this).

use super::*;

/// Its cost formula (docs/engines.md "Published figures"): priced by the DMA model, not by a compute formula.
pub(in super::super) const COST: Formula = Formula::Dma;

pub(in super::super) fn execute(
    _: &mut Cx<'_>,
    row: Row,
    sem::DmaIndirect::Indirect1d: sem::DmaIndirect,
    _: &DmaIndirect1d,
) -> Executed {
    Err(not_executed(row))
}
