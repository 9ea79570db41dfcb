//! The deterministic scheduler: one in-order queue per engine, shared semaphores and events,
//! the timing model, happens-before race detection and deadlock detection.
//!
//! Time advances event by event (picoseconds). At each time, updates that are due apply
//! first (in the order they were issued), then each engine in [`EngineId::ALL`] order that
//! is free starts its head instruction if every wait of it holds. When no engine can start
//! and no update or engine is still pending, the run is over: complete, or a deadlock.

use super::cost::Priced;
use super::queue::{is_dma_request, split, EngineId, NUM_ENGINES};
use super::race::{join, Clock, Detector, History, Race, RaceSide};
use super::signals::Signals;
use super::sync::{amount_from_register, decode, Object, Op, Sync, Update, Wait, NUM_OBJECTS};
use super::timing::{Costs, Timing};
use crate::machine::{
    CostShape, Fault, FaultCause, InstId, Machine, MemAccess, Region, StepReport, Warning,
};
use crate::machine::{NUM_EVENTS, NUM_SEMAPHORES};
use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};
use tpb_isa::geometry::Space;
use tpb_isa::opcode::Family;
use tpb_isa::validate::is_valid;
use tpb_isa::wire::Events;
use tpb_isa::{Body, Gen, Instruction, UpdateMode, WaitMode};

/// How to run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EngineOptions {
    /// The timing model.
    pub timing: Timing,
    /// Races listed in [`EngineRun::races`] (all are counted in [`EngineRun::race_count`]).
    pub max_races: usize,
    /// Whether to record [`EngineRun::counters`] (the semaphore and event values over time,
    /// one sample per update: for timelines). Off, the list stays empty.
    pub record_counters: bool,
}

impl Default for EngineOptions {
    fn default() -> EngineOptions {
        EngineOptions {
            timing: Timing::default(),
            max_races: 100,
            record_counters: true,
        }
    }
}

/// One executed instruction on the model's schedule: indices and times only (a run keeps
/// one per instruction, so it stays small; the instruction's text is the caller's to find
/// from `inst.index`, and its warnings are in [`EngineRun::warnings`]).
#[derive(Clone, Debug, PartialEq)]
pub struct ScheduledStep {
    /// The engine.
    pub engine: EngineId,
    /// Position in the engine's queue.
    pub queue_index: usize,
    /// When it reached the head of its queue with the engine free (ps).
    pub ready_ps: u64,
    /// When it started: its waits held (ps).
    pub start_ps: u64,
    /// When it had read its inputs (`_READ` updates fire).
    pub read_ps: u64,
    /// When it finished (`_COMPLETE` updates fire).
    pub end_ps: u64,
    /// Engine cycles.
    pub cycles: u64,
    /// The object whose wait delayed the start, if any.
    pub waited_on: Option<Object>,
    /// The step whose update let it start, when a wait delayed it.
    pub enabled_by: Option<usize>,
    /// The previous step on the same engine.
    pub previous: Option<usize>,
    /// The instruction (its program index in `inst.index`).
    pub inst: InstId,
    /// Elements processed, over all channels.
    pub elements: u64,
    /// Bytes stored to memory.
    pub bytes_written: u64,
}

/// A semaphore or event value from a time on (for counter tracks).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CounterSample {
    /// When (ps).
    pub ps: u64,
    /// Which object.
    pub object: Object,
    /// Its value from then on (events: 0 or 1).
    pub value: i64,
}

/// An engine stuck at a wait.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Blocked {
    /// The engine.
    pub engine: EngineId,
    /// Position in its queue.
    pub queue_index: usize,
    /// Program index.
    pub index: usize,
    /// Its mnemonic.
    pub mnemonic: &'static str,
    /// The wait that does not hold.
    pub wait: Wait,
    /// The condition and the object's current value.
    pub detail: String,
}

/// Every unfinished queue waits and no update can arrive.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Deadlock {
    /// When (ps).
    pub at_ps: u64,
    /// Each stuck engine's blocking wait.
    pub blocked: Vec<Blocked>,
}

/// How the run ended.
#[derive(Clone, Debug, PartialEq)]
pub enum Stop {
    /// Every queue ran to its end.
    Completed,
    /// An instruction faulted (or its update conflicted with an event's state).
    Fault {
        /// The engine.
        engine: EngineId,
        /// Position in its queue.
        queue_index: usize,
        /// The fault (its `inst.index` is the program index).
        fault: Fault,
    },
    /// A deadlock.
    Deadlock(Deadlock),
}

/// Per-engine totals.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EngineSummary {
    /// The engine.
    pub engine: EngineId,
    /// Instructions it ran.
    pub instructions: usize,
    /// Cycles executing.
    pub busy_cycles: u64,
    /// Cycles free with an instruction whose wait did not hold.
    pub wait_cycles: u64,
    /// The rest of the run.
    pub idle_cycles: u64,
    /// busy / whole run.
    pub utilisation: f64,
}

