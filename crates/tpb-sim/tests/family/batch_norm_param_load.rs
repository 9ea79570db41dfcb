//! BatchNormParamLoad (0x64), an `S2_BN` sibling of ImmLd (isa-facts §6): the family's test
//! generator and plain reference (the generated `generator` arm and reference
//! `FamilyVisitor::batch_norm_param_load` call these).

use super::*;

/// The family's random generator, if it has one.
///
/// Refused by the table's exec column (dispatch.rs checks the refusal).
pub(crate) fn generator() -> Option<Make> {
    None
}

/// The family's plain reference.
pub(crate) fn reference(
    _: &mut Ref<'_>,
    _: Row,
    sem::BatchNormParamLoad::BatchNormParamLoad: sem::BatchNormParamLoad,
    _: &wire::S2Bn,
) -> Done {
    Err(RefFault::Unsupported) // not modelled (the table refuses it)
}
