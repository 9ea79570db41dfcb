//! The multi-engine runner (`tpb run`'s default model) on short programs of mutated valid
//! bundles, every generation, with swept timing constants and engine placements, including
//! wrong ones: never panics, always stops (completed, fault or deadlock), is deterministic
//! (two runs on fresh machines give equal results), and its report is consistent: every
//! step ends by the makespan, the critical path and race sides name steps that ran, and
//! the race count covers the races listed.
//!
//! Input: generation, two timing bytes, then per instruction (at most 8): seed, engine byte
//! (high bit: place it on engine `byte % 5` whatever the opcode table says), edit count k,
//! and k (offset, xor) pairs.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tpb_fuzz::{fresh, gen_of, mutated};
use tpb_sim::engines::{place, run_engines, EngineId, EngineOptions, Timing};

/// Instructions per program: enough for two engines to signal, wait and race.
const MAX_INSTRUCTIONS: usize = 8;

fuzz_target!(|data: &[u8]| {
    let [g, t0, t1, rest @ ..] = data else {
        return;
    };
    let gen = gen_of(*g);
    let mut insts = Vec::new();
    let mut forced = Vec::new();
    let mut rest = rest;
    while insts.len() < MAX_INSTRUCTIONS {
        let [pick, engine, k, tail @ ..] = rest else {
            break;
        };
        let edits = tail.len().min(2 * usize::from(*k % 8));
        let Some(inst) = mutated(*pick, &tail[..edits], gen) else {
            return;
        };
        insts.push(inst);
        forced.push((engine & 0x80 != 0).then(|| EngineId::ALL[usize::from(*engine) % 5]));
        rest = &tail[edits..];
    }
    if insts.is_empty() {
        return;
    }
    let table = place(&insts, gen, &[]).unwrap_or_else(|_| vec![EngineId::ALL[0]; insts.len()]);
    let engines: Vec<EngineId> = table
        .iter()
        .zip(&forced)
        .map(|(&t, f)| f.unwrap_or(t))
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
