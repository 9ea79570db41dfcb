//! TensorTensorScan (0xe5), isa-facts-dve-pool §10: the family's executor,
//! `FamilyVisitor::tensor_tensor_scan` (the generated impl calls this).

use super::*;

pub(in super::super) fn execute(
    cx: &mut Cx<'_>,
    row: Row,
    sem::TensorTensorScan::Arith: sem::TensorTensorScan,
    s: &S2s2d2Stt,
) -> Executed {
    exec::stt::execute(cx, s, row, exec::stt::SttMode::Scan)
}
