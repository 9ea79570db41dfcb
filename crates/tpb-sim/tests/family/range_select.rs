//! RangeSelect (0xBC, isa-facts §10.2): the family's test generator and plain reference (the
//! generated `generator` arm and reference `FamilyVisitor::range_select` call these).

use super::*;

/// The family's random generator, if it has one.
pub(crate) fn generator() -> Option<Make> {
    Some(gen::gen_range_select)
}

/// The family's plain reference.
pub(crate) fn reference(
    r: &mut Ref<'_>,
    _: Row,
    sem::RangeSelect::RangeSelect: sem::RangeSelect,
    s: &wire::S2d2Rs,
) -> Done {
    reference::range_select(r.pre, r.st, s, r.warns, r.strict)
}
