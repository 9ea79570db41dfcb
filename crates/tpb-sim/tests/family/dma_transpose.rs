//! DMA_TRANSPOSE (0xBD, isa-facts-pe-act-dma §3.8): the family's test generator and plain reference
//! (the generated `generator` arm and reference `FamilyVisitor::dma_transpose` call these).

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
    sem::DmaTranspose::Transpose: sem::DmaTranspose,
    _: &wire::DmaDirect2dXpose,
) -> Done {
    Err(RefFault::Unsupported)
}
