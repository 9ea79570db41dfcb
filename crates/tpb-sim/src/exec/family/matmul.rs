//! Matmul (0x02, isa-facts-pe-act-dma §1.3): the family's executor, `FamilyVisitor::matmul` (the
//! generated impl calls this).

use super::*;

pub(in super::super) fn execute(
    cx: &mut Cx<'_>,
    _: Row,
    sem::Matmul::Matmul: sem::Matmul,
    s: &S3d3Mm,
) -> Executed {
    exec::pe::matmul(cx, s)
}
