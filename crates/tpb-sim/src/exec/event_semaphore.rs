//! EventSemaphore (0xA0): the standalone sync record (isa-facts §1.3). On tpb's single
//! instruction stream a wait that does not hold is a fault, as for the EVENTS preamble
//! (decisions §3.8). Order (`event-semaphore-order`): wait 0 (the preamble, checked by the
//! machine before this runs) and wait 1 are both checked against the state before the
//! instruction; then wait 1's own effect (`*_THEN_*`) and the update are applied here, and
//! the preamble's wait effect after, as for every instruction.

use super::Cx;
use crate::report::FaultCause;
use crate::state::events::{apply, plan};
use tpb_isa::wire::{EventSemaphore, Events};
use tpb_isa::{UpdateMode, WaitMode};

pub(super) fn execute(cx: &mut Cx<'_>, s: &EventSemaphore) -> Result<(), FaultCause> {
    let wait1 = Events {
        wait_mode: s.wait1_mode,
        wait_idx: s.wait1_idx,
        update_mode: UpdateMode::NONE,
        update_idx: 0,
        semaphore_value: s.wait1_value,
    };
    let update = Events {
        wait_mode: WaitMode::NONE,
        wait_idx: 0,
        update_mode: s.update1_mode,
        update_idx: s.update1_idx,
        semaphore_value: s.update1_value,
    };
    // Both are planned before either is applied, so a fault changes nothing.
    let wait1 = plan(&wait1, cx.st)?;
    let update = plan(&update, cx.st)?;
    apply(wait1, cx.st);
    apply(update, cx.st);
    Ok(())
}
