//! ActivationReadAccumulator (0x24, isa-facts-pe-act-dma §2.5): the family's validator chain,
//! `FamilyVisitor::act_read_accumulator` (the generated impl calls this).

use super::*;

pub(in super::super) fn check<const M: u8>(
    cx: &mut Ctx<M>,
    _: &InstView<'_>,
    _: Row,
    sem::ActReadAccumulator::ActReadAccumulator: sem::ActReadAccumulator,
    s: View<'_, D1Rd>,
) -> Flow {
    chain::act::check_act_read_accumulator(cx, &s)
}
