//! TensorTensor Arith/Bitvec (0x41/0x51, isa-facts-dve-pool §1): the family's executor,
//! `FamilyVisitor::tensor_tensor` (the generated impl calls this).

use super::*;

/// Its cost formula (docs/engines.md "Published figures"): tensor_tensor's `max(MIN_II, N)` or `max(MIN_II, 2N)` (ISA-2.26; ARCH2).
pub(in super::super) const COST: Formula = Formula::TensorTensor;

pub(in super::super) fn execute(
    cx: &mut Cx<'_>,
    row: Row,
    sem: sem::TensorTensor,
    s: &S3s3d3Tt,
) -> Executed {
    let bitvec = match sem {
        sem::TensorTensor::Arith => false,
        sem::TensorTensor::Bitvec => true,
    };
    exec::tensor_tensor::execute(cx, s, row, bitvec, false)
}
