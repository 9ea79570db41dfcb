//! TensorScalar / TensorScalarPtr (0x43/0x53/0x44/0x54, isa-facts §7): the family's test generator
//! and plain reference (the generated `generator` arm and reference `FamilyVisitor::tensor_scalar`
//! call these).

use super::*;

/// The family's random generator, if it has one.
pub(crate) fn generator() -> Option<Make> {
    Some(gen::gen_tensor_scalar)
}

/// The family's plain reference.
pub(crate) fn reference(
    r: &mut Ref<'_>,
    _: Row,
    v: sem::TensorScalar,
    s: &wire::S3d3Ts,
) -> Done {
    reference::tensor_scalar(r.pre, r.st, s, v, r.warns, r.strict)
}
