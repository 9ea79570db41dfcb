//! EventSemaphore, the standalone sync record (0xA0, isa-facts §1.3): the family's test generator
//! and plain reference (the generated `generator` arm and reference
//! `FamilyVisitor::event_semaphore` call these).

use super::*;

/// The family's random generator, if it has one.
///
/// No data, semaphores only: dispatch.rs checks its documented effect.
pub(crate) fn generator() -> Option<Make> {
    None
}

/// The family's plain reference.
pub(crate) fn reference(
    _: &mut Ref<'_>,
    _: Row,
    sem::EventSemaphore::EventSemaphore: sem::EventSemaphore,
    _: &wire::EventSemaphore,
) -> Done {
    Err(RefFault::Unsupported)
}
