//! CopyPredicatedScalar (0xe8, isa-facts-dve-pool §3): the family's test generator and plain
//! reference (the generated `generator` arm and reference `FamilyVisitor::copy_predicated_scalar`
//! call these).

use super::*;

/// The family's random generator, if it has one.
pub(crate) fn generator() -> Option<Make> {
    Some(gen::gen_copy_predicated_scalar)
}

/// The family's plain reference.
pub(crate) fn reference(
    r: &mut Ref<'_>,
    _: Row,
    sem::CopyPredicatedScalar::CopyPredicatedScalar: sem::CopyPredicatedScalar,
    s: &wire::S3d3CpPredScalar,
) -> Done {
    reference::copy_predicated_scalar_ref(r.pre, r.st, s, r.warns, r.strict)
}
