//! TensorScalarImmLd (0x70/0x71, isa-facts §6): the family's validator chain,
//! `FamilyVisitor::imm_ld` (the generated impl calls this).

use super::*;

pub(in super::super) fn check<const M: u8>(
    cx: &mut Ctx<M>,
    _: &InstView<'_>,
    _: Row,
    v: sem::ImmLd,
    s: View<'_, S2Bn>,
) -> Flow {
    chain::imm_ld::check(cx, v, &s)
}
