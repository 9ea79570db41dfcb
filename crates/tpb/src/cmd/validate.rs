//! `tpb validate`: check every bundle against a generation's rules (or all four).
//!
//! ```text
//! $ tpb validate examples/bad_bundles.bin
//! #0 @0x0000 affine_select: INVALID on cayman (1 failure)
//!   FAIL has_valid_neuron_header: inst_word_len == 0x10 — `inst_word_len` (bytes 1..2) = ...
//! ```
//!
//! Exit status: 0 when every bundle is valid on every generation checked, 1 otherwise
//! (lints are printed but never change it), 2 for a usage or input error.

use super::input::{
    bundle_json, bundle_tag, finding_json, opcode_label, stdout, stdout_error, GensArg, InputArgs,
    JsonBundles,
};
use super::CliError;
use serde_json::{json, Value};
use std::io::Write;
use std::process::ExitCode;
use tpb_isa::validate::{validate_view, Report};
use tpb_isa::wire::{InstView, BUNDLE_BYTES};
use tpb_isa::{Gen, Opcode};

/// Arguments of `tpb validate`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The program.
    #[command(flatten)]
    pub input: InputArgs,
    /// The generation(s).
    #[command(flatten)]
    pub gens: GensArg,
    /// Print one JSON document with every failure and lint per bundle and generation.
    #[arg(long)]
    pub json: bool,
}

/// One bundle's raw bytes and its report for each generation checked (in `gens` order).
struct Checked {
    raw: [u8; BUNDLE_BYTES],
    reports: Vec<Report>,
}

