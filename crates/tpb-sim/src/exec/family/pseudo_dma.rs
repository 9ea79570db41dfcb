//! PSEUDO_DMA_DIRECT2D (0xD4, host only, isa-facts-pe-act-dma §3.6): the family's executor,
//! `FamilyVisitor::pseudo_dma` (the generated impl calls this).

use super::*;

/// Its cost formula (docs/engines.md "Published figures"): priced by the DMA model, not by a compute formula.
pub(in super::super) const COST: Formula = Formula::Dma;

pub(in super::super) fn execute(
    _: &mut Cx<'_>,
    row: Row,
    sem::PseudoDma::Lowered: sem::PseudoDma,
    _: &PseudoDmaDirect2d,
) -> Executed {
    Err(not_executed(row))
}
