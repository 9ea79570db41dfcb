//! MATMUL_SPARSE (0x07, isa-facts-pe-act-dma §1.10.1): the family's validator chain,
//! `FamilyVisitor::matmul_sparse` (the generated impl calls this).

use super::*;

pub(in super::super) fn check<const M: u8>(
    cx: &mut Ctx<M>,
    _: &InstView<'_>,
    _: Row,
    sem::MatmulSparse::MatmulSparse: sem::MatmulSparse,
    _: View<'_, S4d3Mm>,
) -> Flow {
    chain::pe_other::check_unpublished(cx)
}
