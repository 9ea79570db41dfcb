//! LoadMaskSelect (0x69), isa-facts-dve-pool §14.2: the family's test generator and plain reference
//! (the generated `generator` arm and reference `FamilyVisitor::load_mask_select` call these).

use super::*;

/// The family's random generator, if it has one.
pub(crate) fn generator() -> Option<Make> {
    Some(gen::gen_load_mask_select)
}

/// The family's plain reference.
pub(crate) fn reference(
    r: &mut Ref<'_>,
    _: Row,
    sem::LoadMaskSelect::LoadMaskSelect: sem::LoadMaskSelect,
    s: &wire::CtrlIm,
) -> Done {
    reference::dve_state::load_mask_select_ref(r.st, s, r.warns, r.strict)
}
