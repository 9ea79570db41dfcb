//! StreamTranspose (0x6b, isa-facts-dve-pool §15): the family's validator chain,
//! `FamilyVisitor::stream_transpose` (the generated impl calls this).

use super::*;

pub(in super::super) fn check<const M: u8>(
    cx: &mut Ctx<M>,
    _: &InstView<'_>,
    _: Row,
    sem::StreamTranspose::StreamTranspose: sem::StreamTranspose,
    s: View<'_, S4d4Tr>,
) -> Flow {
    chain::s4d4_tr::check_stream_transpose(cx, &s)
}
