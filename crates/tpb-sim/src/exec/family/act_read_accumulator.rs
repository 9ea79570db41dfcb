//! ActivationReadAccumulator (0x24, isa-facts-pe-act-dma §2.5): the family's executor,
//! `FamilyVisitor::act_read_accumulator` (the generated impl calls this).

use super::*;

/// Its cost formula (docs/engines.md "Published figures"): the accumulator read, `≈ 64` cycles (ARCH1 L492).
pub(in super::super) const COST: Formula = Formula::ReadAccumulator;

pub(in super::super) fn execute(
    cx: &mut Cx<'_>,
    _: Row,
    sem::ActReadAccumulator::ActReadAccumulator: sem::ActReadAccumulator,
    s: &D1Rd,
) -> Executed {
    exec::act::read_accumulator(cx, s)
}
