//! `tpb decode` (being written).

use super::CliError;
use std::process::ExitCode;

/// Arguments of `tpb decode`.
#[derive(clap::Args, Debug)]
pub struct Args {}

/// Runs `tpb decode`.
pub fn run(_args: Args) -> Result<ExitCode, CliError> {
    Err(CliError::Msg("not implemented yet".into()))
}
