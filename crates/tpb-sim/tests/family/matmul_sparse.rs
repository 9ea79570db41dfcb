//! MATMUL_SPARSE (0x07, isa-facts-pe-act-dma §1.10.1): the family's test generator and plain
//! reference (the generated `generator` arm and reference `FamilyVisitor::matmul_sparse` call
//! these).

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
    sem::MatmulSparse::MatmulSparse: sem::MatmulSparse,
    _: &wire::S4d3Mm,
) -> Done {
    Err(RefFault::Unsupported)
}
