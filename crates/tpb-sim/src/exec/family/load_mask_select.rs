//! LoadMaskSelect (0x69), isa-facts-dve-pool §14.2: the family's executor,
//! `FamilyVisitor::load_mask_select` (the generated impl calls this).

use super::*;

/// Its cost formula (docs/engines.md "Published figures"): nothing published: `max(MIN_II, N)` (ASSUMED, assumption `engine-timing`).
pub(in super::super) const COST: Formula = Formula::Assumed;

pub(in super::super) fn execute(
    cx: &mut Cx<'_>,
    _: Row,
    sem::LoadMaskSelect::LoadMaskSelect: sem::LoadMaskSelect,
    s: &CtrlIm,
) -> Executed {
    exec::search::load_mask_select(cx, s)
}
