//! TensorScalarPtrMulti, incl. the sunda Dual form (0x4F/0x5F/0x87/0x88, seed 000 §5b, isa-facts
//! §8): the family's test generator and plain reference (the generated `generator` arm and
//! reference `FamilyVisitor::ptr_multi` call these).

use super::*;

/// The family's random generator, if it has one.
pub(crate) fn generator() -> Option<Make> {
    Some(gen::gen_ptr_multi)
}

/// The family's plain reference.
pub(crate) fn reference(
    r: &mut Ref<'_>,
    _: Row,
    v: sem::PtrMulti,
    s: &wire::S4d4Tsm,
) -> Done {
    reference::ptr_multi(r.pre, r.st, s, v, r.warns, r.strict)
}
