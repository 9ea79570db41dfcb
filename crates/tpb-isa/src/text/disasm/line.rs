//! The line under construction: a fixed array on the stack, written through fixed-size
//! windows (a bounds check per piece, no capacity check or `memcpy` call per byte or
//! number), handed to the caller's buffer once per line.
//!
//! Numbers are written here rather than through `itoa`: `itoa` formats into its own buffer,
//! and copying its variable-length result out is a `memcpy` call that costs more than the
//! digits (callgrind, issue 11). Enumeration names are copied as fixed 24-byte slots from
//! padded tables for the same reason.

use crate::gen::Gen;
use crate::tables::EnumRow;

/// Where a line goes: a `String` or a byte buffer.
pub(crate) trait Sink {
    /// Appends ASCII bytes.
    fn put_ascii(&mut self, bytes: &[u8]);
    /// Appends text.
    fn put_str(&mut self, s: &str);
}

impl Sink for String {
    #[inline]
    fn put_ascii(&mut self, bytes: &[u8]) {
        // Everything the disassembler writes is ASCII, so this never takes the lossy branch.
        match std::str::from_utf8(bytes) {
            Ok(s) => self.push_str(s),
            Err(_) => self.push_str(&String::from_utf8_lossy(bytes)),
        }
    }
    #[inline]
    fn put_str(&mut self, s: &str) {
        self.push_str(s);
    }
}

impl Sink for Vec<u8> {
    #[inline]
    fn put_ascii(&mut self, bytes: &[u8]) {
        self.extend_from_slice(bytes);
    }
    #[inline]
    fn put_str(&mut self, s: &str) {
        self.extend_from_slice(s.as_bytes());
    }
}

/// Bytes kept on the stack; a line longer than this (none is: the longest structured lines
/// are about 350 bytes) is handed over in pieces, so nothing is ever cut.
const CAP: usize = 512;
/// The widest fixed window a writer asks for.
const WINDOW: usize = 32;

/// Two-digit decimal pairs "00".."99".
const PAIRS: [u8; 200] = {
    let mut t = [0u8; 200];
    let mut i = 0;
    while i < 100 {
        t[2 * i] = b'0' + (i / 10) as u8;
        t[2 * i + 1] = b'0' + (i % 10) as u8;
        i += 1;
    }
    t
};

/// An enumeration's names padded to fixed slots, with their lengths (0: unknown value) and
/// the generations that define each value (a `GenSet` mask: names follow the generation).
pub(crate) struct NameTable {
    text: [[u8; 24]; 256],
    len: [u8; 256],
    gens: [u8; 256],
}

impl NameTable {
    /// The table of `rows` (the first row of a value wins, as in `CodeEnum::row`). Names
    /// longer than a slot fail the build.
    pub(crate) const fn of(rows: &[EnumRow]) -> NameTable {
        let mut t = NameTable {
            text: [[0; 24]; 256],
            len: [0; 256],
            gens: [0; 256],
        };
        let mut i = rows.len();
        while i > 0 {
            i -= 1;
            let name = rows[i].name.as_bytes();
            assert!(!name.is_empty() && name.len() <= 24, "enum name too long");
            let v = rows[i].value as usize;
            t.text[v] = [0; 24];
            let mut j = 0;
            while j < name.len() {
                t.text[v][j] = name[j];
                j += 1;
            }
            t.len[v] = name.len() as u8;
            t.gens[v] = rows[i].gens.bits();
        }
        t
    }
}

pub(crate) struct Line<'a, S: Sink> {
    buf: [u8; CAP],
    len: usize,
    out: &'a mut S,
}

impl<'a, S: Sink> Line<'a, S> {
    pub(crate) fn new(out: &'a mut S) -> Self {
        Line {
            buf: [0; CAP],
            len: 0,
            out,
        }
    }

    /// Hands the line to the sink.
    pub(crate) fn finish(mut self) {
        self.flush();
    }

    fn flush(&mut self) {
        self.out.put_ascii(&self.buf[..self.len]);
        self.len = 0;
    }

