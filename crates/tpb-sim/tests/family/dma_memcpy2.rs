//! DMA_MEMCPY2 (0xB9, maverick, isa-facts-pe-act-dma §3.10): the family's test generator and plain
//! reference (the generated `generator` arm and reference `FamilyVisitor::dma_memcpy2` call these).

use super::*;

/// The family's random generator, if it has one.
///
/// Refused by the table's exec column (dispatch.rs checks the refusal).
pub(crate) fn generator() -> Option<Make> {
    None
}

/// The family's plain reference.
pub(crate) fn reference(
    _: &mut Ref<'_>,
    _: Row,
    sem::DmaMemcpy2::Copy2d: sem::DmaMemcpy2,
    _: &wire::DmaCopy2d,
) -> Done {
    Err(RefFault::Unsupported)
}
