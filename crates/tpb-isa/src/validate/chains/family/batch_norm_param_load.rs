//! BatchNormParamLoad (0x64), an `S2_BN` sibling of ImmLd (isa-facts §6): the family's validator
//! chain, `FamilyVisitor::batch_norm_param_load` (the generated impl calls this).

use super::*;

pub(in super::super) fn check<const M: u8>(
    cx: &mut Ctx<M>,
    _: &InstView<'_>,
    _: Row,
    sem::BatchNormParamLoad::BatchNormParamLoad: sem::BatchNormParamLoad,
    s: View<'_, S2Bn>,
) -> Flow {
    chain::imm_ld::check_batch_norm_param_load(cx, &s)
}
