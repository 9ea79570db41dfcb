//! Exponential on DVE (0x30, isa-facts-pe-act-dma §2.12): the family's executor,
//! `FamilyVisitor::exponential` (the generated impl calls this).

use super::*;

pub(in super::super) fn execute(
    cx: &mut Cx<'_>,
    row: Row,
    sem::Exponential::Exponential: sem::Exponential,
    s: &S3d3Ts,
) -> Executed {
    exec::act::exponential(cx, s, row)
}
