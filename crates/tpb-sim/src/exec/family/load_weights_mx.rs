//! LDWEIGHTS_MX (0x09, isa-facts-pe-act-dma §1.10.4): the family's executor,
//! `FamilyVisitor::load_weights_mx` (the generated impl calls this).

use super::*;

pub(in super::super) fn execute(
    _: &mut Cx<'_>,
    row: Row,
    sem::LoadWeightsMx::LoadWeightsMx: sem::LoadWeightsMx,
    _: &Smx1Lw,
) -> Executed {
    Err(not_executed(row))
}
