//! Dependency tracking and the synchronisation the compiler emits (architecture guide, "The
//! walk of an NKI kernel", step 3).
//!
//! Each engine counts its instructions on its own semaphore: every emitted instruction
//! increments semaphore [`sync_semaphore`]`(engine)` when it completes
//! (`sem_inc_complete`), so after the k-th instruction of engine E that semaphore is k.
//! An instruction on engine F whose footprint (byte runs per partition, as the simulator
//! records them for the race detector) overlaps, with a write on either side, an earlier
//! instruction of another engine E that F is not yet known to be ordered after, waits for
//! `semaphore(E) >= k`. What each engine is known to be ordered after is a vector clock,
//! joined transitively through the waits, so a wait is emitted only where the order is not
//! already implied. One wait rides in the instruction's EVENTS preamble; more go into
//! EventSemaphore records (two waits each) placed just before it on the same queue.
//!
//! A DMA request is two things (assumption `dma-completion`): its issue on SP, ACT or POOL,
//! which counts on the issuer's semaphore, and its transfer on the issuer's DMA queue, which
//! counts on the queue's semaphore through the DMA's own semaphore field when the data has
//! landed. The footprint belongs to the transfer, so a reader of loaded data waits for the
//! queue's count; the request's waits (its transfer's dependencies) ride on the issue.
//!
//! Running the program in order, every wait already holds (its producer ran earlier), so
//! the eager run and the engine scheduler compute the same memory; on the scheduler every
//! conflicting pair is ordered by happens-before, so the program is race-free.

use std::ops::Range;
use tpb_isa::geometry::Space;
use tpb_isa::Gen;
use tpb_sim::engines::queue::default_dma_issuer;
use tpb_sim::engines::{EngineId, NUM_ENGINES};
use tpb_sim::MemAccess;

/// The semaphore engine `e` counts its instructions on: 255 downwards, one per engine (our
/// choice; the compiler's semaphore allocation is not public). Semaphores below
/// [`FIRST_USER_FREE_SEMAPHORE`] stay the user's.
pub const fn sync_semaphore(e: EngineId) -> u8 {
    255 - e.index() as u8
}

/// The engine that issues the `turn`-th DMA request of a kernel that names none (`nl.load`,
/// `nl.store`, `dma_copy` with `engine=unknown`). From cayman on, the two hardware DGE
/// instances of a NeuronCore are commanded through the Sync engine and the Scalar engine
/// (trainium2_arch.rst@81ce03ae L347) and the compiler chooses which (L357, its rule not
/// published); tpb alternates SP, ACT, SP, … so loads and stores spread over both DGE rings
/// and both DMA queues (ASSUMED: the alternation is ours). A request from ACT generates its descriptors beside ACT's compute
/// (L364). Sunda has no hardware DGE: POOL (software DGE) issues every request.
pub fn dma_issuer(gen: Gen, turn: usize) -> EngineId {
    match gen {
        Gen::Sunda => default_dma_issuer(gen),
        _ if turn.is_multiple_of(2) => EngineId::Sp,
        _ => EngineId::Act,
    }
}

/// Semaphores `0..FIRST_USER_FREE_SEMAPHORE` are never used by the emitted synchronisation.
pub const FIRST_USER_FREE_SEMAPHORE: u8 = 255 - NUM_ENGINES as u8 + 1;

/// What an engine is known to be ordered after: per engine, a count of its instructions.
pub type Clock = [u64; NUM_ENGINES];

/// One footprint piece: a space, partitions, byte runs and whether it writes.
#[derive(Clone, Debug)]
struct Piece {
    space: Space,
    partitions: Range<u32>,
    runs: Vec<Range<u64>>,
    write: bool,
}

impl Piece {
    fn of(a: &MemAccess) -> Piece {
        Piece {
            space: a.region.space,
            partitions: a.region.partitions.clone(),
            runs: a.byte_runs().to_vec(),
            write: a.write,
        }
    }

    fn conflicts(&self, other: &Piece) -> bool {
        (self.write || other.write)
            && self.space == other.space
            && self.partitions.start < other.partitions.end
            && other.partitions.start < self.partitions.end
            && overlaps(&self.runs, &other.runs)
    }
}

