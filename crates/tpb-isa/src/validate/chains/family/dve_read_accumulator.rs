//! DveReadAccumulator (0x9b), isa-facts-dve-pool §13.1: the family's validator chain,
//! `FamilyVisitor::dve_read_accumulator` (the generated impl calls this).

use super::*;

pub(in super::super) fn check<const M: u8>(
    cx: &mut Ctx<M>,
    _: &InstView<'_>,
    _: Row,
    sem::DveReadAccumulator::DveReadAccumulator: sem::DveReadAccumulator,
    s: View<'_, D1Rd>,
) -> Flow {
    chain::cache_reduce::check_read_accumulator(cx, &s)
}
