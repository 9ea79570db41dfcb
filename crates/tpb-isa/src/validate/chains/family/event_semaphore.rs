//! EventSemaphore, the standalone sync record (0xA0, isa-facts §1.3): the family's validator chain,
//! `FamilyVisitor::event_semaphore` (the generated impl calls this).

use super::*;

pub(in super::super) fn check<const M: u8>(
    cx: &mut Ctx<M>,
    inst: &InstView<'_>,
    _: Row,
    sem::EventSemaphore::EventSemaphore: sem::EventSemaphore,
    s: View<'_, EventSemaphore>,
) -> Flow {
    chain::event_semaphore::check(cx, inst, &s)
}
