//! StreamTranspose (0x6b, isa-facts-dve-pool §15): the family's executor,
//! `FamilyVisitor::stream_transpose` (the generated impl calls this).

use super::*;

pub(in super::super) fn execute(
    cx: &mut Cx<'_>,
    _: Row,
    sem::StreamTranspose::StreamTranspose: sem::StreamTranspose,
    s: &S4d4Tr,
) -> Executed {
    exec::stream_transpose::execute(cx, s)
}
