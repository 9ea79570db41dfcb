//! `tpb explain` (being written).

use super::CliError;
use std::process::ExitCode;

/// Arguments of `tpb explain`.
#[derive(clap::Args, Debug)]
pub struct Args {}

/// Runs `tpb explain`.
pub fn run(_args: Args) -> Result<ExitCode, CliError> {
    Err(CliError::Msg("not implemented yet".into()))
}
