//! The SVG Gantt chart of a run: one row per engine, one bar per instruction coloured by its
//! kind (a legend maps colours and the short labels of narrow bars to mnemonics), waits
//! hatched, semaphore and event changes as dashed lines labelled by what they order, races
//! and a deadlock marked. Every label stays inside the canvas and no two semaphore labels
//! overlap (issue 28 item 5).
//!
//! Its size is bounded: past [`MAX_SVG_BARS`] instructions, bars, waits and semaphore lines
//! that fall in one pixel column of one row are drawn as one.

use super::super::engine_text::{describe, race_text, time};
use super::super::program::Program;
use super::{blocked_since, later_step, orders};
use std::collections::HashSet;
use std::fmt::Write as _;
use tpb_sim::engines::{Deadlock, EngineId, EngineRun, ScheduledStep, Stop};

/// Instruction bars drawn one per instruction; a longer run draws one bar per pixel column
/// of each row (see the module docs).
pub const MAX_SVG_BARS: usize = 20_000;

/// Where the time axis starts at least (engine names to its left; a longer name moves it).
const MIN_LEFT: f64 = 170.0;
/// The time axis' width.
const WIDTH: f64 = 880.0;
/// Room right of the axis: a deadlock's "blocked" tails and labels of late changes.
const RIGHT: f64 = 70.0;
/// One engine's row.
const ROW: f64 = 44.0;
/// The first row's top (the title and the semaphore label lanes above it).
const TOP: f64 = 86.0;
/// Margin kept between a label and the canvas edge or another label.
const GAP: f64 = 4.0;

/// Advance widths of the printable ASCII characters (32..=126), in thousandths of the font
/// size: DejaVu Sans's (its hmtx table; the default sans-serif on Linux, and wider than
/// Arial, Helvetica and Liberation Sans), so that a width computed from them bounds the
/// rendered regular text. Bold text counts [`BOLD`] times as wide.
const ADVANCE: [u16; 95] = [
    318, 401, 460, 838, 636, 950, 780, 275, 390, 390, 500, 838, 318, 361, 318, 337, //
    636, 636, 636, 636, 636, 636, 636, 636, 636, 636, 337, 337, 838, 838, 838, 531, //
    1000, 684, 686, 698, 770, 632, 575, 775, 752, 295, 295, 656, 557, 863, 748, 787, //
    603, 787, 695, 635, 611, 732, 684, 989, 685, 611, 685, 390, 337, 390, 838, 500, //
    500, 613, 635, 550, 635, 615, 352, 635, 634, 278, 278, 579, 278, 974, 634, 612, //
    635, 635, 411, 521, 392, 634, 592, 818, 592, 592, 525, 636, 337, 636, 838,
];

/// DejaVu Sans Bold's widest character relative to DejaVu Sans' (`f`: 435 / 352).
const BOLD: f64 = 1.25;

/// Rows of semaphore labels above the chart; a label that fits in none is left out (its
/// dashed line keeps the details in its tooltip).
const LABEL_LANES: usize = 4;

/// Bar colours, each readable under white text and apart from the red of races and
/// deadlocks and the purple of semaphore lines.
const PALETTE: [&str; 12] = [
    "#4e79a7", "#f28e2b", "#59a14f", "#9c755f", "#6b6ecf", "#2f8e87", "#c4597a", "#8c8c3c",
    "#7f7f7f", "#3a6e3a", "#a0522d", "#4a6fa5",
];

/// An upper bound of the rendered width of `text` at `font_px` pixels in a sans-serif face
/// ([`ADVANCE`]; any other character counts one em).
pub fn text_width(text: &str, font_px: f64) -> f64 {
    let ems: u32 = text
        .chars()
        .map(|c| {
            let k = (c as usize).wrapping_sub(32);
            ADVANCE.get(k).map_or(1000, |&a| u32::from(a))
        })
        .sum();
    f64::from(ems) * font_px / 1000.0
}

/// `text`, or its end after a `…` when it is wider than `room` (a long program path).
fn fit_left(text: &str, font_px: f64, room: f64) -> String {
    if text_width(text, font_px) <= room {
        return text.to_string();
    }
    let chars: Vec<char> = text.chars().collect();
    (1..chars.len())
        .map(|k| format!("…{}", chars[k..].iter().collect::<String>()))
        .find(|t| text_width(t, font_px) <= room)
        .unwrap_or_default()
}

