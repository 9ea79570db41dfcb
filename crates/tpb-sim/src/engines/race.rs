//! Race detection by happens-before (vector clocks), independent of the one schedule the
//! timing model picks.
//!
//! Each engine keeps a vector clock. An instruction ticks its engine's component twice: its
//! reads carry the first epoch, its writes the second, so that a `_READ` update (released
//! with the first) orders the instruction's reads, not its writes, before a waiter. A wait
//! that passes joins the clocks of the updates (and `*_THEN_*` flips) of its object up to
//! the one from which its condition has held without a break ([`History`]). An earlier access `(engine F, epoch c)` happens before
//! a later one with clock `V` iff `c ≤ V[F]`; two accesses from different engines that
//! overlap, with at least one write and neither before the other, are a race.
//!
//! Accesses are kept in buckets of [`PAGE`] bytes per space, so a new access is compared
//! only with earlier ones near it; an access is dropped once it happens before whatever
//! every other unfinished engine does next (it can race with nothing any more).

use super::queue::{EngineId, NUM_ENGINES};
use crate::machine::{MemAccess, Region};
use std::collections::HashSet;
use std::fmt;
use std::ops::Range;
use tpb_isa::geometry::Space;

/// A vector clock: one epoch per engine.
pub type Clock = [u64; NUM_ENGINES];

/// `a := a ⊔ b`.
pub(crate) fn join(a: &mut Clock, b: &Clock) {
    for (x, y) in a.iter_mut().zip(b) {
        *x = (*x).max(*y);
    }
}

/// Entries a [`History`] keeps; older updates are folded into the oldest kept entry.
pub const HISTORY: usize = 64;

/// The updates of one semaphore or event, for happens-before: each entry is the object's
/// value after an update and the join of the clocks of every update up to it.
///
/// A wait that passes acquires the clock of the earliest entry from which its condition
/// has held without a break, not every update so far: a count that another update pushed
/// further after the wait could already pass orders nothing for the waiter (the wait would
/// have passed without it under other timings). With more than [`HISTORY`] updates in a
/// row that all satisfy the wait, the oldest kept entry is used, which can only order more.
#[derive(Clone, Debug)]
pub(crate) struct History {
    entries: std::collections::VecDeque<(i64, Clock)>,
    /// Where the run of non-decreasing values that ends with the newest entry starts.
    rising_from: usize,
    /// Where the run of non-increasing values that ends with the newest entry starts.
    falling_from: usize,
}

/// Which values a wait's condition holds for, as far as [`History::acquire`] can use it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Closed {
    /// Holding at `v` means holding at every larger value (`>`, `>=`).
    Upward,
    /// Holding at `v` means holding at every smaller value (`<`, `<=`).
    Downward,
    /// Neither (`==`, events).
    Neither,
}

impl History {
    /// An object holding `initial`, with no update yet.
    pub(crate) fn new(initial: i64) -> History {
        History {
            entries: std::iter::once((initial, [0; NUM_ENGINES])).collect(),
            rising_from: 0,
            falling_from: 0,
        }
    }

    /// Records an update to `value` released with `clock`.
    pub(crate) fn update(&mut self, value: i64, clock: &Clock) {
        let (last, mut c) = self
            .entries
            .back()
            .map_or((value, [0; NUM_ENGINES]), |e| *e);
        join(&mut c, clock);
        if self.entries.len() == HISTORY {
            self.entries.pop_front();
            self.rising_from = self.rising_from.saturating_sub(1);
            self.falling_from = self.falling_from.saturating_sub(1);
        }
        self.entries.push_back((value, c));
        let newest = self.entries.len() - 1;
        if value < last {
            self.rising_from = newest;
        }
        if value > last {
            self.falling_from = newest;
        }
    }

    /// The clock a wait whose condition is `holds` acquires when it passes now: that of the
    /// newest entry, or of the earliest of the unbroken run of entries before it whose values
    /// also satisfy the condition ([`History::acquire_by_walk`], the reference).
    ///
    /// A condition closed upward (or downward) holds on a non-decreasing (non-increasing)
    /// run of values from some entry on, so the start of the unbroken run is found by
    /// binary search there: a wait on a counter many updates ahead costs no walk.
    pub(crate) fn acquire(&self, holds: impl Fn(i64) -> bool, closed: Closed) -> Clock {
        let at = self.acquired_entry(holds, closed);
        self.entries.get(at).map_or([0; NUM_ENGINES], |e| e.1)
    }

