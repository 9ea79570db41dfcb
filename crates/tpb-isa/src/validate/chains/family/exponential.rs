//! Exponential on DVE (0x30, isa-facts-pe-act-dma §2.12): the family's validator chain,
//! `FamilyVisitor::exponential` (the generated impl calls this).

use super::*;

pub(in super::super) fn check<const M: u8>(
    cx: &mut Ctx<M>,
    _: &InstView<'_>,
    _: Row,
    sem::Exponential::Exponential: sem::Exponential,
    s: View<'_, S3d3Ts>,
) -> Flow {
    chain::act::check_exponential(cx, &s)
}
