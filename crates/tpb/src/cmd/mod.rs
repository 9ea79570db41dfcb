//! One module per subcommand; each has clap `Args` and `run(Args) -> Result<ExitCode, CliError>`.

pub mod asm;
pub mod decode;
pub mod explain;
pub mod input;
pub mod pack;
pub mod run;
pub mod validate;

use std::path::PathBuf;
use thiserror::Error;

/// A command failure, printed as one line by `main`.
#[derive(Debug, Error)]
pub enum CliError {
    /// A file could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
    /// Any other user-facing problem, already phrased.
    #[error("{0}")]
    Msg(String),
}

impl CliError {
    /// Wraps an I/O error with its path.
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> CliError {
        CliError::Io {
            path: path.into(),
            source,
        }
    }
}
