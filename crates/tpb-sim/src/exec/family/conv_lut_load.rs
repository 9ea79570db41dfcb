//! CONV_LUT_LOAD (0xE4, isa-facts-pe-act-dma §1.10.2): the family's executor,
//! `FamilyVisitor::conv_lut_load` (the generated impl calls this).

use super::*;

pub(in super::super) fn execute(
    _: &mut Cx<'_>,
    row: Row,
    sem::ConvLutLoad::ConvLutLoad: sem::ConvLutLoad,
    _: &S2Convlut,
) -> Executed {
    Err(not_executed(row))
}
