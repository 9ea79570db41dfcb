//! MatchReplace8 (0x6f), isa-facts-dve-pool §16: the family's validator chain,
//! `FamilyVisitor::match_replace8` (the generated impl calls this).

use super::*;

pub(in super::super) fn check<const M: u8>(
    cx: &mut Ctx<M>,
    _: &InstView<'_>,
    _: Row,
    sem::MatchReplace8::MatchReplace8: sem::MatchReplace8,
    s: View<'_, S4d4Mr>,
) -> Flow {
    chain::search::check_mr(cx, &s)
}
