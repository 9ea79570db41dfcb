//! PE_MANAGE_SEED (0x08, isa-facts-pe-act-dma §1.10.3): the family's validator chain,
//! `FamilyVisitor::pe_manage_seed` (the generated impl calls this).

use super::*;

pub(in super::super) fn check<const M: u8>(
    cx: &mut Ctx<M>,
    _: &InstView<'_>,
    _: Row,
    sem::PeManageSeed::PeManageSeed: sem::PeManageSeed,
    s: View<'_, S2s1d2PeSeed>,
) -> Flow {
    chain::pe_other::check_pe_manage_seed(cx, &s)
}
