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

/// A cursor over the bytes of one value.
pub(crate) struct Bytes<'a> {
    b: &'a [u8],
    pos: usize,
}

impl<'a> Bytes<'a> {
    pub(crate) fn new(b: &'a [u8]) -> Self {
        Bytes { b, pos: 0 }
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

    /// Skips whitespace, then takes `c` if it is next.
    #[inline(always)]
    fn eat(&mut self, c: u8) -> bool {
        self.skip_ws();
        if self.peek() == Some(c) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    /// The next number token (up to whitespace, `,`, `[` or `]`, as the plain cursor cuts
    /// it), read as an integer.
    #[inline(always)]
    fn int(&mut self) -> Option<i64> {
        self.skip_ws();
        let start = self.pos;
        while self
            .peek()
            .is_some_and(|c| !is_ws(c) && !matches!(c, b',' | b'[' | b']'))
        {
            self.pos += 1;
        }
        int(&self.b[start..self.pos])
    }

    fn at_end(&mut self) -> bool {
        self.skip_ws();
        self.pos == self.b.len()
    }
}

/// An integer as `parse_int` reads it, for the common spellings: an optional `-`, then
/// decimal digits or `0x`/`0X` and hex digits. At most 15 hex or 18 decimal digits, so it
/// never overflows (longer numbers go to the plain path).
#[inline]
pub(crate) fn int(s: &[u8]) -> Option<i64> {
    let (neg, body) = match s.split_first() {
        Some((b'-', rest)) => (true, rest),
        _ => (false, s),
    };
    let v = match body {
        [b'0', b'x' | b'X', hex @ ..] => {
            if hex.is_empty() || hex.len() > 15 {
                return None;
            }
            let mut v = 0i64;
            for &c in hex {
                let d = match c {
                    b'0'..=b'9' => c - b'0',
                    b'a'..=b'f' => c - b'a' + 10,
                    b'A'..=b'F' => c - b'A' + 10,
                    _ => return None,
                };
                v = v << 4 | i64::from(d);
            }
            v
        }
        _ => {
            if body.is_empty() || body.len() > 18 {
                return None;
            }
            let mut v = 0i64;
            for &c in body {
                if !c.is_ascii_digit() {
                    return None;
                }
                v = v * 10 + i64::from(c - b'0');
            }
            v
        }
    };
    Some(if neg { -v } else { v })
}

/// `HEAD:LIST` split at the first `:`.
#[inline]
pub(crate) fn split_colon(s: &[u8]) -> Option<(&[u8], &[u8])> {
    let i = s.iter().position(|&c| c == b':')?;
    Some((&s[..i], &s[i + 1..]))
}

/// `[[step,num],…]` into exactly `N` pairs, missing outer slots `[1,1]` (the plain
/// `parse_pairs`).
#[inline]
pub(crate) fn pairs<const N: usize>(s: &[u8]) -> Option<([i16; N], [u16; N])> {
    let (mut steps, mut nums) = ([1i16; N], [1u16; N]);
    let mut c = Bytes::new(s);
    if !c.eat(b'[') {
        return None;
    }
    if !c.eat(b']') {
        let mut n = 0;
        loop {
            if n == N || !c.eat(b'[') {
                return None;
            }
            steps[n] = i16::try_from(c.int()?).ok()?;
            if !c.eat(b',') {
                return None;
            }
            nums[n] = u16::try_from(c.int()?).ok()?;
            if !c.eat(b']') {
                return None;
            }
            n += 1;
            if c.eat(b',') {
                continue;
            }
            if !c.eat(b']') {
                return None;
            }
            break;
        }
    }
    c.at_end().then_some((steps, nums))
}

/// Trims [`is_ws`] bytes: `str::trim` on ASCII text (`trim_ascii` would keep a vertical
/// tab, which `str::trim` removes).
#[inline]
pub(crate) fn trim(s: &[u8]) -> &[u8] {
    let start = s.iter().position(|&c| !is_ws(c)).unwrap_or(s.len());
    let end = s.iter().rposition(|&c| !is_ws(c)).map_or(start, |i| i + 1);
    &s[start..end]
}

/// An ADDR4 as the plain `parse_address` reads it, for `sbuf[pA..B]+OFF`, `sbuf[pA]+OFF`
/// (the same with `psum`, the offset optional), `reg[N]` and raw words: the address and the
/// channel count a range implies.
#[inline]
pub(crate) fn address(head: &[u8], gen: Gen) -> Option<(Addr4, Option<u8>)> {
    let head = trim(head);
    let (space, rest) = match head {
        [b's', b'b', b'u', b'f', b'[', b'p', rest @ ..] => (Space::Sbuf, rest),
        [b'p', b's', b'u', b'm', b'[', b'p', rest @ ..] => (Space::Psum, rest),
        [b'r', b'e', b'g', b'[', inner @ .., b']'] => {
            let r = int(inner).filter(|r| (0..i64::from(NUM_REGISTERS)).contains(r))?;
            return Some((Addr4::register(r as u8), None));
        }
        [b'0'..=b'9', ..] => {
            let v = int(head).filter(|v| (0..=i64::from(u32::MAX)).contains(v))?;
            return Some((Addr4(v as u32), None));
        }
        _ => return None,
    };
    let close = rest.iter().position(|&c| c == b']')?;
    let (inside, tail) = (&rest[..close], &rest[close + 1..]);
    let geometry = Geometry::of(gen);
    let (start, channels) = match inside.iter().position(|&c| c == b'.') {
        Some(i) => {
            let (a, b) = (&inside[..i], inside[i..].strip_prefix(b"..")?);
            let (start, end) = (int(a)?, int(b)?);
            let count = u8::try_from(end - start).ok()?;
            (start, Some(count))
        }
        None => (int(inside)?, None),
    };
    if !(0..i64::from(geometry.partitions)).contains(&start) {
        return None;
    }
    let offset = match tail {
        [] => 0,
        [b'+', o @ ..] => int(o).filter(|o| (0..i64::from(geometry.stride(space))).contains(o))?,
        _ => return None,
    };
    let addr = Addr4::at(gen, space, start as u32, offset as u32)?;
    Some((addr, channels))
}

/// A DATA4D base as `i32`'s field rule reads it: `0x…` is the word's bit pattern, anything
/// else a signed 32-bit integer.
#[inline]
pub(crate) fn i32_field(s: &[u8]) -> Option<i32> {
    let s = trim(s);
    let v = int(s)?;
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

    #[test]
    fn pairs_fill_missing_slots_and_refuse_extra_ones() {
        assert_eq!(pairs::<2>(b" [ [ -1 , 512 ] ] "), Some(([-1, 1], [512, 1])));
        assert_eq!(pairs::<2>(b"[]"), Some(([1, 1], [1, 1])));
        assert_eq!(pairs::<1>(b"[[1,1],[1,1]]"), None);
        assert_eq!(pairs::<2>(b"[[1,2],[3,x]]"), None);
        assert_eq!(pairs::<2>(b"[[1,70000]]"), None);
        assert_eq!(pairs::<2>(b"[[1,2]] x"), None);
    }

    #[test]
    fn addresses_fold_per_generation() {
        assert_eq!(
            address(b"sbuf[p0..128]+0x400", Gen::Cayman),
            Some((Addr4(0x400), Some(128)))
        );
        assert_eq!(
            address(b"psum[p1..3]", Gen::Sunda),
            Some((Addr4(0x200_8000), Some(2)))
        );
        assert_eq!(
            address(b"reg[5]", Gen::Cayman),
            Some((Addr4::register(5), None))
        );
        assert_eq!(
            address(b"0x20000400", Gen::Cayman),
            Some((Addr4(0x2000_0400), None))
        );
        assert_eq!(address(b"sbuf[p5..3]", Gen::Cayman), None);
        assert_eq!(address(b"psum[p0]", Gen::Maverick), None);
        assert_eq!(address(b"sbuf[p128]", Gen::Cayman), None);
        assert_eq!(address(b"SBUF[p0]", Gen::Cayman), None);
    }
}
