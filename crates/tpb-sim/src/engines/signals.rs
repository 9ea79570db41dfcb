//! What a semaphore wait acquires from the signals of other engines, whatever order the
//! timing model lands them in (assumption `multi-signal-wait`, issue 20 item 18).
//!
//! Updates of one engine to one semaphore land in that engine's program order, and the
//! waiter's own updates before the wait have all landed when it passes: only the
//! interleaving of different engines' signals depends on timing. When every other engine
//! that updates the semaphore in the program moves it the same way (increments, or
//! decrements), a wait whose condition needs movement that way acquires, from each such
//! engine `f`, the signals it cannot have passed without: the first `m` of `f`'s, where even
//! every update of every other engine in the whole program would not reach the threshold
//! with fewer. Two engines incrementing once each and a wait for 1 thus order nothing (either
//! signal could be the one), a wait for 2 orders both, and a single signaller's `k`-th
//! signal is acquired by a wait that needs `k` more than the waiter's own updates left.
//!
//! Anything else (writes, register amounts, both directions, events) keeps
//! [`super::race::History`]'s rule for a single other signaller; with several, the wait
//! acquires nothing from them — a verdict that cannot depend on timing, at the cost of
//! reporting races a program orders only through such a semaphore.

use super::queue::{EngineId, NUM_ENGINES};
use super::race::{join, Clock, HISTORY};
use super::sync::{Op, Wait};
use crate::machine::NUM_SEMAPHORES;
use std::collections::VecDeque;

/// How one engine's updates move one semaphore over the whole program.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum Flow {
    /// It does not update it.
    #[default]
    None,
    /// Only increments, adding up to this much.
    Up(i64),
    /// Only decrements, adding up to this much (negative).
    Down(i64),
    /// Writes, register amounts, or both directions.
    Unpredictable,
}

impl Flow {
    fn add(self, op: Op, from_register: bool) -> Flow {
        match (self, op) {
            (_, Op::Write(..)) | (Flow::Unpredictable, _) => Flow::Unpredictable,
            _ if from_register => Flow::Unpredictable,
            (f, Op::Add(_, 0)) => f,
            (Flow::None, Op::Add(_, d)) if d > 0 => Flow::Up(i64::from(d)),
            (Flow::None, Op::Add(_, d)) => Flow::Down(i64::from(d)),
            (Flow::Up(t), Op::Add(_, d)) if d > 0 => Flow::Up(t.saturating_add(i64::from(d))),
            (Flow::Down(t), Op::Add(_, d)) if d < 0 => Flow::Down(t.saturating_add(i64::from(d))),
            _ => Flow::Unpredictable,
        }
    }

    fn total(self) -> i64 {
        match self {
            Flow::Up(t) | Flow::Down(t) => t,
            _ => 0,
        }
    }
}

/// One engine's landed signals on one semaphore.
#[derive(Clone, Debug, Default)]
struct Ledger {
    /// What they added up to.
    sum: i64,
    /// The last [`HISTORY`]: the running sum after each and its release clock.
    recent: VecDeque<(i64, Clock)>,
}

/// The program's signal plan and the signals landed so far.
pub(crate) struct Signals {
    plan: Vec<[Flow; NUM_ENGINES]>,
    landed: Vec<[Ledger; NUM_ENGINES]>,
}

impl Signals {
    /// No update seen yet.
    pub(crate) fn new() -> Signals {
        Signals {
            plan: vec![[Flow::None; NUM_ENGINES]; NUM_SEMAPHORES],
            landed: vec![Default::default(); NUM_SEMAPHORES],
        }
    }

    /// Adds an update of the program (before the run): `engine` will apply `op`, its
    /// amount read from a register when `from_register` (so not known ahead).
    pub(crate) fn plan(&mut self, engine: EngineId, op: Op, from_register: bool) {
        if let Op::Add(s, _) | Op::Write(s, _) = op {
            let f = &mut self.plan[s as usize][engine.index()];
            *f = f.add(op, from_register);
        }
    }

    /// Whether every engine that updates semaphore `s` moves it the same one way: then
    /// [`Signals::acquire`] answers for every wait on it, and its
    /// [`super::race::History`] is never asked (a wait by its only updater acquires nothing
    /// new either way).
    pub(crate) fn uniform(&self, s: u8) -> bool {
        let flows = &self.plan[s as usize];
        flows.iter().all(|f| matches!(f, Flow::None | Flow::Up(_)))
            || flows
                .iter()
                .all(|f| matches!(f, Flow::None | Flow::Down(_)))
    }

    /// Records an update landing, released with `clock`.
    pub(crate) fn landed(&mut self, engine: EngineId, op: Op, clock: &Clock) {
        if let Op::Add(s, d) = op {
            let l = &mut self.landed[s as usize][engine.index()];
            l.sum = l.sum.saturating_add(i64::from(d));
            if l.recent.len() == HISTORY {
                l.recent.pop_front();
            }
            l.recent.push_back((l.sum, *clock));
        }
    }

