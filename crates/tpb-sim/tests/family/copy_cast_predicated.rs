//! CopyPredicated / CastPredicated (0x72/0x99, isa-facts-dve-pool §2): the family's test generator
//! and plain reference (the generated `generator` arm and reference
//! `FamilyVisitor::copy_cast_predicated` call these).

use super::*;

/// The family's random generator, if it has one.
pub(crate) fn generator() -> Option<Make> {
    Some(gen::gen_copy_cast_predicated)
}

/// The family's plain reference.
pub(crate) fn reference(
    r: &mut Ref<'_>,
    _: Row,
    v: sem::CopyCastPredicated,
    s: &wire::S3s3d3Tt,
) -> Done {
    // One element rule for both: Copy's dtypes are equal (validated).
    match v {
        sem::CopyCastPredicated::Copy | sem::CopyCastPredicated::Cast => {
            reference::copy_cast_predicated_ref(r.pre, r.st, s, r.warns, r.strict)
        }
    }
}
