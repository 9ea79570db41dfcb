//! Matmul (0x02, isa-facts-pe-act-dma §1.3): the family's test generator and plain reference (the
//! generated `generator` arm and reference `FamilyVisitor::matmul` call these).

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
    sem::Matmul::Matmul: sem::Matmul,
    _: &wire::S3d3Mm,
) -> Done {
    Err(RefFault::Unsupported)
}
