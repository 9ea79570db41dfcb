//! PSEUDO_EXTENSION (0xDA, host only, isa-facts-pe-act-dma §3.6): the family's test generator and
//! plain reference (the generated `generator` arm and reference `FamilyVisitor::pseudo_ext` call
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
    sem::PseudoExt::Extension: sem::PseudoExt,
    _: &wire::PseudoDmaExt,
) -> Done {
    Err(RefFault::Unsupported)
}