/// The result of [`run_engines`].
#[derive(Clone, Debug, PartialEq)]
pub struct EngineRun {
    /// Executed instructions in start order.
    pub steps: Vec<ScheduledStep>,
    /// Every warning of the executed instructions, in start order.
    pub warnings: Vec<Warning>,
    /// Races found (at most [`EngineOptions::max_races`]).
    pub races: Vec<Race>,
    /// Every race found.
    pub race_count: usize,
    /// How it ended.
    pub stop: Stop,
    /// The end of the last instruction, or the deadlock time (ps).
    pub makespan_ps: u64,
    /// Per engine with a non-empty queue.
    pub summary: Vec<EngineSummary>,
    /// Indices into `steps`, first to last, of the chain of instructions and wait edges
    /// that determines when the last instruction ends.
    pub critical_path: Vec<usize>,
    /// Semaphore and event values over time (initial values of the objects used at 0);
    /// empty unless [`EngineOptions::record_counters`].
    pub counters: Vec<CounterSample>,
    /// The run's PE and HBM work, for [`EngineRun::roofline`].
    pub work: Work,
    /// The timing model used.
    pub costs: Costs,
}

/// The work a run's physical bound is taken over ([`EngineRun::roofline`]); run totals, so
/// the per-step record stays small.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Work {
    /// Flops of the multiplying Matmuls with bf16/fp16/tf32/fp8 inputs.
    pub pe_flops: u64,
    /// Flops of the multiplying Matmuls with full fp32 inputs.
    pub pe_fp32_flops: u64,
    /// Bytes the DMA transfers read from or wrote to HBM (once per side in HBM).
    pub hbm_bytes: u64,
}

impl Work {
    /// Adds one step's work.
    fn add(&mut self, report: &StepReport, hbm_bytes: u64) {
        match pe_flops(report) {
            Some((f, true)) => self.pe_fp32_flops = self.pe_fp32_flops.saturating_add(f),
            Some((f, false)) => self.pe_flops = self.pe_flops.saturating_add(f),
            None => {}
        }
        self.hbm_bytes = self.hbm_bytes.saturating_add(hbm_bytes);
    }
}

impl EngineRun {
    /// Total elements processed.
    pub fn elements(&self) -> u64 {
        self.steps.iter().map(|s| s.elements).sum()
    }

    /// Total bytes written.
    pub fn bytes_written(&self) -> u64 {
        self.steps.iter().map(|s| s.bytes_written).sum()
    }

    /// The run against the physical bound of its work on the generation (docs/engines.md
    /// "Roofline"): its multiplying Matmuls at the tensor engine's peak and its HBM traffic
    /// at one core's HBM bandwidth. The estimate is never below the bound.
    pub fn roofline(&self) -> Roofline {
        let Work {
            pe_flops: flops,
            pe_fp32_flops: fp32_flops,
            hbm_bytes,
        } = self.work;
        let (peak, peak_fp32) = self.costs.pe_peak_gflops();
        // flops / (GFLOP/s × 10^9) seconds = flops × 1000 / GFLOP/s picoseconds.
        let at = |work: u64, per_s: u64, scale: u128| {
            (u128::from(work) * scale).div_ceil(u128::from(per_s.max(1))) as u64
        };
        let pe_bound_ps = at(flops, peak, 1000).saturating_add(at(fp32_flops, peak_fp32, 1000));
        let hbm_bound_ps = at(hbm_bytes, self.costs.hbm_mb_per_s(), 1_000_000);
        Roofline {
            pe_flops: flops,
            pe_fp32_flops: fp32_flops,
            hbm_bytes,
            pe_bound_ps,
            hbm_bound_ps,
            estimate_ps: self.makespan_ps,
        }
    }
}

/// A run's estimate beside the physical bound of its work ([`EngineRun::roofline`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Roofline {
    /// Flops of the multiplying Matmuls with bf16/fp16/tf32/fp8 inputs.
    pub pe_flops: u64,
    /// Flops of the multiplying Matmuls with full fp32 inputs.
    pub pe_fp32_flops: u64,
    /// Bytes the DMA transfers read from or wrote to HBM.
    pub hbm_bytes: u64,
    /// The flops at the tensor engine's peak (PE_PEAK_GFLOPS_<gen>, PE_PEAK_FP32_GFLOPS_<gen>).
    pub pe_bound_ps: u64,
    /// The HBM bytes at one core's HBM bandwidth (HBM_MB_PER_S_<gen>).
    pub hbm_bound_ps: u64,
    /// The timing model's estimate (the makespan).
    pub estimate_ps: u64,
}

