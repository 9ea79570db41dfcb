//! LDWEIGHTS_MX (0x09, isa-facts-pe-act-dma §1.10.4): the family's validator chain,
//! `FamilyVisitor::load_weights_mx` (the generated impl calls this).

use super::*;

pub(in super::super) fn check<const M: u8>(
    cx: &mut Ctx<M>,
    _: &InstView<'_>,
    _: Row,
    sem::LoadWeightsMx::LoadWeightsMx: sem::LoadWeightsMx,
    _: View<'_, Smx1Lw>,
) -> Flow {
    chain::pe_other::check_unpublished(cx)
}
