//! The binding syntax shared by `tpb run`'s flags and a program's directives.
//!
//! | directive | flag | text |
//! |---|---|---|
//! | `.in` | `--in` | `FILE.npy@REGION` |
//! | `.out` | `--out` | `REGION@FILE.npy` |
//! | `.reg` | `--reg` | `N=VALUE` (`N VALUE`, `rN`, `reg[N]` too: `tpb_isa::text::directive`) |
//! | `.expect` | `--expect` | `REGION == FILE.npy` or `REGION == [v0, v1, …]` |
//! | `.show` | `--show` | `REGION [ROWSxCOLS] [mark=VALUE]` |
//! | `.dtype` | `--dtype` | `DTYPE` |
//!
//! Whitespace around `@`, `==` and `=` is allowed. Paths are kept as written here; the
//! caller resolves them (see [`Paths`]).

use std::fmt;
use std::path::{Path, PathBuf};
use tpb_isa::Dtype;
use tpb_sim::region::{parse_dtype, parse_number as number, RegionSpec};

/// The default size of a `.show` picture.
pub const SHOW_DEFAULT: (usize, usize) = (8, 8);

/// One binding, parsed but not yet checked against files or the machine.
#[derive(Clone, Debug, PartialEq)]
pub enum Binding {
    /// Load an `.npy` file into a region before the next instruction.
    In {
        /// The file.
        file: PathBuf,
        /// Where it goes.
        region: RegionSpec,
    },
    /// Save a region as an `.npy` file.
    Out {
        /// What to save.
        region: RegionSpec,
        /// The file.
        file: PathBuf,
    },
    /// Set a register.
    Reg {
        /// Register number (0..64).
        index: usize,
        /// The 32-bit value.
        value: u32,
    },
    /// Check a region bit for bit.
    Expect {
        /// The region.
        region: RegionSpec,
        /// What it must hold.
        want: Want,
    },
    /// Print the region's top-left corner.
    Show {
        /// The region.
        region: RegionSpec,
        /// Rows (partitions) and columns (elements) at most.
        size: (usize, usize),
        /// Element literal drawn as `#` (others `.`); `None` prints values.
        mark: Option<String>,
    },
    /// Print the DVE scalar flops of a range of channels (`.show flops[c0..4]`).
    ShowFlops {
        /// The channels (relative DVE lanes, 0..128).
        channels: std::ops::Range<u32>,
    },
    /// The element type for files whose region names none (`.dtype`, `--dtype`).
    DefaultDtype(Dtype),
}

/// The right-hand side of an expectation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Want {
    /// An `.npy` file.
    File(PathBuf),
    /// Element literals in the region's dtype, partition-major.
    Values(Vec<String>),
}

/// Where a binding came from, for messages.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Origin {
    /// A directive on this 1-based line of the program.
    Line(usize),
    /// A command-line flag (`--in`, …).
    Flag(&'static str),
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Origin::Line(n) => write!(f, "line {n}"),
            Origin::Flag(name) => f.write_str(name),
        }
    }
}

/// How relative paths resolve: input files (`.in`, `.expect`) against `inputs` (the program's
/// directory for directives, the working directory for flags); output files against
/// `outputs` (`--out-dir`).
#[derive(Clone, Copy, Debug)]
pub struct Paths<'a> {
    /// Base for files read.
    pub inputs: &'a Path,
    /// Base for files written.
    pub outputs: &'a Path,
}

