//! The sunda bf16 TensorTensor trio (0x8a/0x8b/0x8f, isa-facts-dve-pool §1.7): the family's
//! validator chain, `FamilyVisitor::tensor_tensor_bf16` (the generated impl calls this).

use super::*;

pub(in super::super) fn check<const M: u8>(
    cx: &mut Ctx<M>,
    _: &InstView<'_>,
    _: Row,
    v: sem::TensorTensorBf16,
    s: View<'_, S3s3d3Tt>,
) -> Flow {
    chain::s3s3d3_tt::check_bf16(cx, v, &s)
}
