//! PSEUDO_EXTENSION (0xDA, host only, isa-facts-pe-act-dma §3.6): the family's executor,
//! `FamilyVisitor::pseudo_ext` (the generated impl calls this).

use super::*;

pub(in super::super) fn execute(
    _: &mut Cx<'_>,
    row: Row,
    sem::PseudoExt::Extension: sem::PseudoExt,
    _: &PseudoDmaExt,
) -> Executed {
    Err(not_executed(row))
}
