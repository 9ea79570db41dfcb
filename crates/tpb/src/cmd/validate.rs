//! `tpb validate` (being written).

use super::CliError;
use std::process::ExitCode;

/// Arguments of `tpb validate`.
#[derive(clap::Args, Debug)]
pub struct Args {}

/// Runs `tpb validate`.
pub fn run(_args: Args) -> Result<ExitCode, CliError> {
    Err(CliError::Msg("not implemented yet".into()))
}
