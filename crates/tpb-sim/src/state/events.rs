//! The EVENTS preamble: a wait checked before the instruction, an update applied after it
//! (isa-facts §1.3, decisions §3.8). Planning never changes state; [`apply`] cannot fail.

use super::State;
use crate::assumptions::{EVENT_CONFLICT_FAULTS, SEM_STEP};
use crate::report::FaultCause;
use tpb_isa::wire::Events;
use tpb_isa::{UpdateMode, WaitMode};

/// The state changes an instruction's EVENTS will make, decided before it runs.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct EventPlan {
    /// `*_THEN_CLEAR` / `*_THEN_SET` waits: (event, new value).
    wait_effect: Option<(u8, bool)>,
    /// The update: an event's new value, or a semaphore's new value.
    update: Update,
}

#[derive(Clone, Copy, Debug, Default)]
enum Update {
    #[default]
    None,
    Event(u8, bool),
    Semaphore(u8, i32),
}

fn register(st: &State, value: u32, what: &str) -> Result<u32, FaultCause> {
    st.regs
        .get(value as usize)
        .copied()
        .ok_or_else(|| FaultCause::Event {
            detail: format!("{what} names register {value}, outside 0..64"),
        })
}

/// Checks the wait and prepares the update (decisions §3.8).
pub(crate) fn plan(ev: &Events, st: &State) -> Result<EventPlan, FaultCause> {
    let mut plan = EventPlan::default();
    if ev.wait_mode == WaitMode::NONE && ev.update_mode == UpdateMode::NONE {
        return Ok(plan);
    }
    let wi = ev.wait_idx;
    let value = ev.semaphore_value;
    let sem = st.sems[wi as usize];
    let unsatisfied = |detail: String| FaultCause::WaitUnsatisfied { detail };
    let sem_cmp = |threshold: i32, mode: u8, how: String| -> Result<(), FaultCause> {
        let ok = match mode & 0x7F {
            1 => sem == threshold,
            2 => sem < threshold,
            3 => sem <= threshold,
            4 => sem > threshold,
            _ => sem >= threshold,
        };
        let op = ["==", "<", "<=", ">", ">="][((mode & 0x7F) as usize).clamp(1, 5) - 1];
        if ok {
            Ok(())
        } else {
            Err(unsatisfied(format!(
                "semaphore {wi} {op} {threshold}{how} (semaphore is {sem})"
            )))
        }
    };
    match ev.wait_mode {
        WaitMode::NONE => {}
        m @ (WaitMode::SEM_EQ_IMM
        | WaitMode::SEM_LT_IMM
        | WaitMode::SEM_LE_IMM
        | WaitMode::SEM_GT_IMM
        | WaitMode::SEM_GE_IMM) => sem_cmp(value as i32, m.0, String::new())?,
        m @ (WaitMode::SEM_EQ_REG
        | WaitMode::SEM_LT_REG
        | WaitMode::SEM_LE_REG
        | WaitMode::SEM_GT_REG
        | WaitMode::SEM_GE_REG) => {
            let t = register(st, value, "register wait")? as i32;
            sem_cmp(t, m.0, format!(" (register {value})"))?
        }
        m @ (WaitMode::EVT_SET | WaitMode::EVT_SET_THEN_CLEAR) => {
            if !st.events[wi as usize] {
                return Err(unsatisfied(format!("event {wi} set (it is clear)")));
            }
            if m == WaitMode::EVT_SET_THEN_CLEAR {
                plan.wait_effect = Some((wi, false));
            }
        }
        m @ (WaitMode::EVT_CLEAR | WaitMode::EVT_CLEAR_THEN_SET) => {
            if st.events[wi as usize] {
                return Err(unsatisfied(format!("event {wi} clear (it is set)")));
            }
            if m == WaitMode::EVT_CLEAR_THEN_SET {
                plan.wait_effect = Some((wi, true));
            }
        }
        m => {
            return Err(FaultCause::Unsupported {
                what: format!("wait mode {m}"),
            })
        }
    }
    // The update sees the event bank after the wait's own effect.
    let ui = ev.update_idx;
    let event_now = |i: u8| match plan.wait_effect {
        Some((e, v)) if e == i => v,
        _ => st.events[i as usize],
    };
    let s = st.sems[ui as usize];
    plan.update = match ev.update_mode {
        UpdateMode::NONE => Update::None,
        UpdateMode::EVT_SET_READ | UpdateMode::EVT_SET_COMPLETE => {
            if EVENT_CONFLICT_FAULTS && event_now(ui) {
                return Err(FaultCause::Event {
                    detail: format!("set of event {ui}, which is already set"),
                });
            }
            Update::Event(ui, true)
        }
        UpdateMode::EVT_CLR_READ => {
            if EVENT_CONFLICT_FAULTS && !event_now(ui) {
                return Err(FaultCause::Event {
                    detail: format!("clear of event {ui}, which is not set"),
                });
            }
            Update::Event(ui, false)
        }
        UpdateMode::SEM_INC_READ | UpdateMode::SEM_INC_COMPLETE => {
            Update::Semaphore(ui, s.wrapping_add(SEM_STEP))
        }
        UpdateMode::SEM_DEC_READ | UpdateMode::SEM_DEC_COMPLETE => {
            Update::Semaphore(ui, s.wrapping_sub(SEM_STEP))
        }
        UpdateMode::SEM_ADD_IMM_READ | UpdateMode::SEM_ADD_IMM_COMPLETE => {
            Update::Semaphore(ui, s.wrapping_add(value as i32))
        }
        UpdateMode::SEM_SUB_IMM_READ | UpdateMode::SEM_SUB_IMM_COMPLETE => {
            Update::Semaphore(ui, s.wrapping_sub(value as i32))
        }
        UpdateMode::SEM_WR_IMM_READ | UpdateMode::SEM_WR_IMM_COMPLETE => {
            Update::Semaphore(ui, value as i32)
        }
        UpdateMode::SEM_SUB_REG_READ | UpdateMode::SEM_SUB_REG_COMPLETE => {
            let r = register(st, value, "register update")? as i32;
            Update::Semaphore(ui, s.wrapping_sub(r))
        }
        UpdateMode::SEM_WR_REG_COMPLETE => {
            Update::Semaphore(ui, register(st, value, "register update")? as i32)
        }
        m => {
            return Err(FaultCause::Unsupported {
                what: format!("update mode {m}"),
            })
        }
    };
    Ok(plan)
}

/// Applies a planned wait effect and update (after the instruction has run).
pub(crate) fn apply(plan: EventPlan, st: &mut State) {
    if let Some((e, v)) = plan.wait_effect {
        st.events[e as usize] = v;
    }
    match plan.update {
        Update::None => {}
        Update::Event(e, v) => st.events[e as usize] = v,
        Update::Semaphore(i, v) => st.sems[i as usize] = v,
    }
}
