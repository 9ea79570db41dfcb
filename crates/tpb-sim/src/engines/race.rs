//! Race detection by happens-before (vector clocks), independent of the one schedule the
//! timing model picks.
//!
//! Each engine keeps a vector clock. An instruction ticks its engine's component twice: its
//! reads carry the first epoch, its writes the second, so that a `_READ` update (released
//! with the first) orders the instruction's reads, not its writes, before a waiter. A wait
//! that passes joins the clocks of the updates (and `*_THEN_*` flips) of its object up to
//! the one from which its condition has held without a break ([`History`]); a semaphore wait
//! on other engines' increments or decrements acquires what `signals` says instead, the same
//! whatever order the timing lands them in. An earlier access `(engine F, epoch c)` happens before
//! a later one with clock `V` iff `c ≤ V[F]`; two accesses from different engines that
//! overlap, with at least one write and neither before the other, are a race.
//!
//! Accesses are kept in buckets of [`PAGE`] bytes per space, so a new access is compared
//! only with earlier ones near it; an access is dropped once it happens before whatever
//! every other unfinished engine does next (it can race with nothing any more), or once a
//! later access of its engine and kind covers it on a page (see [`Detector`]): detection is
//! linear in the accesses, and the races reported are, for each access and each byte, at
//! least those with the latest unordered conflicting access of every other engine.

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

/// What two conflicting accesses do, in program order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RaceKind {
    /// The access later in the program reads what the earlier one writes.
    ReadAfterWrite,
    /// The access later in the program writes what the earlier one reads.
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
    /// RAW, WAR or WAW, by program order: what the access earlier in the program does,
    /// then the later one (whatever order the timing model ran them in).
    pub kind: RaceKind,
    /// The access earlier in the program.
    pub first: RaceSide,
    /// The one later in the program.
    pub second: RaceSide,
    /// The overlap: shared partitions and the byte range the overlapping bytes span.
    pub region: Region,
    /// Overlapping bytes in each shared partition.
    pub bytes: u64,
    /// Whether both accesses were summarised exactly (else the overlap may be a hull's).
    pub exact: bool,
}

