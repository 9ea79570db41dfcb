//! MATMUL_MX (0x0A, isa-facts-pe-act-dma §1.10.4): the family's validator chain,
//! `FamilyVisitor::matmul_mx` (the generated impl calls this).

use super::*;

pub(in super::super) fn check<const M: u8>(
    cx: &mut Ctx<M>,
    _: &InstView<'_>,
    _: Row,
    sem::MatmulMx::MatmulMx: sem::MatmulMx,
    _: View<'_, Smx1d3Mm>,
) -> Flow {
    chain::pe_other::check_unpublished(cx)
}
