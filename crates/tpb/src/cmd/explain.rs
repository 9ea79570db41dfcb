//! `tpb explain`: an annotated dump of every bundle and the rule walk for the generation(s).
//!
//! ```text
//! $ tpb explain --hex "92 10 00 00 …"
//! #0 @0x0000
//!   on cayman: affine_select = TensorScalarAffineSelect 0x92, struct S2D2_TS_AS, …
//!     bytes   field                       raw       value
//!     0..1    opcode                      92        0x92 TensorScalarAffineSelect
//!     …
//!   rule walk on cayman: valid (24 checks: 24 pass, 0 FAIL, 0 lint)
//!     pass has_valid_neuron_header: inst_word_len == 0x10 — …
//! ```
//!
//! The dump lists every field, and every sub-part of a compound field (`start_addr`,
//! `step_elem[i]`, `num_elem[i]`, `dtype_lo`/`dtype_hi`, …), with its byte range, raw bytes,
//! decoded value and meaning. With `--all-gens`, generations whose dumps are identical share
//! one table; the rule walk is printed for each generation.

use super::input::{
    bundle_tag, field_rows_with_parts, field_table, opcode_summary, stdout, stdout_error, GensArg,
    InputArgs,
};
use super::CliError;
use std::fmt::Write as _;
use std::io::Write as _;
use std::process::ExitCode;
use tpb_isa::validate::rule_walk;
use tpb_isa::{Gen, Instruction};

/// Arguments of `tpb explain`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The program.
    #[command(flatten)]
    pub input: InputArgs,
    /// The generation(s).
    #[command(flatten)]
    pub gens: GensArg,
}

/// Runs `tpb explain`. Always exits 0: explaining is not judging (use `tpb validate`).
pub fn run(args: Args) -> Result<ExitCode, CliError> {
    let gens = args.gens.resolve()?;
    let mut program = args.input.open()?;
    let mut stdout = stdout();
    let mut i = 0;
    // One bundle at a time: memory does not grow with the file.
    while let Some(raw) = program.next_bundle()? {
        let decoded: Vec<_> = gens.iter().map(|&g| Instruction::decode(&raw, g)).collect();
        let mut out = String::new();
        if i > 0 {
            out.push('\n');
        }
        let _ = writeln!(out, "{}", bundle_tag(i));
        // Dumps that are identical on several generations are printed once.
        let mut dumps: Vec<(Vec<Gen>, String)> = Vec::new();
        for (&g, inst) in gens.iter().zip(&decoded) {
            let dump = format!(
                "{}\n{}",
                opcode_summary(inst.opcode(), g),
                field_table(&field_rows_with_parts(inst, g), "    ")
            );
            match dumps.iter_mut().find(|(_, d)| *d == dump) {
                Some((gs, _)) => gs.push(g),
                None => dumps.push((vec![g], dump)),
            }
        }
        for (gs, dump) in &dumps {
            let names: Vec<&str> = gs.iter().map(|g| g.name()).collect();
            let _ = write!(out, "  on {}: {dump}", names.join(", "));
        }
        for (&g, inst) in gens.iter().zip(&decoded) {
            let walk = rule_walk(inst, g);
            let count = |pass: bool, lint: bool| {
                walk.findings
                    .iter()
                    .filter(|f| f.passed == pass && (pass || f.rule.lint == lint))
                    .count()
            };
            let _ = writeln!(
                out,
                "  rule walk on {g}: {} ({} checks: {} pass, {} FAIL, {} lint)",
                if walk.is_valid() { "valid" } else { "INVALID" },
                walk.findings.len(),
                count(true, false),
                count(false, false),
                count(false, true),
            );
            for f in &walk.findings {
                let _ = writeln!(out, "    {f}");
            }
        }
        stdout.write_all(out.as_bytes()).map_err(stdout_error)?;
        i += 1;
    }
    stdout.flush().map_err(stdout_error)?;
    Ok(ExitCode::SUCCESS)
}