/// Parses the text of a binding `kind` (`in`, `out`, `reg`, `expect`, `show`, `dtype`).
pub fn parse(kind: &str, text: &str, paths: Paths<'_>) -> Result<Binding, String> {
    let text = text.trim();
    let input = |f: &str| paths.inputs.join(f.trim());
    match kind {
        "in" => {
            let (file, region) = text
                .rsplit_once('@')
                .ok_or("expected FILE.npy@REGION, e.g. scores.npy@sbuf[p0..128]+0x0:fp32")?;
            Ok(Binding::In {
                file: input(nonempty(file, "file")?),
                region: RegionSpec::parse(region).map_err(|e| e.to_string())?,
            })
        }
        "out" => {
            let (region, file) = text.split_once('@').ok_or(
                "expected REGION@FILE.npy, e.g. sbuf[p0..128]+0x800:bf16:128x512@masked.npy",
            )?;
            Ok(Binding::Out {
                region: RegionSpec::parse(region).map_err(|e| e.to_string())?,
                file: paths.outputs.join(nonempty(file, "file")?.trim()),
            })
        }
        "reg" => {
            // The one `.reg` parser, shared with the Python binding's `Machine.run`.
            let (index, value) = tpb_isa::text::directive::parse_reg(text)?;
            Ok(Binding::Reg { index, value })
        }
        "expect" => {
            let (region, rhs) = text
                .split_once("==")
                .ok_or("expected REGION == FILE.npy or REGION == [v0, v1, …]")?;
            let rhs = rhs.trim();
            let want = match rhs.strip_prefix('[') {
                Some(list) => {
                    let list = list
                        .strip_suffix(']')
                        .ok_or("the value list has no closing `]`")?;
                    let values: Vec<String> = list
                        .split(',')
                        .map(|v| v.trim().to_string())
                        .filter(|v| !v.is_empty())
                        .collect();
                    if values.is_empty() {
                        return Err("the value list is empty".into());
                    }
                    Want::Values(values)
                }
                None => Want::File(input(nonempty(rhs, "file")?)),
            };
            Ok(Binding::Expect {
                region: RegionSpec::parse(region).map_err(|e| e.to_string())?,
                want,
            })
        }
        "show"
            if text
                .get(..6)
                .is_some_and(|h| h.eq_ignore_ascii_case("flops[")) =>
        {
            Ok(Binding::ShowFlops {
                channels: flop_channels(text)?,
            })
        }
        "show" => {
            let mut words = text.split_whitespace();
            let region = RegionSpec::parse(
                words
                    .next()
                    .ok_or("expected REGION [ROWSxCOLS] [mark=VALUE]")?,
            )
            .map_err(|e| e.to_string())?;
            let (mut size, mut mark) = (SHOW_DEFAULT, None);
            for w in words {
                if let Some(v) = w.strip_prefix("mark=") {
                    mark = Some(v.to_string());
                } else {
                    size = w
                        .split_once(['x', 'X'])
                        .and_then(|(r, c)| Some((number(r)? as usize, number(c)? as usize)))
                        .filter(|&(r, c)| r > 0 && c > 0)
                        .ok_or_else(|| {
                            format!("`{w}` is neither ROWSxCOLS (e.g. 8x16) nor mark=VALUE")
                        })?;
                }
            }
            Ok(Binding::Show { region, size, mark })
        }
        "dtype" => Ok(Binding::DefaultDtype(
            parse_dtype(text).map_err(|e| e.to_string())?,
        )),
        other => Err(format!("unknown binding `{other}`")),
    }
}

/// `flops[c0..4]`, `flops[0..4]` or `flops[3]`: channels of the DVE scalar flops (END exclusive).
fn flop_channels(text: &str) -> Result<std::ops::Range<u32>, String> {
    let bad = || format!("`{text}` is not flops[cSTART..END] or flops[cN] (channels 0..128)");
    let inside = text[6..].trim_end().strip_suffix(']').ok_or_else(bad)?;
    let inside = inside
        .trim()
        .strip_prefix(['c', 'C'])
        .unwrap_or(inside.trim());
    let (start, end) = match inside.split_once("..") {
        Some((a, b)) => (number(a).ok_or_else(bad)?, number(b).ok_or_else(bad)?),
        None => {
            let n = number(inside).ok_or_else(bad)?;
            (n, n.saturating_add(1))
        }
    };
    if start >= end || end > u64::from(tpb_isa::geometry::NUM_CHANNELS) {
        return Err(bad());
    }
    Ok(start as u32..end as u32)
}

