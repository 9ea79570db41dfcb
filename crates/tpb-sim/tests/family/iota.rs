//! Iota (0x7E, isa-facts §9): the family's test generator and plain reference (the generated
//! `generator` arm and reference `FamilyVisitor::iota` call these).

use super::*;

/// The family's random generator, if it has one.
pub(crate) fn generator() -> Option<Make> {
    Some(gen::gen_iota)
}

/// The family's plain reference.
pub(crate) fn reference(
    r: &mut Ref<'_>,
    _: Row,
    sem::Iota::Iota: sem::Iota,
    s: &wire::D4Iota,
) -> Done {
    reference::iota(r.pre, r.st, s)
}
