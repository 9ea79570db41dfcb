//! DMAMEMCPY (0xB8, isa-facts-pe-act-dma §3.4): the family's executor, `FamilyVisitor::dma_memcpy`
//! (the generated impl calls this).

use super::*;

/// Its cost formula (docs/engines.md "Published figures"): priced by the DMA model, not by a compute formula.
pub(in super::super) const COST: Formula = Formula::Dma;

pub(in super::super) fn execute(
    cx: &mut Cx<'_>,
    _: Row,
    sem::DmaMemcpy::Direct2d: sem::DmaMemcpy,
    s: &DmaDirect2d,
) -> Executed {
    exec::dma::execute_memcpy(cx, s)
}
