//! MATMUL_SPARSE (0x07, isa-facts-pe-act-dma §1.10.1): the family's executor,
//! `FamilyVisitor::matmul_sparse` (the generated impl calls this).

use super::*;

/// Its cost formula (docs/engines.md "Published figures"): none: refused before it runs (its body is not public, isa-facts-pe-act-dma §1.10), so never priced.
pub(in super::super) const COST: Formula = Formula::Assumed;

pub(in super::super) fn execute(
    _: &mut Cx<'_>,
    row: Row,
    sem::MatmulSparse::MatmulSparse: sem::MatmulSparse,
    _: &S4d3Mm,
) -> Executed {
    Err(not_executed(row))
}
