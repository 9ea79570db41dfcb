//! The one parser of the memory-reference syntax `SPACE[pSTART..END]+OFFSET` and
//! `SPACE[pN]+OFFSET` (SPACE = `sbuf` | `psum`, case-insensitive; the `p` and the `+OFFSET`
//! optional; END exclusive), shared by ADDR4 field text, the assembler's operands and
//! `tpb run` regions.
//!
//! Syntax only: it finds the space, the partition and offset tokens and where each one is
//! (byte ranges within the text), and reads the numbers with the caller's number grammar.
//! Ranges, geometry and messages stay with the callers, whose limits differ (a register
//! field, a channel count, a host region). Nothing here fails on a bad number or a bad
//! offset: those come back as tokens for the caller to judge in its own order.

use crate::geometry::Space;
use std::ops::Range;

/// A number token: where it is and its value (`None` when the caller's grammar rejects it).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Num<N> {
    /// The token's byte range (trimmed; empty when the number is missing).
    pub span: Range<usize>,
    /// The value, if the token is a number.
    pub value: Option<N>,
}

/// What follows the `]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Offset<N> {
    /// Nothing: offset 0.
    Absent,
    /// `+TOKEN`.
    Given(Num<N>),
    /// Text that does not start with `+` (its trimmed byte range).
    Malformed(Range<usize>),
}

/// A memory reference as written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MemRef<N> {
    /// SBUF or PSUM.
    pub space: Space,
    /// The space name's byte range (trimmed).
    pub space_span: Range<usize>,
    /// Where the `[` is.
    pub open: usize,
    /// Where the `]` is.
    pub close: usize,
    /// The trimmed text between the brackets.
    pub inside: Range<usize>,
    /// Where the optional `p` is.
    pub p: Option<usize>,
    /// The first partition.
    pub start: Num<N>,
    /// The exclusive end of a `START..END` range.
    pub end: Option<Num<N>>,
    /// The offset part.
    pub offset: Offset<N>,
}

/// Which structural part is missing or wrong.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MemRefErrorKind {
    /// There is no `[`.
    NoBracket,
    /// The name before the `[` is not `sbuf` or `psum`.
    UnknownSpace,
    /// The `[` is never closed.
    Unclosed,
}

/// A text that is not a memory reference at all.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MemRefError {
    /// What went wrong.
    pub kind: MemRefErrorKind,
    /// The byte range to point at.
    pub span: Range<usize>,
    /// A plain description (callers usually word their own).
    pub message: String,
}

/// Parses the whole of `text` as a memory reference, reading numbers with `number`.
pub fn parse_mem_ref<N>(
    text: &str,
    number: impl Fn(&str) -> Option<N>,
) -> Result<MemRef<N>, MemRefError> {
    parse(text, None, number).map(|(m, _)| m)
}

/// Parses a memory reference that ends at the first `sep` after its `]`; also returns the
/// text after that `sep`, if there is one (`tpb run`'s `:DTYPE:SHAPE`).
pub fn parse_mem_ref_then<N>(
    text: &str,
    sep: char,
    number: impl Fn(&str) -> Option<N>,
) -> Result<(MemRef<N>, Option<&str>), MemRefError> {
    parse(text, Some(sep), number).map(|(m, rest)| (m, rest.map(|r| &text[r..])))
}

/// The range `r` without leading and trailing whitespace.
fn trim(text: &str, r: Range<usize>) -> Range<usize> {
    let s = &text[r.clone()];
    let start = r.start + (s.len() - s.trim_start().len());
    start..start + s.trim().len()
}

