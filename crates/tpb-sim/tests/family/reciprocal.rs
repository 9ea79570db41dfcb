//! Reciprocal (0x48, isa-facts-dve-pool §5): the family's test generator and plain reference (the
//! generated `generator` arm and reference `FamilyVisitor::reciprocal` call these).

use super::*;

/// The family's random generator, if it has one.
pub(crate) fn generator() -> Option<Make> {
    Some(gen::gen_reciprocal)
}

/// The family's plain reference.
pub(crate) fn reference(
    r: &mut Ref<'_>,
    _: Row,
    sem::Reciprocal::Reciprocal: sem::Reciprocal,
    s: &wire::S4d4Tr,
) -> Done {
    reference::copy_cast_ref(r.pre, r.st, s, true, r.warns, r.strict)
}
