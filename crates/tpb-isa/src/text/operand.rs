//! Parsers for the structured operand values (addresses with partition ranges, descriptors,
//! DATA4D generators), keeping byte positions so errors point at the offending token.

use crate::gen::Gen;
use crate::geometry::{Geometry, Space, NUM_REGISTERS};
use crate::wire::field::parse_int;
use crate::wire::memref::{parse_mem_ref, Offset};
use crate::wire::Addr4;
use std::ops::Range;

/// A problem at bytes `start..end` of the current line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Problem {
    pub start: usize,
    pub end: usize,
    pub message: String,
}

impl Problem {
    pub(crate) fn new(start: usize, end: usize, message: impl Into<String>) -> Problem {
        Problem {
            start,
            end: end.max(start),
            message: message.into(),
        }
    }

    /// A problem covering a whole piece.
    pub(crate) fn at(p: Piece<'_>, message: impl Into<String>) -> Problem {
        Problem::new(p.start, p.end(), message)
    }
}

/// A slice of the current line together with where it starts in that line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Piece<'a> {
    pub text: &'a str,
    pub start: usize,
}

impl<'a> Piece<'a> {
    pub(crate) fn end(self) -> usize {
        self.start + self.text.len()
    }

    /// The sub-piece `a..b` (byte offsets within this piece, on char boundaries).
    pub(crate) fn slice(self, a: usize, b: usize) -> Piece<'a> {
        Piece {
            text: &self.text[a..b],
            start: self.start + a,
        }
    }

    pub(crate) fn trim(self) -> Piece<'a> {
        let lead = self.text.len() - self.text.trim_start().len();
        let t = self.text.trim();
        Piece {
            text: t,
            start: self.start + lead,
        }
    }

    /// Splits at the first `sep`, without the separator.
    pub(crate) fn split_once(self, sep: char) -> Option<(Piece<'a>, Piece<'a>)> {
        let i = self.text.find(sep)?;
        Some((
            self.slice(0, i),
            self.slice(i + sep.len_utf8(), self.text.len()),
        ))
    }
}

/// An ADDR4 as written: the word, plus the channel count a partition range implies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Address {
    pub addr: Addr4,
    /// `Some(end - start)` for `sbuf[pSTART..END]`; the caller reconciles it with
    /// `num_active_channels`.
    pub range_channels: Option<u8>,
}

const ADDRESS_FORMS: &str =
    "`sbuf[pSTART..END]+OFFSET`, `sbuf[pN]+OFFSET`, the same with `psum`, `reg[N]` or a raw 32-bit word such as `0x00040400`";

/// Parses an ADDR4: `sbuf[p0..128]+0x400`, `sbuf[p3]+0x400`, `psum[…]…`, `reg[5]` or a raw
/// word. A range's END is exclusive and may pass 128 (out-of-spec counts stay expressible).
pub(crate) fn parse_address(p: Piece<'_>, gen: Gen) -> Result<Address, Problem> {
    let p = p.trim();
    if p.text.is_empty() {
        return Err(Problem::at(
            p,
            format!("missing address; expected {ADDRESS_FORMS}"),
        ));
    }
    // ASCII lowercasing keeps byte offsets, so positions found in `lower` index `p` too.
    let lower = p.text.to_ascii_lowercase();
    if lower.starts_with("reg") {
        return parse_register(p, &lower);
    }
    for space in [Space::Sbuf, Space::Psum] {
        if lower.starts_with(space.name()) {
            return parse_space_address(p, &lower, space, gen);
        }
    }
    match parse_int(&lower) {
        Some(v) if (0..=u32::MAX as i128).contains(&v) => Ok(Address {
            addr: Addr4(v as u32),
            range_channels: None,
        }),
        _ => Err(Problem::at(
            p,
            format!("`{}` is not an address; expected {ADDRESS_FORMS}", p.text),
        )),
    }
}

fn parse_register(p: Piece<'_>, lower: &str) -> Result<Address, Problem> {
    let inner = lower
        .strip_prefix("reg[")
        .and_then(|r| r.strip_suffix(']'))
        .ok_or_else(|| {
            Problem::at(
                p,
                format!(
                    "expected `reg[N]` with N in 0..{NUM_REGISTERS}, got `{}`",
                    p.text
                ),
            )
        })?;
    let n = p.slice(4, 4 + inner.len());
    match parse_int(inner) {
        Some(r) if (0..NUM_REGISTERS as i128).contains(&r) => Ok(Address {
            addr: Addr4::register(r as u8),
            range_channels: None,
        }),
        _ => Err(Problem::at(
            n,
            format!(
                "register `{}` is not in 0..{NUM_REGISTERS}; a raw word expresses other register forms",
                n.text
            ),
        )),
    }
}

