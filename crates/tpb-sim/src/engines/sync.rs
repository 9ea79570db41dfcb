//! The EVENTS preamble as the multi-engine scheduler sees it (isa-facts §1.3): a wait is a
//! condition on one semaphore or event, checked while the instruction is at the head of its
//! queue; an update is an operation applied later, when the instruction has read its inputs
//! (`_READ`) or finished (`_COMPLETE`), on the value the object has then (assumption
//! `engine-sync-timing`). Semaphore arithmetic follows `semaphore-arithmetic`.

use super::race::Closed;
use crate::assumptions::{EVENT_CONFLICT_FAULTS, SEM_STEP};
use crate::machine::{FaultCause, NUM_EVENTS, NUM_SEMAPHORES};
use std::fmt;
use tpb_isa::wire::Events;
use tpb_isa::{UpdateMode, WaitMode};

/// A synchronisation object: one of the 256 semaphores or 256 events.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Object {
    /// A semaphore.
    Semaphore(u8),
    /// An event bit.
    Event(u8),
}

impl Object {
    /// Index into a combined table: semaphores first, then events.
    pub(crate) fn slot(self) -> usize {
        match self {
            Object::Semaphore(i) => i as usize,
            Object::Event(i) => NUM_SEMAPHORES + i as usize,
        }
    }
}

/// Slots of [`Object::slot`].
pub(crate) const NUM_OBJECTS: usize = NUM_SEMAPHORES + NUM_EVENTS;

impl fmt::Display for Object {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Object::Semaphore(i) => write!(f, "semaphore {i}"),
            Object::Event(i) => write!(f, "event {i}"),
        }
    }
}

/// A wait condition.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Wait {
    /// `semaphore op threshold`; `register` names the register a `_REG` form read.
    Semaphore {
        /// The semaphore.
        index: u8,
        /// `==`, `<`, `<=`, `>` or `>=`.
        op: &'static str,
        /// The threshold.
        threshold: i32,
        /// The register the threshold came from.
        register: Option<u32>,
    },
    /// The event is set (`want` true) or clear; `then_flip` flips it when the wait passes
    /// (`*_THEN_CLEAR` / `*_THEN_SET`).
    Event {
        /// The event.
        index: u8,
        /// The state waited for.
        want: bool,
        /// Whether passing the wait flips the event.
        then_flip: bool,
    },
}

impl Wait {
    /// The object waited on.
    pub fn object(&self) -> Object {
        match *self {
            Wait::Semaphore { index, .. } => Object::Semaphore(index),
            Wait::Event { index, .. } => Object::Event(index),
        }
    }

    /// Whether the condition holds.
    pub fn holds(&self, sems: &[i32; NUM_SEMAPHORES], events: &[bool; NUM_EVENTS]) -> bool {
        self.holds_at(match *self {
            Wait::Semaphore { index, .. } => i64::from(sems[index as usize]),
            Wait::Event { index, .. } => i64::from(events[index as usize]),
        })
    }

    /// Whether the condition holds when the object's value is `v` (events: 0 or 1).
    pub fn holds_at(&self, v: i64) -> bool {
        match *self {
            Wait::Semaphore { op, threshold, .. } => {
                let t = i64::from(threshold);
                // By bytes, not string comparisons: this runs for every wait and, in
                // happens-before, for every update a wait looks back over.
                match op.as_bytes() {
                    [b'=', ..] => v == t,
                    [b'<'] => v < t,
                    [b'<', _] => v <= t,
                    [b'>'] => v > t,
                    _ => v >= t,
                }
            }
            Wait::Event { want, .. } => (v != 0) == want,
        }
    }

    /// Which side of its threshold the condition holds on (for [`super::race::History`]).
    pub(crate) fn closed(&self) -> Closed {
        match *self {
            Wait::Semaphore { op, .. } => match op.as_bytes() {
                [b'>', ..] => Closed::Upward,
                [b'<', ..] => Closed::Downward,
                _ => Closed::Neither,
            },
            Wait::Event { .. } => Closed::Neither,
        }
    }

    /// The condition with the object's current value, e.g. `semaphore 3 >= 5 (it is 2)`.
    pub fn describe(&self, sems: &[i32; NUM_SEMAPHORES], events: &[bool; NUM_EVENTS]) -> String {
        match *self {
            Wait::Semaphore {
                index,
                op,
                threshold,
                register,
            } => {
                let reg = register.map_or(String::new(), |r| format!(" (register {r})"));
                format!(
                    "semaphore {index} {op} {threshold}{reg} (semaphore is {})",
                    sems[index as usize]
                )
            }
            Wait::Event { index, want, .. } => {
                let state = |b: bool| if b { "set" } else { "clear" };
                format!(
                    "event {index} {} (it is {})",
                    state(want),
                    state(events[index as usize])
                )
            }
        }
    }
}

/// What an update does to its object.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    /// Set (true) or clear an event.
    Event(u8, bool),
    /// Add a (wrapping) amount to a semaphore.
    Add(u8, i32),
    /// Write a semaphore.
    Write(u8, i32),
}

