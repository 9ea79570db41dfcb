//! MatchValueLoad (0x6D), an `S2_BN` sibling of ImmLd (isa-facts §6): the family's validator chain,
//! `FamilyVisitor::match_value_load` (the generated impl calls this).

use super::*;

pub(in super::super) fn check<const M: u8>(
    cx: &mut Ctx<M>,
    _: &InstView<'_>,
    _: Row,
    sem::MatchValueLoad::MatchValueLoad: sem::MatchValueLoad,
    s: View<'_, S2Bn>,
) -> Flow {
    chain::imm_ld::check_match_value_load(cx, &s)
}