struct Rec {
    /// How many page lists hold the record; it is freed (its id reused) at zero.
    refs: u32,
    epoch: u64,
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

/// The records of one page: per engine, per kind (reads, writes), in program order (so
/// epochs only grow).
type Bucket = [[Vec<u32>; 2]; NUM_ENGINES];

/// Newer records of the same engine and kind a new record is checked against for
/// [`Detector::prune`]: enough for an instruction repeated on the same bytes, or two
/// alternating footprints, at a small cost per insertion (each candidate costs about 40
/// machine instructions; a window of 8 made the 10,000-instruction ring benchmark 12 %
/// slower). An engine cycling over more footprints within one page keeps a record per
/// footprint until a sweep drops it, which for a never-synchronised engine is never.
pub const PRUNE_WINDOW: usize = 2;

/// Byte runs the detector holds at most over all its records (64 MiB of ranges): past it, a
/// new record of several runs keeps only their hull (marked inexact, as a walk of more than
/// `MAX_ACCESS_RUNS` runs already is), so that memory stays bounded by the number of
/// accesses, whatever their patterns.
pub const MAX_HELD_RUNS: usize = 1 << 22;

/// The detector's state.
///
/// Linear in the accesses (FastTrack-style shadow state, per page instead of per byte): a
/// page keeps, per engine and kind, the records of the accesses that are still the latest
/// of their engine and kind on some of its bytes. A new record drops the older ones of its
/// engine and kind that it covers on that page ([`PRUNE_WINDOW`] of them are looked at):
/// for any later access they are ordered no later than it, so they race only where it
/// does. A new access is compared with the records of other engines that are not ordered
/// before it (newest first, stopping at the first ordered one); each racing pair of
/// operands is counted once ([`Detector::total`]) and the first [`Detector::new`]`(cap)`
/// are kept. An instruction repeated 10,000 times on the same bytes by two engines thus
/// costs 10,000 comparisons and reports each instruction's race with the other engine's
/// latest one, not 50 million pairs.
pub(crate) struct Detector {
    recs: Vec<Rec>,
    /// Ids of dead records, for reuse.
    free: Vec<u32>,
    /// Per space (SBUF, PSUM, HBM): per page, the records touching it.
    pages: [Vec<Bucket>; 3],
    /// Records already reported against the access being checked (cleared per access).
    reported: HashSet<u32>,
    pub(crate) races: Vec<Race>,
    pub(crate) total: usize,
    cap: usize,
    inserted: usize,
    /// Byte runs held by live records with more than one ([`MAX_HELD_RUNS`]).
    runs_held: usize,
    max_runs: usize,
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

/// Whether every byte of `inner` inside `window` lies in `outer` (both sorted, disjoint).
fn covers(outer: &[Range<u64>], inner: &[Range<u64>], window: &Range<u64>) -> bool {
    if let ([o], [i]) = (outer, inner) {
        // One run each (the common case).
        let (s, e) = (i.start.max(window.start), i.end.min(window.end));
        return s >= e || (o.start <= s && e <= o.end);
    }
    let mut j = 0;
    for r in inner {
        let (mut s, e) = (r.start.max(window.start), r.end.min(window.end));
        while s < e {
            while j < outer.len() && outer[j].end <= s {
                j += 1;
            }
            match outer.get(j) {
                Some(o) if o.start <= s => s = o.end,
                _ => return false,
            }
        }
    }
    true
}

/// The racing pair as a [`Race`], its sides in program order (item 19 of issue 20: the
/// label does not depend on the order the timing model ran them in).
fn race(r: &Rec, side: RaceSide, a: &MemAccess, bytes: u64, hull: Range<u64>) -> Race {
    let now = RaceSide {
        operand: a.operand,
        write: a.write,
        ..side
    };
    let (first, second) = if r.side.index < now.index {
        (r.side, now)
    } else {
        (now, r.side)
    };
    Race {
        kind: match (first.write, second.write) {
            (true, true) => RaceKind::WriteAfterWrite,
            (true, false) => RaceKind::ReadAfterWrite,
            _ => RaceKind::WriteAfterRead,
        },
        first,
        second,
        region: Region {
            space: a.region.space,
            partitions: r.parts.start.max(a.region.partitions.start)
                ..r.parts.end.min(a.region.partitions.end),
            bytes: hull,
        },
        bytes,
        exact: r.exact && a.exact,
    }
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
            runs_held: 0,
            max_runs: MAX_HELD_RUNS,
        }
    }

    /// Frees record `id` (its last page list let it go).
    fn release(recs: &mut [Rec], free: &mut Vec<u32>, runs_held: &mut usize, id: u32) {
        let r = &mut recs[id as usize];
        if let Runs::Many(m) = &r.runs {
            *runs_held -= m.len();
        }
        r.runs = Runs::One(0..0);
        free.push(id);
    }

