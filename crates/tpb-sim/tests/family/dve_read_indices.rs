//! DveReadIndices (0xe9, isa-facts-dve-pool §13.2): the family's test generator and plain reference
//! (the generated `generator` arm and reference `FamilyVisitor::dve_read_indices` call these).

use super::*;

/// The family's random generator, if it has one.
pub(crate) fn generator() -> Option<Make> {
    Some(gen::gen_dve_read_indices)
}

/// The family's plain reference.
pub(crate) fn reference(
    r: &mut Ref<'_>,
    _: Row,
    sem::DveReadIndices::DveReadIndices: sem::DveReadIndices,
    s: &wire::D4Mr,
) -> Done {
    reference::dve_state::read_indices_ref(r.pre, r.st, s, r.warns, r.strict)
}
