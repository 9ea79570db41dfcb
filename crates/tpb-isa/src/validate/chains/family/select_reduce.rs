//! SelectReduce (0xea), isa-facts-dve-pool §11: the family's validator chain,
//! `FamilyVisitor::select_reduce` (the generated impl calls this).

use super::*;

pub(in super::super) fn check<const M: u8>(
    cx: &mut Ctx<M>,
    _: &InstView<'_>,
    _: Row,
    sem::SelectReduce::SelectReduce: sem::SelectReduce,
    s: View<'_, S2s2d2Stt>,
) -> Flow {
    chain::stt::check(cx, chain::stt::SttChain::Select, &s)
}
