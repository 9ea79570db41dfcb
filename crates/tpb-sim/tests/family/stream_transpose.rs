//! StreamTranspose (0x6b, isa-facts-dve-pool §15): the family's test generator and plain reference
//! (the generated `generator` arm and reference `FamilyVisitor::stream_transpose` call these).

use super::*;

/// The family's random generator, if it has one.
pub(crate) fn generator() -> Option<Make> {
    Some(gen::gen_stream_transpose)
}

/// The family's plain reference.
pub(crate) fn reference(
    r: &mut Ref<'_>,
    _: Row,
    sem::StreamTranspose::StreamTranspose: sem::StreamTranspose,
    s: &wire::S4d4Tr,
) -> Done {
    reference::stream_transpose_ref(r.pre, r.st, s, r.warns, r.strict)
}
