//! DveReadAccumulator (0x9b), isa-facts-dve-pool §13.1: the family's test generator and plain
//! reference (the generated `generator` arm and reference `FamilyVisitor::dve_read_accumulator`
//! call these).

use super::*;

/// The family's random generator, if it has one.
pub(crate) fn generator() -> Option<Make> {
    Some(gen::gen_dve_read_accumulator)
}

/// The family's plain reference.
pub(crate) fn reference(
    r: &mut Ref<'_>,
    _: Row,
    sem::DveReadAccumulator::DveReadAccumulator: sem::DveReadAccumulator,
    s: &wire::D1Rd,
) -> Done {
    reference::dve_state::read_accumulator_ref(r.pre, r.st, s, r.warns, r.strict)
}
