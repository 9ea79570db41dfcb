//! DMA_INDIRECT (0xBB, isa-facts-pe-act-dma §3.7): the family's test generator and plain reference
//! (the generated `generator` arm and reference `FamilyVisitor::dma_indirect` call these).

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
    sem::DmaIndirect::Indirect1d: sem::DmaIndirect,
    _: &wire::DmaIndirect1d,
) -> Done {
    Err(RefFault::Unsupported)
}
