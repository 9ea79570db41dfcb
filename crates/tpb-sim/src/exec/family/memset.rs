//! Memset (0x49, isa-facts-dve-pool §6): the family's executor, `FamilyVisitor::memset` (the
//! generated impl calls this).

use super::*;

pub(in super::super) fn execute(
    cx: &mut Cx<'_>,
    _: Row,
    sem::Memset::Memset: sem::Memset,
    s: &D4Mr,
) -> Executed {
    exec::memset::execute(cx, s)
}
