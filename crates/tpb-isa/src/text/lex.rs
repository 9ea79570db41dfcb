//! Byte-level value readers for the assembler's fast path (`fast.rs`): numbers, addresses
//! and `[[step,num],…]` lists read straight from the line's bytes, with no `String` and no
//! `i128`.
//!
//! Each reader accepts a subset of what the plain parsers in `operand.rs` and
//! `wire::field` accept and returns the same value there; anything else (digit separators,
//! `+5`, `0b…`, upper-case names, a spelling it does not know, any error) is `None`, and
//! the caller hands the whole line to the plain path, which accepts it or words the error.
//! The differential tests in `tests/text_fast.rs` hold the two paths together.

use crate::gen::Gen;
use crate::geometry::{Geometry, Space, NUM_REGISTERS};
use crate::wire::Addr4;

/// `char::is_whitespace` for ASCII: tab, line feed, vertical tab, form feed, carriage
/// return and space (the fast path sees only ASCII text).
#[inline(always)]
pub(crate) fn is_ws(b: u8) -> bool {
    b == b' ' || (b'\t'..=b'\r').contains(&b)
}

/// A cursor over the code of a line, for operands read in one pass: it reads from a
/// value's first byte and stops where the value's grammar ends.
pub(crate) struct Scan<'a> {
    b: &'a [u8],
    pos: usize,
}

impl<'a> Scan<'a> {
    pub(crate) fn new(b: &'a [u8]) -> Self {
        Scan { b, pos: 0 }
    }

    /// How many bytes have been read.
    pub(crate) fn pos(&self) -> usize {
        self.pos
    }

    #[inline(always)]
    fn peek(&self) -> Option<u8> {
        self.b.get(self.pos).copied()
    }

    #[inline(always)]
    fn skip_ws(&mut self) {
        while self.peek().is_some_and(is_ws) {
            self.pos += 1;
        }
    }

    /// Takes `c` if it is next (no whitespace skipped).
    #[inline(always)]
    fn take(&mut self, c: u8) -> bool {
        let hit = self.peek() == Some(c);
        self.pos += usize::from(hit);
        hit
    }

    /// Skips whitespace, then takes `c` if it is next.
    #[inline(always)]
    fn eat(&mut self, c: u8) -> bool {
        // Generated text has no whitespace inside lists: try the byte first.
        if self.take(c) {
            return true;
        }
        self.skip_ws();
        self.take(c)
    }

    /// An integer written right here, as [`int`] reads it.
    #[inline(always)]
    fn int(&mut self) -> Option<i64> {
        let (v, n) = int_prefix(&self.b[self.pos..])?;
        self.pos += n;
        Some(v)
    }

    /// A `[step,num]` number: the plain cursor's token runs to whitespace, `,`, `[` or
    /// `]`, so the number must end at one of them.
    #[inline(always)]
    fn pair_int(&mut self) -> Option<i64> {
        if self.peek().is_some_and(is_ws) {
            self.skip_ws();
        }
        let v = self.int()?;
        match self.peek() {
            None | Some(b',' | b'[' | b']') => Some(v),
            Some(c) if is_ws(c) => Some(v),
            Some(_) => None,
        }
    }

    /// `[[step,num],…]` into exactly `N` pairs, missing outer slots `[1,1]` (the plain
    /// `parse_pairs`), starting at its `[`.
    #[inline]
    pub(crate) fn pairs<const N: usize>(&mut self) -> Option<([i16; N], [u16; N])> {
        let (mut steps, mut nums) = ([1i16; N], [1u16; N]);
        if !self.take(b'[') {
            return None;
        }
        if !self.eat(b']') {
            let mut n = 0;
            loop {
                if n == N || !self.eat(b'[') {
                    return None;
                }
                steps[n] = i16::try_from(self.pair_int()?).ok()?;
                if !self.eat(b',') {
                    return None;
                }
                nums[n] = u16::try_from(self.pair_int()?).ok()?;
                if !self.eat(b']') {
                    return None;
                }
                n += 1;
                if self.eat(b',') {
                    continue;
                }
                if !self.eat(b']') {
                    return None;
                }
                break;
            }
        }
        Some((steps, nums))
    }

    /// Whether the value ends here: at whitespace or the end of the code.
    #[inline(always)]
    pub(crate) fn at_value_end(&self) -> bool {
        self.peek().is_none_or(is_ws)
    }