    /// `WINDOW` writable bytes at the end of the line (one compare: both branches leave
    /// `at <= CAP - WINDOW`, so the slice needs no bounds check).
    #[inline(always)]
    fn window(&mut self) -> &mut [u8] {
        let at = if self.len > CAP - WINDOW {
            self.spill();
            0
        } else {
            self.len
        };
        &mut self.buf[at..at + WINDOW]
    }

    /// Hands a full buffer to the sink (lines are shorter than the buffer: never taken in
    /// practice, but nothing is ever cut).
    #[cold]
    #[inline(never)]
    fn spill(&mut self) {
        self.flush();
    }

    /// Appends ASCII text (short pieces in one window, long ones straight to the sink).
    #[inline(always)]
    pub(crate) fn put(&mut self, s: &str) {
        self.put_ascii(s.as_bytes());
    }

    /// Appends ASCII bytes.
    #[inline(always)]
    pub(crate) fn put_ascii(&mut self, b: &[u8]) {
        if b.len() <= WINDOW {
            self.window()[..b.len()].copy_from_slice(b);
            self.len += b.len();
        } else {
            self.flush();
            self.out.put_ascii(b);
        }
    }

    /// Appends ` name=` (a field name of at most 30 bytes; longer ones in pieces).
    #[inline(always)]
    pub(crate) fn key(&mut self, name: &str) {
        let b = name.as_bytes();
        if b.len() + 2 <= WINDOW {
            let w = self.window();
            w[0] = b' ';
            w[1..1 + b.len()].copy_from_slice(b);
            w[1 + b.len()] = b'=';
            self.len += b.len() + 2;
        } else {
            self.byte(b' ');
            self.put(name);
            self.byte(b'=');
        }
    }

    /// Appends one ASCII byte.
    #[inline(always)]
    pub(crate) fn byte(&mut self, b: u8) {
        self.window()[0] = b;
        self.len += 1;
    }

    /// Appends `v` in decimal.
    #[inline(always)]
    pub(crate) fn dec(&mut self, v: u32) {
        let n = decimal_digits(v);
        let w = self.window();
        let (mut v, mut i) = (v, n);
        while i >= 2 {
            let r = 2 * (v % 100) as usize;
            v /= 100;
            i -= 2;
            w[i] = PAIRS[r];
            w[i + 1] = PAIRS[r + 1];
        }
        if i == 1 {
            w[0] = b'0' + v as u8;
        }
        self.len += n;
    }

    /// Appends a signed `v` in decimal.
    #[inline(always)]
    pub(crate) fn signed(&mut self, v: i32) {
        if v < 0 {
            self.byte(b'-');
        }
        self.dec(v.unsigned_abs());
    }

    /// Appends `v` in decimal (up to 20 digits).
    pub(crate) fn dec64(&mut self, v: u64) {
        match u32::try_from(v) {
            Ok(small) => self.dec(small),
            Err(_) => self.put(itoa::Buffer::new().format(v)),
        }
    }

    /// Appends `0x` and the lowercase hex digits of `v`, at least `min_digits` (1..=8) of
    /// them: `{:#x}` for 1, `{:#04x}` for 2, `{:#010x}` for 8.
    #[inline(always)]
    pub(crate) fn hex(&mut self, v: u32, min_digits: u32) {
        let n = (32 - v.leading_zeros()).div_ceil(4).max(min_digits).min(8) as usize;
        let digits = hex_ascii(v) >> (8 * (8 - n));
        let w = self.window();
        w[0] = b'0';
        w[1] = b'x';
        w[2..10].copy_from_slice(&digits.to_le_bytes());
        self.len += 2 + n;
    }

    /// Appends bytes as lowercase hex pairs (`hex::encode`).
    pub(crate) fn hex_bytes(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(4) {
            let mut word = [0u8; 4];
            word[..chunk.len()].copy_from_slice(chunk);
            let digits = hex_ascii(u32::from_be_bytes(word));
            let w = self.window();
            w[..8].copy_from_slice(&digits.to_le_bytes());
            self.len += 2 * chunk.len();
        }
    }

