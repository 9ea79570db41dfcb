//! DMAMEMCPY (0xB8, isa-facts-pe-act-dma §3.4): the family's test generator and plain reference
//! (the generated `generator` arm and reference `FamilyVisitor::dma_memcpy` call these).

use super::*;

/// The family's random generator, if it has one.
///
/// Issue 18b. DMA and MEM_2D move bytes between HBM and on-chip memory: checked against their
/// plain byte-walk references in tests/dma.rs and tests/dma_engines.rs.
pub(crate) fn generator() -> Option<Make> {
    None
}

/// The family's plain reference.
pub(crate) fn reference(
    _: &mut Ref<'_>,
    _: Row,
    sem::DmaMemcpy::Direct2d: sem::DmaMemcpy,
    _: &wire::DmaDirect2d,
) -> Done {
    Err(RefFault::Unsupported)
}
