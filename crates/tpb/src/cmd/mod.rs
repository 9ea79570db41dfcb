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

/// `text` with every control character except newline, and every bidirectional formatting
/// character, written as an escape (`\u{1b}`, `\u{202e}`), so that a file name or file
/// content quoted in a message cannot drive the terminal (colours, cursor moves, a rewritten
/// title) or reorder what is shown. Newlines stay: the commands join error lines with them.
pub fn printable(text: &str) -> std::borrow::Cow<'_, str> {
    escaped(text, |c| c == '\n')
}

/// A path or name for a report line: as [`printable`], and a newline is escaped too, so a
/// program-controlled name cannot forge a line of the report.
pub fn shown(path: &std::path::Path) -> String {
    escaped(&path.display().to_string(), |_| false).into_owned()
}

/// Bidirectional formatting characters (Unicode's `Bidi_Control`): they make a terminal show
/// text in another order than it is stored (`a\u{202e}yp.exe` shows as `aexe.py`).
fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{061c}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

fn escaped(text: &str, keep: impl Fn(char) -> bool) -> std::borrow::Cow<'_, str> {
    let escape = |c: char| (c.is_control() || is_bidi_control(c)) && !keep(c);
    if !text.chars().any(escape) {
        return text.into();
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if escape(c) {
            out.extend(c.escape_unicode());
        } else {
            out.push(c);
        }
    }
    out.into()
}

#[cfg(test)]
mod tests {
    use super::printable;

    #[test]
    fn control_characters_are_escaped() {
        assert_eq!(printable("a\u{1b}[31mb\tc\nd"), "a\\u{1b}[31mb\\u{9}c\nd");
        assert_eq!(printable("plain `x`"), "plain `x`");
        assert_eq!(printable("\u{9b}2J"), "\\u{9b}2J", "C1 controls too");
        assert_eq!(
            printable("a\u{202e}b\u{2066}"),
            "a\\u{202e}b\\u{2066}",
            "bidi controls"
        );
        assert_eq!(
            super::shown(std::path::Path::new("a\nb\u{200f}.npy")),
            "a\\u{a}b\\u{200f}.npy"
        );
    }
}