impl Roofline {
    /// The physical bound: the larger of the PE and HBM bounds.
    pub fn bound_ps(&self) -> u64 {
        self.pe_bound_ps.max(self.hbm_bound_ps)
    }

    /// What bounds the work: `"PE"` or `"HBM"` (`"none"` without either).
    pub fn bound_by(&self) -> &'static str {
        match (self.pe_bound_ps, self.hbm_bound_ps) {
            (0, 0) => "none",
            (p, h) if p >= h => "PE",
            _ => "HBM",
        }
    }

    /// Whether the estimate respects the bound (it always should: a failure is a timing
    /// model error).
    pub fn holds(&self) -> bool {
        self.estimate_ps >= self.bound_ps()
    }

    /// The fraction of the estimate the bound accounts for (1.0: at the roofline).
    pub fn efficiency(&self) -> f64 {
        if self.estimate_ps == 0 {
            0.0
        } else {
            self.bound_ps() as f64 / self.estimate_ps as f64
        }
    }
}

impl std::fmt::Display for Roofline {
    /// `estimate 12.345 µs, physical bound 10.000 µs by HBM (PE 4.000 µs for 4194304 flops,
    /// HBM 10.000 µs for 3145728 bytes): the bound is 81 % of the estimate`; without matmul
    /// or HBM work, `estimate 1.103 µs, no matmul or HBM work to bound it`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let us = |ps: u64| ps as f64 / 1e6;
        if self.bound_ps() == 0 {
            return write!(
                f,
                "estimate {:.3} µs, no matmul or HBM work to bound it",
                us(self.estimate_ps)
            );
        }
        write!(
            f,
            "estimate {:.3} µs, physical bound {:.3} µs by {} (PE {:.3} µs for {} flops, \
             HBM {:.3} µs for {} bytes): the bound is {:.0} % of the estimate",
            us(self.estimate_ps),
            us(self.bound_ps()),
            self.bound_by(),
            us(self.pe_bound_ps),
            self.pe_flops.saturating_add(self.pe_fp32_flops),
            us(self.hbm_bound_ps),
            self.hbm_bytes,
            self.efficiency() * 100.0
        )
    }
}

/// An issued update waiting for its time; the heap pops the earliest, ties in issue order.
struct Pending {
    at: u64,
    seq: u64,
    op: Op,
    clock: Clock,
    step: usize,
}

impl PartialEq for Pending {
    fn eq(&self, other: &Pending) -> bool {
        (self.at, self.seq) == (other.at, other.seq)
    }
}

impl Eq for Pending {}

