//! PE_REG_WRITE (0x03, isa-facts-pe-act-dma §1.10.2): the family's test generator and plain
//! reference (the generated `generator` arm and reference `FamilyVisitor::pe_reg_write` call
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
    sem::PeRegWrite::PeRegWrite: sem::PeRegWrite,
    _: &wire::PeRegWrite,
) -> Done {
    Err(RefFault::Unsupported)
}
