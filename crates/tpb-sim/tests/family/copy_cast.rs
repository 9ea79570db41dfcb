//! Copy / Cast (0x46/0x47, isa-facts-dve-pool §4): the family's test generator and plain reference
//! (the generated `generator` arm and reference `FamilyVisitor::copy_cast` call these).

use super::*;

/// The family's random generator, if it has one.
pub(crate) fn generator() -> Option<Make> {
    Some(gen::gen_copy_cast)
}

/// The family's plain reference.
pub(crate) fn reference(
    r: &mut Ref<'_>,
    _: Row,
    v: sem::CopyCast,
    s: &wire::S4d4Tr,
) -> Done {
    match v {
        sem::CopyCast::Copy | sem::CopyCast::Cast => {
            reference::copy_cast_ref(r.pre, r.st, s, false, r.warns, r.strict)
        }
    }
}
