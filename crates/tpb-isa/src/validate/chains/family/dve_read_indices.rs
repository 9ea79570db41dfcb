//! DveReadIndices (0xe9, isa-facts-dve-pool §13.2): the family's validator chain,
//! `FamilyVisitor::dve_read_indices` (the generated impl calls this).

use super::*;

pub(in super::super) fn check<const M: u8>(
    cx: &mut Ctx<M>,
    _: &InstView<'_>,
    _: Row,
    sem::DveReadIndices::DveReadIndices: sem::DveReadIndices,
    s: View<'_, D4Mr>,
) -> Flow {
    chain::d4_mr::check(cx, chain::d4_mr::MrChain::ReadIndices, &s)
}
