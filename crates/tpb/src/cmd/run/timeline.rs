//! The run's timeline: Chrome trace-event JSON (opens in Perfetto and chrome://tracing) and a
//! self-contained SVG Gantt chart. Both are written atomically (a temporary file in the
//! same directory, then a rename).
//!
//! Memory stays proportional to the output, not to a document tree (issue 20 item 6): the
//! JSON is serialised one event at a time (before: about 11 KB per instruction as a
//! `serde_json::Value`, 1.1 GB for 100k instructions), and the SVG draws at most
//! [`MAX_SVG_BARS`] instruction bars: beyond that, bars, waits and semaphore lines that fall
//! in one pixel column of one row are drawn as one, so its size is bounded whatever the
//! program. A deadlock shows in both: each blocked engine's wait up to the deadlock, and a
//! marker at the deadlock time.

use super::engine_text::{describe, race_text, time};
use super::program::Program;
use crate::cmd::CliError;
use serde_json::{json, Value};
use std::fmt::Write as _;
use std::io::{self, Write};
use std::path::Path;
use tpb_sim::engines::{Deadlock, EngineId, EngineRun, Race, Stop};

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
            ev.push(&json!({
                "name": match s.waited_on { Some(o) => format!("wait {o}"), None => "wait".into() },
                "cat": "wait", "ph": "X", "pid": 1, "tid": tid(s.engine),
                "ts": us(s.ready_ps), "dur": us(s.start_ps - s.ready_ps),
                "args": {"before": i}
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
    for c in &run.counters {
        ev.push(
            &json!({"name": c.object.to_string(), "ph": "C", "pid": 1, "ts": us(c.ps),
                        "args": {"value": c.value}}),
        )?;
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

/// Text for SVG content and attributes: markup characters as entities, and every control
/// character but tab and newline (and U+FFFE/U+FFFF, which XML 1.0 forbids even as a reference, §2.2 `Char`)
/// written as a visible escape `\u{1b}`, so a kernel or file name cannot break the document.
fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            // Tab and newline are XML characters (a race's tooltip has lines).
            '\t' | '\n' => out.push(c),
            c if c.is_control() || matches!(c, '\u{fffe}' | '\u{ffff}') => {
                out.extend(c.escape_unicode())
            }
            c => out.push(c),
        }
    }
    out
}

/// Colours per engine (bars), readable on white.
fn colour(e: EngineId) -> &'static str {
    match e {
        EngineId::Pe => "#4e79a7",
        EngineId::Act => "#59a14f",
        EngineId::Pool => "#f28e2b",
        EngineId::Dve => "#4e9fd6",
        EngineId::Sp => "#8c8c8c",
        EngineId::DmaSp => "#b07aa1",
        EngineId::DmaAct => "#9c755f",
        EngineId::DmaPool => "#e15759",
    }
}

/// Instruction bars drawn one per instruction; a longer run draws one bar per pixel column
/// of each row (see the module docs).
pub const MAX_SVG_BARS: usize = 20_000;

/// Average advance of a character of the 10-pixel labels (sans-serif digits are 5.6 px).
const LABEL_CHAR_PX: f64 = 6.0;

/// Rows of semaphore labels above the chart; a label that fits in none is left out (its
/// dashed line keeps the value in its tooltip).
const LABEL_LANES: usize = 3;

/// Places labels `(x, text)` (sorted by x) in [`LABEL_LANES`] lanes without overlap:
/// the lane of each, or `None` when none has room.
fn label_lanes(labels: &[(f64, String)]) -> Vec<Option<usize>> {
    let mut ends = [f64::NEG_INFINITY; LABEL_LANES];
    labels
        .iter()
        .map(|(x, text)| {
            let lane = ends.iter().position(|&end| end + 4.0 <= *x)?;
            ends[lane] = x + LABEL_CHAR_PX * text.chars().count() as f64;
            Some(lane)
        })
        .collect()
}

/// Consecutive items of one row that fall in one pixel column when there are too many to
/// draw one by one: `(first, last)` index ranges into `items`, which are in time order.
fn columns<T>(items: &[T], coalesce: bool, column: impl Fn(&T) -> i64) -> Vec<(usize, usize)> {
    let mut groups: Vec<(usize, usize)> = Vec::new();
    for (k, it) in items.iter().enumerate() {
        match groups.last_mut() {
            Some(g) if coalesce && column(&items[g.1]) == column(it) => g.1 = k,
            _ => groups.push((k, k)),
        }
    }
    groups
}

