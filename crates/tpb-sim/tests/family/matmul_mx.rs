//! MATMUL_MX (0x0A, isa-facts-pe-act-dma §1.10.4): the family's test generator and plain reference
//! (the generated `generator` arm and reference `FamilyVisitor::matmul_mx` call these).

use super::*;

/// The family's random generator, if it has one.
///
/// Issue 29 item 22: the other PE instructions, refused by the exec column.
pub(crate) fn generator() -> Option<Make> {
    None
}

/// The family's plain reference.
pub(crate) fn reference(
    _: &mut Ref<'_>,
    _: Row,
    sem::MatmulMx::MatmulMx: sem::MatmulMx,
    _: &wire::Smx1d3Mm,
) -> Done {
    Err(RefFault::Unsupported)
}
