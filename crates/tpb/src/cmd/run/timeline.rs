//! The run's timeline: Chrome trace-event JSON (opens in Perfetto and chrome://tracing) and a
//! self-contained SVG Gantt chart ([`svg`]). Both are written atomically (a temporary file in
//! the same directory, then a rename).
//!
//! Memory stays proportional to the output, not to a document tree (issue 20 item 6): the
//! JSON is serialised one event at a time (before: about 11 KB per instruction as a
//! `serde_json::Value`, 1.1 GB for 100k instructions), and the SVG's size is bounded
//! ([`MAX_SVG_BARS`]). A deadlock shows in both: each blocked engine's wait up to the
//! deadlock, and a marker at the deadlock time. Semaphores and events are named by what
//! they order ([`orders`]).

pub mod orders;
mod svg;

pub use svg::{svg, text_width, MAX_SVG_BARS};

use super::engine_text::{describe, race_text};
use super::program::Program;
use crate::cmd::CliError;
use serde_json::{json, Value};
use std::collections::HashMap;
use std::io::{self, Write};
use std::path::Path;
use tpb_sim::engines::{EngineId, EngineRun, Object, Race, Stop};

/// A timeline's file format, chosen by its extension.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// Chrome trace-event JSON.
    Json,
    /// An SVG Gantt chart.
    Svg,
}

impl Format {
    /// The format `path` names; any other extension is an error naming the path.
    pub fn of(path: &Path) -> Result<Format, String> {
        let ext = path
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase);
        match ext.as_deref() {
            Some("json") => Ok(Format::Json),
            Some("svg") => Ok(Format::Svg),
            _ => Err(format!(
                "`{}`: the file must end in .json or .svg",
                crate::cmd::shown(path)
            )),
        }
    }
}

/// Writes `path` as JSON or SVG by its extension (checked with the other outputs before the
/// run, so its directory exists).
pub fn write(path: &Path, program: &Program, run: &EngineRun) -> Result<(), CliError> {
    let mut set = crate::atomic::FileSet::default();
    stage(path, program, run, &mut set)?;
    set.commit().map_err(|(p, e)| CliError::io(p, e))
}

/// As [`write`], staged into `set` (put in place when the set is committed).
pub fn stage(
    path: &Path,
    program: &Program,
    run: &EngineRun,
    set: &mut crate::atomic::FileSet,
) -> Result<(), CliError> {
    let format = Format::of(path).map_err(|e| CliError::Msg(format!("--timeline: {e}")))?;
    match format {
        // Streamed event by event into the temporary file: memory stays small however long the run.
        Format::Json => set.stage_with(path, |mut out| chrome_trace(&mut out, program, run)),
        Format::Svg => set.stage_with(path, |out| out.write_all(svg(program, run).as_bytes())),
    }
    .map_err(|e| CliError::io(path, e))
}

/// Microseconds (the trace format's unit) from picoseconds.
fn us(ps: u64) -> f64 {
    ps as f64 / 1e6
}

/// The step of a race the model's schedule started second (where the race is marked; the
/// race's sides are in program order).
fn later_step(r: &Race) -> usize {
    r.first.step.max(r.second.step)
}

fn tid(e: EngineId) -> usize {
    e.index() + 1
}

/// The engine a deadlocked engine was blocked from: the end of its last instruction.
fn blocked_since(run: &EngineRun, engine: EngineId) -> u64 {
    run.steps
        .iter()
        .rev()
        .find(|s| s.engine == engine)
        .map_or(0, |s| s.end_ps)
}

/// Writes trace events one at a time, comma-separated.
struct Events<'w, W: Write> {
    out: &'w mut W,
    first: bool,
}

impl<W: Write> Events<'_, W> {
    fn push(&mut self, event: &Value) -> io::Result<()> {
        self.out
            .write_all(if self.first { b"\n" } else { b",\n" })?;
        self.first = false;
        serde_json::to_writer(&mut *self.out, event).map_err(io::Error::from)
    }
}

