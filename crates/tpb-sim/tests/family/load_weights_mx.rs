//! LDWEIGHTS_MX (0x09, isa-facts-pe-act-dma §1.10.4): the family's test generator and plain
//! reference (the generated `generator` arm and reference `FamilyVisitor::load_weights_mx` call
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
    sem::LoadWeightsMx::LoadWeightsMx: sem::LoadWeightsMx,
    _: &wire::Smx1Lw,
) -> Done {
    Err(RefFault::Unsupported)
}
