//! PE_MANAGE_SEED (0x08, isa-facts-pe-act-dma §1.10.3): the family's executor,
//! `FamilyVisitor::pe_manage_seed` (the generated impl calls this).

use super::*;

pub(in super::super) fn execute(
    _: &mut Cx<'_>,
    row: Row,
    sem::PeManageSeed::PeManageSeed: sem::PeManageSeed,
    _: &S2s1d2PeSeed,
) -> Executed {
    Err(not_executed(row))
}
