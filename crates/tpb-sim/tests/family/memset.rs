//! Memset (0x49, isa-facts-dve-pool §6): the family's test generator and plain reference (the
//! generated `generator` arm and reference `FamilyVisitor::memset` call these).

use super::*;

/// The family's random generator, if it has one.
pub(crate) fn generator() -> Option<Make> {
    Some(gen::gen_memset)
}

/// The family's plain reference.
pub(crate) fn reference(
    r: &mut Ref<'_>,
    _: Row,
    sem::Memset::Memset: sem::Memset,
    s: &wire::D4Mr,
) -> Done {
    reference::memset_ref(r.pre, r.st, s)
}
