//! CopyPredicatedScalar (0xe8, isa-facts-dve-pool §3): the family's executor,
//! `FamilyVisitor::copy_predicated_scalar` (the generated impl calls this).

use super::*;

/// Its cost formula (docs/engines.md "Published figures"): `max(MIN_II, N)` or `max(MIN_II, 2N)` by operand location (ISA-2.26).
pub(in super::super) const COST: Formula = Formula::Predicated;

pub(in super::super) fn execute(
    cx: &mut Cx<'_>,
    _: Row,
    sem::CopyPredicatedScalar::CopyPredicatedScalar: sem::CopyPredicatedScalar,
    s: &S3d3CpPredScalar,
) -> Executed {
    exec::predicated::execute_scalar(cx, s)
}
