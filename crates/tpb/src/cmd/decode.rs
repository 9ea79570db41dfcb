//! `tpb decode`: one readable line per 64-byte bundle, or `--json` with every field.
//!
//! ```text
//! $ tpb decode examples/causal_mask.bin
//! #0 @0x0000 ts_arith update_mode=sem_inc_complete update_idx=1 accumulator_cmd=idle ...
//! ```
//!
//! A line is the bundle's index and byte offset, the mnemonic (or `opaque 0xNN (…)` for an
//! opcode not modelled on the generation), then `name=value` for the body fields and for
//! any header, event or reserved field that is not at its normal value.

use super::input::{
    bundle_json, bundle_tag, field_rows, is_notable, opcode_label, print_json, GenArg, InputArgs,
};
use super::CliError;
use serde_json::json;
use std::process::ExitCode;

/// Arguments of `tpb decode`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The program.
    #[command(flatten)]
    pub input: InputArgs,
    /// The generation.
    #[command(flatten)]
    pub gen: GenArg,
    /// Print one JSON document with every field of every bundle.
    #[arg(long)]
    pub json: bool,
}

/// Runs `tpb decode`.
pub fn run(args: Args) -> Result<ExitCode, CliError> {
    let gen = args.gen.resolve()?;
    let program = args.input.load()?;
    let insts = program.decode(gen);
    if args.json {
        let bundles: Vec<_> = insts
            .iter()
            .zip(&program.bundles)
            .enumerate()
            .map(|(i, (inst, raw))| {
                let info = inst.info(gen);
                let mut b = bundle_json(i, raw);
                b["label"] = json!(opcode_label(inst.opcode(), gen));
                b["mnemonic"] = json!(info.map(|r| r.mnemonic));
                b["struct"] = json!(info.map(|r| r.kind.header_name()));
                b["fields"] = field_rows(inst, gen)
                    .into_iter()
                    .map(|r| {
                        json!({
                            "name": r.name,
                            "offset": r.bytes.start,
                            "size": r.bytes.len(),
                            "text": r.value,
                            "raw": r.raw,
                        })
                    })
                    .collect();
                b
            })
            .collect();
        print_json(&json!({ "gen": gen.name(), "bundles": bundles }));
    } else {
        for (i, inst) in insts.iter().enumerate() {
            let mut line = format!("{} {}", bundle_tag(i), opcode_label(inst.opcode(), gen));
            for r in field_rows(inst, gen).iter().filter(|r| is_notable(r)) {
                line.push_str(&format!(" {}={}", r.name, r.value));
            }
            println!("{line}");
        }
    }
    Ok(ExitCode::SUCCESS)
}
