//! Reciprocal (0x48, isa-facts-dve-pool §5): the family's executor, `FamilyVisitor::reciprocal`
//! (the generated impl calls this).

use super::*;

pub(in super::super) fn execute(
    cx: &mut Cx<'_>,
    _: Row,
    sem::Reciprocal::Reciprocal: sem::Reciprocal,
    s: &S4d4Tr,
) -> Executed {
    exec::copy_cast::execute(cx, s, true)
}
