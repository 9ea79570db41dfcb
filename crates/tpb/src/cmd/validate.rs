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
    bundle_json, bundle_tag, finding_json, opcode_label, print_json, GensArg, InputArgs,
};
use super::CliError;
use serde_json::{json, Value};
use std::process::ExitCode;
use tpb_isa::validate::{validate, Report};
use tpb_isa::wire::BUNDLE_BYTES;
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
struct Checked<'a> {
    raw: &'a [u8; BUNDLE_BYTES],
    reports: Vec<Report>,
}

/// Runs `tpb validate`.
pub fn run(args: Args) -> Result<ExitCode, CliError> {
    let gens = args.gens.resolve()?;
    let program = args.input.load()?;
    // Each generation decodes the bytes itself (0x87 is a struct on sunda, opaque elsewhere).
    let decoded: Vec<_> = gens.iter().map(|&g| program.decode(g)).collect();
    let checked: Vec<Checked> = program
        .bundles
        .iter()
        .enumerate()
        .map(|(i, raw)| Checked {
            raw,
            reports: gens
                .iter()
                .zip(&decoded)
                .map(|(&g, insts)| validate(&insts[i], g))
                .collect(),
        })
        .collect();
    let all_valid = checked
        .iter()
        .flat_map(|c| &c.reports)
        .all(Report::is_valid);

    if args.json {
        print_json(&to_json(&gens, &checked, all_valid));
    } else if args.gens.all_gens {
        print_matrix(&gens, &checked);
    } else {
        print_blocks(gens[0], &checked);
    }
    Ok(if all_valid {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// One block per bundle with failures or lints, then a summary line.
fn print_blocks(gen: Gen, checked: &[Checked]) {
    let mut invalid = 0;
    for (i, c) in checked.iter().enumerate() {
        let r = &c.reports[0];
        let (fails, lints) = (r.failures().count(), r.lints().count());
        if fails == 0 && lints == 0 {
            continue;
        }
        let verdict = if fails > 0 {
            invalid += 1;
            format!("INVALID on {gen} ({})", plural(fails, "failure"))
        } else {
            format!("valid on {gen} ({})", plural(lints, "lint"))
        };
        let label = opcode_label(Opcode(c.raw[0]), gen);
        println!("{} {label}: {verdict}", bundle_tag(i));
        for f in r.failures().chain(r.lints()) {
            println!("  {f}");
        }
    }
    let n = plural(checked.len(), "bundle");
    match invalid {
        0 => println!("{gen}: valid ({n})"),
        k => println!("{gen}: INVALID ({k} of {n})"),
    }
}

/// The verdict matrix: a row per bundle, a column per generation, `ok` or `FAIL(n)`.
fn print_matrix(gens: &[Gen], checked: &[Checked]) {
    let label = |raw: &[u8; BUNDLE_BYTES]| match Opcode(raw[0]).row() {
        Some(r) => r.mnemonic.to_string(),
        None => format!("opaque {:#04x}", raw[0]),
    };
    let tags: Vec<String> = (0..checked.len()).map(bundle_tag).collect();
    let wt = tags.iter().map(String::len).max().unwrap_or(0).max(6);
    let wl = checked
        .iter()
        .map(|c| label(c.raw).len())
        .max()
        .unwrap_or(0)
        .max(6);
    let mut head = format!("{:<wt$}  {:<wl$}", "bundle", "opcode");
    for g in gens {
        head.push_str(&format!("  {:<8}", g.name()));
    }
    println!("{}", head.trim_end());
    let mut failing = 0;
    for (tag, c) in tags.iter().zip(checked) {
        let mut line = format!("{tag:<wt$}  {:<wl$}", label(c.raw));
        for r in &c.reports {
            let cell = match r.failures().count() {
                0 => "ok".to_string(),
                n => format!("FAIL({n})"),
            };
            line.push_str(&format!("  {cell:<8}"));
        }
        failing += usize::from(!c.reports.iter().all(Report::is_valid));
        println!("{}", line.trim_end());
    }
    let n = plural(checked.len(), "bundle");
    match failing {
        0 => println!("valid on every generation ({n})"),
        k => println!("INVALID ({k} of {n} fail on at least one generation)"),
    }
}

fn to_json(gens: &[Gen], checked: &[Checked], all_valid: bool) -> Value {
    let bundles: Vec<Value> = checked
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let mut b = bundle_json(i, c.raw);
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
        })
        .collect();
    json!({
        "gens": gens.iter().map(|g| g.name()).collect::<Vec<_>>(),
        "valid": all_valid,
        "bundles": bundles,
    })
}

fn plural(n: usize, what: &str) -> String {
    format!("{n} {what}{}", if n == 1 { "" } else { "s" })
}
