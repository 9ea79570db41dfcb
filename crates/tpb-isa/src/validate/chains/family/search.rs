//! Max8 / FindIndex8 (0x6c/0x6e), isa-facts-dve-pool §16: the family's validator chain,
//! `FamilyVisitor::search` (the generated impl calls this).

use super::*;

pub(in super::super) fn check<const M: u8>(
    cx: &mut Ctx<M>,
    _: &InstView<'_>,
    _: Row,
    v: sem::Search,
    s: View<'_, S4d2Bn>,
) -> Flow {
    chain::search::check_bn(cx, v, &s)
}
