//! ScalarTensorTensor (0x9d/0x9e), isa-facts-dve-pool §9: the family's test generator and plain
//! reference (the generated `generator` arm and reference `FamilyVisitor::scalar_tensor_tensor`
//! call these).

use super::*;

/// The family's random generator, if it has one.
pub(crate) fn generator() -> Option<Make> {
    Some(gen::gen_scalar_tensor_tensor)
}

/// The family's plain reference.
pub(crate) fn reference(
    r: &mut Ref<'_>,
    _: Row,
    v: sem::ScalarTensorTensor,
    s: &wire::S2s2d2Stt,
) -> Done {
    let kind = match v {
        sem::ScalarTensorTensor::Arith => reference::dve_state::SttRef::Arith,
        sem::ScalarTensorTensor::Bitvec => reference::dve_state::SttRef::Bitvec,
    };
    reference::dve_state::stt_family_ref(r.pre, r.st, s, kind, r.warns, r.strict)
}
