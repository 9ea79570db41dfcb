//! Exponential on DVE (0x30, isa-facts-pe-act-dma §2.12): the family's executor,
//! `FamilyVisitor::exponential` (the generated impl calls this).

use super::*;

/// Its cost formula (docs/engines.md "Published figures"): `max(MIN_II, ⌈N / 4⌉)` (ARCH3 L179).
pub(in super::super) const COST: Formula = Formula::DveExp;

pub(in super::super) fn execute(
    cx: &mut Cx<'_>,
    row: Row,
    sem::Exponential::Exponential: sem::Exponential,
    s: &S3d3Ts,
) -> Executed {
    exec::act::exponential(cx, s, row)
}
