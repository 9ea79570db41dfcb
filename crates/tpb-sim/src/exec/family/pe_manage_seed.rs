//! PE_MANAGE_SEED (0x08, isa-facts-pe-act-dma §1.10.3): the family's executor,
//! `FamilyVisitor::pe_manage_seed` (the generated impl calls this).

use super::*;

/// Its cost formula (docs/engines.md "Published figures"): none: refused before it runs (its body is not public, isa-facts-pe-act-dma §1.10), so never priced.
pub(in super::super) const COST: Formula = Formula::Assumed;

pub(in super::super) fn execute(
    _: &mut Cx<'_>,
    row: Row,
    sem::PeManageSeed::PeManageSeed: sem::PeManageSeed,
    _: &S2s1d2PeSeed,
) -> Executed {
    Err(not_executed(row))
}