fn parse<N>(
    text: &str,
    sep: Option<char>,
    number: impl Fn(&str) -> Option<N>,
) -> Result<(MemRef<N>, Option<usize>), MemRefError> {
    let fail = |kind, span: Range<usize>, message: String| MemRefError {
        kind,
        span,
        message,
    };
    let open = text.find('[').ok_or_else(|| {
        fail(
            MemRefErrorKind::NoBracket,
            0..text.len(),
            "expected `SPACE[pSTART..END]+OFFSET`".into(),
        )
    })?;
    let space_span = trim(text, 0..open);
    let name = &text[space_span.clone()];
    let space = [Space::Sbuf, Space::Psum]
        .into_iter()
        .find(|s| name.eq_ignore_ascii_case(s.name()))
        .ok_or_else(|| {
            fail(
                MemRefErrorKind::UnknownSpace,
                space_span.clone(),
                format!("unknown space `{name}`; expected sbuf or psum"),
            )
        })?;
    let close = text[open..].find(']').map(|i| open + i).ok_or_else(|| {
        fail(
            MemRefErrorKind::Unclosed,
            0..text.len(),
            "missing `]`".into(),
        )
    })?;

    let num = |span: Range<usize>| Num {
        value: number(&text[span.clone()]),
        span,
    };
    let inside = trim(text, open + 1..close);
    let (p, digits) = if text[inside.clone()].starts_with(['p', 'P']) {
        (Some(inside.start), trim(text, inside.start + 1..inside.end))
    } else {
        (None, inside.clone())
    };
    let (start, end) = match text[digits.clone()].find("..") {
        Some(i) => (
            num(trim(text, digits.start..digits.start + i)),
            Some(num(trim(text, digits.start + i + 2..digits.end))),
        ),
        None => (num(digits), None),
    };

    let rest = sep.and_then(|c| text[close..].find(c).map(|i| close + i));
    let tail = trim(text, close + 1..rest.unwrap_or(text.len()));
    let offset = if tail.is_empty() {
        Offset::Absent
    } else if text[tail.clone()].starts_with('+') {
        Offset::Given(num(trim(text, tail.start + 1..tail.end)))
    } else {
        Offset::Malformed(tail)
    };
    let m = MemRef {
        space,
        space_span,
        open,
        close,
        inside,
        p,
        start,
        end,
        offset,
    };
    Ok((m, rest.map(|r| r + sep.map_or(0, char::len_utf8))))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::field::parse_int;

    fn mem(text: &str) -> MemRef<i128> {
        parse_mem_ref(text, parse_int).unwrap()
    }

    fn err(text: &str) -> MemRefError {
        parse_mem_ref(text, parse_int).unwrap_err()
    }

    #[test]
    fn accepts_ranges_single_partitions_and_offsets() {
        let m = mem("sbuf[p0..128]+0x400");
        assert_eq!(
            (m.space, m.space_span, m.open, m.close),
            (Space::Sbuf, 0..4, 4, 12)
        );
        assert_eq!((m.p, m.inside.clone()), (Some(5), 5..12));
        assert_eq!(
            m.start,
            Num {
                span: 6..7,
                value: Some(0)
            }
        );
        assert_eq!(
            m.end,
            Some(Num {
                span: 9..12,
                value: Some(128)
            })
        );
        assert_eq!(
            m.offset,
            Offset::Given(Num {
                span: 14..19,
                value: Some(0x400)
            })
        );

        let m = mem(" PSUM [ P3 ] ");
        assert_eq!((m.space, m.space_span, m.p), (Space::Psum, 1..5, Some(8)));
        assert_eq!((m.start.span, m.start.value, m.end), (9..10, Some(3), None));
        assert_eq!(m.offset, Offset::Absent);

        let m = mem("sbuf[ 1 .. 2 ]  + 7 ");
        assert_eq!(m.p, None);
        assert_eq!((m.start.span, m.start.value), (6..7, Some(1)));
        assert_eq!(m.end.map(|e| (e.span, e.value)), Some((11..12, Some(2))));
        assert_eq!(
            m.offset,
            Offset::Given(Num {
                span: 18..19,
                value: Some(7)
            })
        );
    }

    #[test]
    fn bad_numbers_and_offsets_come_back_as_tokens() {
        let m = mem("sbuf[px..]0x10");
        assert_eq!((m.start.span, m.start.value), (6..7, None));
        assert_eq!(m.end.map(|e| (e.span, e.value)), Some((9..9, None)));
        assert_eq!(m.offset, Offset::Malformed(10..14));
        let m = mem("sbuf[]+");
        assert_eq!((m.p, m.start.span, m.start.value), (None, 5..5, None));
        assert_eq!(
            m.offset,
            Offset::Given(Num {
                span: 7..7,
                value: None
            })
        );
    }

    #[test]
    fn rejects_what_is_not_a_reference() {
        let e = err("sbuf");
        assert_eq!((e.kind, e.span), (MemRefErrorKind::NoBracket, 0..4));
        let e = err(" dram [p0]");
        assert_eq!((e.kind, e.span), (MemRefErrorKind::UnknownSpace, 1..5));
        assert_eq!(e.message, "unknown space `dram`; expected sbuf or psum");
        let e = err("psum[p0..1");
        assert_eq!(
            (e.kind, e.message.as_str()),
            (MemRefErrorKind::Unclosed, "missing `]`")
        );
        // A `]` before the `[` does not close it.
        assert_eq!(err("sbuf]x[p0").kind, MemRefErrorKind::UnknownSpace);
    }

    #[test]
    fn a_separator_ends_the_reference() {
        let number = |s: &str| s.trim().parse::<u64>().ok();
        let (m, rest) = parse_mem_ref_then("sbuf[p0..2]+16:fp32:2x3", ':', number).unwrap();
        assert_eq!(
            (m.start.value, m.end.and_then(|e| e.value)),
            (Some(0), Some(2))
        );
        assert_eq!(
            m.offset,
            Offset::Given(Num {
                span: 12..14,
                value: Some(16)
            })
        );
        assert_eq!(rest, Some("fp32:2x3"));
        // Only a separator after the `]` counts.
        let (m, rest) = parse_mem_ref_then("sbuf[p0:1]", ':', number).unwrap();
        assert_eq!((m.start.span, m.start.value, rest), (6..9, None, None));
        let (m, rest) = parse_mem_ref_then("sbuf[p1]", ':', number).unwrap();
        assert_eq!((m.offset, rest), (Offset::Absent, None));
    }
}