/// The Chrome trace-event document, streamed to `out`: a named track per engine (metadata
/// events), a complete event per instruction (args: mnemonic, elements, bytes, …), a
/// complete event per wait, counter tracks for the semaphores and events used, an instant
/// event per race, and on a deadlock a blocked wait per stuck engine and a global instant
/// event `deadlock`.
pub fn chrome_trace(out: &mut impl Write, program: &Program, run: &EngineRun) -> io::Result<()> {
    out.write_all(b"{\"traceEvents\":[")?;
    let mut ev = Events { out, first: true };
    ev.push(&json!({
        "name": "process_name", "ph": "M", "pid": 1,
        "args": {"name": format!("tpb {} ({})", program.name, program.gen)}
    }))?;
    for e in EngineId::ALL {
        if run.summary.iter().any(|s| s.engine == e) {
            ev.push(
                &json!({"name": "thread_name", "ph": "M", "pid": 1, "tid": tid(e),
                            "args": {"name": e.description()}}),
            )?;
            ev.push(
                &json!({"name": "thread_sort_index", "ph": "M", "pid": 1, "tid": tid(e),
                            "args": {"sort_index": e.index()}}),
            )?;
        }
    }
    for s in &run.steps {
        let i = s.inst.index;
        if s.start_ps > s.ready_ps {
            // Named by the instruction waited for, not the semaphore's number.
            let name = match (s.waited_on, s.enabled_by) {
                (_, Some(by)) => format!("wait for {}", orders::short(program, run, by)),
                (Some(o), None) => format!("wait {o}"),
                (None, None) => "wait".into(),
            };
            ev.push(&json!({
                "name": name, "cat": "wait", "ph": "X", "pid": 1, "tid": tid(s.engine),
                "ts": us(s.ready_ps), "dur": us(s.start_ps - s.ready_ps),
                "args": {
                    "before": i,
                    "object": s.waited_on.map(|o| o.to_string()),
                    "set_by": s.enabled_by.map(|b| orders::long(program, run, b)),
                }
            }))?;
        }
        ev.push(&json!({
            "name": s.inst.mnemonic, "cat": "instruction", "ph": "X", "pid": 1,
            "tid": tid(s.engine), "ts": us(s.start_ps), "dur": us(s.end_ps - s.start_ps),
            "args": {
                "mnemonic": s.inst.mnemonic,
                "elements": s.elements,
                "bytes": s.bytes_written,
                "index": i,
                "queue_index": s.queue_index,
                "line": program.lines.get(i),
                "text": program.source(i),
                "cycles": s.cycles,
            }
        }))?;
    }
    // One counter track per object, named by the engines it orders.
    let mut tracks: HashMap<Object, String> = HashMap::new();
    for c in &run.counters {
        let name = tracks
            .entry(c.object)
            .or_insert_with(|| orders::track(run, c.object));
        ev.push(&json!({"name": name, "ph": "C", "pid": 1, "ts": us(c.ps),
                        "args": {"value": c.value}}))?;
    }
    for r in &run.races {
        let s = &run.steps[later_step(r)];
        ev.push(&json!({
            "name": format!("race {}", r.kind.short()), "cat": "race", "ph": "i", "s": "t",
            "pid": 1, "tid": tid(s.engine), "ts": us(s.start_ps),
            "args": {"report": race_text(program, run, r)}
        }))?;
    }
    let deadlock = match &run.stop {
        Stop::Deadlock(d) => Some(d),
        _ => None,
    };
    if let Some(d) = deadlock {
        for b in &d.blocked {
            let since = blocked_since(run, b.engine);
            ev.push(&json!({
                "name": format!("blocked: wait {}", b.wait.object()), "cat": "wait",
                "ph": "X", "pid": 1, "tid": tid(b.engine), "ts": us(since),
                "dur": us(d.at_ps.saturating_sub(since)),
                "args": {"before": b.index, "blocked": true, "waits_for": b.detail}
            }))?;
        }
        ev.push(&json!({
            "name": "deadlock", "cat": "deadlock", "ph": "i", "s": "g", "pid": 1,
            "ts": us(d.at_ps),
            "args": {"blocked": d.blocked.iter().map(|b| format!(
                "{} waits for {}", describe(program, b.engine, b.queue_index, b.index), b.detail
            )).collect::<Vec<_>>()}
        }))?;
    }
    let out = ev.out;
    out.write_all(b"\n],\"displayTimeUnit\":\"ns\",\"otherData\":")?;
    serde_json::to_writer(
        &mut *out,
        &json!({"program": program.name, "gen": program.gen.name(),
                "makespan_us": us(run.makespan_ps), "races": run.race_count,
                "deadlock_us": deadlock.map(|d| us(d.at_ps))}),
    )
    .map_err(io::Error::from)?;
    out.write_all(b"}\n")
}
