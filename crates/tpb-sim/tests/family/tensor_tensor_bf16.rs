//! The sunda bf16 TensorTensor trio (0x8a/0x8b/0x8f, isa-facts-dve-pool §1.7): the family's test
//! generator and plain reference (the generated `generator` arm and reference
//! `FamilyVisitor::tensor_tensor_bf16` call these).

use super::*;

/// The family's random generator, if it has one.
pub(crate) fn generator() -> Option<Make> {
    Some(gen::gen_tensor_tensor_bf16)
}

/// The family's plain reference.
pub(crate) fn reference(
    r: &mut Ref<'_>,
    _: Row,
    v: sem::TensorTensorBf16,
    s: &wire::S3s3d3Tt,
) -> Done {
    // The op is the instruction's (validated to equal the one the behaviour pins).
    match v {
        sem::TensorTensorBf16::Add
        | sem::TensorTensorBf16::Mult
        | sem::TensorTensorBf16::Sub => {
            reference::tensor_tensor_ref(r.pre, r.st, s, false, true, r.warns, r.strict)
        }
    }
}
