//! PSEUDO_DMA_DIRECT2D (0xD4, host only, isa-facts-pe-act-dma §3.6): the family's test generator
//! and plain reference (the generated `generator` arm and reference `FamilyVisitor::pseudo_dma`
//! call these).

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
    sem::PseudoDma::Lowered: sem::PseudoDma,
    _: &wire::PseudoDmaDirect2d,
) -> Done {
    Err(RefFault::Unsupported)
}
