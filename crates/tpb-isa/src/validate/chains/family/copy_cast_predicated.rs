//! CopyPredicated / CastPredicated (0x72/0x99, isa-facts-dve-pool §2): the family's validator
//! chain, `FamilyVisitor::copy_cast_predicated` (the generated impl calls this).

use super::*;

pub(in super::super) fn check<const M: u8>(
    cx: &mut Ctx<M>,
    _: &InstView<'_>,
    _: Row,
    v: sem::CopyCastPredicated,
    s: View<'_, S3s3d3Tt>,
) -> Flow {
    chain::s3s3d3_tt::check_predicated(cx, v, &s)
}
