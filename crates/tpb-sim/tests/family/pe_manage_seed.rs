//! PE_MANAGE_SEED (0x08, isa-facts-pe-act-dma §1.10.3): the family's test generator and plain
//! reference (the generated `generator` arm and reference `FamilyVisitor::pe_manage_seed` call
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
    sem::PeManageSeed::PeManageSeed: sem::PeManageSeed,
    _: &wire::S2s1d2PeSeed,
) -> Done {
    Err(RefFault::Unsupported)
}