    /// The clock a semaphore wait of `waiter` that passes with the semaphore at `value`
    /// acquires, or `None` when [`super::race::History`]'s rule applies (see the module
    /// docs).
    pub(crate) fn acquire(&self, wait: &Wait, waiter: EngineId, value: i64) -> Option<Clock> {
        let Wait::Semaphore {
            index,
            op,
            threshold,
            ..
        } = *wait
        else {
            return None;
        };
        let s = index as usize;
        let mut engines = [0usize; NUM_ENGINES];
        let mut n = 0;
        for g in (0..NUM_ENGINES).filter(|&g| g != waiter.index() && self.plan[s][g] != Flow::None)
        {
            engines[n] = g;
            n += 1;
        }
        let others = &engines[..n];
        let up = others
            .iter()
            .all(|&g| matches!(self.plan[s][g], Flow::Up(_)));
        let down = others
            .iter()
            .all(|&g| matches!(self.plan[s][g], Flow::Down(_)));
        let nothing = [0; NUM_ENGINES];
        match others.len() {
            0 => return None,
            1 if !(up || down) => return None,
            _ if !(up || down) => return Some(nothing),
            _ => {}
        }
        let t = i64::from(threshold);
        // The value the signals must reach (up: at least, down: at most), or none needed.
        let target = match (up, op) {
            (true, ">=" | "==") | (false, "<=" | "==") => t,
            (true, ">") => t + 1,
            (false, "<") => t - 1,
            _ => return Some(nothing),
        };
        let reached = |v: i64| if up { v >= target } else { v <= target };
        let base = value - others.iter().map(|&g| self.landed[s][g].sum).sum::<i64>();
        let mut acquired = nothing;
        for &f in others {
            let rest: i64 = others
                .iter()
                .filter(|&&g| g != f)
                .map(|&g| self.plan[s][g].total())
                .sum();
            let reach = base.saturating_add(rest);
            if reached(reach) {
                continue;
            }
            let recent = &self.landed[s][f].recent;
            let hits = |k: usize| reached(reach.saturating_add(recent[k].0));
            // The first of f's signals that reaches the target (sums are monotone): most
            // often the newest, else by binary search; one older than the kept ones is taken
            // as the oldest kept, which orders more.
            let n = recent.len();
            let k = if n >= 2 && !hits(n - 2) {
                n - 1
            } else {
                recent.partition_point(|&(sum, _)| !reached(reach.saturating_add(sum)))
            };
            if let Some((_, clock)) = recent.get(k.min(recent.len().saturating_sub(1))) {
                join(&mut acquired, clock);
            }
        }
        Some(acquired)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wait(op: &'static str, threshold: i32) -> Wait {
        Wait::Semaphore {
            index: 1,
            op,
            threshold,
            register: None,
        }
    }

    fn clock(e: EngineId, t: u64) -> Clock {
        let mut c = [0; NUM_ENGINES];
        c[e.index()] = t;
        c
    }

    #[test]
    fn two_incrementers_and_a_wait_for_one_or_two() {
        let (pool, sp, dve) = (EngineId::Pool, EngineId::Sp, EngineId::Dve);
        let mut s = Signals::new();
        s.plan(pool, Op::Add(1, 1), false);
        s.plan(sp, Op::Add(1, 1), false);
        s.landed(pool, Op::Add(1, 1), &clock(pool, 2));
        // Only POOL's landed: a wait for 1 still needs neither (SP's could have come first).
        assert_eq!(s.acquire(&wait(">=", 1), dve, 1), Some([0; NUM_ENGINES]));
        s.landed(sp, Op::Add(1, 1), &clock(sp, 2));
        let both = s.acquire(&wait(">=", 2), dve, 2).unwrap();
        assert_eq!((both[pool.index()], both[sp.index()]), (2, 2));
        // `> 1` is `>= 2`; `<= 5` needs no increment.
        assert_eq!(s.acquire(&wait(">", 1), dve, 2), Some(both));
        assert_eq!(s.acquire(&wait("<=", 5), dve, 2), Some([0; NUM_ENGINES]));
    }

    #[test]
    fn a_single_signaller_counts_past_the_waiters_own_updates() {
        let (pool, dve) = (EngineId::Pool, EngineId::Dve);
        let mut s = Signals::new();
        s.plan(pool, Op::Add(7, 1), false);
        s.plan(pool, Op::Add(7, 1), false);
        s.plan(dve, Op::Add(7, -1), false);
        let w = Wait::Semaphore {
            index: 7,
            op: ">=",
            threshold: 1,
            register: None,
        };
        s.landed(pool, Op::Add(7, 1), &clock(pool, 2));
        s.landed(pool, Op::Add(7, 1), &clock(pool, 4));
        assert_eq!(s.acquire(&w, dve, 2).unwrap()[pool.index()], 2);
        // After DVE's own decrement (value 1) the same wait needs POOL's second signal.
        assert_eq!(s.acquire(&w, dve, 1).unwrap()[pool.index()], 4);
    }

    #[test]
    fn writes_or_register_amounts_fall_back_or_order_nothing() {
        let (pool, act, dve) = (EngineId::Pool, EngineId::Act, EngineId::Dve);
        let mut s = Signals::new();
        s.plan(pool, Op::Write(1, 5), false);
        assert_eq!(
            s.acquire(&wait(">=", 1), dve, 5),
            None,
            "one signaller: History"
        );
        s.plan(act, Op::Add(1, 1), false);
        assert_eq!(s.acquire(&wait(">=", 1), dve, 5), Some([0; NUM_ENGINES]));
        let mut r = Signals::new();
        r.plan(pool, Op::Add(3, -1), true);
        assert_eq!(r.plan[3][pool.index()], Flow::Unpredictable);
    }
}
