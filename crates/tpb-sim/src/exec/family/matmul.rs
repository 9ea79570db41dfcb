//! Matmul (0x02, isa-facts-pe-act-dma §1.3): the family's executor, `FamilyVisitor::matmul` (the
//! generated impl calls this).

use super::*;

/// Its cost formula (docs/engines.md "Published figures"): nc_matmul / nc_transpose on the PE (ISA-2.26; ARCH1 L262–270).
pub(in super::super) const COST: Formula = Formula::Matmul;

pub(in super::super) fn execute(
    cx: &mut Cx<'_>,
    _: Row,
    sem::Matmul::Matmul: sem::Matmul,
    s: &S3d3Mm,
) -> Executed {
    exec::pe::matmul(cx, s)
}
