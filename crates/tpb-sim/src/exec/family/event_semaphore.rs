//! EventSemaphore, the standalone sync record (0xA0, isa-facts §1.3): the family's executor,
//! `FamilyVisitor::event_semaphore` (the generated impl calls this).

use super::*;

/// Its cost formula (docs/engines.md "Published figures"): no memory operands: `SYNC_CYCLES` (ASSUMED).
pub(in super::super) const COST: Formula = Formula::Sync;

pub(in super::super) fn execute(
    cx: &mut Cx<'_>,
    _: Row,
    sem::EventSemaphore::EventSemaphore: sem::EventSemaphore,
    s: &EventSemaphore,
) -> Executed {
    exec::event_semaphore::execute(cx, s)
}
