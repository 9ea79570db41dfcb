//! TensorTensorScan (0xe5), isa-facts-dve-pool §10: the family's validator chain,
//! `FamilyVisitor::tensor_tensor_scan` (the generated impl calls this).

use super::*;

pub(in super::super) fn check<const M: u8>(
    cx: &mut Ctx<M>,
    _: &InstView<'_>,
    _: Row,
    sem::TensorTensorScan::Arith: sem::TensorTensorScan,
    s: View<'_, S2s2d2Stt>,
) -> Flow {
    chain::stt::check(cx, chain::stt::SttChain::Scan, &s)
}
