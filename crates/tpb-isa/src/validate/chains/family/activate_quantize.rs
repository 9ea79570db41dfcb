//! ActivateQuantize (0x22, isa-facts-pe-act-dma §2.4): the family's validator chain,
//! `FamilyVisitor::activate_quantize` (the generated impl calls this).

use super::*;

pub(in super::super) fn check<const M: u8>(
    cx: &mut Ctx<M>,
    _: &InstView<'_>,
    _: Row,
    sem::ActivateQuantize::ActivateQuantize: sem::ActivateQuantize,
    s: View<'_, S3d3Aq>,
) -> Flow {
    chain::act::check_activate_quantize(cx, &s)
}
