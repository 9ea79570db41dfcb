//! LoadWeights (0x01, isa-facts-pe-act-dma §1.4): the family's test generator and plain reference
//! (the generated `generator` arm and reference `FamilyVisitor::load_weights` call these).

use super::*;

/// The family's random generator, if it has one.
///
/// Issue 18a: checked against plain references of their own in tests/pe_act.rs.
pub(crate) fn generator() -> Option<Make> {
    None
}

/// The family's plain reference.
pub(crate) fn reference(
    _: &mut Ref<'_>,
    _: Row,
    sem::LoadWeights::LoadWeights: sem::LoadWeights,
    _: &wire::S3Lw,
) -> Done {
    Err(RefFault::Unsupported)
}
