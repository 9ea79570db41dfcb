//! `tpb`: decode, validate, explain, assemble, pack and run NeuronCore TPB instructions.
//! The command line lives in the library ([`tpb::cli`]) so that Python's `tpb` command
//! runs the same code in-process.

use std::process::ExitCode;

fn main() -> ExitCode {
    ExitCode::from(tpb::cli::run(std::env::args_os()))
}