    /// Appends the name of `value` from `table`, or `{:#04x}` when it has none (the
    /// enumerations' `Display`).
    #[inline(always)]
    /// The value's name on `gen`, or `0x..` where `gen` does not define it.
    pub(crate) fn name(&mut self, table: &NameTable, value: u8, gen: Gen) {
        let v = usize::from(value);
        let n = usize::from(table.len[v]);
        if n == 0 || table.gens[v] & gen.set().bits() == 0 {
            self.hex(u32::from(value), 2);
        } else {
            self.window()[..24].copy_from_slice(&table.text[usize::from(value)]);
            self.len += n;
        }
    }
}

/// How many decimal digits `v` has: from its bit length (1233 / 4096 ≈ log10 2), then one
/// compare.
#[inline(always)]
fn decimal_digits(v: u32) -> usize {
    const POWERS: [u32; 10] = [
        1,
        10,
        100,
        1_000,
        10_000,
        100_000,
        1_000_000,
        10_000_000,
        100_000_000,
        1_000_000_000,
    ];
    let bits = 32 - (v | 1).leading_zeros();
    let t = ((bits * 1233) >> 12) as usize; // 0..=9
    t + usize::from((v | 1) >= POWERS[t.min(9)])
}

/// The eight hex digits of `v` as ASCII, most significant first in memory order (so
/// `to_le_bytes` gives the text). Branch-free: each nibble spread to its own byte.
#[inline(always)]
fn hex_ascii(v: u32) -> u64 {
    let mut x = u64::from(v);
    x = (x | x << 16) & 0x0000_FFFF_0000_FFFF;
    x = (x | x << 8) & 0x00FF_00FF_00FF_00FF;
    x = (x | x << 4) & 0x0F0F_0F0F_0F0F_0F0F;
    // Byte k now holds nibble k (least significant first): reverse for memory order.
    x = x.swap_bytes();
    let letters = ((x + 0x0606_0606_0606_0606) >> 4) & 0x0101_0101_0101_0101;
    x + 0x3030_3030_3030_3030 + letters * (b'a' - b'0' - 10) as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(f: impl FnOnce(&mut Line<'_, String>)) -> String {
        let mut s = String::new();
        let mut l = Line::new(&mut s);
        f(&mut l);
        l.finish();
        s
    }

    #[test]
    fn numbers_are_what_display_prints() {
        let powers = (0..10).flat_map(|i| [10u32.pow(i) - 1, 10u32.pow(i)]);
        for v in [12345, 65535, u32::MAX].into_iter().chain(powers) {
            assert_eq!(line(|l| l.dec(v)), v.to_string());
            assert_eq!(line(|l| l.hex(v, 1)), format!("{v:#x}"));
            assert_eq!(line(|l| l.hex(v, 2)), format!("{v:#04x}"));
            assert_eq!(line(|l| l.hex(v, 8)), format!("{v:#010x}"));
        }
        for v in [0i32, -1, -32768, i32::MIN, i32::MAX] {
            assert_eq!(line(|l| l.signed(v)), v.to_string());
        }
        assert_eq!(line(|l| l.dec64(u64::MAX)), u64::MAX.to_string());
        let bytes: Vec<u8> = (0..=255).collect();
        assert_eq!(
            line(|l| l.hex_bytes(&bytes[..9])),
            crate::hex::encode(&bytes[..9])
        );
    }

    // A line longer than the stack buffer is handed over whole, in pieces.
    #[test]
    fn long_lines_are_not_cut() {
        let text = line(|l| {
            for i in 0..400 {
                l.dec(i);
                l.put(" a piece of text that is exactly forty by");
            }
        });
        let expected: String = (0..400)
            .map(|i| format!("{i} a piece of text that is exactly forty by"))
            .collect();
        assert_eq!(text, expected);
    }
}
