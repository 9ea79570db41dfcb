//! TensorLoad / TensorStore (0xAA/0xAB, isa-facts-pe-act-dma §3.14): the family's executor,
//! `FamilyVisitor::mem2d` (the generated impl calls this).

use super::*;

/// Its cost formula (docs/engines.md "Published figures"): nothing published: `max(MIN_II, N)` (ASSUMED, assumption `engine-timing`).
pub(in super::super) const COST: Formula = Formula::Assumed;

pub(in super::super) fn execute(
    cx: &mut Cx<'_>,
    _: Row,
    sem: sem::Mem2d,
    s: &Mem2d,
) -> Executed {
    let load = match sem {
        sem::Mem2d::Load => true,
        sem::Mem2d::Store => false,
    };
    exec::dma::execute_mem2d(cx, s, load)
}
