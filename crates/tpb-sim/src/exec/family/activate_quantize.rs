//! ActivateQuantize (0x22, isa-facts-pe-act-dma §2.4): the family's executor,
//! `FamilyVisitor::activate_quantize` (the generated impl calls this).

use super::*;

pub(in super::super) fn execute(
    cx: &mut Cx<'_>,
    _: Row,
    sem::ActivateQuantize::ActivateQuantize: sem::ActivateQuantize,
    s: &S3d3Aq,
) -> Executed {
    exec::act::activate_quantize(cx, s)
}
