//! Multi-engine execution: one in-order queue per engine (PE, ACT, POOL, DVE, SP), engines
//! meeting only through the 256 shared semaphores and 256 events (isa-facts §1.3), on a
//! deterministic timing model, with race detection by happens-before and deadlock
//! detection.
//!
//! - [`queue`]: which queue an instruction goes to (the opcode table's engine column, and
//!   the `.engine` check).
//! - [`cost`]: the published cost formula of each opcode family and N as the docs define it.
//! - [`timing`]: the timing model's constants ([`crate::assumptions::TIMING_CONSTANTS`]) and
//!   the cost of an instruction.
//! - [`sync`]: waits and updates as conditions and deferred operations.
//! - [`race`]: vector clocks and the race detector.
//! - `signals`: what a semaphore wait acquires from other engines' signals, whatever
//!   order the timing lands them in.
//! - [`sched`]: the scheduler, deadlock report, per-engine summary and critical path.
//!
//! ```
//! use tpb_isa::text::{asm, AsmOptions};
//! use tpb_isa::Gen;
//! use tpb_sim::engines::{place, run_engines, EngineOptions, Stop};
//! use tpb_sim::{Config, Machine};
//!
//! // POOL writes a ramp and bumps semaphore 0; DVE waits for it, then reads the ramp.
//! let src = "iota src=0:[[1,8]] out=fp32 dst=sbuf[p0..4]+0x0:[[1,8]] \
//!            update_mode=sem_inc_complete update_idx=0\n\
//!            ts_arith src=sbuf[p0..4]+0x0:[[1,8]] in=fp32 out=fp32 op0=mult imm0=2.0 \
//!            dst=sbuf[p0..4]+0x100:[[1,8]] wait_mode=sem_ge_imm wait_idx=0 semaphore_value=1\n";
//! let insts = asm(src, &AsmOptions::new(Gen::Cayman)).unwrap().insts();
//! let engines = place(&insts, Gen::Cayman, &[]).unwrap();
//! let mut m = Machine::new(Config::new(Gen::Cayman));
//! let run = run_engines(&mut m, &insts, &engines, &EngineOptions::default());
//! assert_eq!(run.stop, Stop::Completed);
//! assert!(run.races.is_empty());
//! ```

pub mod cost;
pub mod queue;
pub mod race;
pub mod sched;
mod signals;
pub mod sync;
pub mod timing;

pub use cost::{Formula, Priced};
pub use queue::{home, place, split, EngineId, Home, PlaceError, NUM_ENGINES};
pub use race::{Clock, Race, RaceKind, RaceSide};
pub use sched::{
    run_engines, run_engines_with, Blocked, CounterSample, Deadlock, EngineOptions, EngineRun,
    EngineSummary, Roofline, ScheduledStep, Stop, Work,
};
pub use sync::{Object, Sync, Wait};
pub use timing::{Costs, Timing, TimingError};