    /// The entry [`History::acquire`] takes the clock of.
    fn acquired_entry(&self, holds: impl Fn(i64) -> bool, closed: Closed) -> usize {
        let newest = self.entries.len().saturating_sub(1);
        let run = match closed {
            Closed::Upward => self.rising_from,
            Closed::Downward => self.falling_from,
            Closed::Neither => newest,
        };
        // Entries run..newest: the condition fails, then holds (monotone there).
        let (lo, hi) = (run, newest);
        let (mut a, mut b) = (lo, hi);
        while a < b {
            let mid = a + (b - a) / 2;
            if holds(self.entries[mid].0) {
                b = mid;
            } else {
                a = mid + 1;
            }
        }
        let mut at = a;
        // The whole run holds: go on walking before it.
        if at == lo {
            while at > 0 && holds(self.entries[at - 1].0) {
                at -= 1;
            }
        }
        at
    }

    /// [`History::acquired_entry`] by walking back one entry at a time (the reference).
    #[cfg(test)]
    fn acquired_entry_by_walk(&self, holds: impl Fn(i64) -> bool) -> usize {
        let mut at = self.entries.len().saturating_sub(1);
        while at > 0 && holds(self.entries[at - 1].0) {
            at -= 1;
        }
        at
    }
}

/// Bytes per bucket.
pub const PAGE: u64 = 128;

/// How two conflicting accesses are ordered in the model's schedule.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RaceKind {
    /// The later access reads what the earlier one writes.
    ReadAfterWrite,
    /// The later access writes what the earlier one reads.
    WriteAfterRead,
    /// Both write.
    WriteAfterWrite,
}

impl RaceKind {
    /// `RAW`, `WAR` or `WAW`.
    pub const fn short(self) -> &'static str {
        match self {
            RaceKind::ReadAfterWrite => "RAW",
            RaceKind::WriteAfterRead => "WAR",
            RaceKind::WriteAfterWrite => "WAW",
        }
    }

    /// `read-after-write`, ….
    pub const fn long(self) -> &'static str {
        match self {
            RaceKind::ReadAfterWrite => "read-after-write",
            RaceKind::WriteAfterRead => "write-after-read",
            RaceKind::WriteAfterWrite => "write-after-write",
        }
    }
}

impl fmt::Display for RaceKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.short())
    }
}

/// One side of a race: the instruction and its operand.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RaceSide {
    /// Index in [`EngineRun::steps`](super::EngineRun::steps).
    pub step: usize,
    /// The engine.
    pub engine: EngineId,
    /// Position in the engine's queue.
    pub queue_index: usize,
    /// Program index.
    pub index: usize,
    /// The operand.
    pub operand: &'static str,
    /// Whether the operand is written.
    pub write: bool,
}

/// Two unordered conflicting accesses.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Race {
    /// RAW, WAR or WAW, from the earlier access's point of view in the schedule.
    pub kind: RaceKind,
    /// The access the model's schedule ran first.
    pub first: RaceSide,
    /// The later one.
    pub second: RaceSide,
    /// The overlap: shared partitions and the byte range the overlapping bytes span.
    pub region: Region,
    /// Overlapping bytes in each shared partition.
    pub bytes: u64,
    /// Whether both accesses were summarised exactly (else the overlap may be a hull's).
    pub exact: bool,
}

struct Rec {
    /// Whether the record is live (a dead one waits in `free` for reuse).
    live: bool,
    epoch: u64,
    write: bool,
    space: Space,
    parts: Range<u32>,
    runs: Runs,
    exact: bool,
    side: RaceSide,
}

/// A record's byte runs: one inline (the common case), or several.
enum Runs {
    One(Range<u64>),
    Many(Box<[Range<u64>]>),
}

impl Runs {
    fn new(runs: &[Range<u64>]) -> Runs {
        match runs {
            [one] => Runs::One(one.clone()),
            many => Runs::Many(many.into()),
        }
    }

