//! Memset (0x49, isa-facts-dve-pool §6): the family's validator chain, `FamilyVisitor::memset` (the
//! generated impl calls this).

use super::*;

pub(in super::super) fn check<const M: u8>(
    cx: &mut Ctx<M>,
    _: &InstView<'_>,
    _: Row,
    sem::Memset::Memset: sem::Memset,
    s: View<'_, D4Mr>,
) -> Flow {
    chain::d4_mr::check(cx, chain::d4_mr::MrChain::Memset, &s)
}