impl PartialOrd for Pending {
    fn partial_cmp(&self, other: &Pending) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Pending {
    /// Reversed, so that `BinaryHeap` (a max-heap) pops the earliest `(at, seq)`.
    fn cmp(&self, other: &Pending) -> std::cmp::Ordering {
        (other.at, other.seq).cmp(&(self.at, self.seq))
    }
}

struct Engine {
    queue: Vec<usize>,
    pc: usize,
    /// When the last foreground instruction ends (the next one may start: see
    /// [`Engine::earliest`]).
    free_at: u64,
    /// When the last foreground instruction started (a background one may start then).
    fg_start: u64,
    /// When the last background instruction ends.
    bg_end: u64,
    clock: Clock,
    last_writes: Vec<Region>,
    previous: Option<usize>,
    /// The head instruction's decoded waits and update (queue position, sync).
    head: Option<(usize, Sync)>,
    /// A DMA queue: the issuing engine's clock at each queued request's issue and the issue's
    /// step, in order (a transfer happens after its issue).
    issued: VecDeque<(Clock, usize, u64)>,
}

impl Engine {
    /// The earliest start of the head instruction: a background one (PE LoadWeights, an
    /// ACT DMA issue, [`runs_in_background`]) once the last foreground instruction has
    /// started and the last background one has ended; any other once both have ended.
    fn earliest(&self, background: bool) -> u64 {
        let fg = if background {
            self.fg_start
        } else {
            self.free_at
        };
        fg.max(self.bg_end)
    }
}

/// Whether `inst` on `e` runs beside its engine's compute pipeline: a LoadWeights loads the
/// next stationary while the previous Matmul computes ([ARCH1] "Background LoadStationary",
/// L282–291), and a DMA request triggered from ACT generates its descriptors on the DGE while
/// earlier ACT compute runs ([ARCH2] L364; nki-dge.rst L238).
fn runs_in_background(inst: &Instruction, e: EngineId, gen: Gen) -> bool {
    match e {
        EngineId::Pe => inst
            .info(gen)
            .is_some_and(|r| matches!(r.family, Family::LoadWeights)),
        EngineId::Act => is_dma_request(inst, gen),
        _ => false,
    }
}

/// The shared DMA resources of a core: the busy-until time of each of its DMA engines
/// (every queue's transfers run on them, [`Costs::dma_engine_set`]) and of its HBM share.
struct DmaEngines {
    free_at: Vec<u64>,
    hbm_free_at: u64,
}

/// One transfer on the DMA engines: when its data moves, and its HBM bytes.
struct Transfer {
    start: u64,
    end: u64,
    hbm_bytes: u64,
}

impl DmaEngines {
    /// Places a transfer of `bytes` triggered at `trigger` (its request's issue end) that may
    /// start no earlier than `now`: after DMA_LATENCY_NS, on the engines of its partitions
    /// once they are all free, each moving an equal share at the per-engine bandwidth; its
    /// HBM bytes occupy the core's HBM share.
    fn place(
        &mut self,
        costs: &Costs,
        now: u64,
        trigger: u64,
        accesses: &[MemAccess],
        bytes: u64,
    ) -> Transfer {
        let on_chip = accesses.iter().find(|a| a.region.space != Space::Hbm);
        let set = match on_chip {
            Some(a) => {
                costs.dma_engine_set(a.region.partitions.start, a.region.partitions.len() as u32)
            }
            None => costs.dma_engine_set(0, 0),
        };
        let n = self.free_at.len();
        let engines: Vec<usize> = set.clone().map(|i| i % n).collect();
        let start = engines.iter().map(|&i| self.free_at[i]).fold(
            now.max(trigger.saturating_add(costs.dma_latency_ps())),
            u64::max,
        );
        let share = bytes.div_ceil(engines.len().max(1) as u64);
        let sides = [false, true]
            .into_iter()
            .filter(|&w| {
                accesses
                    .iter()
                    .any(|a| a.write == w && a.region.space == Space::Hbm)
            })
            .count() as u64;
        let hbm_bytes = bytes.saturating_mul(sides);
        let mut end = start
            .saturating_add(costs.dma_engine_ps(share))
            .max(start + 1);
        if hbm_bytes > 0 {
            let hbm_end = self
                .hbm_free_at
                .max(start)
                .saturating_add(costs.hbm_ps(hbm_bytes));
            self.hbm_free_at = hbm_end;
            end = end.max(hbm_end);
        }
        for i in engines {
            self.free_at[i] = end;
        }
        Transfer {
            start,
            end,
            hbm_bytes,
        }
    }
}

fn overlaps(a: &Region, b: &Region) -> bool {
    a.space == b.space
        && a.partitions.start < b.partitions.end
        && b.partitions.start < a.partitions.end
        && a.bytes.start < b.bytes.end
        && b.bytes.start < a.bytes.end
}

/// Runs `insts`, instruction `i` on `engines[i]`'s queue, on `m` (see the module docs).
/// Every instruction is validated and executed by `m` ([`Machine::execute_at`]); the
/// scheduler evaluates waits and updates itself. `m` keeps its state at the stop.
pub fn run_engines(
    m: &mut Machine,
    insts: &[Instruction],
    engines: &[EngineId],
    opts: &EngineOptions,
) -> EngineRun {
    run_engines_with(m, insts, engines, opts, |_, _| {})
}

/// As [`run_engines`], calling `on_step` with each step as it starts and the machine's
/// full report of it (for traces: the step keeps only indices and times).
pub fn run_engines_with(
    m: &mut Machine,
    insts: &[Instruction],
    engines: &[EngineId],
    opts: &EngineOptions,
    mut on_step: impl FnMut(&ScheduledStep, &StepReport),
) -> EngineRun {
    let gen = m.gen();
    let costs = opts.timing.costs(gen);
    let queues = split(engines);
    let mut eng: Vec<Engine> = queues
        .into_iter()
        .map(|queue| Engine {
            queue,
            pc: 0,
            free_at: 0,
            fg_start: 0,
            bg_end: 0,
            clock: [0; NUM_ENGINES],
            last_writes: Vec::new(),
            previous: None,
            head: None,
            issued: VecDeque::new(),
        })
        .collect();
    let mut sems: [i32; NUM_SEMAPHORES] = *m.semaphores();
    let mut events: [bool; NUM_EVENTS] = *m.events();
    let mut history: Vec<History> = (0..NUM_OBJECTS)
        .map(|slot| {
            History::new(if slot < NUM_SEMAPHORES {
                i64::from(sems[slot])
            } else {
                i64::from(events[slot - NUM_SEMAPHORES])
            })
        })
        .collect();
    let mut signals = plan_signals(insts, engines, m);
    let mut obj_writer: Vec<Option<usize>> = vec![None; NUM_OBJECTS];
    // Only the updates still to apply: popped ones are gone, so this stays as small as the
    // number of updates in flight, not the program.
    let mut heap: BinaryHeap<Pending> = BinaryHeap::new();
    let mut issued = 0u64;
    let mut steps: Vec<ScheduledStep> = Vec::with_capacity(insts.len());
    let mut work = Work::default();
    let mut warnings: Vec<Warning> = Vec::new();
    let mut counters: Vec<CounterSample> = Vec::new();
    let record_counters = opts.record_counters;
    let mut seen = vec![false; NUM_OBJECTS];
    let mut detector = Detector::new(opts.max_races);
    let mut now = 0u64;
    let mut dma = DmaEngines {
        free_at: vec![0; costs.dma_engines()],
        hbm_free_at: 0,
    };
    m.set_access_recording(true);

    let value = |o: Object, sems: &[i32; NUM_SEMAPHORES], events: &[bool; NUM_EVENTS]| match o {
        Object::Semaphore(i) => i64::from(sems[i as usize]),
        Object::Event(i) => i64::from(events[i as usize]),
    };
    let mut sample =
        |o: Object, ps: u64, before: i64, after: i64, counters: &mut Vec<CounterSample>| {
            if !record_counters {
                return;
            }
            if !seen[o.slot()] {
                seen[o.slot()] = true;
                counters.push(CounterSample {
                    ps: 0,
                    object: o,
                    value: before,
                });
            }
            counters.push(CounterSample {
                ps,
                object: o,
                value: after,
            });
        };

    let stop = 'run: loop {
        // 1. Updates due now, in issue order.
        while let Some(p) = heap.peek_mut() {
            if p.at > now {
                break;
            }
            let p = std::collections::binary_heap::PeekMut::pop(p);
            let t = p.at;
            let o = p.op.object();
            let before = value(o, &sems, &events);
            if let Err(cause) = p.op.apply(&mut sems, &mut events) {
                let s = &steps[p.step];
                break 'run Stop::Fault {
                    engine: s.engine,
                    queue_index: s.queue_index,
                    fault: Fault {
                        inst: s.inst,
                        cause,
                    },
                };
            }
            sync_machine(m, o, &sems, &events);
            if !matches!(o, Object::Semaphore(s) if signals.uniform(s)) {
                history[o.slot()].update(value(o, &sems, &events), &p.clock);
            }
            signals.landed(steps[p.step].engine, p.op, &p.clock);
            obj_writer[o.slot()] = Some(p.step);
            sample(o, t, before, value(o, &sems, &events), &mut counters);
        }
        // 2. Free engines start their head instruction if its waits hold.
        let mut started = false;
        for e in EngineId::ALL {
            let en = &eng[e.index()];
            let Some(&head) = en.queue.get(en.pc) else {
                continue;
            };
            let background = runs_in_background(&insts[head], e, gen);
            if en.earliest(background) > now {
                continue;
            }
            // A transfer starts once its request's issue has ended.
            if en.issued.front().is_some_and(|&(_, _, at)| at > now) {
                continue;
            }
            let i = en.queue[en.pc];
            let inst = &insts[i];
            let dma_queue = e.is_dma_queue();
            let issue_only = !dma_queue && is_dma_request(inst, gen);
            let sync = match en.head {
                Some((pc, s)) if pc == en.pc => s,
                // A transfer has no wait (its request waited at issue) and one update: the
                // DMA semaphore when the data has landed (assumption `dma-completion`).
                _ if dma_queue => dma_completion(inst),
                _ => match sync_of(inst, m.registers()) {
                    Ok(s) => s,
                    Err(cause) => {
                        // An invalid instruction is reported as such, every failing rule.
                        let invalid = (!is_valid(inst, m.gen()))
                            .then(|| m.execute_at(i, inst).err())
                            .flatten();
                        let fault = invalid.unwrap_or(Fault {
                            inst: inst_id(inst, m, i),
                            cause,
                        });
                        break 'run Stop::Fault {
                            engine: e,
                            queue_index: en.pc,
                            fault,
                        };
                    }
                },
            };
            eng[e.index()].head = Some((eng[e.index()].pc, sync));
            if !sync.waits.iter().flatten().all(|w| w.holds(&sems, &events)) {
                continue;
            }
            let index = steps.len();
            let en = &mut eng[e.index()];
            let ready = en
                .earliest(background)
                .max(en.issued.front().map_or(0, |i| i.2));
            let trigger = en.issued.front().map_or(0, |i| i.2);
            let mut waited_on = None;
            for w in sync.waits.iter().flatten() {
                let o = w.object();
                let acquired = signals
                    .acquire(w, e, value(o, &sems, &events))
                    .unwrap_or_else(|| history[o.slot()].acquire(|v| w.holds_at(v), w.closed()));
                join(&mut en.clock, &acquired);
                if now > ready && waited_on.is_none() && obj_writer[o.slot()].is_some() {
                    waited_on = Some(o);
                }
                if let Wait::Event {
                    index: ev,
                    want,
                    then_flip: true,
                } = *w
                {
                    let before = value(o, &sems, &events);
                    events[ev as usize] = !want;
                    sync_machine(m, o, &sems, &events);
                    history[o.slot()].update(value(o, &sems, &events), &en.clock);
                    obj_writer[o.slot()] = Some(index);
                    sample(o, now, before, value(o, &sems, &events), &mut counters);
                }
            }
            let enabled_by = waited_on.and_then(|o| obj_writer[o.slot()]);
            let mut previous = en.previous;
            if dma_queue {
                if let Some((c, issue, _)) = en.issued.pop_front() {
                    join(&mut en.clock, &c);
                    // The critical path runs through the issue when its end plus the DMA
                    // latency came last.
                    let prev_end = previous.map_or(0, |p| steps[p].end_ps);
                    if steps[issue].end_ps.saturating_add(costs.dma_latency_ps()) >= prev_end {
                        previous = Some(issue);
                    }
                }
            }
            en.clock[e.index()] += 2;
            let epochs = (en.clock[e.index()] - 1, en.clock[e.index()]);
            let executed = if issue_only && is_valid(inst, gen) {
                // The request is handed to the DGE; its data moves on the DMA queue.
                Ok(StepReport {
                    inst: inst_id(inst, m, i),
                    elements: 0,
                    written: None,
                    bytes_written: 0,
                    flops_loaded: None,
                    warnings: Vec::new(),
                    log: None,
                    accesses: Vec::new(),
                    cost: CostShape::Elementwise,
                })
            } else {
                m.execute_at(i, inst)
            };
            let report = match executed {
                Ok(r) => r,
                Err(fault) => {
                    break 'run Stop::Fault {
                        engine: e,
                        queue_index: en.pc,
                        fault,
                    }
                }
            };
            let channels = report
                .accesses
                .first()
                .map_or(1, |a| a.region.partitions.len().max(1) as u64);
            let per_partition = report.elements / channels;
            let dependent = report
                .accesses
                .iter()
                .any(|a| !a.write && en.last_writes.iter().any(|w| overlaps(&a.region, w)));
            let mut hbm_bytes = 0;
            let (start, cycles, end) = if dma_queue {
                let t = dma.place(&costs, now, trigger, &report.accesses, report.bytes_written);
                hbm_bytes = t.hbm_bytes;
                (t.start, costs.cycles_in(e, t.end - t.start).max(1), t.end)
            } else {
                let cycles = if issue_only {
                    costs.dma_issue_cycles(e)
                } else {
                    // The engine's pipeline is empty: nothing ran before, or it waited or
                    // idled.
                    let exposed = en.previous.is_none() || now > ready;
                    let priced = Priced {
                        engine: e,
                        info: inst.info(gen),
                        body: &inst.body,
                        shape: report.cost,
                        accesses: &report.accesses,
                        fallback_n: per_partition,
                    };
                    costs.instruction_cycles(&priced, dependent, exposed)
                };
                (now, cycles, now.saturating_add(costs.ps(e, cycles)))
            };
            let read = start
                .saturating_add(costs.ps(e, cycles.saturating_sub(costs.read_drain()).max(1)))
                .min(end);
            detector.access(
                RaceSide {
                    step: index,
                    engine: e,
                    queue_index: en.pc,
                    index: i,
                    operand: "",
                    write: false,
                },
                &en.clock,
                epochs,
                &report.accesses,
            );
            if !background {
                en.last_writes.clear();
                en.last_writes.extend(
                    report
                        .accesses
                        .iter()
                        .filter(|a| a.write)
                        .map(|a| a.region.clone()),
                );
            }
            for u in sync.updates.into_iter().flatten() {
                let mut clock = en.clock;
                clock[e.index()] = if u.at_read { epochs.0 } else { epochs.1 };
                heap.push(Pending {
                    at: if u.at_read { read } else { end },
                    seq: issued,
                    op: u.op,
                    clock,
                    step: index,
                });
                issued += 1;
            }
            let step = ScheduledStep {
                engine: e,
                queue_index: en.pc,
                // A transfer's latency and its wait for the DMA engines count as its own.
                ready_ps: if dma_queue { start } else { ready },
                start_ps: start,
                read_ps: read,
                end_ps: end,
                cycles,
                waited_on,
                enabled_by,
                previous,
                inst: report.inst,
                elements: report.elements,
                bytes_written: report.bytes_written,
            };
            work.add(&report, hbm_bytes);
            on_step(&step, &report);
            steps.push(step);
            warnings.extend(report.warnings);
            // The footprint has served; the machine reuses its buffer.
            m.recycle_accesses(report.accesses);
            en.previous = Some(index);
            en.pc += 1;
            if background {
                en.bg_end = end;
            } else {
                en.fg_start = start;
                en.free_at = end;
            }
            started = true;
            if issue_only {
                if let Some(q) = e.dma_queue() {
                    let clock = en.clock;
                    let dq = &mut eng[q.index()];
                    dq.queue.push(i);
                    dq.issued.push_back((clock, index, end));
                }
            }
        }
        if detector.sweep_due() {
            let clocks: [Clock; NUM_ENGINES] = std::array::from_fn(|g| eng[g].clock);
            let running: [bool; NUM_ENGINES] =
                std::array::from_fn(|g| eng[g].pc < eng[g].queue.len());
            detector.sweep(&clocks, &running);
        }
        if started {
            continue;
        }
        // 3. Nothing can start now: the next update or the next engine to become free.
        let next_update = heap.peek().map(|p| p.at);
        let next_free = eng
            .iter()
            .zip(EngineId::ALL)
            .filter(|(en, _)| en.pc < en.queue.len())
            .map(|(en, e)| {
                let background = runs_in_background(&insts[en.queue[en.pc]], e, gen);
                en.earliest(background)
                    .max(en.issued.front().map_or(0, |i| i.2))
            })
            .filter(|&t| t > now)
            .min();
        match next_update.into_iter().chain(next_free).min() {
            Some(t) => now = t,
            None if eng.iter().all(|en| en.pc >= en.queue.len()) => break Stop::Completed,
            None => {
                break Stop::Deadlock(deadlock(&eng, insts, m, now, &sems, &events));
            }
        }
    };
    m.set_access_recording(false);

    let end_of_steps = steps.iter().map(|s| s.end_ps).max().unwrap_or(0);
    let makespan = match stop {
        Stop::Deadlock(_) => end_of_steps.max(now),
        _ => end_of_steps,
    };
    let summary = summarise(&eng, &steps, &stop, makespan, &costs);
    let critical_path = critical_path(&steps);
    EngineRun {
        steps,
        warnings,
        races: detector.races,
        race_count: detector.total,
        stop,
        makespan_ps: makespan,
        summary,
        critical_path,
        counters,
        work,
        costs,
    }
}