    /// An ADDR4 as the plain `parse_address` reads it, for `sbuf[pA..B]+OFF`,
    /// `sbuf[pA]+OFF` (the same with `psum`, the offset optional), `reg[N]` and raw words,
    /// ending at the `:` that follows it: the address and the channel count a range implies.
    #[inline]
    pub(crate) fn address(&mut self, gen: Gen) -> Option<(Addr4, Option<u8>)> {
        let rest = &self.b[self.pos..];
        let space = match rest {
            [b's', b'b', b'u', b'f', b'[', b'p', ..] => Space::Sbuf,
            [b'p', b's', b'u', b'm', b'[', b'p', ..] => Space::Psum,
            [b'r', b'e', b'g', b'[', ..] => {
                self.pos += 4;
                let r = self
                    .int()
                    .filter(|r| (0..i64::from(NUM_REGISTERS)).contains(r))?;
                return (self.take(b']') && self.peek() == Some(b':'))
                    .then_some((Addr4::register(r as u8), None));
            }
            [b'0'..=b'9', ..] => {
                let v = self
                    .int()
                    .filter(|v| (0..=i64::from(u32::MAX)).contains(v))?;
                return (self.peek() == Some(b':')).then_some((Addr4(v as u32), None));
            }
            _ => return None,
        };
        self.pos += 6;
        let geometry = Geometry::of(gen);
        let start = self.int()?;
        let channels = if self.take(b'.') {
            if !self.take(b'.') {
                return None;
            }
            let end = self.int()?;
            Some(u8::try_from(end - start).ok()?)
        } else {
            None
        };
        if !self.take(b']') || !(0..i64::from(geometry.partitions)).contains(&start) {
            return None;
        }
        let offset = if self.take(b'+') {
            self.int()
                .filter(|o| (0..i64::from(geometry.stride(space))).contains(o))?
        } else {
            0
        };
        if self.peek() != Some(b':') {
            return None;
        }
        let addr = Addr4::at(gen, space, start as u32, offset as u32)?;
        Some((addr, channels))
    }

    /// A DATA4D base (the `i32` field rule, see [`i32_field`]) ending at the `:`.
    #[inline]
    pub(crate) fn base(&mut self) -> Option<i32> {
        let start = self.pos;
        let v = self.int()?;
        if self.peek() != Some(b':') {
            return None;
        }
        i32_of(&self.b[start..self.pos], v)
    }

    /// Takes the `:` between an operand's head and its list.
    #[inline(always)]
    pub(crate) fn colon(&mut self) -> bool {
        self.take(b':')
    }
}

/// An integer as `parse_int` reads it, for the common spellings: an optional `-`, then
/// decimal digits or `0x`/`0X` and hex digits, and nothing else.
#[inline]
pub(crate) fn int(s: &[u8]) -> Option<i64> {
    int_prefix(s).filter(|&(_, n)| n == s.len()).map(|(v, _)| v)
}

/// The integer at the start of `s` (as [`int`]) and how many bytes it takes. At most 15 hex
/// or 18 decimal digits, so it never overflows (longer numbers go to the plain path).
#[inline(always)]
fn int_prefix(s: &[u8]) -> Option<(i64, usize)> {
    let neg = s.first() == Some(&b'-');
    let body = &s[usize::from(neg)..];
    let (v, used) = if let [b'0', b'x' | b'X', hex @ ..] = body {
        let mut v = 0i64;
        let mut n = 0;
        for &c in hex {
            let d = match c {
                b'0'..=b'9' => c - b'0',
                b'a'..=b'f' => c - b'a' + 10,
                b'A'..=b'F' => c - b'A' + 10,
                _ => break,
            };
            if n == 15 {
                return None;
            }
            v = v << 4 | i64::from(d);
            n += 1;
        }
        if n == 0 {
            return None;
        }
        (v, 2 + n)
    } else {
        let mut v = 0i64;
        let mut n = 0;
        for &c in body {
            if !c.is_ascii_digit() {
                break;
            }
            if n == 18 {
                return None;
            }
            v = v * 10 + i64::from(c - b'0');
            n += 1;
        }
        if n == 0 {
            return None;
        }
        (v, n)
    };
    Some((if neg { -v } else { v }, usize::from(neg) + used))
}

/// Trims [`is_ws`] bytes: `str::trim` on ASCII text (`trim_ascii` would keep a vertical
/// tab, which `str::trim` removes).
#[inline]
pub(crate) fn trim(s: &[u8]) -> &[u8] {
    let start = s.iter().position(|&c| !is_ws(c)).unwrap_or(s.len());
    let end = s.iter().rposition(|&c| !is_ws(c)).map_or(start, |i| i + 1);
    &s[start..end]
}

/// A DATA4D base as `i32`'s field rule reads it: `0x…` is the word's bit pattern, anything
/// else a signed 32-bit integer.
#[inline]
pub(crate) fn i32_field(s: &[u8]) -> Option<i32> {
    let s = trim(s);
    i32_of(s, int(s)?)
}

/// The `i32` rule on the value `v` of the text `s`.
fn i32_of(s: &[u8], v: i64) -> Option<i32> {
    if s.starts_with(b"0x") || s.starts_with(b"0X") {
        u32::try_from(v).ok().map(|v| v as i32)
    } else {
        i32::try_from(v).ok()
    }
}

/// A `u32` field (negative values as their two's-complement bits).
#[inline]
pub(crate) fn u32_field(s: &[u8]) -> Option<u32> {
    match int(trim(s))? {
        v if (0..=i64::from(u32::MAX)).contains(&v) => Some(v as u32),
        v if (i64::from(i32::MIN)..0).contains(&v) => Some(v as i32 as u32),
        _ => None,
    }
}

