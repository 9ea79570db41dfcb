//! TensorReduce, TransposeTensorReduce and sunda's bf16 pair (0x42/0x52/0x83/0x84/0x8c/0x8d, isa-
//! facts-dve-pool §7): the family's test generator and plain reference (the generated `generator`
//! arm and reference `FamilyVisitor::tensor_reduce` call these).

use super::*;

/// The family's random generator, if it has one.
pub(crate) fn generator() -> Option<Make> {
    Some(gen::gen_tensor_reduce)
}

/// The family's plain reference.
pub(crate) fn reference(
    r: &mut Ref<'_>,
    _: Row,
    v: sem::TensorReduce,
    s: &wire::S4d4Tr,
) -> Done {
    use sem::TensorReduce as V;
    // (transposed first, bit-vector); sunda's bf16 pair folds like Arith with the op
    // the validator pins.
    let (transpose, bitvec) = match v {
        V::Arith | V::AddBf16 | V::MaxBf16 => (false, false),
        V::Bitvec => (false, true),
        V::TransposeArith => (true, false),
        V::TransposeBitvec => (true, true),
    };
    reference::tensor_reduce_ref(
        r.pre,
        r.st,
        s,
        transpose,
        bitvec,
        r.warns,
        r.strict,
    )
}
