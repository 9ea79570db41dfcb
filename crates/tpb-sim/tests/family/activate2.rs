//! Activate2 (0x25, isa-facts-pe-act-dma §2.6): the family's test generator and plain reference
//! (the generated `generator` arm and reference `FamilyVisitor::activate2` call these).

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
    sem::Activate2::Activate2: sem::Activate2,
    _: &wire::S2d2Ac,
) -> Done {
    Err(RefFault::Unsupported)
}
