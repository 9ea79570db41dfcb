//! The run's timeline: Chrome trace-event JSON (opens in Perfetto and chrome://tracing) and a
//! self-contained SVG Gantt chart. Both are written atomically (a temporary file in the
//! same directory, then a rename).

use super::engines::{describe, race_text, time};
use super::program::Program;
use crate::cmd::CliError;
use serde_json::{json, Value};
use std::fmt::Write as _;
use std::path::Path;
use tpb_sim::engines::{EngineId, EngineRun, Object};

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
    let format = Format::of(path).map_err(|e| CliError::Msg(format!("--timeline: {e}")))?;
    let text = match format {
        Format::Json => serde_json::to_string(&chrome_trace(program, run)).unwrap_or_default(),
        Format::Svg => svg(program, run),
    };
    crate::atomic::write_file(path, text.as_bytes()).map_err(|e| CliError::io(path, e))
}

/// Microseconds (the trace format's unit) from picoseconds.
fn us(ps: u64) -> f64 {
    ps as f64 / 1e6
}

fn tid(e: EngineId) -> usize {
    e.index() + 1
}

/// The Chrome trace-event document: a named track per engine (metadata events), a complete
/// event per instruction (args: mnemonic, elements, bytes, …), a complete event per wait,
/// counter tracks for the semaphores and events used, and an instant event per race.
pub fn chrome_trace(program: &Program, run: &EngineRun) -> Value {
    let mut ev = vec![json!({
        "name": "process_name", "ph": "M", "pid": 1,
        "args": {"name": format!("tpb {} ({})", program.name, program.gen)}
    })];
    for e in EngineId::ALL {
        if run.summary.iter().any(|s| s.engine == e) {
            ev.push(
                json!({"name": "thread_name", "ph": "M", "pid": 1, "tid": tid(e),
                           "args": {"name": e.description()}}),
            );
            ev.push(
                json!({"name": "thread_sort_index", "ph": "M", "pid": 1, "tid": tid(e),
                           "args": {"sort_index": e.index()}}),
            );
        }
    }
    for s in &run.steps {
        let i = s.inst.index;
        if s.start_ps > s.ready_ps {
            ev.push(json!({
                "name": match s.waited_on { Some(o) => format!("wait {o}"), None => "wait".into() },
                "cat": "wait", "ph": "X", "pid": 1, "tid": tid(s.engine),
                "ts": us(s.ready_ps), "dur": us(s.start_ps - s.ready_ps),
                "args": {"before": i}
            }));
        }
        ev.push(json!({
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
        }));
    }
    for c in &run.counters {
        let name = match c.object {
            Object::Semaphore(i) => format!("semaphore {i}"),
            Object::Event(i) => format!("event {i}"),
        };
        ev.push(json!({"name": name, "ph": "C", "pid": 1, "ts": us(c.ps),
                       "args": {"value": c.value}}));
    }
    for r in &run.races {
        let s = &run.steps[r.second.step];
        ev.push(json!({
            "name": format!("race {}", r.kind.short()), "cat": "race", "ph": "i", "s": "t",
            "pid": 1, "tid": tid(r.second.engine), "ts": us(s.start_ps),
            "args": {"report": race_text(program, run, r)}
        }));
    }
    json!({"traceEvents": ev, "displayTimeUnit": "ns",
           "otherData": {"program": program.name, "gen": program.gen.name(),
                         "makespan_us": us(run.makespan_ps), "races": run.race_count}})
}

fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
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

