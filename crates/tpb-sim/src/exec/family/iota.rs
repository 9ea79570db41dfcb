//! Iota (0x7E, isa-facts §9): the family's executor, `FamilyVisitor::iota` (the generated impl
//! calls this).

use super::*;

/// Its cost formula (docs/engines.md "Published figures"): `GPSIMD_START + N` (ISA-2.26).
pub(in super::super) const COST: Formula = Formula::GpsimdStart;

pub(in super::super) fn execute(
    cx: &mut Cx<'_>,
    _: Row,
    sem::Iota::Iota: sem::Iota,
    s: &D4Iota,
) -> Executed {
    exec::iota::execute(cx, s)
}
