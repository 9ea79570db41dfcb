//! DMA_TRANSPOSE (0xBD, isa-facts-pe-act-dma §3.8): the family's executor,
//! `FamilyVisitor::dma_transpose` (the generated impl calls this).

use super::*;

/// Its cost formula (docs/engines.md "Published figures"): priced by the DMA model, not by a compute formula.
pub(in super::super) const COST: Formula = Formula::Dma;

pub(in super::super) fn execute(
    _: &mut Cx<'_>,
    row: Row,
    sem::DmaTranspose::Transpose: sem::DmaTranspose,
    _: &DmaDirect2dXpose,
) -> Executed {
    Err(not_executed(row))
}
