//! MATMUL_SPARSE (0x07, isa-facts-pe-act-dma §1.10.1): the family's executor,
//! `FamilyVisitor::matmul_sparse` (the generated impl calls this).

use super::*;

pub(in super::super) fn execute(
    _: &mut Cx<'_>,
    row: Row,
    sem::MatmulSparse::MatmulSparse: sem::MatmulSparse,
    _: &S4d3Mm,
) -> Executed {
    Err(not_executed(row))
}
