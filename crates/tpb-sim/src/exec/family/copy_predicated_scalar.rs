//! CopyPredicatedScalar (0xe8, isa-facts-dve-pool §3): the family's executor,
//! `FamilyVisitor::copy_predicated_scalar` (the generated impl calls this).

use super::*;

pub(in super::super) fn execute(
    cx: &mut Cx<'_>,
    _: Row,
    sem::CopyPredicatedScalar::CopyPredicatedScalar: sem::CopyPredicatedScalar,
    s: &S3d3CpPredScalar,
) -> Executed {
    exec::predicated::execute_scalar(cx, s)
}