fn parse_space_address(
    p: Piece<'_>,
    lower: &str,
    space: Space,
    gen: Gen,
) -> Result<Address, Problem> {
    let name = space.name();
    let open = name.len();
    // Formatted only for a message: the happy path allocates nothing here.
    let expected = || format!("expected `{name}[pSTART..END]+OFFSET` or `{name}[pN]+OFFSET`");
    if !lower[open..].starts_with('[') {
        return Err(Problem::at(p, format!("{}, got `{}`", expected(), p.text)));
    }
    // With `name[` in place, the only structural fault left is a missing `]`.
    let m = parse_mem_ref(p.text, parse_int)
        .map_err(|_| Problem::at(p, format!("missing `]` in `{}`; {}", p.text, expected())))?;
    let at = |span: Range<usize>| p.slice(span.start, span.end);

    let geometry = Geometry::of(gen);
    let start_piece = at(m.start.span);
    let start = m
        .start
        .value
        .filter(|v| (0..geometry.partitions as i128).contains(v))
        .ok_or_else(|| {
            Problem::at(
                start_piece,
                format!(
                    "start partition `{}` is not in 0..{}",
                    start_piece.text, geometry.partitions
                ),
            )
        })?;
    let range_channels = match m.end {
        None => None,
        Some(e) => {
            let e_piece = at(e.span);
            let end = e.value.ok_or_else(|| {
                Problem::at(
                    e_piece,
                    format!("range end `{}` is not an integer", e_piece.text),
                )
            })?;
            let count = end - start;
            if !(0..=u8::MAX as i128).contains(&count) {
                return Err(Problem::at(
                    e_piece,
                    format!(
                        "partition range p{start}..{end} gives {count} channels; num_active_channels holds 0..=255 (END is exclusive and must not be below START)"
                    ),
                ));
            }
            Some(count as u8)
        }
    };
    let offset = match m.offset {
        Offset::Absent => 0,
        Offset::Malformed(span) => {
            let after = at(span);
            return Err(Problem::at(
                after,
                format!("expected `+OFFSET` after `]`, got `{}`", after.text),
            ));
        }
        Offset::Given(o) => {
            let o_piece = at(o.span);
            let stride = geometry.stride(space);
            o.value
                .filter(|v| (0..stride as i128).contains(v))
                .ok_or_else(|| {
                    Problem::at(
                        o_piece,
                        format!(
                            "offset `{}` is not in 0..{stride:#x} (one {name} partition on {gen}); write a raw word for other addresses",
                            o_piece.text
                        ),
                    )
                })?
        }
    };
    let addr = Addr4::at(gen, space, start as u32, offset as u32).ok_or_else(|| {
        Problem::at(
            at(m.space_span),
            format!("{gen} has no {name}; write the raw 32-bit word instead"),
        )
    })?;
    Ok(Address {
        addr,
        range_channels,
    })
}

/// A byte cursor over a piece; it only ever stops on char boundaries.
struct Cursor<'a> {
    piece: Piece<'a>,
    pos: usize,
}

impl<'a> Cursor<'a> {
    fn peek(&self) -> Option<char> {
        self.piece.text[self.pos..].chars().next()
    }

    fn skip_ws(&mut self) {
        while let Some(c) = self.peek().filter(|c| c.is_whitespace()) {
            self.pos += c.len_utf8();
        }
    }

    fn eat(&mut self, c: char) -> bool {
        self.skip_ws();
        if self.peek() == Some(c) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    /// A problem at the current character (or just past the end).
    fn here(&self, what: &str) -> Problem {
        let (found, len) = match self.peek() {
            Some(c) => (format!("`{c}`"), c.len_utf8()),
            None => ("the end of the value".to_string(), 0),
        };
        Problem::new(
            self.piece.start + self.pos,
            self.piece.start + self.pos + len,
            format!("expected {what}, found {found}"),
        )
    }

    fn expect(&mut self, c: char, what: &str) -> Result<(), Problem> {
        if self.eat(c) {
            Ok(())
        } else {
            Err(self.here(what))
        }
    }

    /// The next number-like token: everything up to whitespace, `,`, `[` or `]`.
    fn token(&mut self) -> Piece<'a> {
        self.skip_ws();
        let start = self.pos;
        while let Some(c) = self
            .peek()
            .filter(|c| !c.is_whitespace() && !matches!(c, ',' | '[' | ']'))
        {
            self.pos += c.len_utf8();
        }
        self.piece.slice(start, self.pos)
    }
}

/// Parses `[[step,num],…]` (innermost first) into exactly `slots` pairs; missing outer slots
/// are `[1,1]`, as the compiler fills them.
pub(crate) fn parse_pairs(
    p: Piece<'_>,
    slots: usize,
    field: &str,
) -> Result<(Vec<i16>, Vec<u16>), Problem> {
    parse_pairs_holes(p, slots, 0, field)
}

