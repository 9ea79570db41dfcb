//! MatchReplace8 (0x6f), isa-facts-dve-pool §16: the family's executor,
//! `FamilyVisitor::match_replace8` (the generated impl calls this).

use super::*;

/// Its cost formula (docs/engines.md "Published figures"): `N` (ISA-2.26; 2.23 for match_replace8).
pub(in super::super) const COST: Formula = Formula::Linear;

pub(in super::super) fn execute(
    cx: &mut Cx<'_>,
    _: Row,
    sem::MatchReplace8::MatchReplace8: sem::MatchReplace8,
    s: &S4d4Mr,
) -> Executed {
    exec::search::match_replace8(cx, s)
}