/// A multiplying Matmul's flops (2 × rows × columns × moving elements) and whether its
/// inputs are full fp32, for the roofline; a transpose moves bits and counts none.
fn pe_flops(report: &StepReport) -> Option<(u64, bool)> {
    match report.cost {
        CostShape::Matmul {
            fp32,
            transpose: false,
            ..
        } => {
            let rows = report
                .accesses
                .iter()
                .find(|a| !a.write && a.shape.is_some())
                .map_or(0, |a| a.region.partitions.len() as u64);
            Some((report.elements.saturating_mul(rows).saturating_mul(2), fp32))
        }
        _ => None,
    }
}

/// Every semaphore update the program holds, by engine, before the run (for
/// [`Signals::acquire`]). An instruction whose sync does not decode faults when it runs.
fn plan_signals(insts: &[Instruction], engines: &[EngineId], m: &Machine) -> Signals {
    let mut signals = Signals::new();
    for (inst, &e) in insts.iter().zip(engines) {
        let Ok(sync) = sync_of(inst, m.registers()) else {
            continue;
        };
        let mut from_register = amount_from_register(inst.events.update_mode);
        if let Body::EventSemaphore(s) = &inst.body {
            from_register |= amount_from_register(s.update1_mode);
        }
        for u in sync.updates.into_iter().flatten() {
            signals.plan(e, u.op, from_register);
        }
        // A DMA request's completion semaphore is updated by its issuer's DMA queue.
        if let Some(q) = e.dma_queue().filter(|_| is_dma_request(inst, m.gen())) {
            for u in dma_completion(inst).updates.into_iter().flatten() {
                signals.plan(q, u.op, false);
            }
        }
    }
    signals
}

