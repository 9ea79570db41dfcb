//! TensorScalarImmLd (0x70/0x71, isa-facts §6): the family's executor, `FamilyVisitor::imm_ld` (the
//! generated impl calls this).

use super::*;

/// Its cost formula (docs/engines.md "Published figures"): nothing published: `max(MIN_II, N)` (ASSUMED, assumption `engine-timing`).
pub(in super::super) const COST: Formula = Formula::Assumed;

pub(in super::super) fn execute(
    cx: &mut Cx<'_>,
    _: Row,
    sem: sem::ImmLd,
    s: &S2Bn,
) -> Executed {
    let bitvec = match sem {
        sem::ImmLd::Arith => false,
        sem::ImmLd::Bitvec => true,
    };
    exec::imm_ld::execute(cx, s, bitvec)
}
