//! The multi-engine runner (`tpb run`'s default model) on short programs of mutated valid
//! bundles, every generation, with swept timing constants and engine placements, including
//! wrong ones: never panics, always stops (completed, fault or deadlock), is deterministic
//! (two runs on fresh machines give equal results), and its report is consistent: every
//! step ends by the makespan, the critical path and race sides name steps that ran, and
//! the race count covers the races listed.
//!
//! Input: generation, two timing bytes, then per instruction (at most 12) two bytes, and
//! edits when asked for:
//! - `pick`: high bit set, an instruction of the multi-engine examples
//!   (`examples/engines/*.tpb`, [`tpb_fuzz::program_seeds`], on the engine its program gives
//!   it); else an example of docs/syntax.md (on the opcode table's engine);
//! - `ctl`: bits 0..3 the placement (1..=5: engine `ALL[p - 1]` whatever the table says,
//!   wrong ones included; else the instruction's own); bits 3..7 the sync nibble (0 keeps
//!   the bundle's EVENTS, bytes 4..12; else it waits on and/or signals one of four semaphores
//!   or an event, see [`sync_events`]); bit 7: a byte `k` follows, then k % 8 (offset, xor)
//!   byte edits.
//!
//! Issue 29: with three bytes per instruction and only the syntax examples to start from
//! (none of which signals or waits), 120 s of fuzzing kept inputs under 60 bytes and rarely
//! reached two engines ordered by a semaphore. Now four instructions that signal and wait
//! take 11 bytes, and `fuzz/seeds/run_engines/` holds each engine example as an input
//! (`crates/tpb/tests/fuzz_setup.rs` checks they name the examples' instructions).
#![no_main]

use libfuzzer_sys::fuzz_target;
use tpb_fuzz::{fresh, gen_of, mutated, program_seeds};
use tpb_isa::{Gen, Instruction};
use tpb_sim::engines::{place, run_engines, EngineId, EngineOptions, Timing};

/// Instructions per program: the longest engine example (10) and room for two engines to
/// signal, wait and race.
const MAX_INSTRUCTIONS: usize = 12;

/// The EVENTS bytes 4..12 a nonzero sync nibble asks for: semaphore `s = sync >> 2`;
/// `sync & 3`: 1 waits for semaphore s ≥ 1, 2 adds 1 to semaphore s when done, 3 both (the
/// signal on s + 1); 0 (s > 0) the event forms on event 0: s = 1 sets it when done, 2 waits
/// for it, 3 waits for it and clears it.
fn sync_events(sync: u8) -> [u8; 8] {
    const SEM_GE_IMM: u8 = 5;
    const EVT_SET: u8 = 6;
    const EVT_SET_THEN_CLEAR: u8 = 7;
    const SEM_INC_COMPLETE: u8 = 0x13;
    const EVT_SET_COMPLETE: u8 = 0x11;
    let s = (sync >> 2) & 3;
    let (wait, update) = match (sync & 3, s) {
        (1, _) => ((SEM_GE_IMM, s), (0, 0)),
        (2, _) => ((0, 0), (SEM_INC_COMPLETE, s)),
        (3, _) => ((SEM_GE_IMM, s), (SEM_INC_COMPLETE, (s + 1) & 3)),
        (_, 1) => ((0, 0), (EVT_SET_COMPLETE, 0)),
        (_, 2) => ((EVT_SET, 0), (0, 0)),
        _ => ((EVT_SET_THEN_CLEAR, 0), (0, 0)),
    };
    [wait.0, wait.1, update.0, update.1, 1, 0, 0, 0]
}

/// The instruction `pick` names on `gen`, with `edits` applied, and the engine its program
/// puts it on (`None`: the opcode table's).
fn instruction(
    pick: u8,
    sync: u8,
    edits: &[u8],
    gen: Gen,
) -> Option<(Instruction, Option<EngineId>)> {
    let programs = program_seeds();
    let (mut bytes, engine) = if pick & 0x80 != 0 && !programs.is_empty() {
        let p = programs[usize::from(pick & 0x7F) % programs.len()];
        (p.bytes, Some(p.engine))
    } else {
        (mutated(pick, &[], gen)?.encode(), None)
    };
    if sync != 0 {
        bytes[4..12].copy_from_slice(&sync_events(sync));
    }
    for edit in edits.chunks_exact(2) {
        bytes[usize::from(edit[0]) % 64] ^= edit[1];
    }
    Some((Instruction::decode(&bytes, gen), engine))
}

fuzz_target!(|data: &[u8]| {
    let [g, t0, t1, rest @ ..] = data else {
        return;
    };
    let gen = gen_of(*g);
    let mut insts = Vec::new();
    let mut chosen = Vec::new();
    let mut rest = rest;
    while insts.len() < MAX_INSTRUCTIONS {
        let [pick, ctl, tail @ ..] = rest else {
            break;
        };
        let (k, tail) = match tail {
            [k, more @ ..] if ctl & 0x80 != 0 => (usize::from(k % 8), more),
            _ => (0, tail),
        };
        let edits = tail.len().min(2 * k);
        let sync = (ctl >> 3) & 0xF;
        let Some((inst, home)) = instruction(*pick, sync, &tail[..edits], gen) else {
            return;
        };
        insts.push(inst);
        let forced = match ctl & 7 {
            p @ 1..=5 => Some(EngineId::ALL[usize::from(p - 1)]),
            _ => None,
        };
        chosen.push(forced.or(home));
        rest = &tail[edits..];
    }
    if insts.is_empty() {
        return;
    }
    let table = place(&insts, gen, &[]).unwrap_or_else(|_| vec![EngineId::ALL[0]; insts.len()]);
    let engines: Vec<EngineId> = table
        .iter()
        .zip(&chosen)
        .map(|(&t, c)| c.unwrap_or(t))
        .collect();
    let mut timing = Timing::default();
    let _ = timing.set("POOL_START", u64::from(*t0) * 4);
    let _ = timing.set("DVE_MIN_II", u64::from(*t1 % 128) + 1);
    let _ = timing.set("SYNC_CYCLES", u64::from(*t1 >> 4) + 1);
    // The PE/ACT/DMA costs (issue 18), zero factors included (they count as 1).
    let _ = timing.set("TENSOR_ACCESS_OVERHEAD", u64::from(*t0 >> 2));
    let _ = timing.set("PE_FP32_FACTOR", u64::from(*t1 & 7));
    let _ = timing.set("EXP_DVE_SPEEDUP", u64::from((*t1 >> 3) & 7));
    let _ = timing.set("DMA_LATENCY_NS", u64::from(*t0) * 16);
    let opts = EngineOptions {
        timing,
        ..EngineOptions::default()
    };
    let first = run_engines(&mut fresh(gen), &insts, &engines, &opts);
    let second = run_engines(&mut fresh(gen), &insts, &engines, &opts);
    assert!(first == second, "two runs of one program differ on {gen}");
    let steps = first.steps.len();
    assert!(
        steps <= insts.len(),
        "{steps} steps for {} instructions",
        insts.len()
    );
    for s in &first.steps {
        assert!(s.start_ps <= s.end_ps && s.end_ps <= first.makespan_ps.max(s.end_ps));
    }
    assert!(first.critical_path.iter().all(|&i| i < steps));
    assert!(first.race_count >= first.races.len());
    for r in &first.races {
        assert!(r.first.step < steps && r.second.step < steps);
    }
});
