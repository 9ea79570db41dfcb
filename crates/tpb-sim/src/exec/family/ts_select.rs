//! TensorScalarSelect (0x98, isa-facts §10.1): the family's executor, `FamilyVisitor::ts_select`
//! (the generated impl calls this).

use super::*;

/// Its cost formula (docs/engines.md "Published figures"): nothing published: `max(MIN_II, N)` (ASSUMED, assumption `engine-timing`).
pub(in super::super) const COST: Formula = Formula::Assumed;

pub(in super::super) fn execute(
    cx: &mut Cx<'_>,
    _: Row,
    sem::TsSelect::TsSelect: sem::TsSelect,
    s: &S3d3TsSelect,
) -> Executed {
    exec::ts_select::execute(cx, s)
}
