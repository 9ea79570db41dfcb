//! The semaphore and event values over a run, for timelines: one sample per change, each
//! with the step whose update made it and the first step whose wait it let through, so a
//! timeline can name a change by what it orders (producer → consumer) rather than by the
//! object's number.

use super::sync::{Object, Wait, NUM_OBJECTS};

/// A semaphore or event value from a time on (for counter tracks).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CounterSample {
    /// When (ps).
    pub ps: u64,
    /// Which object.
    pub object: Object,
    /// Its value from then on (events: 0 or 1).
    pub value: i64,
    /// The step (index into [`EngineRun::steps`](super::EngineRun::steps)) whose update
    /// made the change; `None` for the value the object had at the start.
    pub by: Option<usize>,
    /// The first step whose wait on the object held thanks to this value (the change it
    /// orders after `by`); `None` when no wait relied on it.
    pub released: Option<usize>,
}

/// How far back through one object's changes a wait looks for the change that first made
/// it hold (a bound on the work per wait; a longer run of holding values is credited to
/// the earliest change looked at).
const MAX_LOOK_BACK: usize = 64;

/// The samples of a run, kept only when asked for.
pub(super) struct CounterLog {
    on: bool,
    samples: Vec<CounterSample>,
    /// Per object, the indices of its samples in time order.
    of_object: Vec<Vec<usize>>,
}

impl CounterLog {
    /// A log that records when `on`.
    pub(super) fn new(on: bool) -> CounterLog {
        CounterLog {
            on,
            samples: Vec::new(),
            of_object: vec![Vec::new(); if on { NUM_OBJECTS } else { 0 }],
        }
    }

    /// `o` changed from `before` to `after` at `ps` by the update of step `by`.
    pub(super) fn change(&mut self, o: Object, ps: u64, before: i64, after: i64, by: usize) {
        if !self.on {
            return;
        }
        if self.of_object[o.slot()].is_empty() {
            self.push(o, ps, before, None, true);
        }
        self.push(o, ps, after, Some(by), false);
    }

    fn push(&mut self, object: Object, ps: u64, value: i64, by: Option<usize>, initial: bool) {
        self.of_object[object.slot()].push(self.samples.len());
        self.samples.push(CounterSample {
            ps: if initial { 0 } else { ps },
            object,
            value,
            by,
            released: None,
        });
    }

    /// Step `step` started with `wait` holding: credits the change that first made it hold
    /// (the earliest of the object's latest changes whose values all satisfy it).
    pub(super) fn released(&mut self, wait: &Wait, step: usize) {
        if !self.on {
            return;
        }
        let indices = &self.of_object[wait.object().slot()];
        let mut credited = None;
        for &k in indices.iter().rev().take(MAX_LOOK_BACK) {
            if !wait.holds_at(self.samples[k].value) {
                break;
            }
            credited = Some(k);
        }
        if let Some(k) = credited {
            let s = &mut self.samples[k];
            s.released = s.released.or(Some(step));
        }
    }

    /// The samples, in the order the changes happened (an object's value at the start,
    /// stamped 0, just before its first change).
    pub(super) fn into_samples(self) -> Vec<CounterSample> {
        self.samples
    }
}
