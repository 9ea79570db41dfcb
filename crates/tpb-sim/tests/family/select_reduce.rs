//! SelectReduce (0xea), isa-facts-dve-pool §11: the family's test generator and plain reference
//! (the generated `generator` arm and reference `FamilyVisitor::select_reduce` call these).

use super::*;

/// The family's random generator, if it has one.
pub(crate) fn generator() -> Option<Make> {
    Some(gen::gen_select_reduce)
}

/// The family's plain reference.
pub(crate) fn reference(
    r: &mut Ref<'_>,
    _: Row,
    sem::SelectReduce::SelectReduce: sem::SelectReduce,
    s: &wire::S2s2d2Stt,
) -> Done {
    let kind = reference::dve_state::SttRef::Select;
    reference::dve_state::stt_family_ref(r.pre, r.st, s, kind, r.warns, r.strict)
}
