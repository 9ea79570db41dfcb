//! ActivationReadAccumulator (0x24, isa-facts-pe-act-dma §2.5): the family's test generator and
//! plain reference (the generated `generator` arm and reference
//! `FamilyVisitor::act_read_accumulator` call these).

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
    sem::ActReadAccumulator::ActReadAccumulator: sem::ActReadAccumulator,
    _: &wire::D1Rd,
) -> Done {
    Err(RefFault::Unsupported)
}
