//! DMA_IMMEDIATE (0xBA, maverick, isa-facts-pe-act-dma §3.11): the family's executor,
//! `FamilyVisitor::dma_immediate` (the generated impl calls this).

use super::*;

/// Its cost formula (docs/engines.md "Published figures"): priced by the DMA model, not by a compute formula.
pub(in super::super) const COST: Formula = Formula::Dma;

pub(in super::super) fn execute(
    _: &mut Cx<'_>,
    row: Row,
    sem::DmaImmediate::Descriptors: sem::DmaImmediate,
    _: &DmaImmediate,
) -> Executed {
    Err(not_executed(row))
}
