//! ActivateQuantize (0x22, isa-facts-pe-act-dma §2.4): the family's executor,
//! `FamilyVisitor::activate_quantize` (the generated impl calls this).

use super::*;

/// Its cost formula (docs/engines.md "Published figures"): `max(MIN_II, N)` (ISA-2.26).
pub(in super::super) const COST: Formula = Formula::MinIi { perf_mode: false };

pub(in super::super) fn execute(
    cx: &mut Cx<'_>,
    _: Row,
    sem::ActivateQuantize::ActivateQuantize: sem::ActivateQuantize,
    s: &S3d3Aq,
) -> Executed {
    exec::act::activate_quantize(cx, s)
}
