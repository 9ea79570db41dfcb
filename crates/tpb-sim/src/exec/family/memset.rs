//! Memset (0x49, isa-facts-dve-pool §6): the family's executor, `FamilyVisitor::memset` (the
//! generated impl calls this).

use super::*;

/// Its cost formula (docs/engines.md "Published figures"): `max(MIN_II, N/2)` or `max(MIN_II, N)`, N of the output (ISA-2.26).
pub(in super::super) const COST: Formula = Formula::Memset;

pub(in super::super) fn execute(
    cx: &mut Cx<'_>,
    _: Row,
    sem::Memset::Memset: sem::Memset,
    s: &D4Mr,
) -> Executed {
    exec::memset::execute(cx, s)
}
