//! LoadWeights (0x01, isa-facts-pe-act-dma §1.4): the family's executor,
//! `FamilyVisitor::load_weights` (the generated impl calls this).

use super::*;

/// Its cost formula (docs/engines.md "Published figures"): fast background LoadStationary (ARCH1 L282–300; PERF L676–683).
pub(in super::super) const COST: Formula = Formula::LoadWeights;

pub(in super::super) fn execute(
    cx: &mut Cx<'_>,
    _: Row,
    sem::LoadWeights::LoadWeights: sem::LoadWeights,
    s: &S3Lw,
) -> Executed {
    exec::pe::load_weights(cx, s)
}
