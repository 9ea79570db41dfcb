//! Copy / Cast (0x46/0x47, isa-facts-dve-pool §4): the family's validator chain,
//! `FamilyVisitor::copy_cast` (the generated impl calls this).

use super::*;

pub(in super::super) fn check<const M: u8>(
    cx: &mut Ctx<M>,
    _: &InstView<'_>,
    _: Row,
    v: sem::CopyCast,
    s: View<'_, S4d4Tr>,
) -> Flow {
    chain::s4d4_tr::check_copy_cast(cx, v, &s)
}
