//! CONV_LUT_LOAD (0xE4, isa-facts-pe-act-dma §1.10.2): the family's validator chain,
//! `FamilyVisitor::conv_lut_load` (the generated impl calls this).

use super::*;

pub(in super::super) fn check<const M: u8>(
    cx: &mut Ctx<M>,
    _: &InstView<'_>,
    _: Row,
    sem::ConvLutLoad::ConvLutLoad: sem::ConvLutLoad,
    _: View<'_, S2Convlut>,
) -> Flow {
    chain::pe_other::check_unpublished(cx)
}
