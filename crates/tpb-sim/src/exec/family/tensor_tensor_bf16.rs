//! The sunda bf16 TensorTensor trio (0x8a/0x8b/0x8f, isa-facts-dve-pool §1.7): the family's
//! executor, `FamilyVisitor::tensor_tensor_bf16` (the generated impl calls this).

use super::*;

/// Its cost formula (docs/engines.md "Published figures"): tensor_tensor's `max(MIN_II, N)` or `max(MIN_II, 2N)` (ISA-2.26; ARCH2).
pub(in super::super) const COST: Formula = Formula::TensorTensor;

pub(in super::super) fn execute(
    cx: &mut Cx<'_>,
    row: Row,
    sem: sem::TensorTensorBf16,
    s: &S3s3d3Tt,
) -> Executed {
    // The op is pinned by the opcode; the validator checks `op` equals it.
    match sem {
        sem::TensorTensorBf16::Add
        | sem::TensorTensorBf16::Mult
        | sem::TensorTensorBf16::Sub => exec::tensor_tensor::execute(cx, s, row, false, true),
    }
}
