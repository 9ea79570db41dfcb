//! TensorScalar / TensorScalarPtr (0x43/0x53/0x44/0x54, isa-facts §7): the family's validator
//! chain, `FamilyVisitor::tensor_scalar` (the generated impl calls this).

use super::*;

pub(in super::super) fn check<const M: u8>(
    cx: &mut Ctx<M>,
    _: &InstView<'_>,
    _: Row,
    v: sem::TensorScalar,
    s: View<'_, S3d3Ts>,
) -> Flow {
    chain::tensor_scalar::check(cx, v, &s)
}