/// The SVG Gantt chart: one row per engine, one `class="inst"` bar per instruction (its
/// tooltip names it), grey hatched waits, red marks and outlines where races are, dashed
/// lines and non-overlapping labels where semaphores and events change, and on a deadlock a
/// red hatched `class="blocked"` wait per stuck engine and a `class="deadlock"` marker.
pub fn svg(program: &Program, run: &EngineRun) -> String {
    const LEFT: f64 = 170.0;
    const WIDTH: f64 = 880.0;
    const ROW: f64 = 44.0;
    const TOP: f64 = 70.0;
    let rows: Vec<EngineId> = run.summary.iter().map(|s| s.engine).collect();
    let row_of = |e: EngineId| rows.iter().position(|&r| r == e).unwrap_or(0) as f64;
    let span = run.makespan_ps.max(1) as f64;
    let x = |ps: u64| LEFT + WIDTH * ps as f64 / span;
    let column = |ps: u64| x(ps).floor() as i64;
    let coalesce = run.steps.len() > MAX_SVG_BARS;
    let height = TOP + ROW * rows.len() as f64 + 60.0;
    let mut o = String::new();
    let _ = writeln!(
        o,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{height}" viewBox="0 0 {w} {height}" font-family="sans-serif" font-size="12">"#,
        w = LEFT + WIDTH + 60.0
    );
    let _ = writeln!(
        o,
        r##"<defs><pattern id="wait" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="6" height="6" fill="#eeeeee"/><line x1="0" y1="0" x2="0" y2="6" stroke="#b0b0b0" stroke-width="2"/></pattern><pattern id="blocked" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="6" height="6" fill="#fbe3e3"/><line x1="0" y1="0" x2="0" y2="6" stroke="#d62728" stroke-width="2"/></pattern></defs>"##
    );
    let _ = writeln!(o, r#"<rect width="100%" height="100%" fill="white"/>"#);
    let deadlock: Option<&Deadlock> = match &run.stop {
        Stop::Deadlock(d) => Some(d),
        _ => None,
    };
    let _ = writeln!(
        o,
        r#"<text x="{LEFT}" y="20" font-size="14">{} — {}, {} races{}, run {}</text>"#,
        esc(&program.name),
        program.gen,
        run.race_count,
        if deadlock.is_some() { ", deadlock" } else { "" },
        esc(&time(run.makespan_ps))
    );
    for (r, e) in rows.iter().enumerate() {
        let y = TOP + ROW * r as f64;
        let util = run
            .summary
            .iter()
            .find(|s| s.engine == *e)
            .map_or(0.0, |s| s.utilisation * 100.0);
        let _ = writeln!(
            o,
            r##"<text x="8" y="{}">{} <tspan fill="#777">{util:.0}%</tspan></text><line x1="{LEFT}" y1="{}" x2="{}" y2="{}" stroke="#dddddd"/>"##,
            y + ROW / 2.0 + 4.0,
            esc(e.description()),
            y + ROW,
            LEFT + WIDTH,
            y + ROW
        );
    }
    let raced: std::collections::HashSet<usize> = run
        .races
        .iter()
        .flat_map(|r| [r.first.step, r.second.step])
        .collect();
    for &e in &rows {
        let steps: Vec<(usize, &tpb_sim::engines::ScheduledStep)> = run
            .steps
            .iter()
            .enumerate()
            .filter(|(_, s)| s.engine == e)
            .collect();
        let y = TOP + ROW * row_of(e) + 8.0;
        // Waits: one per instruction, or one per pixel column.
        let waits: Vec<_> = steps
            .iter()
            .filter(|(_, s)| s.start_ps > s.ready_ps)
            .collect();
        for (a, b) in columns(&waits, coalesce, |(_, s)| column(s.ready_ps)) {
            let (first, last) = (waits[a].1, waits[b].1);
            let what = if a == b {
                let i = first.inst.index;
                let w = first
                    .waited_on
                    .map_or("wait".to_string(), |o| format!("waits for {o}"));
                format!("{} {w}", describe(program, e, first.queue_index, i))
            } else {
                format!("{} waits of {e}", b - a + 1)
            };
            let _ = writeln!(
                o,
                r#"<rect class="wait" x="{:.2}" y="{y}" width="{:.2}" height="{}" fill="url(#wait)"><title>{}</title></rect>"#,
                x(first.ready_ps),
                (x(last.start_ps) - x(first.ready_ps)).max(0.5),
                ROW - 16.0,
                esc(&what)
            );
        }
        for (a, b) in columns(&steps, coalesce, |(_, s)| column(s.start_ps)) {
            let ((_, first), (_, last)) = (steps[a], steps[b]);
            let any_race = steps[a..=b].iter().any(|(k, _)| raced.contains(k));
            let stroke = if any_race {
                r##" stroke="#d62728" stroke-width="2""##
            } else {
                r##" stroke="#ffffff" stroke-width="0.5""##
            };
            let title = if a == b {
                format!(
                    "{} — {} to {}, {} cycles, {} elements, {} bytes written",
                    describe(program, e, first.queue_index, first.inst.index),
                    time(first.start_ps),
                    time(first.end_ps),
                    first.cycles,
                    first.elements,
                    first.bytes_written
                )
            } else {
                format!(
                    "{e} #{}..#{}: {} instructions, {} to {}",
                    first.queue_index,
                    last.queue_index,
                    b - a + 1,
                    time(first.start_ps),
                    time(last.end_ps)
                )
            };
            let _ = writeln!(
                o,
                r#"<rect class="inst" x="{:.2}" y="{y}" width="{:.2}" height="{}" fill="{}"{stroke}><title>{}</title></rect>"#,
                x(first.start_ps),
                (x(last.end_ps) - x(first.start_ps)).max(0.5),
                ROW - 16.0,
                colour(e),
                esc(&title)
            );
            let w = x(last.end_ps) - x(first.start_ps);
            if a == b && w > 8.0 * first.inst.mnemonic.len() as f64 {
                let _ = writeln!(
                    o,
                    r#"<text x="{:.2}" y="{}" fill="white" pointer-events="none">{}</text>"#,
                    x(first.start_ps) + 4.0,
                    y + ROW / 2.0 - 4.0,
                    esc(first.inst.mnemonic)
                );
            }
        }
    }
    for r in &run.races {
        let s = &run.steps[later_step(r)];
        let y = TOP + ROW * row_of(s.engine);
        let _ = writeln!(
            o,
            r##"<path class="race" d="M {x0:.2} {y0} l -6 -8 h 12 z" fill="#d62728"><title>race: {}</title></path>"##,
            esc(&race_text(program, run, r)),
            x0 = x(s.start_ps),
            y0 = y + 8.0
        );
    }
    let bottom = TOP + ROW * rows.len() as f64;
    let changes: Vec<_> = run.counters.iter().filter(|c| c.ps > 0).collect();
    let lines = columns(&changes, changes.len() > MAX_SVG_BARS, |c| column(c.ps));
    let labels: Vec<(f64, String)> = lines
        .iter()
        .map(|&(_, b)| {
            (
                x(changes[b].ps) + 3.0,
                format!("{} = {}", changes[b].object, changes[b].value),
            )
        })
        .collect();
    for (&(_, b), (label, lane)) in lines.iter().zip(labels.iter().zip(label_lanes(&labels))) {
        let c = changes[b];
        if let Some(lane) = lane {
            let _ = writeln!(
                o,
                r##"<text class="sync-label" x="{:.2}" y="{}" fill="#9467bd" font-size="10">{}</text>"##,
                label.0,
                TOP - 4.0 - 11.0 * lane as f64,
                esc(&label.1)
            );
        }
        let _ = writeln!(
            o,
            r##"<line class="sync" x1="{x0:.2}" y1="{TOP}" x2="{x0:.2}" y2="{bottom}" stroke="#9467bd" stroke-dasharray="3,3"><title>{} = {} at {}</title></line>"##,
            c.object,
            c.value,
            esc(&time(c.ps)),
            x0 = x(c.ps)
        );
    }
    if let Some(d) = deadlock {
        for b in &d.blocked {
            let since = blocked_since(run, b.engine);
            let _ = writeln!(
                o,
                r#"<rect class="blocked" x="{:.2}" y="{}" width="{:.2}" height="{}" fill="url(#blocked)"><title>{} is blocked: waits for {}</title></rect>"#,
                x(since),
                TOP + ROW * row_of(b.engine) + 8.0,
                (x(d.at_ps) - x(since)).max(0.5),
                ROW - 16.0,
                esc(&describe(program, b.engine, b.queue_index, b.index)),
                esc(&b.detail)
            );
        }
        let _ = writeln!(
            o,
            r##"<g class="deadlock"><line x1="{x0:.2}" y1="{TOP}" x2="{x0:.2}" y2="{bottom}" stroke="#d62728" stroke-width="2"/><text x="{x0:.2}" y="{}" fill="#d62728" text-anchor="end">deadlock</text><title>deadlock at {}: {} engine(s) blocked</title></g>"##,
            bottom + 30.0,
            esc(&time(d.at_ps)),
            d.blocked.len(),
            x0 = x(d.at_ps)
        );
    }
    let axis = bottom + 16.0;
    for k in 0..=4 {
        let ps = run.makespan_ps / 4 * k;
        let _ = writeln!(
            o,
            r##"<text x="{:.2}" y="{axis}" fill="#555" text-anchor="middle">{}</text>"##,
            x(ps),
            esc(&time(ps))
        );
    }
    let _ = writeln!(
        o,
        r##"<text x="{LEFT}" y="{}" fill="#555" font-size="11">bars: instructions (hover for details) · hatched: waiting on a semaphore or event (red: blocked in a deadlock) · dashed: a semaphore/event changes · red: a race</text>"##,
        axis + 20.0
    );
    o.push_str("</svg>\n");
    o
}
