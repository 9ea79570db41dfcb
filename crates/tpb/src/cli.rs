//! The `tpb` command line as a library call: [`run`] takes the arguments (`argv[0]` first)
//! and returns the exit status, so the cargo-built binary (`src/main.rs`) and the Python
//! package's `tpb` command (through the extension module, in-process) are one program with
//! the same output, exit statuses and files.

use crate::cmd::{self, tell};
use clap::error::ErrorKind;
use clap::{Parser, Subcommand};
use std::ffi::OsString;
use std::io::Write;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::process::ExitCode;

/// Runs the command line `args` (`argv[0]` first; clap names the program after its file
/// name in usage and help) and returns the exit status: 0 success, 1 a finding (an invalid
/// bundle, a failed expectation, …), 2 an input error or usage error.
///
/// Standard output and error are the process's own (file descriptors 1 and 2) and are
/// flushed before returning, so output written by an in-process caller afterwards comes
/// after it. A closed standard output is refused before anything runs, and a write to it
/// that fails (a reader that closed the pipe, a full disk) ends the command with status 2
/// and one line on stderr; a command that writes files writes none of them then. A panic (a bug: library code never panics) is reported on stderr by the
/// panic hook and returns 101, the status Rust gives a panicking binary, rather than
/// unwinding into the caller.
pub fn run<I, T>(args: I) -> u8
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    if let Some(why) = unusable_stdout() {
        tell!("tpb: error: {why}");
        return 2;
    }
    let code = catch_unwind(AssertUnwindSafe(|| run_cli(args))).unwrap_or(ExitCode::from(101));
    // Errors here mean the stream is gone (a closed pipe); the status already says what ran.
    let _ = std::io::stdout().flush();
    let _ = std::io::stderr().flush();
    exit_status(code)
}

/// Why standard output cannot take the report, if it cannot: it is closed (`>&-`) or open
/// for reading only. Rust's standard output drops writes to a closed descriptor without a
/// word, and the first file the command opened would become descriptor 1 and take the report.
/// A write that fails later (a closed pipe, a full disk) is an error where it happens.
fn unusable_stdout() -> Option<&'static str> {
    #[cfg(unix)]
    {
        use rustix::fs::{fcntl_getfl, OFlags};
        match fcntl_getfl(std::io::stdout()) {
            Err(_) => {
                return Some(
                    "standard output is closed; give the report somewhere to go (`>/dev/null` \
                     discards it)",
                )
            }
            Ok(flags) if flags & OFlags::RWMODE == OFlags::RDONLY => {
                return Some(
                    "standard output is open for reading only; tpb writes its report there",
                )
            }
            Ok(_) => {}
        }
    }
    None
}

/// The number behind an [`ExitCode`] (opaque in std; the commands build it from a `u8`).
fn exit_status(code: ExitCode) -> u8 {
    (0..=u8::MAX)
        .find(|&n| ExitCode::from(n) == code)
        .unwrap_or(1)
}

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

fn run_cli<I, T>(args: I) -> ExitCode
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    let cli = match Cli::try_parse_from(args) {
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
            tell!("tpb: {first}");
            return ExitCode::from(2);
        }
        // Help, version and usage errors: printed where clap prints them (stdout for help,
        // stderr for errors) with clap's status, but returned rather than `exit`ed so that
        // the in-process caller (Python's `tpb` command) keeps control.
        Err(e) => {
            // A failed print (a closed pipe) changes nothing about the status, as in clap's exit.
            let _ = e.print();
            return ExitCode::from(u8::try_from(e.exit_code()).unwrap_or(2));
        }
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
            tell!("tpb: error: {}", cmd::printable(&e.to_string()));
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
        tell!("tpb: peak memory {}", line["VmHWM:".len()..].trim());
    }
}
