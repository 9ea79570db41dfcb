//! DMA_GATHER_TRANSPOSE (0xF1, isa-facts-pe-act-dma §3.9): the family's executor,
//! `FamilyVisitor::dma_gather_transpose` (the generated impl calls this).

use super::*;

/// Its cost formula (docs/engines.md "Published figures"): priced by the DMA model, not by a compute formula.
pub(in super::super) const COST: Formula = Formula::Dma;

pub(in super::super) fn execute(
    _: &mut Cx<'_>,
    row: Row,
    sem::DmaGatherTranspose::GatherTranspose: sem::DmaGatherTranspose,
    _: &DmaGatherXpose,
) -> Executed {
    Err(not_executed(row))
}
