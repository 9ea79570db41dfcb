//! StreamShuffle (0x6a, isa-facts-dve-pool §14.1): the family's validator chain,
//! `FamilyVisitor::stream_shuffle` (the generated impl calls this).

use super::*;

pub(in super::super) fn check<const M: u8>(
    cx: &mut Ctx<M>,
    _: &InstView<'_>,
    _: Row,
    sem::StreamShuffle::StreamShuffle: sem::StreamShuffle,
    s: View<'_, S4d4Tr>,
) -> Flow {
    chain::s4d4_tr::check_stream_shuffle(cx, &s)
}