impl Op {
    /// The object updated.
    pub fn object(&self) -> Object {
        match *self {
            Op::Event(i, _) => Object::Event(i),
            Op::Add(i, _) | Op::Write(i, _) => Object::Semaphore(i),
        }
    }

    /// Applies the update to the current values; an event set twice or cleared while clear
    /// is a fault (assumption `event-conflicts`).
    pub fn apply(
        &self,
        sems: &mut [i32; NUM_SEMAPHORES],
        events: &mut [bool; NUM_EVENTS],
    ) -> Result<(), FaultCause> {
        match *self {
            Op::Event(i, v) => {
                if EVENT_CONFLICT_FAULTS && events[i as usize] == v {
                    return Err(FaultCause::Event {
                        detail: if v {
                            format!("set of event {i}, which is already set")
                        } else {
                            format!("clear of event {i}, which is not set")
                        },
                    });
                }
                events[i as usize] = v;
            }
            Op::Add(i, d) => sems[i as usize] = sems[i as usize].wrapping_add(d),
            Op::Write(i, v) => sems[i as usize] = v,
        }
        Ok(())
    }
}

/// An update and when it fires.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Update {
    /// The operation.
    pub op: Op,
    /// `_READ` (inputs read) rather than `_COMPLETE`.
    pub at_read: bool,
}

/// An instruction's synchronisation: its waits (all must hold) and its updates. The EVENTS
/// header gives one of each; a standalone sync record (EventSemaphore, two waits then an
/// update) adds its own through [`Sync::add`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Sync {
    /// The waits, in order.
    pub waits: [Option<Wait>; 2],
    /// The updates, in order.
    pub updates: [Option<Update>; 2],
}

impl Sync {
    /// Adds the wait and update of another EVENTS-shaped group (e.g. EventSemaphore's
    /// second wait, or its update) into the next free slots.
    pub fn add(&mut self, ev: &Events, regs: &[u32]) -> Result<(), FaultCause> {
        let more = decode(ev, regs)?;
        for w in more.waits.into_iter().flatten() {
            let slot = self.waits.iter_mut().find(|s| s.is_none());
            *slot.ok_or_else(|| FaultCause::Unsupported {
                what: "more than two waits on one instruction".into(),
            })? = Some(w);
        }
        for u in more.updates.into_iter().flatten() {
            let slot = self.updates.iter_mut().find(|s| s.is_none());
            *slot.ok_or_else(|| FaultCause::Unsupported {
                what: "more than two updates on one instruction".into(),
            })? = Some(u);
        }
        Ok(())
    }
}

fn register(regs: &[u32], value: u32, what: &str) -> Result<u32, FaultCause> {
    regs.get(value as usize)
        .copied()
        .ok_or_else(|| FaultCause::Event {
            detail: format!("{what} names register {value}, outside 0..64"),
        })
}

/// Whether an update mode's amount is read from a register when the instruction runs (so
/// it is not known before the run).
pub(crate) fn amount_from_register(mode: UpdateMode) -> bool {
    matches!(
        mode,
        UpdateMode::SEM_SUB_REG_READ
            | UpdateMode::SEM_SUB_REG_COMPLETE
            | UpdateMode::SEM_WR_REG_COMPLETE
    )
}

