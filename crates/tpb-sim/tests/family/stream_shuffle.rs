//! StreamShuffle (0x6a, isa-facts-dve-pool §14.1): the family's test generator and plain reference
//! (the generated `generator` arm and reference `FamilyVisitor::stream_shuffle` call these).

use super::*;

/// The family's random generator, if it has one.
pub(crate) fn generator() -> Option<Make> {
    Some(gen::gen_stream_shuffle)
}

/// The family's plain reference.
pub(crate) fn reference(
    r: &mut Ref<'_>,
    _: Row,
    sem::StreamShuffle::StreamShuffle: sem::StreamShuffle,
    s: &wire::S4d4Tr,
) -> Done {
    reference::stream_shuffle_ref(r.pre, r.st, s, r.warns, r.strict)
}
