//! Activate (0x21, isa-facts-pe-act-dma §2.2): the family's executor, `FamilyVisitor::activate`
//! (the generated impl calls this).

use super::*;

/// Its cost formula (docs/engines.md "Published figures"): `max(MIN_II, N)` (ISA-2.26).
pub(in super::super) const COST: Formula = Formula::MinIi { perf_mode: false };

pub(in super::super) fn execute(
    cx: &mut Cx<'_>,
    _: Row,
    sem::Activate::Activate: sem::Activate,
    s: &S3d3Ac,
) -> Executed {
    exec::act::activate(cx, s)
}
