//! Iota (0x7E, isa-facts §9): the family's executor, `FamilyVisitor::iota` (the generated impl
//! calls this).

use super::*;

pub(in super::super) fn execute(
    cx: &mut Cx<'_>,
    _: Row,
    sem::Iota::Iota: sem::Iota,
    s: &D4Iota,
) -> Executed {
    exec::iota::execute(cx, s)
}