fn nonempty<'a>(s: &'a str, what: &str) -> Result<&'a str, String> {
    if s.trim().is_empty() {
        Err(format!("the {what} is missing"))
    } else {
        Ok(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn paths() -> Paths<'static> {
        Paths {
            inputs: Path::new("ex"),
            outputs: Path::new("out"),
        }
    }

    #[test]
    fn each_kind() {
        assert_eq!(
            parse("in", "a@b.npy @ sbuf[p0..2]:fp32", paths()).unwrap(),
            Binding::In {
                file: PathBuf::from("ex/a@b.npy"),
                region: RegionSpec::parse("sbuf[p0..2]:fp32").unwrap()
            }
        );
        assert!(matches!(
            parse("out", "sbuf[p0..2]:fp32:2@x.npy", paths()).unwrap(),
            Binding::Out { file, .. } if file == Path::new("out/x.npy")
        ));
        for t in [
            "7=-3.4028235e38",
            "r7 = -3.4028235e38",
            "7 -3.4028235e38",
            "reg[7] = -3.4028235e38",
        ] {
            assert_eq!(
                parse("reg", t, paths()).unwrap(),
                Binding::Reg {
                    index: 7,
                    value: 0xFF7F_FFFF
                },
                "{t}"
            );
        }
        assert!(parse("reg", "64=1", paths()).unwrap_err().contains("0..64"));
        assert!(matches!(
            parse("expect", "sbuf[p0]:bf16:2 == [ -inf, 0x7fc0 ]", paths()).unwrap(),
            Binding::Expect { want: Want::Values(v), .. } if v == ["-inf", "0x7fc0"]
        ));
        assert!(matches!(
            parse("expect", "sbuf[p0] == e.npy", paths()).unwrap(),
            Binding::Expect { want: Want::File(f), .. } if f == Path::new("ex/e.npy")
        ));
        assert_eq!(
            parse("show", "sbuf[p0..8]:bf16:8x8 4x16 mark=-inf", paths()).unwrap(),
            Binding::Show {
                region: RegionSpec::parse("sbuf[p0..8]:bf16:8x8").unwrap(),
                size: (4, 16),
                mark: Some("-inf".into())
            }
        );
        assert_eq!(
            parse("dtype", "bf16", paths()).unwrap(),
            Binding::DefaultDtype(Dtype::BFLOAT16)
        );
    }

    /// Random text built from the syntax's own characters never panics any parser.
    #[test]
    fn no_panic_on_any_text() {
        const ALPHABET: &[&str] = &[
            "sbuf",
            "psum",
            "[",
            "]",
            "p",
            "..",
            "+",
            ":",
            "0x",
            "x",
            "@",
            "==",
            "=",
            ",",
            " ",
            "-",
            ".",
            "e",
            "inf",
            "nan",
            "0",
            "1",
            "9",
            "128",
            "65536",
            "99999999999999999999",
            "fp32",
            "bf16",
            "e5m2",
            "int8",
            "mark=",
            "r",
            "_",
            "\u{e9}",
            "#",
        ];
        let mut seed = 0x2545_F491_4F6C_DD1Du64;
        let mut next = |n: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n as u64) as usize
        };
        let fp8 = tpb_sim::numerics::Fp8Config::default();
        for _ in 0..20_000 {
            let len = next(12);
            let text: String = (0..len).map(|_| ALPHABET[next(ALPHABET.len())]).collect();
            for kind in ["in", "out", "reg", "expect", "show", "dtype"] {
                if let Ok(Binding::Expect { region, .. } | Binding::Show { region, .. }) =
                    parse(kind, &text, paths())
                {
                    let _ = region.bind();
                }
            }
            for d in [
                Dtype::BFLOAT16,
                Dtype::INT8,
                Dtype::UINT32,
                Dtype::FP8_EXP3,
                Dtype::FP32,
            ] {
                let _ = super::super::value::parse_element(&text, d, &fp8);
            }
        }
    }

    #[test]
    fn errors() {
        for (kind, text, want) in [
            ("in", "x.npy", "FILE.npy@REGION"),
            ("in", "@sbuf[p0]", "file is missing"),
            ("out", "sbuf[p0]", "REGION@FILE"),
            ("reg", "7", "N=VALUE"),
            ("reg", "x=1", "register number"),
            ("expect", "sbuf[p0]", "REGION == FILE"),
            ("expect", "sbuf[p0] == [1, 2", "closing"),
            ("expect", "sbuf[p0] == []", "empty"),
            ("show", "", "REGION"),
            ("show", "sbuf[p0] 8by8", "ROWSxCOLS"),
            ("dtype", "fp33", "unknown dtype"),
        ] {
            let e = parse(kind, text, paths()).unwrap_err();
            assert!(e.contains(want), "{kind} {text}: {e}");
        }
    }
}
