//! PE_REG_WRITE (0x03, isa-facts-pe-act-dma §1.10.2): the family's executor,
//! `FamilyVisitor::pe_reg_write` (the generated impl calls this).

use super::*;

pub(in super::super) fn execute(
    _: &mut Cx<'_>,
    row: Row,
    sem::PeRegWrite::PeRegWrite: sem::PeRegWrite,
    _: &PeRegWrite,
) -> Executed {
    Err(not_executed(row))
}
