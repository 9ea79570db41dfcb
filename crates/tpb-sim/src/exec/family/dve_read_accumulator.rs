//! DveReadAccumulator (0x9b), isa-facts-dve-pool §13.1: the family's executor,
//! `FamilyVisitor::dve_read_accumulator` (the generated impl calls this).

use super::*;

/// Its cost formula (docs/engines.md "Published figures"): the accumulator read, `≈ 64` cycles (ARCH1 L492).
pub(in super::super) const COST: Formula = Formula::ReadAccumulator;

pub(in super::super) fn execute(
    cx: &mut Cx<'_>,
    _: Row,
    sem::DveReadAccumulator::DveReadAccumulator: sem::DveReadAccumulator,
    s: &D1Rd,
) -> Executed {
    exec::cache_reduce::read_accumulator(cx, s)
}
