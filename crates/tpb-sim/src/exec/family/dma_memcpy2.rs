//! DMA_MEMCPY2 (0xB9, maverick, isa-facts-pe-act-dma §3.10): the family's executor,
//! `FamilyVisitor::dma_memcpy2` (the generated impl calls this).

use super::*;

/// Its cost formula (docs/engines.md "Published figures"): priced by the DMA model, not by a compute formula.
pub(in super::super) const COST: Formula = Formula::Dma;

pub(in super::super) fn execute(
    _: &mut Cx<'_>,
    row: Row,
    sem::DmaMemcpy2::Copy2d: sem::DmaMemcpy2,
    _: &DmaCopy2d,
) -> Executed {
    Err(not_executed(row))
}
