//! TensorScalarSelect (0x98, isa-facts §10.1): the family's validator chain,
//! `FamilyVisitor::ts_select` (the generated impl calls this).

use super::*;

pub(in super::super) fn check<const M: u8>(
    cx: &mut Ctx<M>,
    _: &InstView<'_>,
    _: Row,
    sem::TsSelect::TsSelect: sem::TsSelect,
    s: View<'_, S3d3TsSelect>,
) -> Flow {
    chain::ts_select::check(cx, &s)
}
