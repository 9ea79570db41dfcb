//! PE_REG_WRITE (0x03, isa-facts-pe-act-dma §1.10.2): the family's executor,
//! `FamilyVisitor::pe_reg_write` (the generated impl calls this).

use super::*;

/// Its cost formula (docs/engines.md "Published figures"): none: refused before it runs (its body is not public, isa-facts-pe-act-dma §1.10), so never priced.
pub(in super::super) const COST: Formula = Formula::Assumed;

pub(in super::super) fn execute(
    _: &mut Cx<'_>,
    row: Row,
    sem::PeRegWrite::PeRegWrite: sem::PeRegWrite,
    _: &PeRegWrite,
) -> Executed {
    Err(not_executed(row))
}