/// The chart's horizontal layout: the time axis from `left` to `left + WIDTH`, the canvas
/// `canvas` wide.
#[derive(Clone, Copy)]
struct Layout {
    left: f64,
    canvas: f64,
}

impl Layout {
    /// Room for the widest row label (engine description and utilisation) left of the axis.
    fn of(labels: &[String]) -> Layout {
        let widest = labels
            .iter()
            .map(|l| text_width(l, 12.0))
            .fold(0.0, f64::max);
        let left = MIN_LEFT.max((8.0 + widest + 12.0).ceil());
        Layout {
            left,
            canvas: left + WIDTH + RIGHT,
        }
    }
}

/// `s` as the chart shows it: every control character but tab and newline (and U+FFFE,
/// U+FFFF, which XML 1.0 forbids even as a reference, §2.2 `Char`) as a visible escape
/// `\u{1b}`, so a kernel or file name cannot break the document.
fn visible(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
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

/// Text for SVG content and attributes: [`visible`], with the markup characters as entities.
fn esc(s: &str) -> String {
    visible(s)
        .replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// The instruction kinds of a run, in order of first appearance, each with a colour (the
/// first twelve kinds each their own; later ones a colour no kind of their rows has, where
/// one is left) and a short label for bars too narrow for the mnemonic.
struct Kinds {
    kinds: Vec<Kind>,
}

struct Kind {
    mnemonic: &'static str,
    colour: &'static str,
    short: String,
}

impl Kinds {
    fn of(run: &EngineRun) -> Kinds {
        let mut order: Vec<&'static str> = Vec::new();
        let mut rows: Vec<u32> = Vec::new();
        for s in &run.steps {
            let k = match order.iter().position(|&m| m == s.inst.mnemonic) {
                Some(k) => k,
                None => {
                    order.push(s.inst.mnemonic);
                    rows.push(0);
                    order.len() - 1
                }
            };
            rows[k] |= 1 << s.engine.index();
        }
        let mut colours: Vec<usize> = Vec::with_capacity(order.len());
        for k in 0..order.len() {
            let c = if k < PALETTE.len() {
                k
            } else {
                let taken: Vec<usize> = (0..k)
                    .filter(|&j| rows[j] & rows[k] != 0)
                    .map(|j| colours[j])
                    .collect();
                (0..PALETTE.len())
                    .find(|c| !taken.contains(c))
                    .unwrap_or(k % PALETTE.len())
            };
            colours.push(c);
        }
        let mut shorts: Vec<String> = Vec::with_capacity(order.len());
        for m in &order {
            shorts.push(short_label(m, &shorts));
        }
        Kinds {
            kinds: order
                .into_iter()
                .zip(colours)
                .zip(shorts)
                .map(|((mnemonic, c), short)| Kind {
                    mnemonic,
                    colour: PALETTE[c],
                    short,
                })
                .collect(),
        }
    }

    fn get(&self, mnemonic: &str) -> Option<&Kind> {
        self.kinds.iter().find(|k| k.mnemonic == mnemonic)
    }
}

/// A short label for `mnemonic` not among `taken`: the mnemonic itself up to 4 characters
/// (`iota`), the initials of a multi-word mnemonic (`load_weights` → `lw`), the first three
/// letters of one word (`matmul` → `mat`), longer prefixes or a number on a clash.
fn short_label(mnemonic: &str, taken: &[String]) -> String {
    let words: Vec<&str> = mnemonic.split('_').filter(|w| !w.is_empty()).collect();
    let mut candidates: Vec<String> = Vec::new();
    if mnemonic.chars().count() <= 4 {
        candidates.push(mnemonic.to_string());
    }
    if words.len() > 1 {
        candidates.push(words.iter().filter_map(|w| w.chars().next()).collect());
    }
    for n in 3..=mnemonic.chars().count() {
        candidates.push(mnemonic.chars().take(n).collect());
    }
    let free = |c: &String| !taken.contains(c);
    if let Some(c) = candidates.iter().find(|c| free(c)) {
        return c.clone();
    }
    (2..)
        .map(|k| format!("{}{k}", candidates.first().map_or(mnemonic, |c| c.as_str())))
        .find(|c| free(c))
        .unwrap_or_default()
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

/// Places labels `(x of their line, width)` in [`LABEL_LANES`] lanes above the chart: each
/// right of its line, or left of it where it would leave the canvas, and overlapping no
/// other label of its lane. Returns the left edge and lane of each, `None` when no lane has
/// room. A lane holds at most a canvas width of labels, so the scan per label is short.
fn place_labels(labels: &[(f64, f64)], canvas: f64) -> Vec<Option<(f64, usize)>> {
    let mut lanes: Vec<Vec<(f64, f64)>> = vec![Vec::new(); LABEL_LANES];
    labels
        .iter()
        .map(|&(x, w)| {
            let right_of = x + 3.0;
            let start = if right_of + w <= canvas - GAP {
                right_of
            } else {
                (x - 3.0 - w).max(GAP)
            };
            let end = start + w;
            if end > canvas - GAP {
                return None;
            }
            let lane = lanes.iter().position(|lane| {
                lane.iter()
                    .all(|&(a, b)| end + GAP <= a || b + GAP <= start)
            })?;
            lanes[lane].push((start, end));
            Some((start, lane))
        })
        .collect()
}

/// The y of label lane `lane` (0 just above the chart).
fn lane_y(lane: usize) -> f64 {
    TOP - 6.0 - 11.0 * lane as f64
}

/// The legend: one swatch per instruction kind with its short label and mnemonic, wrapped
/// to the canvas; returns its SVG and height.
fn legend(kinds: &Kinds, top: f64, layout: Layout) -> (String, f64) {
    let mut o = String::new();
    let (mut x, mut y) = (layout.left, top);
    for k in &kinds.kinds {
        // `lw load_weights`; a mnemonic that is its own short label once.
        let (bold, plain) = if k.short == k.mnemonic {
            ("", k.mnemonic.to_string())
        } else {
            (k.short.as_str(), format!(" {}", k.mnemonic))
        };
        let w = 16.0 + BOLD * text_width(bold, 12.0) + text_width(&plain, 12.0) + 14.0;
        if x > layout.left && x + w > layout.canvas - GAP {
            x = layout.left;
            y += 18.0;
        }
        let _ = writeln!(
            o,
            r##"<g class="legend"><rect x="{x:.2}" y="{}" width="12" height="12" fill="{}"/><text x="{:.2}" y="{y}" fill="#333"><tspan font-weight="bold">{}</tspan>{}</text></g>"##,
            y - 10.0,
            k.colour,
            x + 16.0,
            esc(bold),
            esc(&plain)
        );
        x += w;
    }
    (o, y - top + 18.0)
}

/// Lanes for the bars of one row, which may overlap (an ACT-issued DMA request runs beside
/// ACT's compute, a LoadWeights in the background of a Matmul): per span `(start, end)`, in
/// start order, its lane and the number of lanes of its cluster of overlapping spans. A
/// bar that overlaps nothing keeps the whole row.
fn sub_lanes(spans: &[(u64, u64)]) -> Vec<(usize, usize)> {
    let mut out = vec![(0, 1); spans.len()];
    let (mut first, mut until) = (0, 0u64);
    let mut ends: Vec<u64> = Vec::new();
    let close = |out: &mut Vec<(usize, usize)>, from: usize, to: usize, n: usize| {
        for o in &mut out[from..to] {
            o.1 = n;
        }
    };
    for (k, &(start, end)) in spans.iter().enumerate() {
        if start >= until {
            close(&mut out, first, k, ends.len().max(1));
            first = k;
            ends.clear();
        }
        let lane = match ends.iter().position(|&e| e <= start) {
            Some(l) => l,
            None => {
                ends.push(0);
                ends.len() - 1
            }
        };
        ends[lane] = end;
        out[k].0 = lane;
        until = until.max(end);
    }
    close(&mut out, first, spans.len(), ends.len().max(1));
    out
}

/// The SVG Gantt chart (see the module docs): `class="inst"` bars (tooltip: the
/// instruction), `class="bar-label"` texts, `class="wait"` hatched waits, `class="race"`
/// marks, `class="sync"` dashed lines with `class="sync-label"` texts, `class="legend"`
/// entries, and on a deadlock one `class="blocked"` group per stuck engine (its wait up to
/// the deadlock and a tail past it, labelled) and a `class="deadlock"` marker.
pub fn svg(program: &Program, run: &EngineRun) -> String {
    let rows: Vec<EngineId> = run.summary.iter().map(|s| s.engine).collect();
    let row_labels: Vec<(String, String)> = run
        .summary
        .iter()
        .map(|s| {
            (
                s.engine.description().to_string(),
                format!("{:.0}%", s.utilisation * 100.0),
            )
        })
        .collect();
    let layout = Layout::of(
        &row_labels
            .iter()
            .map(|(d, u)| format!("{d} {u}"))
            .collect::<Vec<_>>(),
    );
    let left = layout.left;
    let row_of = |e: EngineId| rows.iter().position(|&r| r == e).unwrap_or(0) as f64;
    let span = run.makespan_ps.max(1) as f64;
    let x = |ps: u64| left + WIDTH * ps as f64 / span;
    let column = |ps: u64| x(ps).floor() as i64;
    let coalesce = run.steps.len() > MAX_SVG_BARS;
    let kinds = Kinds::of(run);
    let deadlock: Option<&Deadlock> = match &run.stop {
        Stop::Deadlock(d) => Some(d),
        _ => None,
    };
    let bottom = TOP + ROW * rows.len() as f64;
    let axis = bottom + 16.0;
    let footnote = axis + 32.0;
    let (legend_svg, legend_height) = legend(&kinds, footnote + 40.0, layout);
    let height = footnote + 40.0 + legend_height + 4.0;
    let canvas = layout.canvas;

    let mut o = String::new();
    let _ = writeln!(
        o,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{canvas}" height="{height}" viewBox="0 0 {canvas} {height}" font-family="sans-serif" font-size="12">"#
    );
    let _ = writeln!(
        o,
        r##"<defs><pattern id="wait" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="6" height="6" fill="#eeeeee"/><line x1="0" y1="0" x2="0" y2="6" stroke="#b0b0b0" stroke-width="2"/></pattern><pattern id="blocked" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="6" height="6" fill="#fbe3e3"/><line x1="0" y1="0" x2="0" y2="6" stroke="#d62728" stroke-width="2"/></pattern></defs>"##
    );
    let _ = writeln!(o, r#"<rect width="100%" height="100%" fill="white"/>"#);
    let tail = format!(
        " — {}, {} races{}, run {}",
        program.gen,
        run.race_count,
        if deadlock.is_some() { ", deadlock" } else { "" },
        time(run.makespan_ps)
    );
    let room = canvas - GAP - left - text_width(&tail, 14.0);
    let _ = writeln!(
        o,
        r#"<text class="title" x="{left}" y="20" font-size="14">{}{}</text>"#,
        esc(&fit_left(&visible(&program.name), 14.0, room)),
        esc(&tail)
    );
    for (r, (description, util)) in row_labels.iter().enumerate() {
        let y = TOP + ROW * r as f64;
        let _ = writeln!(
            o,
            r##"<text class="row-label" x="8" y="{}">{} <tspan fill="#777">{util}</tspan></text><line x1="{left}" y1="{}" x2="{}" y2="{}" stroke="#dddddd"/>"##,
            y + ROW / 2.0 + 4.0,
            esc(description),
            y + ROW,
            left + WIDTH,
            y + ROW
        );
    }
    let raced: HashSet<usize> = run
        .races
        .iter()
        .flat_map(|r| [r.first.step, r.second.step])
        .collect();
    for &e in &rows {
        let steps: Vec<(usize, &ScheduledStep)> = run
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
                let w = match (first.waited_on, first.enabled_by) {
                    (Some(o), Some(by)) => {
                        format!("waits for {o}, set by {}", orders::long(program, run, by))
                    }
                    (Some(o), None) => format!("waits for {o}"),
                    _ => "waits".to_string(),
                };
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
        // Bars that overlap in time (background work) share the row in lanes.
        let lanes = if coalesce {
            vec![(0, 1); steps.len()]
        } else {
            sub_lanes(
                &steps
                    .iter()
                    .map(|(_, s)| (s.start_ps, s.end_ps))
                    .collect::<Vec<_>>(),
            )
        };
        for (a, b) in columns(&steps, coalesce, |(_, s)| column(s.start_ps)) {
            let ((_, first), (_, last)) = (steps[a], steps[b]);
            let (lane, n) = lanes[a];
            let bar_h = (ROW - 16.0) / n as f64;
            let bar_y = y + bar_h * lane as f64;
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
            let kind = kinds.get(first.inst.mnemonic);
            // A column of several kinds is grey.
            let fill = match kind {
                Some(k)
                    if steps[a..=b]
                        .iter()
                        .all(|(_, s)| s.inst.mnemonic == k.mnemonic) =>
                {
                    k.colour
                }
                _ => "#999999",
            };
            let (x0, w) = (x(first.start_ps), x(last.end_ps) - x(first.start_ps));
            let _ = writeln!(
                o,
                r#"<rect class="inst" x="{x0:.2}" y="{bar_y:.2}" width="{:.2}" height="{bar_h:.2}" fill="{fill}"{stroke}><title>{}</title></rect>"#,
                w.max(0.5),
                esc(&title)
            );
            if a != b {
                continue;
            }
            // The mnemonic where it fits, else the kind's short label (the legend says
            // which), else none: the colour still tells the kinds apart.
            let font = if n > 1 { 10.0 } else { 12.0 };
            let text = [Some(first.inst.mnemonic), kind.map(|k| k.short.as_str())]
                .into_iter()
                .flatten()
                .find(|t| text_width(t, font) + 6.0 <= w);
            if let (Some(t), true) = (text, bar_h >= font) {
                let _ = writeln!(
                    o,
                    r#"<text class="bar-label" x="{:.2}" y="{:.2}" font-size="{font}" fill="white" pointer-events="none">{}</text>"#,
                    x0 + 3.0,
                    bar_y + bar_h / 2.0 + font * 0.35,
                    esc(t)
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
    // Semaphore and event changes: a change that lets a wait through is labelled by what
    // it orders; one that nothing waited on (most of an emitted kernel's per-engine counts)
    // is a faint line with its tooltip only.
    let changes: Vec<_> = run.counters.iter().filter(|c| c.ps > 0).collect();
    let lines: Vec<(usize, usize, usize)> =
        columns(&changes, changes.len() > MAX_SVG_BARS, |c| column(c.ps))
            .into_iter()
            .map(|(a, b)| {
                let shown = (a..=b)
                    .rev()
                    .find(|&k| orders::orders_something(changes[k]))
                    .unwrap_or(b);
                (a, b, shown)
            })
            .collect();
    let texts: Vec<Option<String>> = lines
        .iter()
        .map(|&(_, _, k)| {
            orders::orders_something(changes[k]).then(|| orders::label(program, run, changes[k]))
        })
        .collect();
    let spots: Vec<(usize, (f64, f64))> = lines
        .iter()
        .zip(&texts)
        .enumerate()
        .filter_map(|(i, (&(_, _, k), t))| {
            Some((i, (x(changes[k].ps), text_width(t.as_ref()?, 10.0))))
        })
        .collect();
    let mut placed: Vec<Option<(f64, usize)>> = vec![None; lines.len()];
    let boxes: Vec<(f64, f64)> = spots.iter().map(|s| s.1).collect();
    for ((i, _), p) in spots.iter().zip(place_labels(&boxes, canvas)) {
        placed[*i] = p;
    }
    for ((&(a, b, k), text), spot) in lines.iter().zip(&texts).zip(placed) {
        let c = changes[k];
        let at = time(c.ps);
        let tip = if a == b {
            orders::detail(program, run, c, &at)
        } else {
            format!(
                "{} changes up to {}; {}",
                b - a + 1,
                time(changes[b].ps),
                orders::detail(program, run, c, &at)
            )
        };
        if let (Some((left, lane)), Some(text)) = (spot, text) {
            let _ = writeln!(
                o,
                r##"<text class="sync-label" x="{left:.2}" y="{}" fill="#7b4fa8" font-size="10">{}<title>{}</title></text>"##,
                lane_y(lane),
                esc(text),
                esc(&tip)
            );
        }
        let faint = if text.is_some() {
            ""
        } else {
            r#" stroke-opacity="0.35""#
        };
        let _ = writeln!(
            o,
            r##"<line class="sync" x1="{x0:.2}" y1="{TOP}" x2="{x0:.2}" y2="{bottom}" stroke="#9467bd" stroke-dasharray="3,3"{faint}><title>{}</title></line>"##,
            esc(&tip),
            x0 = x(c.ps)
        );
    }
    if let Some(d) = deadlock {
        let at = x(d.at_ps);
        for b in &d.blocked {
            let since = blocked_since(run, b.engine);
            let y = TOP + ROW * row_of(b.engine) + 8.0;
            // The wait up to the deadlock, then a tail past it that says the engine never
            // goes on (an engine stuck from the deadlock instant has only the tail).
            let _ = writeln!(
                o,
                r##"<g class="blocked"><title>{} is blocked: waits for {}</title><rect x="{:.2}" y="{y}" width="{:.2}" height="{h}" fill="url(#blocked)"/><rect x="{at:.2}" y="{y}" width="{tail}" height="{h}" fill="#fbe3e3" stroke="#d62728"/><text x="{:.2}" y="{}" fill="#a01c1c" font-size="10">blocked</text></g>"##,
                esc(&describe(program, b.engine, b.queue_index, b.index)),
                esc(&b.detail),
                x(since),
                (at - x(since)).max(0.0),
                at + 4.0,
                y + (ROW - 16.0) / 2.0 + 3.0,
                h = ROW - 16.0,
                tail = RIGHT - 2.0 * GAP,
            );
        }
        let _ = writeln!(
            o,
            r##"<g class="deadlock"><line x1="{at:.2}" y1="{TOP}" x2="{at:.2}" y2="{bottom}" stroke="#d62728" stroke-width="2"/><text x="{at:.2}" y="{}" fill="#d62728" text-anchor="end">deadlock</text><title>deadlock at {}: {} engine(s) blocked</title></g>"##,
            axis + 15.0,
            esc(&time(d.at_ps)),
            d.blocked.len(),
        );
    }
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
        r##"<text class="note" x="{left}" y="{footnote}" fill="#555" font-size="11">bars: instructions by kind (hover for details) · hatched: waiting (red: blocked in a deadlock)</text>"##
    );
    let _ = writeln!(
        o,
        r##"<text class="note" x="{left}" y="{}" fill="#555" font-size="11">dashed: a semaphore or event changes, labelled producer → consumer · red: a race</text>"##,
        footnote + 15.0
    );
    o.push_str(&legend_svg);
    o.push_str("</svg>\n");
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_labels_are_initials_or_prefixes_and_distinct() {
        let mut taken = Vec::new();
        for m in ["load_weights", "matmul", "long_wait", "matmul_x", "mat"] {
            let s = short_label(m, &taken);
            assert!(!taken.contains(&s), "{m}: {s} twice");
            taken.push(s);
        }
        assert_eq!(taken[0], "lw");
        assert_eq!(taken[1], "mat");
        // `long_wait`: its initials are taken, so a prefix; `mat`: every prefix is taken.
        assert_eq!(taken[2], "lon");
        assert_eq!(taken[3], "mx");
        assert_eq!(taken[4], "mat2");
    }

    #[test]
    fn labels_near_the_right_edge_go_left_of_their_line_and_never_overlap() {
        let (left, canvas) = (MIN_LEFT, MIN_LEFT + WIDTH + RIGHT);
        let spots: Vec<(f64, f64)> = (0..40).map(|k| (left + WIDTH - k as f64, 150.0)).collect();
        let placed = place_labels(&spots, canvas);
        let mut boxes: Vec<(usize, f64, f64)> = Vec::new();
        for (p, &(_, w)) in placed.iter().zip(&spots) {
            if let Some((left, lane)) = *p {
                assert!(left >= GAP && left + w <= canvas - GAP, "{left}");
                boxes.push((lane, left, left + w));
            }
        }
        assert_eq!(boxes.len(), LABEL_LANES, "one per lane fits");
        for (i, a) in boxes.iter().enumerate() {
            for b in &boxes[i + 1..] {
                assert!(a.0 != b.0 || a.2 <= b.1 || b.2 <= a.1, "{a:?} {b:?}");
            }
        }
        // A label wider than the canvas has no place.
        assert_eq!(place_labels(&[(left, canvas)], canvas), [None]);
    }
}
