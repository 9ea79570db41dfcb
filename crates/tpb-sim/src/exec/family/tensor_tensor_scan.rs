//! TensorTensorScan (0xe5), isa-facts-dve-pool §10: the family's executor,
//! `FamilyVisitor::tensor_tensor_scan` (the generated impl calls this).

use super::*;

/// Its cost formula (docs/engines.md "Published figures"): `max(MIN_II, 2N)` (ISA-2.26).
pub(in super::super) const COST: Formula = Formula::Scan;

pub(in super::super) fn execute(
    cx: &mut Cx<'_>,
    row: Row,
    sem::TensorTensorScan::Arith: sem::TensorTensorScan,
    s: &S2s2d2Stt,
) -> Executed {
    exec::stt::execute(cx, s, row, exec::stt::SttMode::Scan)
}
