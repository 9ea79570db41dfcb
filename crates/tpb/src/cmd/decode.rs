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
    bundle_json, bundle_tag, field_groups, field_rows, is_notable, opcode_label, stdout,
    stdout_error, GenArg, InputArgs, JsonBundles,
};
use super::CliError;
use serde_json::json;
use std::io::Write as _;
use std::process::ExitCode;
use tpb_isa::Instruction;

/// Arguments of `tpb decode`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The program.
    #[command(flatten)]
    pub input: InputArgs,
    /// The generation.
    #[command(flatten)]
    pub gen: GenArg,
    /// Print one JSON document with every field of every bundle (streamed, bundle by bundle).
    #[arg(long)]
    pub json: bool,
}

/// Runs `tpb decode`, one bundle at a time (constant memory in the file size).
pub fn run(args: Args) -> Result<ExitCode, CliError> {
    let gen = args.gen.resolve()?;
    let mut program = args.input.open()?;
    let mut out = stdout();
    let mut index = 0;
    if args.json {
        let mut doc = JsonBundles::start(&mut out).map_err(stdout_error)?;
        while let Some(raw) = program.next_bundle()? {
            let inst = Instruction::decode(&raw, gen);
            let info = inst.info(gen);
            let mut b = bundle_json(index, &raw);
            b["label"] = json!(opcode_label(inst.opcode(), gen));
            b["mnemonic"] = json!(info.map(|r| r.mnemonic));
            b["struct"] = json!(info.map(|r| r.kind.header_name()));
            b["fields"] = field_groups(&inst, gen)
                .into_iter()
                .map(|g| {
                    let parts: Vec<_> = g
                        .parts
                        .into_iter()
                        .map(|p| {
                            json!({
                                "name": p.name,
                                "offset": p.bytes.start,
                                "size": p.bytes.len(),
                                "raw": p.raw,
                                "value": p.value,
                            })
                        })
                        .collect();
                    let r = g.field;
                    json!({
                        "name": r.name,
                        "offset": r.bytes.start,
                        "size": r.bytes.len(),
                        "text": r.value,
                        "raw": r.raw,
                        "parts": parts,
                    })
                })
                .collect();
            doc.push(&b).map_err(stdout_error)?;
            index += 1;
        }
        doc.finish(&[("gen", json!(gen.name()))])
            .map_err(stdout_error)?;
    } else {
        while let Some(raw) = program.next_bundle()? {
            let inst = Instruction::decode(&raw, gen);
            let mut line = format!("{} {}", bundle_tag(index), opcode_label(inst.opcode(), gen));
            for r in field_rows(&inst, gen).iter().filter(|r| is_notable(r)) {
                line.push_str(&format!(" {}={}", r.name, r.value));
            }
            writeln!(out, "{line}").map_err(stdout_error)?;
            index += 1;
        }
        out.flush().map_err(stdout_error)?;
    }
    Ok(ExitCode::SUCCESS)
}
