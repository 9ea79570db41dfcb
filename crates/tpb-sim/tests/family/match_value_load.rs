//! MatchValueLoad (0x6D), an `S2_BN` sibling of ImmLd (isa-facts §6): the family's test generator
//! and plain reference (the generated `generator` arm and reference
//! `FamilyVisitor::match_value_load` call these).

use super::*;

/// The family's random generator, if it has one.
///
/// Issue 17b (the hidden DVE lane state; tests/gen/dve_state.rs).
pub(crate) fn generator() -> Option<Make> {
    Some(gen::gen_match_value_load)
}

/// The family's plain reference.
pub(crate) fn reference(
    r: &mut Ref<'_>,
    _: Row,
    sem::MatchValueLoad::MatchValueLoad: sem::MatchValueLoad,
    s: &wire::S2Bn,
) -> Done {
    reference::dve_state::match_value_load_ref(r.pre, r.st, s, r.warns, r.strict)
}
