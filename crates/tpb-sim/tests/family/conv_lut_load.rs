//! CONV_LUT_LOAD (0xE4, isa-facts-pe-act-dma §1.10.2): the family's test generator and plain
//! reference (the generated `generator` arm and reference `FamilyVisitor::conv_lut_load` call
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
    sem::ConvLutLoad::ConvLutLoad: sem::ConvLutLoad,
    _: &wire::S2Convlut,
) -> Done {
    Err(RefFault::Unsupported)
}
