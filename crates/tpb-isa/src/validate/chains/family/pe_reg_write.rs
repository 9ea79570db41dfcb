//! PE_REG_WRITE (0x03, isa-facts-pe-act-dma §1.10.2): the family's validator chain,
//! `FamilyVisitor::pe_reg_write` (the generated impl calls this).

use super::*;

pub(in super::super) fn check<const M: u8>(
    cx: &mut Ctx<M>,
    _: &InstView<'_>,
    _: Row,
    sem::PeRegWrite::PeRegWrite: sem::PeRegWrite,
    _: View<'_, PeRegWrite>,
) -> Flow {
    chain::pe_other::check_unpublished(cx)
}
