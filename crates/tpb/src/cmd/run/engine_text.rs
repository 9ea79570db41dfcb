//! How an engine run reads in reports and timelines: times, instructions and races.

use super::plural;
use super::program::Program;
use tpb_sim::engines::{EngineId, EngineRun, Race};

/// `1.234 µs` from picoseconds.
pub fn time(ps: u64) -> String {
    if ps < 1_000_000 {
        format!("{:.1} ns", ps as f64 / 1e3)
    } else {
        format!("{:.3} µs", ps as f64 / 1e6)
    }
}

/// `POOL #1 (line 14: affine_select …)`: an instruction for reports.
pub fn describe(program: &Program, engine: EngineId, queue_index: usize, index: usize) -> String {
    let line = program
        .lines
        .get(index)
        .map_or(format!("instruction #{index}"), |l| format!("line {l}"));
    let text = program.source(index).unwrap_or_default();
    format!("{engine} #{queue_index} ({line}: {text})")
}

/// One paragraph per race.
pub fn race_text(program: &Program, run: &EngineRun, r: &Race) -> String {
    let side = |s: &tpb_sim::engines::RaceSide| {
        format!(
            "{} {} {}",
            describe(program, s.engine, s.queue_index, s.index),
            if s.write { "writes" } else { "reads" },
            s.operand
        )
    };
    let parts = &r.region.partitions;
    let approx = if r.exact {
        ""
    } else {
        " (a strided walk summarised by its hull)"
    };
    format!(
        "{} ({}) on {}[p{}..{}]+{:#x}..{:#x}, {} byte{} in each of {} partition{}{approx}:\n\
         \x20          {}\n\
         \x20          {}\n\
         \x20          no semaphore or event orders one before the other; {}",
        r.kind.short(),
        r.kind.long(),
        r.region.space.name(),
        parts.start,
        parts.end,
        r.region.bytes.start,
        r.region.bytes.end,
        r.bytes,
        plural(r.bytes as usize),
        parts.len(),
        plural(parts.len()),
        side(&r.first),
        side(&r.second),
        schedule(run, r)
    )
}

/// What the model's schedule did with the two racing instructions.
fn schedule(run: &EngineRun, r: &Race) -> String {
    // The sides are in program order; the schedule may have run them the other way.
    let (a, b) = (
        &run.steps[r.first.step.min(r.second.step)],
        &run.steps[r.first.step.max(r.second.step)],
    );
    if a.end_ps <= b.start_ps {
        format!(
            "the model's timing alone ran them in order ({} ends at {}, {} starts at {})",
            a.inst.mnemonic,
            time(a.end_ps),
            b.inst.mnemonic,
            time(b.start_ps)
        )
    } else {
        format!(
            "they overlap in the model's schedule ({} .. {} and {} .. {})",
            time(a.start_ps),
            time(a.end_ps),
            time(b.start_ps),
            time(b.end_ps)
        )
    }
}
