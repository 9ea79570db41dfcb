//! Max8 / FindIndex8 (0x6c/0x6e), isa-facts-dve-pool §16: the family's test generator and plain
//! reference (the generated `generator` arm and reference `FamilyVisitor::search` call these).

use super::*;

/// The family's random generator, if it has one.
pub(crate) fn generator() -> Option<Make> {
    Some(gen::gen_search)
}

/// The family's plain reference.
pub(crate) fn reference(
    r: &mut Ref<'_>,
    _: Row,
    v: sem::Search,
    s: &wire::S4d2Bn,
) -> Done {
    let find = match v {
        sem::Search::Max8 => false,
        sem::Search::FindIndex8 => true,
    };
    reference::dve_state::max8_find_ref(r.pre, r.st, s, find, r.warns, r.strict)
}
