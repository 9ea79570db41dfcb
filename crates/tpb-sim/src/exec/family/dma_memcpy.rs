//! DMAMEMCPY (0xB8, isa-facts-pe-act-dma §3.4): the family's executor, `FamilyVisitor::dma_memcpy`
//! (the generated impl calls this).

use super::*;

pub(in super::super) fn execute(
    cx: &mut Cx<'_>,
    _: Row,
    sem::DmaMemcpy::Direct2d: sem::DmaMemcpy,
    s: &DmaDirect2d,
) -> Executed {
    exec::dma::execute_memcpy(cx, s)
}