/// Whether two sorted lists of disjoint byte ranges share a byte.
fn overlaps(a: &[Range<u64>], b: &[Range<u64>]) -> bool {
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        if a[i].start < b[j].end && b[j].start < a[i].end {
            return true;
        }
        if a[i].end <= b[j].end {
            i += 1;
        } else {
            j += 1;
        }
    }
    false
}

/// Records kept before old ones are folded ([`Tracker::prune`]).
const MAX_HISTORY: usize = 4096;
/// Records per engine kept as they are when folding.
const KEEP_RECENT: usize = 512;

/// Adds `p` to `pieces` as the hull with the piece of the same space and kind.
fn fold(pieces: &mut Vec<Piece>, p: Piece) {
    let lo = p.runs.first().map_or(0, |r| r.start);
    let hi = p.runs.last().map_or(0, |r| r.end);
    match pieces
        .iter_mut()
        .find(|q| q.space == p.space && q.write == p.write)
    {
        Some(q) => {
            q.partitions =
                q.partitions.start.min(p.partitions.start)..q.partitions.end.max(p.partitions.end);
            let r = &mut q.runs[0];
            *r = r.start.min(lo)..r.end.max(hi);
        }
        None => pieces.push(Piece {
            runs: std::iter::once(lo..hi).collect(),
            ..p
        }),
    }
}

/// An emitted instruction as the tracker remembers it.
#[derive(Clone, Debug)]
struct Record {
    engine: EngineId,
    /// Its engine's count once it completed (1 for the first).
    seq: u64,
    /// Program index.
    index: usize,
    footprint: Vec<Piece>,
}

/// A wait the next instruction needs: `semaphore(engine) >= count`, because of the
/// instruction at `because` (program index).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NeededWait {
    /// The engine waited for.
    pub engine: EngineId,
    /// Its instruction count to wait for.
    pub count: u64,
    /// The earlier instruction whose footprint conflicts (program index).
    pub because: usize,
}

/// The dependency tracker.
#[derive(Clone, Debug, Default)]
pub struct Tracker {
    /// Instructions each engine has emitted.
    count: Clock,
    /// Per engine, what it is ordered after.
    known: [Clock; NUM_ENGINES],
    /// Per engine, the clock each of its instructions completed with (index `seq - 1`).
    clocks: [Vec<Clock>; NUM_ENGINES],
    history: Vec<Record>,
}

impl Tracker {
    /// The waits an instruction on `engine` with footprint `accesses` needs, fewest first
    /// (waits implied by another one's clock are dropped).
    pub fn needed(&self, engine: EngineId, accesses: &[MemAccess]) -> Vec<NeededWait> {
        let f = engine.index();
        self.needed_knowing(&self.known[f], accesses)
    }

    /// The waits a DMA request issued on `issuer` needs before its transfer on the DMA
    /// queue `queue` may touch `accesses`: the transfer starts after the request is issued
    /// and after the queue's earlier transfers (one at a time, in issue order; assumption
    /// `dma-completion`), so it knows what both know. The waits ride on the request.
    pub fn needed_dma(
        &self,
        issuer: EngineId,
        queue: EngineId,
        accesses: &[MemAccess],
    ) -> Vec<NeededWait> {
        self.needed_knowing(&self.dma_knowledge(issuer, queue), accesses)
    }

    fn dma_knowledge(&self, issuer: EngineId, queue: EngineId) -> Clock {
        let mut k = self.known[issuer.index()];
        for (v, q) in k.iter_mut().zip(self.known[queue.index()]) {
            *v = (*v).max(q);
        }
        k
    }