/// Decodes a header's EVENTS; `_REG` forms read `regs` now.
pub fn decode(ev: &Events, regs: &[u32]) -> Result<Sync, FaultCause> {
    let mut sync = Sync::default();
    if ev.wait_mode == WaitMode::NONE && ev.update_mode == UpdateMode::NONE {
        return Ok(sync);
    }
    let (wi, ui, value) = (ev.wait_idx, ev.update_idx, ev.semaphore_value);
    let cmp = |m: WaitMode| ["==", "<", "<=", ">", ">="][((m.0 & 0x7F) as usize).clamp(1, 5) - 1];
    sync.waits[0] = match ev.wait_mode {
        WaitMode::NONE => None,
        m @ (WaitMode::SEM_EQ_IMM
        | WaitMode::SEM_LT_IMM
        | WaitMode::SEM_LE_IMM
        | WaitMode::SEM_GT_IMM
        | WaitMode::SEM_GE_IMM) => Some(Wait::Semaphore {
            index: wi,
            op: cmp(m),
            threshold: value as i32,
            register: None,
        }),
        m @ (WaitMode::SEM_EQ_REG
        | WaitMode::SEM_LT_REG
        | WaitMode::SEM_LE_REG
        | WaitMode::SEM_GT_REG
        | WaitMode::SEM_GE_REG) => Some(Wait::Semaphore {
            index: wi,
            op: cmp(m),
            threshold: register(regs, value, "register wait")? as i32,
            register: Some(value),
        }),
        m @ (WaitMode::EVT_SET | WaitMode::EVT_SET_THEN_CLEAR) => Some(Wait::Event {
            index: wi,
            want: true,
            then_flip: m == WaitMode::EVT_SET_THEN_CLEAR,
        }),
        m @ (WaitMode::EVT_CLEAR | WaitMode::EVT_CLEAR_THEN_SET) => Some(Wait::Event {
            index: wi,
            want: false,
            then_flip: m == WaitMode::EVT_CLEAR_THEN_SET,
        }),
        m => {
            return Err(FaultCause::Unsupported {
                what: format!("wait mode {m}"),
            })
        }
    };
    let (op, at_read) = match ev.update_mode {
        UpdateMode::NONE => return Ok(sync),
        UpdateMode::EVT_SET_READ => (Op::Event(ui, true), true),
        UpdateMode::EVT_SET_COMPLETE => (Op::Event(ui, true), false),
        UpdateMode::EVT_CLR_READ => (Op::Event(ui, false), true),
        UpdateMode::SEM_INC_READ => (Op::Add(ui, SEM_STEP), true),
        UpdateMode::SEM_INC_COMPLETE => (Op::Add(ui, SEM_STEP), false),
        UpdateMode::SEM_DEC_READ => (Op::Add(ui, SEM_STEP.wrapping_neg()), true),
        UpdateMode::SEM_DEC_COMPLETE => (Op::Add(ui, SEM_STEP.wrapping_neg()), false),
        UpdateMode::SEM_ADD_IMM_READ => (Op::Add(ui, value as i32), true),
        UpdateMode::SEM_ADD_IMM_COMPLETE => (Op::Add(ui, value as i32), false),
        UpdateMode::SEM_SUB_IMM_READ => (Op::Add(ui, (value as i32).wrapping_neg()), true),
        UpdateMode::SEM_SUB_IMM_COMPLETE => (Op::Add(ui, (value as i32).wrapping_neg()), false),
        UpdateMode::SEM_WR_IMM_READ => (Op::Write(ui, value as i32), true),
        UpdateMode::SEM_WR_IMM_COMPLETE => (Op::Write(ui, value as i32), false),
        m @ (UpdateMode::SEM_SUB_REG_READ | UpdateMode::SEM_SUB_REG_COMPLETE) => {
            let r = register(regs, value, "register update")? as i32;
            (
                Op::Add(ui, r.wrapping_neg()),
                m == UpdateMode::SEM_SUB_REG_READ,
            )
        }
        UpdateMode::SEM_WR_REG_COMPLETE => (
            Op::Write(ui, register(regs, value, "register update")? as i32),
            false,
        ),
        m => {
            return Err(FaultCause::Unsupported {
                what: format!("update mode {m}"),
            })
        }
    };
    sync.updates[0] = Some(Update { op, at_read });
    Ok(sync)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn events(wm: WaitMode, wi: u8, um: UpdateMode, ui: u8, v: u32) -> Events {
        Events {
            wait_mode: wm,
            wait_idx: wi,
            update_mode: um,
            update_idx: ui,
            semaphore_value: v,
        }
    }

    // isa-facts §1.3: EventSemaphore is wait 0 (the header), wait 1, then the update.
    #[test]
    fn a_sync_record_collects_two_waits_and_its_update() {
        let regs = [0u32; 64];
        let none = UpdateMode::NONE;
        let mut s = decode(&events(WaitMode::SEM_GE_IMM, 1, none, 0, 2), &regs).unwrap();
        s.add(&events(WaitMode::EVT_SET, 4, none, 0, 0), &regs)
            .unwrap();
        s.add(
            &events(WaitMode::NONE, 0, UpdateMode::SEM_INC_COMPLETE, 3, 1),
            &regs,
        )
        .unwrap();
        assert!(matches!(
            s.waits,
            [
                Some(Wait::Semaphore {
                    index: 1,
                    threshold: 2,
                    ..
                }),
                Some(Wait::Event {
                    index: 4,
                    want: true,
                    ..
                })
            ]
        ));
        assert_eq!(
            s.updates,
            [
                Some(Update {
                    op: Op::Add(3, 1),
                    at_read: false
                }),
                None
            ]
        );
        // A third wait does not fit.
        let e = s.add(&events(WaitMode::EVT_SET, 5, none, 0, 0), &regs);
        assert!(matches!(e, Err(FaultCause::Unsupported { .. })));
    }

    #[test]
    fn conditions_and_operations() {
        let mut sems = [0i32; NUM_SEMAPHORES];
        let mut evs = [false; NUM_EVENTS];
        Op::Add(2, -3).apply(&mut sems, &mut evs).unwrap();
        assert_eq!(sems[2], -3);
        Op::Write(2, i32::MAX).apply(&mut sems, &mut evs).unwrap();
        Op::Add(2, 1).apply(&mut sems, &mut evs).unwrap();
        assert_eq!(sems[2], i32::MIN); // semaphores wrap (assumption `semaphore-arithmetic`)
        Op::Event(7, true).apply(&mut sems, &mut evs).unwrap();
        assert!(Op::Event(7, true).apply(&mut sems, &mut evs).is_err());
        let w = Wait::Semaphore {
            index: 2,
            op: "<",
            threshold: 0,
            register: None,
        };
        assert!(w.holds(&sems, &evs));
        assert_eq!(
            w.describe(&sems, &evs),
            "semaphore 2 < 0 (semaphore is -2147483648)"
        );
    }
}