/// [`parse_pairs`], with the first `holes` steps allowed to be `_` (read as 0): an indirect
/// `TENSOR4D` keeps its second address there.
pub(crate) fn parse_pairs_holes(
    p: Piece<'_>,
    slots: usize,
    holes: usize,
    field: &str,
) -> Result<(Vec<i16>, Vec<u16>), Problem> {
    let mut c = Cursor { piece: p, pos: 0 };
    let (mut steps, mut nums) = (Vec::with_capacity(slots + 1), Vec::with_capacity(slots + 1));
    c.expect('[', "`[` opening the `[[step,num],…]` list")?;
    if !c.eat(']') {
        loop {
            let pair_start = {
                c.skip_ws();
                c.pos
            };
            c.expect('[', "`[` opening a `[step,num]` pair")?;
            let s = c.token();
            let hole = s.text == "_" && steps.len() < holes;
            let step = parse_int(s.text)
                .or(hole.then_some(0))
                .and_then(|v| i16::try_from(v).ok())
                .ok_or_else(|| {
                    Problem::at(
                        s,
                        format!("step `{}` is not an integer in -32768..=32767", s.text),
                    )
                })?;
            c.expect(',', "`,` between step and num")?;
            let n = c.token();
            let num = parse_int(n.text)
                .and_then(|v| u16::try_from(v).ok())
                .ok_or_else(|| {
                    Problem::at(
                        n,
                        format!("num `{}` is not an integer in 0..=65535", n.text),
                    )
                })?;
            c.expect(']', "`]` closing the `[step,num]` pair")?;
            steps.push(step);
            nums.push(num);
            if steps.len() > slots {
                return Err(Problem::new(
                    p.start + pair_start,
                    p.start + c.pos,
                    format!(
                        "{field} has {slots} [step,num] slots; this is pair {}",
                        steps.len()
                    ),
                ));
            }
            if c.eat(',') {
                continue;
            }
            c.expect(']', "`,` or `]` after a pair")?;
            break;
        }
    }
    c.skip_ws();
    if c.pos < p.text.len() {
        return Err(c.here("nothing after the `[[step,num],…]` list"));
    }
    while steps.len() < slots {
        steps.push(1);
        nums.push(1);
    }
    Ok((steps, nums))
}

/// Splits `HEAD:[[…]]` at its colon.
pub(crate) fn split_descriptor<'a>(
    p: Piece<'a>,
    form: &str,
) -> Result<(Piece<'a>, Piece<'a>), Problem> {
    p.split_once(':')
        .ok_or_else(|| Problem::at(p, format!("expected {form}, got `{}`", p.text)))
}

/// Parses a DATA4D base: an `i32`, or its bit pattern as `0x…` (the i32 field rule).
pub(crate) fn parse_base(p: Piece<'_>) -> Result<i32, Problem> {
    let p = p.trim();
    <i32 as crate::wire::Field>::parse_text(p.text, crate::Gen::default())
        .map_err(|e| Problem::at(p, format!("base: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn piece(s: &str) -> Piece<'_> {
        Piece { text: s, start: 0 }
    }

    #[test]
    fn partition_ranges_give_channel_counts() {
        let a = parse_address(piece("sbuf[p0..128]+0x400"), Gen::Cayman).unwrap();
        assert_eq!(a.addr, Addr4(0x400));
        assert_eq!(a.range_channels, Some(128));
        let a = parse_address(piece("PSUM[ p1 .. 3 ]"), Gen::Sunda).unwrap();
        assert_eq!(a.addr, Addr4(0x200_8000));
        assert_eq!(a.range_channels, Some(2));
        assert!(parse_address(piece("sbuf[p5..3]"), Gen::Cayman).is_err());
        assert!(parse_address(piece("psum[p0]"), Gen::Maverick).is_err());
        assert_eq!(
            parse_address(piece("reg[5]"), Gen::Cayman).unwrap().addr,
            Addr4::register(5)
        );
    }

    #[test]
    fn pairs_report_the_offending_token() {
        let e = parse_pairs(piece("[[1,2],[3,x]]"), 4, "src").unwrap_err();
        assert_eq!((e.start, e.end), (10, 11));
        let e = parse_pairs(piece("[[1,1],[1,1],[1,1]]"), 2, "src").unwrap_err();
        assert!(e.message.contains("2 [step,num] slots"), "{}", e.message);
        assert_eq!(
            parse_pairs(piece(" [ [ -1 , 512 ] ] "), 2, "x").unwrap(),
            (vec![-1, 1], vec![512, 1])
        );
    }
}