/// An fp32 literal as `parse_f32_literal` reads lower-case text: `0x` bits, `inf`, `nan`,
/// or a decimal float within the fp32 range. Upper-case text goes to the plain path.
#[inline]
pub(crate) fn f32_bits(s: &[u8]) -> Option<u32> {
    let t = trim(s);
    if t.iter().any(u8::is_ascii_uppercase) {
        return None;
    }
    if t.starts_with(b"0x") || t.starts_with(b"-0x") {
        return int(t)
            .filter(|v| (0..=i64::from(u32::MAX)).contains(v))
            .map(|v| v as u32);
    }
    match t {
        b"nan" => return Some(0x7FC0_0000),
        b"inf" | b"+inf" => return Some(f32::INFINITY.to_bits()),
        b"-inf" => return Some(f32::NEG_INFINITY.to_bits()),
        _ => {}
    }
    let mut digits = t;
    while let [rest @ .., b'f'] = digits {
        digits = rest;
    }
    let v: f32 = std::str::from_utf8(digits).ok()?.parse().ok()?;
    // A finite literal beyond the range is refused (the plain path words why).
    if v.is_infinite() && !contains(t, b"inf") {
        return None;
    }
    Some(v.to_bits())
}

/// An `IMM_VAL_INST_FIELD`: a float literal when the text looks like one (a `.`, `inf`,
/// `nan`, or an `e` outside hex), else a `u32`.
#[inline]
pub(crate) fn imm_val(s: &[u8]) -> Option<u32> {
    let t = trim(s);
    if t.iter().any(u8::is_ascii_uppercase) {
        return None;
    }
    let floaty = t.contains(&b'.')
        || contains(t, b"inf")
        || contains(t, b"nan")
        || (t.contains(&b'e') && !contains(t, b"0x"));
    if floaty {
        f32_bits(t)
    } else {
        u32_field(t)
    }
}

fn contains(hay: &[u8], needle: &[u8]) -> bool {
    hay.windows(needle.len()).any(|w| w == needle)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::field::parse_int;

    #[test]
    fn integers_agree_with_parse_int_where_accepted() {
        for s in [
            "0",
            "7",
            "-7",
            "0x1F",
            "0X1f",
            "-0x10",
            "32767",
            "-32768",
            "65535",
            "007",
            "123456789012345678",
            "0xfffffffffffffff",
        ] {
            assert_eq!(int(s.as_bytes()).map(i128::from), parse_int(s), "{s}");
        }
        // Refused here (the plain path decides): separators, signs, binary, too long.
        for s in [
            "",
            "-",
            "0x",
            "+5",
            "1_000",
            "0b101",
            "1234567890123456789",
            "0x-5",
            "5 ",
        ] {
            assert_eq!(int(s.as_bytes()), None, "{s}");
        }
    }

    fn operand<T>(text: &str, read: impl Fn(&mut Scan) -> Option<T>) -> Option<(T, usize)> {
        let mut s = Scan::new(text.as_bytes());
        read(&mut s).map(|v| (v, s.pos()))
    }

    #[test]
    fn pairs_fill_missing_slots_and_refuse_extra_ones() {
        assert_eq!(
            operand("[ [ -1 , 512 ] ] x", |s| s.pairs::<2>()),
            Some((([-1, 1], [512, 1]), 16))
        );
        assert_eq!(
            operand("[]", |s| s.pairs::<2>()),
            Some((([1, 1], [1, 1]), 2))
        );
        assert_eq!(operand(" []", |s| s.pairs::<2>()), None);
        assert_eq!(operand("[[1,1],[1,1]]", |s| s.pairs::<1>()), None);
        assert_eq!(operand("[[1,2],[3,x]]", |s| s.pairs::<2>()), None);
        assert_eq!(operand("[[1,2],[3,4x]]", |s| s.pairs::<2>()), None);
        assert_eq!(operand("[[1,70000]]", |s| s.pairs::<2>()), None);
    }

    #[test]
    fn addresses_fold_per_generation_and_end_at_the_colon() {
        let at = |t: &str, gen| operand(t, |s| s.address(gen)).map(|(a, _)| a);
        assert_eq!(
            at("sbuf[p0..128]+0x400:", Gen::Cayman),
            Some((Addr4(0x400), Some(128)))
        );
        assert_eq!(
            at("psum[p1..3]:", Gen::Sunda),
            Some((Addr4(0x200_8000), Some(2)))
        );
        assert_eq!(at("reg[5]:", Gen::Cayman), Some((Addr4::register(5), None)));
        assert_eq!(
            at("0x20000400:", Gen::Cayman),
            Some((Addr4(0x2000_0400), None))
        );
        for bad in [
            "sbuf[p5..3]:",
            "sbuf[p128]:",
            "SBUF[p0]:",
            "sbuf[p0]+0x40000:",
            "sbuf[p0] :",
            "sbuf[p0]",
            "reg[64]:",
            "0x100000000:",
        ] {
            assert_eq!(at(bad, Gen::Cayman), None, "{bad}");
        }
        assert_eq!(at("psum[p0]:", Gen::Maverick), None);
    }
}
