//! BatchNormParamLoad (0x64), an `S2_BN` sibling of ImmLd (isa-facts §6): the family's executor,
//! `FamilyVisitor::batch_norm_param_load` (the generated impl calls this).

use super::*;

/// Its cost formula (docs/engines.md "Published figures"): nothing published: `max(MIN_II, N)` (ASSUMED, assumption `engine-timing`).
pub(in super::super) const COST: Formula = Formula::Assumed;

pub(in super::super) fn execute(
    _: &mut Cx<'_>,
    row: Row,
    sem::BatchNormParamLoad::BatchNormParamLoad: sem::BatchNormParamLoad,
    _: &S2Bn,
) -> Executed {
    Err(not_executed(row)) // DVE batch-norm state is not modelled (isa-facts §6)
}
