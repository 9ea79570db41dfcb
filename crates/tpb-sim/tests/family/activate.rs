//! Activate (0x21, isa-facts-pe-act-dma §2.2): the family's test generator and plain reference (the
//! generated `generator` arm and reference `FamilyVisitor::activate` call these).

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
    sem::Activate::Activate: sem::Activate,
    _: &wire::S3d3Ac,
) -> Done {
    Err(RefFault::Unsupported)
}
