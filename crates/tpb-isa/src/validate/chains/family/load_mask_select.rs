//! LoadMaskSelect (0x69), isa-facts-dve-pool §14.2: the family's validator chain,
//! `FamilyVisitor::load_mask_select` (the generated impl calls this).

use super::*;

pub(in super::super) fn check<const M: u8>(
    cx: &mut Ctx<M>,
    _: &InstView<'_>,
    _: Row,
    sem::LoadMaskSelect::LoadMaskSelect: sem::LoadMaskSelect,
    s: View<'_, CtrlIm>,
) -> Flow {
    chain::ctrl_im::check(cx, &s)
}
