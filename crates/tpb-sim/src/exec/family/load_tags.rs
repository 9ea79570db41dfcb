//! LDTAGS (0x06, isa-facts-pe-act-dma §1.10.2): the family's executor, `FamilyVisitor::load_tags`
//! (the generated impl calls this).

use super::*;

/// Its cost formula (docs/engines.md "Published figures"): none: refused before it runs (its body is not public, isa-facts-pe-act-dma §1.10), so never priced.
pub(in super::super) const COST: Formula = Formula::Assumed;

pub(in super::super) fn execute(
    _: &mut Cx<'_>,
    row: Row,
    sem::LoadTags::LoadTags: sem::LoadTags,
    _: &S3Lt,
) -> Executed {
    Err(not_executed(row))
}
