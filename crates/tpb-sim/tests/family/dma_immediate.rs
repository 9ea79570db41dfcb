//! DMA_IMMEDIATE (0xBA, maverick, isa-facts-pe-act-dma §3.11): the family's test generator and
//! plain reference (the generated `generator` arm and reference `FamilyVisitor::dma_immediate` call
//! these).

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
    sem::DmaImmediate::Descriptors: sem::DmaImmediate,
    _: &wire::DmaImmediate,
) -> Done {
    Err(RefFault::Unsupported)
}
