//! Max8 / FindIndex8 (0x6c/0x6e), isa-facts-dve-pool §16: the family's executor,
//! `FamilyVisitor::search` (the generated impl calls this).

use super::*;

/// Its cost formula (docs/engines.md "Published figures"): `N` (ISA-2.26; 2.23 for match_replace8).
pub(in super::super) const COST: Formula = Formula::Linear;

pub(in super::super) fn execute(
    cx: &mut Cx<'_>,
    _: Row,
    sem: sem::Search,
    s: &S4d2Bn,
) -> Executed {
    let find = match sem {
        sem::Search::Max8 => false,
        sem::Search::FindIndex8 => true,
    };
    exec::search::max8_find_index8(cx, s, find)
}
