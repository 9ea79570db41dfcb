//! TensorScalarAffineSelect (0x92, seed 002 §5.5): the family's validator chain,
//! `FamilyVisitor::affine_select` (the generated impl calls this).

use super::*;

pub(in super::super) fn check<const M: u8>(
    cx: &mut Ctx<M>,
    _: &InstView<'_>,
    _: Row,
    sem::AffineSelect::AffineSelect: sem::AffineSelect,
    s: View<'_, S2d2TsAs>,
) -> Flow {
    chain::affine_select::check(cx, &s)
}