    /// Records held, for the memory bound's test.
    #[cfg(test)]
    fn live(&self) -> usize {
        self.recs.len() - self.free.len()
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
            self.check(e, side, clock, a);
        }
        for a in accesses {
            self.record(e, side, epochs, a);
        }
    }

    /// Reports the races of access `a` of engine `e` with recorded accesses of other
    /// engines.
    fn check(&mut self, e: usize, side: RaceSide, clock: &Clock, a: &MemAccess) {
        let page = page_of(a.region.space);
        let pages = a.region.bytes.start / page..a.region.bytes.end.div_ceil(page);
        let slot = space_slot(a.region.space);
        // Cleared per access: a set grown large once is dropped, so clearing stays cheap.
        if self.reported.capacity() > 4096 {
            self.reported = HashSet::new();
        } else if !self.reported.is_empty() {
            self.reported.clear();
        }
        // A read conflicts with writes; a write with both.
        let kinds: &[usize] = if a.write { &[0, 1] } else { &[1] };
        for p in pages {
            let Some(bucket) = self.pages[slot].get(p as usize) else {
                break;
            };
            for (f, lists) in bucket.iter().enumerate() {
                if f == e {
                    continue;
                }
                for &k in kinds {
                    // Newest first; the first one ordered before us orders all older ones.
                    for &id in lists[k].iter().rev() {
                        let r = &self.recs[id as usize];
                        if r.epoch <= clock[f] {
                            break;
                        }
                        if r.parts.start >= a.region.partitions.end
                            || a.region.partitions.start >= r.parts.end
                        {
                            continue;
                        }
                        let (bytes, hull) = intersect(r.runs.as_slice(), a.byte_runs());
                        // A race: counted once per record however many pages it spans.
                        if bytes == 0 || !self.reported.insert(id) {
                            continue;
                        }
                        self.total += 1;
                        if self.races.len() < self.cap {
                            self.races.push(race(r, side, a, bytes, hull));
                        }
                    }
                }
            }
        }
    }

    /// Records access `a` on every page it touches, dropping the records it covers.
    fn record(&mut self, e: usize, side: RaceSide, epochs: (u64, u64), a: &MemAccess) {
        let page = page_of(a.region.space);
        let pages = a.region.bytes.start / page..a.region.bytes.end.div_ceil(page);
        if pages.is_empty() {
            return;
        }
        let slot = space_slot(a.region.space);
        let runs = a.byte_runs();
        let (runs, exact) = if runs.len() > 1 && self.runs_held + runs.len() > self.max_runs {
            (Runs::One(a.region.bytes.clone()), false)
        } else {
            (Runs::new(runs), a.exact)
        };
        if let Runs::Many(m) = &runs {
            self.runs_held += m.len();
        }
        let rec = Rec {
            refs: pages.end.saturating_sub(pages.start) as u32,
            epoch: if a.write { epochs.1 } else { epochs.0 },
            parts: a.region.partitions.clone(),
            runs,
            exact,
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
        if self.pages[slot].len() < pages.end as usize {
            self.pages[slot].resize_with(pages.end as usize, Default::default);
        }
        let k = usize::from(a.write);
        for p in pages {
            self.prune(slot, p, e, k, id);
            self.pages[slot][p as usize][e][k].push(id);
        }
        self.inserted += 1;
    }

    /// Drops from page `p`'s list of engine `e` and kind `k` the newest records (up to
    /// [`PRUNE_WINDOW`]) that record `id` covers on that page.
    fn prune(&mut self, slot: usize, p: u64, e: usize, k: usize, id: u32) {
        let page = if slot == space_slot(Space::Hbm) {
            HBM_PAGE
        } else {
            PAGE
        };
        let window = p * page..(p + 1) * page;
        let list = &mut self.pages[slot][p as usize][e][k];
        let mut i = list.len();
        let stop = list.len().saturating_sub(PRUNE_WINDOW);
        while i > stop {
            i -= 1;
            let (n, old) = (&self.recs[id as usize], &self.recs[list[i] as usize]);
            if n.parts.start <= old.parts.start
                && old.parts.end <= n.parts.end
                && covers(n.runs.as_slice(), old.runs.as_slice(), &window)
            {
                let gone = list.remove(i);
                let r = &mut self.recs[gone as usize];
                r.refs -= 1;
                if r.refs == 0 {
                    Self::release(&mut self.recs, &mut self.free, &mut self.runs_held, gone);
                }
            }
        }
    }

    /// Whether it is time for a [`Detector::sweep`].
    pub(crate) fn sweep_due(&self) -> bool {
        self.inserted >= 1024
    }

    /// Drops every record that happens before the next access of every other unfinished
    /// engine (`clocks[g]`, `running[g]`): no later access can race with it.
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
        let runs_held = &mut self.runs_held;
        for space in &mut self.pages {
            for bucket in space.iter_mut() {
                for (f, lists) in bucket.iter_mut().enumerate() {
                    for list in lists {
                        let k = list.partition_point(|&id| recs[id as usize].epoch <= frontier[f]);
                        for id in list.drain(..k) {
                            let r = &mut recs[id as usize];
                            r.refs -= 1;
                            if r.refs == 0 {
                                Self::release(recs, free, runs_held, id);
                            }
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

    fn access(write: bool, bytes: Range<u64>) -> MemAccess {
        MemAccess {
            operand: if write { "dst" } else { "src" },
            write,
            region: Region {
                space: Space::Sbuf,
                partitions: 0..128,
                bytes,
            },
            runs: Vec::new(),
            exact: true,
            shape: None,
        }
    }

    fn side(engine: EngineId, index: usize) -> RaceSide {
        RaceSide {
            step: index,
            engine,
            queue_index: index / 2,
            index,
            operand: "",
            write: false,
        }
    }

    // Issue 20 item 5: two engines writing the same 4 KiB 10,000 times with no
    // synchronisation keep a bounded number of records (not one per instruction) and
    // report each instruction's race with the other engine's latest write.
    #[test]
    fn unsynchronised_rewrites_keep_a_bounded_state() {
        let mut d = Detector::new(100);
        let mut clocks = [[0u64; NUM_ENGINES]; 2];
        for i in 0..10_000 {
            let e = [EngineId::Pool, EngineId::Dve][i % 2];
            let c = &mut clocks[i % 2];
            c[e.index()] += 2;
            let epochs = (c[e.index()] - 1, c[e.index()]);
            d.access(side(e, i), c, epochs, &[access(true, 0x100..0x1100)]);
            assert!(d.live() <= 2 * 33, "{} records after {i}", d.live());
        }
        assert_eq!(d.total, 9_999);
        assert_eq!(d.races.len(), 100);
        // The second of each pair in program order is the later instruction.
        assert!(d.races.iter().all(|r| r.first.index + 1 == r.second.index));
    }

    // A record is dropped only where a newer one of its engine and kind covers it: a
    // partial overwrite keeps the older record for the bytes it alone holds.
    #[test]
    fn a_partial_overwrite_keeps_the_older_record() {
        let mut d = Detector::new(100);
        let mut pool = [0u64; NUM_ENGINES];
        pool[EngineId::Pool.index()] = 2;
        d.access(
            side(EngineId::Pool, 0),
            &pool,
            (1, 2),
            &[access(true, 0..64)],
        );
        pool[EngineId::Pool.index()] = 4;
        d.access(
            side(EngineId::Pool, 1),
            &pool,
            (3, 4),
            &[access(true, 32..64)],
        );
        assert_eq!(d.live(), 2);
        let mut dve = [0u64; NUM_ENGINES];
        dve[EngineId::Dve.index()] = 2;
        d.access(side(EngineId::Dve, 2), &dve, (1, 2), &[access(false, 0..8)]);
        assert_eq!(d.total, 1);
        assert_eq!(d.races[0].first.index, 0);
        assert_eq!(d.races[0].kind, RaceKind::ReadAfterWrite);
        // A full overwrite drops both.
        pool[EngineId::Pool.index()] = 6;
        d.access(
            side(EngineId::Pool, 3),
            &pool,
            (5, 6),
            &[access(true, 0..64)],
        );
        assert_eq!(d.live(), 2, "POOL's latest write and DVE's read");
    }

    // Past the runs budget, a strided access is held as its hull (inexact): memory stays
    // bounded, and a race on the hull is reported as approximate.
    #[test]
    fn past_the_runs_budget_a_record_keeps_its_hull() {
        let mut d = Detector::new(100);
        d.max_runs = 4;
        let strided = |write| MemAccess {
            runs: vec![0..4, 8..12, 16..20],
            ..access(write, 0..20)
        };
        let mut pool = [0u64; NUM_ENGINES];
        for k in 0..3u64 {
            pool[EngineId::Pool.index()] = 2 * k + 2;
            let e = (2 * k + 1, 2 * k + 2);
            d.access(side(EngineId::Pool, k as usize), &pool, e, &[strided(true)]);
            assert!(d.runs_held <= 4, "{}", d.runs_held);
        }
        // A write past the budget keeps its hull. DVE reads bytes 4..8, between the runs:
        // only a hull races with it, reported as inexact.
        let mut dve = [0u64; NUM_ENGINES];
        dve[EngineId::Dve.index()] = 2;
        d.access(side(EngineId::Dve, 9), &dve, (1, 2), &[access(false, 4..8)]);
        assert!(d.total >= 1 && d.races.iter().all(|r| !r.exact && r.first.index >= 1));
    }

    #[test]
    #[allow(clippy::single_range_in_vec_init)] // one-run lists are the point
    fn covering_runs() {
        let w = 0..128;
        assert!(covers(&[0..8, 8..16], &[2..12], &w));
        assert!(!covers(&[0..8, 9..16], &[2..12], &w));
        assert!(covers(&[0..4], &[2..200], &(0..4)));
        assert!(!covers(&[], &[1..2], &w));
        assert!(covers(&[], &[200..300], &w));
    }

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
