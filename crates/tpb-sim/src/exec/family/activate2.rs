//! Activate2 (0x25, isa-facts-pe-act-dma §2.6): the family's executor, `FamilyVisitor::activate2`
//! (the generated impl calls this).

use super::*;

/// Its cost formula (docs/engines.md "Published figures"): `max(MIN_II, N)` (ISA-2.26).
pub(in super::super) const COST: Formula = Formula::MinIi { perf_mode: false };

pub(in super::super) fn execute(
    _: &mut Cx<'_>,
    row: Row,
    sem::Activate2::Activate2: sem::Activate2,
    _: &S2d2Ac,
) -> Executed {
    Err(not_executed(row)) // the op order is not public (isa-facts-pe-act-dma §2.6)
}
