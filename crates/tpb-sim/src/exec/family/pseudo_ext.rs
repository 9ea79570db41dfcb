//! PSEUDO_EXTENSION (0xDA, host only, isa-facts-pe-act-dma §3.6): the family's executor,
//! `FamilyVisitor::pseudo_ext` (the generated impl calls this).

use super::*;

/// Its cost formula (docs/engines.md "Published figures"): priced by the DMA model, not by a compute formula.
pub(in super::super) const COST: Formula = Formula::Dma;

pub(in super::super) fn execute(
    _: &mut Cx<'_>,
    row: Row,
    sem::PseudoExt::Extension: sem::PseudoExt,
    _: &PseudoDmaExt,
) -> Executed {
    Err(not_executed(row))
}
