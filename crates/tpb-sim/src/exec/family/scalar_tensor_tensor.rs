//! ScalarTensorTensor (0x9d/0x9e), isa-facts-dve-pool §9: the family's executor,
//! `FamilyVisitor::scalar_tensor_tensor` (the generated impl calls this).

use super::*;

/// Its cost formula (docs/engines.md "Published figures"): `N` or `2N` (ISA-2.26).
pub(in super::super) const COST: Formula = Formula::ScalarTensorTensor;

pub(in super::super) fn execute(
    cx: &mut Cx<'_>,
    row: Row,
    sem: sem::ScalarTensorTensor,
    s: &S2s2d2Stt,
) -> Executed {
    let bitvec = match sem {
        sem::ScalarTensorTensor::Arith => false,
        sem::ScalarTensorTensor::Bitvec => true,
    };
    exec::stt::execute(cx, s, row, exec::stt::SttMode::Stt { bitvec })
}
