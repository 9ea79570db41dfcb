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

/// `text` with every control character except newline written as an escape (`\u{1b}`), so
/// that a file name or file content quoted in an error cannot drive the terminal (colours,
/// cursor moves, a rewritten title). Newlines stay: the commands join error lines with them.
pub fn printable(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.chars().any(|c| c.is_control() && c != '\n') {
        return text.into();
    }
    text.chars()
        .map(|c| match c {
            '\n' => "\n".to_string(),
            c if c.is_control() => c.escape_unicode().to_string(),
            c => c.to_string(),
        })
        .collect::<String>()
        .into()
}

#[cfg(test)]
mod tests {
    use super::printable;

    #[test]
    fn control_characters_are_escaped() {
        assert_eq!(printable("a\u{1b}[31mb\tc\nd"), "a\\u{1b}[31mb\\u{9}c\nd");
        assert_eq!(printable("plain `x`"), "plain `x`");
        assert_eq!(printable("\u{9b}2J"), "\\u{9b}2J", "C1 controls too");
    }
}
