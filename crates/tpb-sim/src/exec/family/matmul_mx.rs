//! MATMUL_MX (0x0A, isa-facts-pe-act-dma §1.10.4): the family's executor,
//! `FamilyVisitor::matmul_mx` (the generated impl calls this).

use super::*;

pub(in super::super) fn execute(
    _: &mut Cx<'_>,
    row: Row,
    sem::MatmulMx::MatmulMx: sem::MatmulMx,
    _: &Smx1d3Mm,
) -> Executed {
    Err(not_executed(row))
}
