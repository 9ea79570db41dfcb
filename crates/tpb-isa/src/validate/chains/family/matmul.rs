//! Matmul (0x02, isa-facts-pe-act-dma §1.3): the family's validator chain, `FamilyVisitor::matmul`
//! (the generated impl calls this).

use super::*;

pub(in super::super) fn check<const M: u8>(
    cx: &mut Ctx<M>,
    _: &InstView<'_>,
    _: Row,
    sem::Matmul::Matmul: sem::Matmul,
    s: View<'_, S3d3Mm>,
) -> Flow {
    chain::pe::check_matmul(cx, &s)
}
