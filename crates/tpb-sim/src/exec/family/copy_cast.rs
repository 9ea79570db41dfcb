//! Copy / Cast (0x46/0x47, isa-facts-dve-pool §4): the family's executor,
//! `FamilyVisitor::copy_cast` (the generated impl calls this).

use super::*;

pub(in super::super) fn execute(
    cx: &mut Cx<'_>,
    _: Row,
    sem: sem::CopyCast,
    s: &S4d4Tr,
) -> Executed {
    match sem {
        sem::CopyCast::Copy | sem::CopyCast::Cast => exec::copy_cast::execute(cx, s, false),
    }
}