    fn as_slice(&self) -> &[Range<u64>] {
        match self {
            Runs::One(r) => std::slice::from_ref(r),
            Runs::Many(m) => m,
        }
    }
}

/// The records of one page: per engine, in program order (so epochs only grow).
type Bucket = [Vec<u32>; NUM_ENGINES];

/// The detector's state.
pub(crate) struct Detector {
    recs: Vec<Rec>,
    /// Ids of dead records, for reuse.
    free: Vec<u32>,
    /// Per space (SBUF, PSUM, HBM): per page, the records touching it.
    pages: [Vec<Bucket>; 3],
    reported: HashSet<(usize, usize, &'static str, &'static str)>,
    pub(crate) races: Vec<Race>,
    pub(crate) total: usize,
    cap: usize,
    inserted: usize,
}

fn space_slot(s: Space) -> usize {
    match s {
        Space::Sbuf => 0,
        Space::Psum => 1,
        Space::Hbm => 2,
    }
}

/// HBM buckets are coarser than on-chip ones: HBM addresses span the whole configured size
/// (up to `machine::MAX_HBM_BYTES`), so fine pages would cost a bucket per 128 bytes of it.
/// A coarse bucket only means more candidates to compare; the byte runs decide.
pub const HBM_PAGE: u64 = 1 << 20;

/// The bucket size of a space.
const fn page_of(s: Space) -> u64 {
    match s {
        Space::Hbm => HBM_PAGE,
        _ => PAGE,
    }
}

/// The intersection of two sorted disjoint run lists: (bytes, hull).
fn intersect(a: &[Range<u64>], b: &[Range<u64>]) -> (u64, Range<u64>) {
    let (mut i, mut j, mut bytes) = (0, 0, 0);
    let (mut lo, mut hi) = (u64::MAX, 0);
    while i < a.len() && j < b.len() {
        let s = a[i].start.max(b[j].start);
        let e = a[i].end.min(b[j].end);
        if s < e {
            bytes += e - s;
            lo = lo.min(s);
            hi = hi.max(e);
        }
        if a[i].end <= b[j].end {
            i += 1;
        } else {
            j += 1;
        }
    }
    (bytes, lo..hi)
}

impl Detector {
    /// A detector keeping at most `cap` race reports (all are counted).
    pub(crate) fn new(cap: usize) -> Detector {
        Detector {
            recs: Vec::new(),
            free: Vec::new(),
            pages: [Vec::new(), Vec::new(), Vec::new()],
            reported: HashSet::new(),
            races: Vec::new(),
            total: 0,
            cap,
            inserted: 0,
        }
    }

    /// Checks the accesses of one instruction against every earlier unordered access, then
    /// records them. `clock` is the engine's clock after the instruction's two ticks.
    pub(crate) fn access(
        &mut self,
        side: RaceSide,
        clock: &Clock,
        epochs: (u64, u64),
        accesses: &[MemAccess],
    ) {
        let e = side.engine.index();
        for a in accesses {
            let page = page_of(a.region.space);
            let pages = a.region.bytes.start / page..a.region.bytes.end.div_ceil(page);
            let slot = space_slot(a.region.space);
            for p in pages.clone() {
                let Some(bucket) = self.pages[slot].get(p as usize) else {
                    continue;
                };
                for (f, list) in bucket.iter().enumerate() {
                    if f == e {
                        continue;
                    }
                    // Newest first; the first one ordered before us orders all older ones.
                    for &id in list.iter().rev() {
                        let r = &self.recs[id as usize];
                        if r.epoch <= clock[f] {
                            break;
                        }
                        if !(r.write || a.write)
                            || r.parts.start >= a.region.partitions.end
                            || a.region.partitions.start >= r.parts.end
                            || r.space != a.region.space
                        {
                            continue;
                        }
                        let (bytes, hull) = intersect(r.runs.as_slice(), a.byte_runs());
                        if bytes == 0 {
                            continue;
                        }
                        let key = (r.side.step, side.step, r.side.operand, a.operand);
                        if !self.reported.insert(key) {
                            continue;
                        }
                        self.total += 1;
                        if self.races.len() < self.cap {
                            self.races.push(Race {
                                kind: match (r.write, a.write) {
                                    (true, true) => RaceKind::WriteAfterWrite,
                                    (true, false) => RaceKind::ReadAfterWrite,
                                    _ => RaceKind::WriteAfterRead,
                                },
                                first: r.side,
                                second: RaceSide {
                                    operand: a.operand,
                                    write: a.write,
                                    ..side
                                },
                                region: Region {
                                    space: a.region.space,
                                    partitions: r.parts.start.max(a.region.partitions.start)
                                        ..r.parts.end.min(a.region.partitions.end),
                                    bytes: hull,
                                },
                                bytes,
                                exact: r.exact && a.exact,
                            });
                        }
                    }
                }
            }
            let rec = Rec {
                live: true,
                epoch: if a.write { epochs.1 } else { epochs.0 },
                write: a.write,
                space: a.region.space,
                parts: a.region.partitions.clone(),
                runs: Runs::new(a.byte_runs()),
                exact: a.exact,
                side: RaceSide {
                    operand: a.operand,
                    write: a.write,
                    ..side
                },
            };
            let id = match self.free.pop() {
                Some(id) => {
                    self.recs[id as usize] = rec;
                    id
                }
                None => {
                    self.recs.push(rec);
                    (self.recs.len() - 1) as u32
                }
            };
            let buckets = &mut self.pages[slot];
            if buckets.len() < pages.end as usize {
                buckets.resize_with(pages.end as usize, Default::default);
            }
            for p in pages {
                buckets[p as usize][e].push(id);
            }
            self.inserted += 1;
        }
    }

