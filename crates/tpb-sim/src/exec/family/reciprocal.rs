//! Reciprocal (0x48, isa-facts-dve-pool §5): the family's executor, `FamilyVisitor::reciprocal`
//! (the generated impl calls this).

use super::*;

/// Its cost formula (docs/engines.md "Published figures"): `max(MIN_II, 8N)` (ISA-2.26).
pub(in super::super) const COST: Formula = Formula::Reciprocal;

pub(in super::super) fn execute(
    cx: &mut Cx<'_>,
    _: Row,
    sem::Reciprocal::Reciprocal: sem::Reciprocal,
    s: &S4d4Tr,
) -> Executed {
    exec::copy_cast::execute(cx, s, true)
}
