//! CopyPredicatedScalar (0xe8, isa-facts-dve-pool §3): the family's validator chain,
//! `FamilyVisitor::copy_predicated_scalar` (the generated impl calls this).

use super::*;

pub(in super::super) fn check<const M: u8>(
    cx: &mut Ctx<M>,
    _: &InstView<'_>,
    _: Row,
    sem::CopyPredicatedScalar::CopyPredicatedScalar: sem::CopyPredicatedScalar,
    s: View<'_, S3d3CpPredScalar>,
) -> Flow {
    chain::cp_pred_scalar::check(cx, &s)
}
