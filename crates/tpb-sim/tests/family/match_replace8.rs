//! MatchReplace8 (0x6f), isa-facts-dve-pool §16: the family's test generator and plain reference
//! (the generated `generator` arm and reference `FamilyVisitor::match_replace8` call these).

use super::*;

/// The family's random generator, if it has one.
pub(crate) fn generator() -> Option<Make> {
    Some(gen::gen_match_replace8)
}

/// The family's plain reference.
pub(crate) fn reference(
    r: &mut Ref<'_>,
    _: Row,
    sem::MatchReplace8::MatchReplace8: sem::MatchReplace8,
    s: &wire::S4d4Mr,
) -> Done {
    reference::dve_state::match_replace8_ref(r.pre, r.st, s, r.warns, r.strict)
}