/// An instruction's waits and updates: its EVENTS header, and for an EventSemaphore record
/// its second wait and its update (isa-facts §1.3: both waits, then the update).
fn sync_of(inst: &Instruction, regs: &[u32]) -> Result<Sync, FaultCause> {
    let mut sync = decode(&inst.events, regs)?;
    if let Body::EventSemaphore(s) = &inst.body {
        sync.add(
            &Events {
                wait_mode: s.wait1_mode,
                wait_idx: s.wait1_idx,
                update_mode: UpdateMode::NONE,
                update_idx: 0,
                semaphore_value: s.wait1_value,
            },
            regs,
        )?;
        sync.add(
            &Events {
                wait_mode: WaitMode::NONE,
                wait_idx: 0,
                update_mode: s.update1_mode,
                update_idx: s.update1_idx,
                semaphore_value: s.update1_value,
            },
            regs,
        )?;
    }
    Ok(sync)
}

/// A DMA transfer's sync: no wait, and `semaphore += sem_increment` at completion (none for
/// an increment of 0, isa-facts-pe-act-dma §3.3).
fn dma_completion(inst: &Instruction) -> Sync {
    let mut sync = Sync::default();
    if let Body::DmaDirect2d(s) = &inst.body {
        if s.sem_increment != 0 {
            sync.updates[0] = Some(Update {
                op: Op::Add(s.semaphore, i32::from(s.sem_increment)),
                at_read: false,
            });
        }
    }
    sync
}

