//! One module per subcommand; each has clap `Args` and `run(Args) -> Result<ExitCode, CliError>`.

pub mod asm;
pub mod decode;
pub mod explain;
pub mod input;
pub mod pack;
pub mod run;
pub mod validate;

use std::io::Write as _;
use std::path::PathBuf;
use thiserror::Error;

/// `println!` for the report on standard output that returns a failed write (a closed pipe,
/// a full disk) as a [`CliError`] instead of panicking: `say!("ran {n}")?`.
macro_rules! say {
    ($($arg:tt)*) => {
        $crate::cmd::say_line(format_args!($($arg)*))
    };
}
pub(crate) use say;

/// `eprintln!` that cannot panic: a message on standard error, dropped if standard error is
/// gone (there is nowhere left to report that).
macro_rules! tell {
    ($($arg:tt)*) => {
        $crate::cmd::tell_line(format_args!($($arg)*))
    };
}
pub(crate) use tell;

/// One line on standard output ([`say!`]).
pub fn say_line(args: std::fmt::Arguments<'_>) -> Result<(), CliError> {
    let mut out = std::io::stdout().lock();
    out.write_fmt(args)
        .and_then(|()| out.write_all(b"\n"))
        .map_err(input::stdout_error)
}

/// Text (whole lines) on standard output, as [`say!`].
pub fn say_text(text: &str) -> Result<(), CliError> {
    std::io::stdout()
        .lock()
        .write_all(text.as_bytes())
        .map_err(input::stdout_error)
}

/// One line on standard error ([`tell!`]).
pub fn tell_line(args: std::fmt::Arguments<'_>) {
    let mut err = std::io::stderr().lock();
    let _ = err.write_fmt(args).and_then(|()| err.write_all(b"\n"));
}

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
///
/// The message is also kept short whatever the input holds (issue 29 item 5: a 10 MB literal
/// was echoed whole): a piece quoted in backticks longer than [`MAX_QUOTED_CHARS`] keeps its
/// first [`QUOTED_KEPT_CHARS`] characters and says its length, and a line longer than
/// [`MAX_LINE_CHARS`] is cut at that length.
pub fn printable(text: &str) -> std::borrow::Cow<'_, str> {
    if text.len() <= MAX_QUOTED_CHARS {
        return escaped(text, |c| c == '\n');
    }
    let lines: Vec<String> = text.split('\n').map(short_line).collect();
    escaped(&lines.join("\n"), |c| c == '\n')
        .into_owned()
        .into()
}

/// A quoted piece of a message longer than this many characters is cut ([`printable`]).
pub const MAX_QUOTED_CHARS: usize = 200;
/// The characters a cut quoted piece keeps.
pub const QUOTED_KEPT_CHARS: usize = 64;
/// A message line longer than this many characters is cut ([`printable`]): room for the
/// longest list of alternatives an error gives (every mnemonic, about 1.6 KB).
pub const MAX_LINE_CHARS: usize = 8192;

/// One line with its long quoted pieces cut, then the line itself cut to [`MAX_LINE_CHARS`].
fn short_line(line: &str) -> String {
    let mut out = String::with_capacity(line.len().min(MAX_LINE_CHARS + 64));
    // Odd pieces are between backticks (the last one may be unclosed).
    let pieces: Vec<&str> = line.split('`').collect();
    let mut note = None;
    for (i, piece) in pieces.iter().enumerate() {
        if i > 0 {
            out.push('`');
        }
        // A cut piece's length follows its closing backtick.
        if let Some(n) = note.take() {
            out.push_str(&format!(" ({n} characters)"));
        }
        let n = piece.chars().count();
        if i % 2 == 1 && n > MAX_QUOTED_CHARS {
            out.extend(piece.chars().take(QUOTED_KEPT_CHARS));
            out.push('…');
            note = Some(n);
        } else {
            out.push_str(piece);
        }
    }
    if let Some(n) = note {
        out.push_str(&format!(" ({n} characters)"));
    }
    match out.char_indices().nth(MAX_LINE_CHARS) {
        Some((cut, _)) => format!(
            "{}… ({} more characters)",
            &out[..cut],
            out[cut..].chars().count()
        ),
        None => out,
    }
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
    fn long_quoted_pieces_and_long_lines_are_cut() {
        use super::{MAX_LINE_CHARS, QUOTED_KEPT_CHARS};
        let long = "x".repeat(1000);
        let kept = "x".repeat(QUOTED_KEPT_CHARS);
        assert_eq!(
            printable(&format!(
                "unknown field `{long}` for iota; expected one of `a`, b"
            )),
            format!("unknown field `{kept}…` (1000 characters) for iota; expected one of `a`, b")
        );
        // Unclosed, and on the second line of a message.
        assert_eq!(
            printable(&format!("first\nunknown mnemonic `{long}")),
            format!("first\nunknown mnemonic `{kept}… (1000 characters)")
        );
        // Escapes are made after the cut, so a quoted flood of ESC stays short.
        let flood = format!("`{}`", "\u{1b}".repeat(1000));
        let esc = printable(&flood);
        assert_eq!(esc.matches("\\u{1b}").count(), QUOTED_KEPT_CHARS, "{esc}");
        // A short quote is whole; a long line without quotes is cut at its end.
        let short = format!("`{}` {}", "y".repeat(200), "z".repeat(100));
        assert_eq!(printable(&short), short);
        let line = "z".repeat(MAX_LINE_CHARS + 10);
        let cut = printable(&line);
        assert!(
            cut.ends_with("z… (10 more characters)"),
            "{}",
            &cut[cut.len() - 40..]
        );
    }

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