    /// Whether it is time for a [`Detector::sweep`].
    pub(crate) fn sweep_due(&self) -> bool {
        self.inserted >= 1024
    }

    /// Drops every record that happens before the next access of every other unfinished
    /// engine (`clocks[g]`, `running[g]`): no later access can race with it. A record is
    /// dropped from all its pages at once, so its id can be reused.
    pub(crate) fn sweep(&mut self, clocks: &[Clock; NUM_ENGINES], running: &[bool; NUM_ENGINES]) {
        self.inserted = 0;
        let mut frontier = [u64::MAX; NUM_ENGINES];
        for (f, fr) in frontier.iter_mut().enumerate() {
            for g in 0..NUM_ENGINES {
                if g != f && running[g] {
                    *fr = (*fr).min(clocks[g][f]);
                }
            }
        }
        let recs = &mut self.recs;
        let free = &mut self.free;
        for space in &mut self.pages {
            for bucket in space.iter_mut() {
                for (f, list) in bucket.iter_mut().enumerate() {
                    let k = list.partition_point(|&id| recs[id as usize].epoch <= frontier[f]);
                    // A record on several pages is dead on all of them (one frontier); it
                    // is freed once, when first met.
                    for id in list.drain(..k) {
                        let r = &mut recs[id as usize];
                        if r.live {
                            r.live = false;
                            r.runs = Runs::One(0..0);
                            free.push(id);
                        }
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// A condition `value OP threshold` and how it is closed.
    type Condition = (fn(i64, i64) -> bool, Closed);

    proptest! {
        // The binary search over monotone runs finds what the walk finds, for every
        // condition, on histories that rise, fall, repeat values and overflow HISTORY.
        #[test]
        fn acquire_finds_what_the_walk_finds(
            initial in -3i64..4,
            steps in proptest::collection::vec((-2i64..3, 0u64..4), 0..150),
            threshold in -6i64..12,
        ) {
            let mut h = History::new(initial);
            let mut v = initial;
            for (i, (delta, tick)) in steps.into_iter().enumerate() {
                v += delta;
                let mut clock = [0; NUM_ENGINES];
                clock[i % NUM_ENGINES] = tick;
                h.update(v, &clock);
                let conditions: [Condition; 5] = [
                    (|v, t| v >= t, Closed::Upward),
                    (|v, t| v > t, Closed::Upward),
                    (|v, t| v <= t, Closed::Downward),
                    (|v, t| v < t, Closed::Downward),
                    (|v, t| v == t, Closed::Neither),
                ];
                for (cond, closed) in conditions {
                    let holds = |x| cond(x, threshold);
                    prop_assert_eq!(
                        h.acquired_entry(holds, closed),
                        h.acquired_entry_by_walk(holds)
                    );
                }
            }
        }
    }
}
