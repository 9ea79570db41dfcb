//! LoadWeights (0x01, isa-facts-pe-act-dma §1.4): the family's executor,
//! `FamilyVisitor::load_weights` (the generated impl calls this).

use super::*;

pub(in super::super) fn execute(
    cx: &mut Cx<'_>,
    _: Row,
    sem::LoadWeights::LoadWeights: sem::LoadWeights,
    s: &S3Lw,
) -> Executed {
    exec::pe::load_weights(cx, s)
}