/// The SVG Gantt chart: one row per engine, one `class="inst"` bar per instruction (its
/// tooltip names it), grey hatched waits, red marks and outlines where races are.
pub fn svg(program: &Program, run: &EngineRun) -> String {
    const LEFT: f64 = 170.0;
    const WIDTH: f64 = 880.0;
    const ROW: f64 = 44.0;
    const TOP: f64 = 40.0;
    let rows: Vec<EngineId> = run.summary.iter().map(|s| s.engine).collect();
    let row_of = |e: EngineId| rows.iter().position(|&r| r == e).unwrap_or(0) as f64;
    let span = run.makespan_ps.max(1) as f64;
    let x = |ps: u64| LEFT + WIDTH * ps as f64 / span;
    let height = TOP + ROW * rows.len() as f64 + 60.0;
    let mut o = String::new();
    let _ = writeln!(
        o,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{height}" viewBox="0 0 {w} {height}" font-family="sans-serif" font-size="12">"#,
        w = LEFT + WIDTH + 60.0
    );
    let _ = writeln!(
        o,
        r##"<defs><pattern id="wait" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="6" height="6" fill="#eeeeee"/><line x1="0" y1="0" x2="0" y2="6" stroke="#b0b0b0" stroke-width="2"/></pattern></defs>"##
    );
    let _ = writeln!(o, r#"<rect width="100%" height="100%" fill="white"/>"#);
    let _ = writeln!(
        o,
        r#"<text x="{LEFT}" y="20" font-size="14">{} — {}, {} races, run {}</text>"#,
        esc(&program.name),
        program.gen,
        run.race_count,
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
    for (k, s) in run.steps.iter().enumerate() {
        let y = TOP + ROW * row_of(s.engine) + 8.0;
        let i = s.inst.index;
        if s.start_ps > s.ready_ps {
            let what = s
                .waited_on
                .map_or("wait".to_string(), |o| format!("waits for {o}"));
            let _ = writeln!(
                o,
                r#"<rect class="wait" x="{:.2}" y="{y}" width="{:.2}" height="{}" fill="url(#wait)"><title>{} {}</title></rect>"#,
                x(s.ready_ps),
                (x(s.start_ps) - x(s.ready_ps)).max(0.5),
                ROW - 16.0,
                esc(&describe(program, s.engine, s.queue_index, i)),
                esc(&what)
            );
        }
        let stroke = if raced.contains(&k) {
            r##" stroke="#d62728" stroke-width="2""##
        } else {
            r##" stroke="#ffffff" stroke-width="0.5""##
        };
        let _ = writeln!(
            o,
            r#"<rect class="inst" x="{:.2}" y="{y}" width="{:.2}" height="{}" fill="{}"{stroke}><title>{} — {} to {}, {} cycles, {} elements, {} bytes written</title></rect>"#,
            x(s.start_ps),
            (x(s.end_ps) - x(s.start_ps)).max(0.5),
            ROW - 16.0,
            colour(s.engine),
            esc(&describe(program, s.engine, s.queue_index, i)),
            esc(&time(s.start_ps)),
            esc(&time(s.end_ps)),
            s.cycles,
            s.elements,
            s.bytes_written
        );
        let w = x(s.end_ps) - x(s.start_ps);
        if w > 8.0 * s.inst.mnemonic.len() as f64 {
            let _ = writeln!(
                o,
                r#"<text x="{:.2}" y="{}" fill="white" pointer-events="none">{}</text>"#,
                x(s.start_ps) + 4.0,
                y + ROW / 2.0 - 4.0,
                esc(s.inst.mnemonic)
            );
        }
    }
    for r in &run.races {
        let s = &run.steps[r.second.step];
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
    let changes = run.counters.iter().filter(|c| c.ps > 0).count();
    for c in run.counters.iter().filter(|c| c.ps > 0) {
        if changes <= 12 {
            let _ = writeln!(
                o,
                r##"<text x="{:.2}" y="{}" fill="#9467bd" font-size="10">{} = {}</text>"##,
                x(c.ps) + 3.0,
                TOP - 4.0,
                c.object,
                c.value
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
        r##"<text x="{LEFT}" y="{}" fill="#555" font-size="11">bars: instructions (hover for details) · hatched: waiting on a semaphore or event · dashed: a semaphore/event changes · red: a race</text>"##,
        axis + 20.0
    );
    o.push_str("</svg>\n");
    o
}