    /// The waits an instruction that already knows `known` needs for `accesses`.
    fn needed_knowing(&self, known: &Clock, accesses: &[MemAccess]) -> Vec<NeededWait> {
        // The engines with instructions not yet ordered before this one. Each engine's
        // records are in increasing `seq` order, so the backward walk is done with an engine
        // at its first record already ordered (or at its newest conflict): the walk stops
        // when no engine is open, and a kernel on one engine walks nothing.
        let mut open: [bool; NUM_ENGINES] = std::array::from_fn(|e| self.count[e] > known[e]);
        if !open.contains(&true) {
            return Vec::new();
        }
        let mine: Vec<Piece> = accesses.iter().map(Piece::of).collect();
        let mut need: [Option<NeededWait>; NUM_ENGINES] = [None; NUM_ENGINES];
        for r in self.history.iter().rev() {
            let e = r.engine.index();
            if !open[e] {
                continue;
            }
            if r.seq <= known[e] {
                open[e] = false;
                if !open.contains(&true) {
                    break;
                }
                continue;
            }
            if r.footprint
                .iter()
                .any(|p| mine.iter().any(|q| p.conflicts(q)))
            {
                need[e] = Some(NeededWait {
                    engine: r.engine,
                    count: r.seq,
                    because: r.index,
                });
                open[e] = false;
                if !open.contains(&true) {
                    break;
                }
            }
        }
        // Drop a wait another one implies (its producer was already ordered after it).
        let all: Vec<NeededWait> = need.iter().flatten().copied().collect();
        all.iter()
            .filter(|w| {
                !all.iter().any(|o| {
                    o.engine != w.engine
                        && self.clock_of(o.engine, o.count)[w.engine.index()] >= w.count
                })
            })
            .copied()
            .collect()
    }

    fn clock_of(&self, engine: EngineId, count: u64) -> Clock {
        self.clocks[engine.index()]
            .get(count as usize - 1)
            .copied()
            .unwrap_or_default()
    }

    /// Records an emitted instruction (program `index`) on `engine` that waited for
    /// `waits` and touched `accesses`.
    pub fn commit(
        &mut self,
        engine: EngineId,
        index: usize,
        waits: &[NeededWait],
        accesses: &[MemAccess],
    ) {
        self.count_one(engine, waits);
        self.record(engine, index, accesses);
    }

    /// Records a DMA request (program `index`) issued on `issuer` after `waits`, whose
    /// transfer on `queue` touches `accesses`. The request counts on the issuer's semaphore
    /// (its EVENTS update fires at issue) and carries no footprint there; the transfer counts
    /// on the queue's semaphore when its data has landed (the DMA's own semaphore field,
    /// assumption `dma-completion`), which is what a consumer of the data waits for.
    pub fn commit_dma(
        &mut self,
        issuer: EngineId,
        queue: EngineId,
        index: usize,
        waits: &[NeededWait],
        accesses: &[MemAccess],
    ) {
        self.count_one(issuer, waits);
        let after_issue = self.dma_knowledge(issuer, queue);
        let q = queue.index();
        self.known[q] = after_issue;
        self.count_one(queue, &[]);
        self.record(queue, index, accesses);
    }

    /// Counts one instruction on `engine`, ordered after `waits`.
    fn count_one(&mut self, engine: EngineId, waits: &[NeededWait]) {
        let f = engine.index();
        for w in waits {
            let c = self.clock_of(w.engine, w.count);
            for (k, v) in self.known[f].iter_mut().enumerate() {
                *v = (*v).max(c[k]);
            }
        }
        self.count[f] += 1;
        self.known[f][f] = self.count[f];
        self.clocks[f].push(self.known[f]);
    }

    fn record(&mut self, engine: EngineId, index: usize, accesses: &[MemAccess]) {
        let f = engine.index();
        self.history.push(Record {
            engine,
            seq: self.count[f],
            index,
            footprint: accesses.iter().map(Piece::of).collect(),
        });
        self.prune();
    }

    /// Bounds the history: past [`MAX_HISTORY`] records, each engine's records older than
    /// its newest [`KEEP_RECENT`] are folded into one record carrying the newest of their
    /// counts and, per space and access kind, the hull of their footprints. A wait on the
    /// folded record waits for a later instruction of the same engine than strictly needed
    /// (still earlier in program order), so the program stays race-free and deadlock-free; it
    /// only may wait a little longer.
    fn prune(&mut self) {
        if self.history.len() < MAX_HISTORY {
            return;
        }
        let mut kept: Vec<Record> = Vec::with_capacity(self.history.len());
        let mut folded: Vec<Option<Record>> = vec![None; NUM_ENGINES];
        let mut seen = [0usize; NUM_ENGINES];
        for r in std::mem::take(&mut self.history).into_iter().rev() {
            let e = r.engine.index();
            seen[e] += 1;
            if seen[e] <= KEEP_RECENT {
                kept.push(r);
                continue;
            }
            let f = folded[e].get_or_insert_with(|| Record {
                engine: r.engine,
                seq: r.seq,
                index: r.index,
                footprint: Vec::new(),
            });
            for p in r.footprint {
                fold(&mut f.footprint, p);
            }
        }
        kept.extend(folded.into_iter().flatten());
        kept.reverse();
        self.history = kept;
    }

