//! TensorTensor Arith/Bitvec (0x41/0x51, isa-facts-dve-pool §1): the family's test generator and
//! plain reference (the generated `generator` arm and reference `FamilyVisitor::tensor_tensor` call
//! these).

use super::*;

/// The family's random generator, if it has one.
pub(crate) fn generator() -> Option<Make> {
    Some(gen::gen_tensor_tensor)
}

/// The family's plain reference.
pub(crate) fn reference(
    r: &mut Ref<'_>,
    _: Row,
    v: sem::TensorTensor,
    s: &wire::S3s3d3Tt,
) -> Done {
    let bitvec = match v {
        sem::TensorTensor::Arith => false,
        sem::TensorTensor::Bitvec => true,
    };
    reference::tensor_tensor_ref(r.pre, r.st, s, bitvec, false, r.warns, r.strict)
}
