//! TensorTensor Arith/Bitvec (0x41/0x51, isa-facts-dve-pool §1): the family's validator chain,
//! `FamilyVisitor::tensor_tensor` (the generated impl calls this).

use super::*;

pub(in super::super) fn check<const M: u8>(
    cx: &mut Ctx<M>,
    _: &InstView<'_>,
    _: Row,
    v: sem::TensorTensor,
    s: View<'_, S3s3d3Tt>,
) -> Flow {
    chain::s3s3d3_tt::check_tensor_tensor(cx, v, &s)
}
