//! TensorScalarSelect (0x98, isa-facts §10.1): the family's test generator and plain reference (the
//! generated `generator` arm and reference `FamilyVisitor::ts_select` call these).

use super::*;

/// The family's random generator, if it has one.
pub(crate) fn generator() -> Option<Make> {
    Some(gen::gen_ts_select)
}

/// The family's plain reference.
pub(crate) fn reference(
    r: &mut Ref<'_>,
    _: Row,
    sem::TsSelect::TsSelect: sem::TsSelect,
    s: &wire::S3d3TsSelect,
) -> Done {
    reference::ts_select(r.pre, r.st, s, r.warns, r.strict)
}
