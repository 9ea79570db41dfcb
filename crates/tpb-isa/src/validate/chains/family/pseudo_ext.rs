//! PSEUDO_EXTENSION (0xDA, host only, isa-facts-pe-act-dma §3.6): the family's validator chain,
//! `FamilyVisitor::pseudo_ext` (the generated impl calls this).

use super::*;

pub(in super::super) fn check<const M: u8>(
    cx: &mut Ctx<M>,
    _: &InstView<'_>,
    _: Row,
    sem::PseudoExt::Extension: sem::PseudoExt,
    s: View<'_, PseudoDmaExt>,
) -> Flow {
    chain::dma::check_pseudo_ext(cx, &s.owned())
}
