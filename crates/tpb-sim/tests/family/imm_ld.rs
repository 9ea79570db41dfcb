//! TensorScalarImmLd (0x70/0x71, isa-facts §6): the family's test generator and plain reference
//! (the generated `generator` arm and reference `FamilyVisitor::imm_ld` call these).

use super::*;

/// The family's random generator, if it has one.
pub(crate) fn generator() -> Option<Make> {
    Some(|w| vec![gen::gen_imm_ld(w)])
}

/// The family's plain reference.
pub(crate) fn reference(
    r: &mut Ref<'_>,
    _: Row,
    v: sem::ImmLd,
    s: &wire::S2Bn,
) -> Done {
    let arith = match v {
        sem::ImmLd::Arith => true,
        sem::ImmLd::Bitvec => false,
    };
    reference::imm_ld(r.pre, r.st, s, arith, r.warns, r.strict)
}