    /// Instructions emitted per engine.
    pub fn counts(&self) -> Clock {
        self.count
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tpb_sim::Region;

    fn acc(write: bool, parts: Range<u32>, bytes: Range<u64>) -> MemAccess {
        MemAccess {
            operand: "x",
            write,
            region: Region {
                space: Space::Sbuf,
                partitions: parts,
                bytes,
            },
            runs: Vec::new(),
            exact: true,
            shape: None,
        }
    }

    #[test]
    fn a_read_after_another_engines_write_waits_once() {
        let mut t = Tracker::default();
        let w = [acc(true, 0..4, 0..64)];
        assert!(t.needed(EngineId::Pool, &w).is_empty());
        t.commit(EngineId::Pool, 0, &[], &w);
        let r = [acc(false, 0..4, 32..48)];
        let n = t.needed(EngineId::Dve, &r);
        assert_eq!(
            n,
            [NeededWait {
                engine: EngineId::Pool,
                count: 1,
                because: 0
            }]
        );
        t.commit(EngineId::Dve, 1, &n, &r);
        // Known now: a second read of the same bytes needs no wait.
        assert!(t.needed(EngineId::Dve, &r).is_empty());
        // Disjoint partitions or two reads never wait.
        assert!(t
            .needed(EngineId::Pool, &[acc(true, 4..8, 0..64)])
            .is_empty());
        assert!(t
            .needed(EngineId::Pool, &[acc(false, 0..4, 32..48)])
            .is_empty());
        // A write after DVE's read waits for DVE (write after read).
        assert_eq!(
            t.needed(EngineId::Pool, &[acc(true, 0..4, 40..44)]).len(),
            1
        );
    }

    #[test]
    fn implied_waits_are_dropped() {
        let mut t = Tracker::default();
        let a = [acc(true, 0..1, 0..4)];
        t.commit(EngineId::Pool, 0, &[], &a);
        // DVE waits for POOL, then writes b.
        let n = t.needed(
            EngineId::Dve,
            &[acc(false, 0..1, 0..4), acc(true, 0..1, 8..12)],
        );
        t.commit(
            EngineId::Dve,
            1,
            &n,
            &[acc(false, 0..1, 0..4), acc(true, 0..1, 8..12)],
        );
        // ACT reads a and b: waiting for DVE implies POOL.
        let n = t.needed(EngineId::Act, &[acc(false, 0..1, 0..12)]);
        assert_eq!(n.len(), 1);
        assert_eq!(n[0].engine, EngineId::Dve);
    }

    /// Folding keeps every conflict visible (as a hull with the newest count).
    #[test]
    fn folded_history_still_orders_old_writes() {
        let mut t = Tracker::default();
        for k in 0..(MAX_HISTORY as u64 + 10) {
            let w = [acc(true, 0..1, k * 8..k * 8 + 4)];
            t.commit(EngineId::Pool, k as usize, &[], &w);
        }
        assert!(t.history.len() < MAX_HISTORY);
        // A read of the very first write still waits for POOL, at a count at least its own.
        let n = t.needed(EngineId::Dve, &[acc(false, 0..1, 0..4)]);
        assert_eq!(n.len(), 1);
        assert!(n[0].count >= 1);
        // A partition no write touched stays outside the hull: no wait.
        assert_eq!(t.needed(EngineId::Dve, &[acc(false, 1..2, 0..4)]).len(), 0);
    }

    #[test]
    fn runs_overlap_only_where_bytes_meet() {
        assert!(!overlaps(&[0..4, 8..12], &[4..8, 12..16]));
        assert!(overlaps(&[0..4, 8..12], &[11..13, 20..21]));
    }
}