/// Runs `tpb validate`, one bundle at a time: memory holds one bundle's reports whatever
/// the file size.
pub fn run(args: Args) -> Result<ExitCode, CliError> {
    let gens = args.gens.resolve()?;
    let mut program = args.input.open()?;
    let mut out = stdout();
    let mut printer = if args.json {
        Printer::Json(JsonBundles::start(&mut out).map_err(stdout_error)?)
    } else if args.gens.all_gens {
        Printer::Matrix(Matrix::start(&mut out, &gens, program.count()).map_err(stdout_error)?)
    } else {
        Printer::Blocks(Blocks {
            out: &mut out,
            gen: gens[0],
        })
    };
    let (mut bundles, mut failing) = (0usize, 0usize);
    while let Some(raw) = program.next_bundle()? {
        // Each generation decodes the bytes itself (0x87 is a struct on sunda, opaque elsewhere).
        let c = Checked {
            raw,
            reports: gens
                .iter()
                .map(|&g| validate_view(&InstView::new(&raw, g)))
                .collect(),
        };
        failing += usize::from(!c.reports.iter().all(Report::is_valid));
        match &mut printer {
            Printer::Json(doc) => doc.push(&bundle_to_json(bundles, &c)),
            Printer::Matrix(m) => m.row(bundles, &c),
            Printer::Blocks(b) => b.block(bundles, &c),
        }
        .map_err(stdout_error)?;
        bundles += 1;
    }
    let all_valid = failing == 0;
    match printer {
        Printer::Json(doc) => doc.finish(&[
            (
                "gens",
                json!(gens.iter().map(|g| g.name()).collect::<Vec<_>>()),
            ),
            ("valid", json!(all_valid)),
        ]),
        Printer::Matrix(m) => m.finish(bundles, failing),
        Printer::Blocks(b) => b.finish(bundles, failing),
    }
    .map_err(stdout_error)?;
    out.flush().map_err(stdout_error)?;
    Ok(if all_valid {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// The three output forms, each printed as the bundles come.
enum Printer<'a, W: Write> {
    Json(JsonBundles<&'a mut W>),
    Matrix(Matrix<'a, W>),
    Blocks(Blocks<'a, W>),
}

/// One block per bundle with failures or lints, then a summary line.
struct Blocks<'a, W: Write> {
    out: &'a mut W,
    gen: Gen,
}

impl<W: Write> Blocks<'_, W> {
    fn block(&mut self, i: usize, c: &Checked) -> std::io::Result<()> {
        let (gen, r) = (self.gen, &c.reports[0]);
        let (fails, lints) = (r.failures().count(), r.lints().count());
        if fails == 0 && lints == 0 {
            return Ok(());
        }
        let verdict = if fails > 0 {
            format!("INVALID on {gen} ({})", plural(fails, "failure"))
        } else {
            format!("valid on {gen} ({})", plural(lints, "lint"))
        };
        let label = opcode_label(Opcode(c.raw[0]), gen);
        writeln!(self.out, "{} {label}: {verdict}", bundle_tag(i))?;
        for f in r.failures().chain(r.lints()) {
            writeln!(self.out, "  {f}")?;
        }
        Ok(())
    }

    fn finish(self, bundles: usize, invalid: usize) -> std::io::Result<()> {
        let (gen, n) = (self.gen, plural(bundles, "bundle"));
        match invalid {
            0 => writeln!(self.out, "{gen}: valid ({n})"),
            k => writeln!(self.out, "{gen}: INVALID ({k} of {n})"),
        }
    }
}

/// The verdict matrix: a row per bundle, a column per generation, `ok` or `FAIL(n)`. The
/// columns are sized before the first row (from the file size and the longest opcode label)
/// so that rows print as they come.
struct Matrix<'a, W: Write> {
    out: &'a mut W,
    wt: usize,
    wl: usize,
}

/// The matrix's opcode column: the mnemonic of any generation, or `opaque 0xNN`.
fn matrix_label(op: u8) -> String {
    match Opcode(op).row() {
        Some(r) => r.mnemonic.to_string(),
        None => format!("opaque {op:#04x}"),
    }
}

impl<'a, W: Write> Matrix<'a, W> {
    fn start(out: &'a mut W, gens: &[Gen], count: Option<usize>) -> std::io::Result<Self> {
        let last = count.unwrap_or(1).saturating_sub(1);
        let wt = bundle_tag(last).len().max(6);
        let wl = (0..=u8::MAX)
            .map(|op| matrix_label(op).len())
            .max()
            .unwrap_or(0)
            .max(6);
        let mut head = format!("{:<wt$}  {:<wl$}", "bundle", "opcode");
        for g in gens {
            head.push_str(&format!("  {:<8}", g.name()));
        }
        writeln!(out, "{}", head.trim_end())?;
        Ok(Matrix { out, wt, wl })
    }

    fn row(&mut self, i: usize, c: &Checked) -> std::io::Result<()> {
        let (wt, wl) = (self.wt, self.wl);
        let mut line = format!("{:<wt$}  {:<wl$}", bundle_tag(i), matrix_label(c.raw[0]));
        for r in &c.reports {
            let cell = match r.failures().count() {
                0 => "ok".to_string(),
                n => format!("FAIL({n})"),
            };
            line.push_str(&format!("  {cell:<8}"));
        }
        writeln!(self.out, "{}", line.trim_end())
    }

    fn finish(self, bundles: usize, failing: usize) -> std::io::Result<()> {
        let n = plural(bundles, "bundle");
        match failing {
            0 => writeln!(self.out, "valid on every generation ({n})"),
            k => writeln!(
                self.out,
                "INVALID ({k} of {n} fail on at least one generation)"
            ),
        }
    }
}

fn bundle_to_json(i: usize, c: &Checked) -> Value {
    let mut b = bundle_json(i, &c.raw);
    b["reports"] = c
        .reports
        .iter()
        .map(|r| {
            json!({
                "gen": r.gen.name(),
                "label": opcode_label(Opcode(c.raw[0]), r.gen),
                "valid": r.is_valid(),
                "failures": r.failures().map(finding_json).collect::<Vec<_>>(),
                "lints": r.lints().map(finding_json).collect::<Vec<_>>(),
            })
        })
        .collect();
    b
}

fn plural(n: usize, what: &str) -> String {
    format!("{n} {what}{}", if n == 1 { "" } else { "s" })
}