fn inst_id(inst: &Instruction, m: &Machine, index: usize) -> InstId {
    InstId {
        index,
        opcode: inst.header.opcode,
        mnemonic: inst.info(m.gen()).map_or("unknown", |r| r.mnemonic),
    }
}

fn sync_machine(
    m: &mut Machine,
    o: Object,
    sems: &[i32; NUM_SEMAPHORES],
    events: &[bool; NUM_EVENTS],
) {
    match o {
        Object::Semaphore(i) => m.set_semaphore(i, sems[i as usize]),
        Object::Event(i) => m.set_event(i, events[i as usize]),
    }
}

fn deadlock(
    eng: &[Engine],
    insts: &[Instruction],
    m: &Machine,
    now: u64,
    sems: &[i32; NUM_SEMAPHORES],
    events: &[bool; NUM_EVENTS],
) -> Deadlock {
    let mut blocked = Vec::new();
    // A DMA queue never waits (its requests waited at issue).
    for e in EngineId::ALL.into_iter().filter(|e| !e.is_dma_queue()) {
        let en = &eng[e.index()];
        let Some(&i) = en.queue.get(en.pc) else {
            continue;
        };
        let inst = &insts[i];
        let Ok(sync) = sync_of(inst, m.registers()) else {
            continue;
        };
        if let Some(w) = sync.waits.iter().flatten().find(|w| !w.holds(sems, events)) {
            blocked.push(Blocked {
                engine: e,
                queue_index: en.pc,
                index: i,
                mnemonic: inst_id(inst, m, i).mnemonic,
                wait: *w,
                detail: w.describe(sems, events),
            });
        }
    }
    Deadlock {
        at_ps: now,
        blocked,
    }
}

