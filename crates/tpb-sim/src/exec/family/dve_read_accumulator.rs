//! DveReadAccumulator (0x9b), isa-facts-dve-pool §13.1: the family's executor,
//! `FamilyVisitor::dve_read_accumulator` (the generated impl calls this).

use super::*;

pub(in super::super) fn execute(
    cx: &mut Cx<'_>,
    _: Row,
    sem::DveReadAccumulator::DveReadAccumulator: sem::DveReadAccumulator,
    s: &D1Rd,
) -> Executed {
    exec::cache_reduce::read_accumulator(cx, s)
}
