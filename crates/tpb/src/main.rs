//! `tpb`: decode, validate, explain, assemble, pack and run NeuronCore TPB instructions.

use clap::error::ErrorKind;
use clap::{Parser, Subcommand};
use std::process::ExitCode;
use tpb::cmd;

#[derive(Parser)]
#[command(
    name = "tpb",
    version,
    about = "Bit-exact toolkit and reference simulator for the NeuronCore TPB instruction slice"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Decode 64-byte bundles into one readable line each.
    Decode(cmd::decode::Args),
    /// Check bundles against a generation's rules (exit 1 if any is invalid).
    Validate(cmd::validate::Args),
    /// Assemble the text syntax into 64-byte bundles (validated unless --no-validate).
    Asm(cmd::asm::AsmArgs),
    /// Print bundles in the text syntax (the inverse of asm).
    Disasm(cmd::asm::DisasmArgs),
    /// Annotated dump: every field with bytes, value, meaning and the rule walk.
    Explain(cmd::explain::Args),
    /// Pack an access pattern into a TENSOR1D..4D descriptor as the compiler does (seed 001).
    Pack(cmd::pack::Args),
    /// Run a program on the reference simulator with .npy inputs, outputs and expectations.
    Run(Box<cmd::run::Args>),
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        // A bad flag value (an unknown `--gen`, …) is one line like every other input error.
        Err(e)
            if matches!(
                e.kind(),
                ErrorKind::ValueValidation | ErrorKind::InvalidValue
            ) =>
        {
            let text = e.to_string();
            let first = text.lines().next().unwrap_or_default();
            eprintln!("tpb: {first}");
            return ExitCode::from(2);
        }
        Err(e) => e.exit(),
    };
    let result = match cli.command {
        Command::Decode(a) => cmd::decode::run(a),
        Command::Validate(a) => cmd::validate::run(a),
        Command::Explain(a) => cmd::explain::run(a),
        Command::Asm(a) => cmd::asm::run_asm(a),
        Command::Disasm(a) => cmd::asm::run_disasm(a),
        Command::Pack(a) => cmd::pack::run(a),
        Command::Run(a) => cmd::run::run(*a),
    };
    report_peak_memory();
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("tpb: error: {}", cmd::printable(&e.to_string()));
            ExitCode::from(2)
        }
    }
}

/// With `TPB_PEAK_MEMORY=1` in the environment, prints this process's peak resident memory
/// (Linux `VmHWM`) on stderr at exit: how the memory bounds in docs/cli-isa.md are measured.
fn report_peak_memory() {
    if std::env::var_os("TPB_PEAK_MEMORY").is_none() {
        return;
    }
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    if let Some(line) = status.lines().find(|l| l.starts_with("VmHWM:")) {
        eprintln!("tpb: peak memory {}", line["VmHWM:".len()..].trim());
    }
}