fn summarise(
    eng: &[Engine],
    steps: &[ScheduledStep],
    stop: &Stop,
    makespan: u64,
    costs: &Costs,
) -> Vec<EngineSummary> {
    let mut busy = [0u64; NUM_ENGINES];
    let mut wait = [0u64; NUM_ENGINES];
    let mut count = [0usize; NUM_ENGINES];
    for s in steps {
        let e = s.engine.index();
        busy[e] += s.end_ps - s.start_ps;
        wait[e] += s.start_ps - s.ready_ps;
        count[e] += 1;
    }
    if let Stop::Deadlock(d) = stop {
        for b in &d.blocked {
            let e = b.engine.index();
            wait[e] += makespan.saturating_sub(eng[e].free_at);
        }
    }
    EngineId::ALL
        .into_iter()
        .filter(|e| !eng[e.index()].queue.is_empty())
        .map(|e| {
            let i = e.index();
            let idle = makespan.saturating_sub(busy[i] + wait[i]);
            EngineSummary {
                engine: e,
                instructions: count[i],
                busy_cycles: costs.cycles_in(e, busy[i]),
                wait_cycles: costs.cycles_in(e, wait[i]),
                idle_cycles: costs.cycles_in(e, idle),
                utilisation: if makespan == 0 {
                    0.0
                } else {
                    busy[i] as f64 / makespan as f64
                },
            }
        })
        .collect()
}

/// From the last step to end back to time 0: through the wait edge when a wait delayed a
/// step, else through the engine's previous step.
fn critical_path(steps: &[ScheduledStep]) -> Vec<usize> {
    let Some((mut cur, _)) = steps
        .iter()
        .enumerate()
        .max_by_key(|(i, s)| (s.end_ps, Reverse(*i)))
    else {
        return Vec::new();
    };
    let mut path = vec![cur];
    loop {
        let s = &steps[cur];
        let next = if s.start_ps > s.ready_ps {
            s.enabled_by
        } else if s.start_ps > 0 {
            s.previous
        } else {
            None
        };
        match next {
            Some(n) if n != cur => {
                path.push(n);
                cur = n;
            }
            _ => break,
        }
    }
    path.reverse();
    path
}
