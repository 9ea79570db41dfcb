//! TensorTensorScan (0xe5), isa-facts-dve-pool §10: the family's test generator and plain reference
//! (the generated `generator` arm and reference `FamilyVisitor::tensor_tensor_scan` call these).

use super::*;

/// The family's random generator, if it has one.
pub(crate) fn generator() -> Option<Make> {
    Some(gen::gen_tensor_tensor_scan)
}

/// The family's plain reference.
pub(crate) fn reference(
    r: &mut Ref<'_>,
    _: Row,
    sem::TensorTensorScan::Arith: sem::TensorTensorScan,
    s: &wire::S2s2d2Stt,
) -> Done {
    let kind = reference::dve_state::SttRef::Scan;
    reference::dve_state::stt_family_ref(r.pre, r.st, s, kind, r.warns, r.strict)
}
