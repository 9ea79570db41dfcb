//! ScalarTensorTensor (0x9d/0x9e), isa-facts-dve-pool §9: the family's validator chain,
//! `FamilyVisitor::scalar_tensor_tensor` (the generated impl calls this).

use super::*;

pub(in super::super) fn check<const M: u8>(
    cx: &mut Ctx<M>,
    _: &InstView<'_>,
    _: Row,
    v: sem::ScalarTensorTensor,
    s: View<'_, S2s2d2Stt>,
) -> Flow {
    let bitvec = match v {
        sem::ScalarTensorTensor::Arith => false,
        sem::ScalarTensorTensor::Bitvec => true,
    };
    chain::stt::check(cx, chain::stt::SttChain::Stt { bitvec }, &s)
}
