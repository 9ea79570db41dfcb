//! TensorScalarAffineSelect (0x92, seed 002 §5.5): the family's test generator and plain reference
//! (the generated `generator` arm and reference `FamilyVisitor::affine_select` call these).

use super::*;

/// The family's random generator, if it has one.
pub(crate) fn generator() -> Option<Make> {
    Some(gen::gen_affine_select)
}

/// The family's plain reference.
pub(crate) fn reference(
    r: &mut Ref<'_>,
    _: Row,
    sem::AffineSelect::AffineSelect: sem::AffineSelect,
    s: &wire::S2d2TsAs,
) -> Done {
    reference::affine_select(r.pre, r.st, s, r.warns, r.strict)
}
