//! LoadWeights (0x01, isa-facts-pe-act-dma §1.4): the family's validator chain,
//! `FamilyVisitor::load_weights` (the generated impl calls this).

use super::*;

pub(in super::super) fn check<const M: u8>(
    cx: &mut Ctx<M>,
    _: &InstView<'_>,
    _: Row,
    sem::LoadWeights::LoadWeights: sem::LoadWeights,
    s: View<'_, S3Lw>,
) -> Flow {
    chain::pe::check_load_weights(cx, &s)
}
