//! TensorScalarImmLd (0x70/0x71, isa-facts §6): the family's executor, `FamilyVisitor::imm_ld` (the
//! generated impl calls this).

use super::*;

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
