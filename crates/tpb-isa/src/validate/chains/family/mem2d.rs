//! TensorLoad / TensorStore (0xAA/0xAB, isa-facts-pe-act-dma §3.14): the family's validator chain,
//! `FamilyVisitor::mem2d` (the generated impl calls this).

use super::*;

pub(in super::super) fn check<const M: u8>(
    cx: &mut Ctx<M>,
    _: &InstView<'_>,
    _: Row,
    v: sem::Mem2d,
    s: View<'_, Mem2d>,
) -> Flow {
    chain::dma::check_mem2d(cx, v, &s.owned())
}
