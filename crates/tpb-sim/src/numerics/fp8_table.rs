//! Table-driven FP8 encoding: the slice loops' fast path for f32 → FP8.
//!
//! Why a table: the build targets baseline x86-64 (SSE2, no gathers) and the crate forbids
//! `unsafe`, so the branch-free [`Minifloat::encode_nan`] runs four lanes at about two dozen
//! vector operations. The FP8 result of f32 bits `x` depends only on `x`'s sign, exponent,
//! kept mantissa bits and rounding (guard) bit — the top `32 − S` bits, `S = 22 − M` for M
//! mantissa bits — and on whether any bit below them is set (the sticky bit: it breaks RNE
//! ties, separates inf from NaN, and the finite-only overflow threshold). So one byte per
//! (top bits, sticky) pair, 2^(33 − S) bytes (16 KiB for E4M3, 32 KiB for E3M4), holds
//! every answer; the loop computes indices four lanes at a time and then looks them up.
//!
//! Every entry is computed by [`Minifloat::encode_nan`] (kept as the reference), and the
//! tests below check the table against it on every index with several low-bit patterns and
//! on a random sweep, for each format, saturation mode and NaN rule.

use super::minifloat::Minifloat;
use super::{E3M4, E4M3, E4M3FN, E5M2};
use std::sync::OnceLock;

/// Table entries: every `u16` index, so lookups need no bounds check (E3M4 uses 2^15:
/// sign, 8 exponent, 4 mantissa and guard bits, plus sticky; the rest stays zero).
const LEN: usize = 1 << 16;

/// The encodings of one FP8 format under one saturation mode and NaN rule.
pub(crate) struct Fp8EncodeTable {
    /// Bits below the index (`S`).
    shift: u32,
    bytes: Box<[u8; LEN]>,
}

impl Fp8EncodeTable {
    fn build(f: Minifloat, sat: bool, unsigned_nan: bool) -> Option<Self> {
        let shift = 22 - f.man_bits();
        let mut bytes: Box<[u8; LEN]> = vec![0u8; LEN].into_boxed_slice().try_into().ok()?;
        let top = 1u32 << (32 - shift);
        for hi in 0..top {
            let x = hi << shift;
            bytes[2 * hi as usize] = f.encode_nan(x, sat, unsigned_nan) as u8;
            bytes[2 * hi as usize + 1] = f.encode_nan(x | 1, sat, unsigned_nan) as u8;
        }
        Some(Fp8EncodeTable { shift, bytes })
    }

    /// The shared table of `f` (built on first use); `None` for a format other than the
    /// four FP8 ones.
    pub(crate) fn of(f: Minifloat, sat: bool, unsigned_nan: bool) -> Option<&'static Self> {
        static TABLES: [OnceLock<Option<Fp8EncodeTable>>; 16] = [const { OnceLock::new() }; 16];
        let format = [E3M4, E4M3, E4M3FN, E5M2].iter().position(|&g| g == f)?;
        let i = (format << 2) | (usize::from(sat) << 1) | usize::from(unsigned_nan);
        TABLES[i & 15]
            .get_or_init(|| Self::build(f, sat, unsigned_nan))
            .as_ref()
    }

    /// The table index of f32 bits `x`: the top bits, then the sticky bit.
    #[inline(always)]
    fn index<const S: u32>(x: u32) -> u16 {
        let low = (1u32 << S) - 1;
        // (low bits + low) carries into bit S exactly when a low bit is set: branch-free.
        let sticky = ((x & low) + low) >> S;
        (((x >> S) << 1) | sticky) as u16
    }

    /// The encoding of f32 bits `x` (what [`Minifloat::encode_nan`] gives).
    #[cfg(test)]
    fn encode(&self, x: u32) -> u8 {
        let i = match self.shift {
            18 => Self::index::<18>(x),
            19 => Self::index::<19>(x),
            _ => Self::index::<20>(x),
        };
        self.bytes[usize::from(i)]
    }

    /// Encodes `get(x)` for each `x` of `xs` into `out` (one byte each).
    #[inline(always)]
    pub(crate) fn encode_loop<T: Copy>(&self, xs: &[T], get: impl Fn(T) -> f32, out: &mut [u8]) {
        // The shift as a constant, so the index loop knows its values fit 15 bits.
        match self.shift {
            18 => self.blocks::<T, 18>(xs, get, out),
            19 => self.blocks::<T, 19>(xs, get, out),
            _ => self.blocks::<T, 20>(xs, get, out),
        }
    }

    /// Indices for a block in one loop the compiler vectorises, then the lookups (a `u16`
    /// index into a 64 Ki-entry table needs no bounds check).
    #[inline(always)]
    fn blocks<T: Copy, const S: u32>(&self, xs: &[T], get: impl Fn(T) -> f32, out: &mut [u8]) {
        const BLOCK: usize = 256;
        let mut idx = [0u16; BLOCK];
        for (o, x) in out.chunks_mut(BLOCK).zip(xs.chunks(BLOCK)) {
            for (i, &x) in idx.iter_mut().zip(x) {
                *i = Self::index::<S>(get(x).to_bits());
            }
            for (o, &i) in o.iter_mut().zip(&idx) {
                *o = self.bytes[usize::from(i)];
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every index (every top-bit pattern, NaN and inf exponents and both signs included)
    /// with the low bits zero, one, all ones and a few others, and a xorshift sweep of f32
    /// bit patterns plus the special values, against the reference encoder, for every
    /// format × saturation × NaN rule (`fp8_e4m3` selects E4M3 or E4M3FN, `fp8_ocp_sat` the
    /// saturation).
    #[test]
    fn tables_match_the_reference_encoder() {
        let specials = [
            0u32,
            0x8000_0000,
            1,
            0x8000_0001,
            0x7F80_0000,
            0xFF80_0000,
            0x7F80_0001,
            0xFF80_0001,
            0x7FC0_0000,
            0xFFC0_0000,
            0x7FFF_FFFF,
            0xFFFF_FFFF,
            0x7F7F_FFFF,
            0x0080_0000,
            0x007F_FFFF,
            448f32.to_bits(),
            464f32.to_bits(),
            464f32.to_bits() + 1,
            240f32.to_bits(),
            248f32.to_bits(),
            57344f32.to_bits(),
            61440f32.to_bits(),
            15.5f32.to_bits(),
        ];
        for f in [E3M4, E4M3, E4M3FN, E5M2] {
            for sat in [false, true] {
                for unsigned_nan in [false, true] {
                    let t = Fp8EncodeTable::of(f, sat, unsigned_nan).unwrap();
                    let check = |x: u32| {
                        assert_eq!(
                            u32::from(t.encode(x)),
                            f.encode_nan(x, sat, unsigned_nan),
                            "{f:?} sat {sat} unsigned_nan {unsigned_nan} {x:#010x}"
                        );
                    };
                    let low = (1u32 << t.shift) - 1;
                    for hi in 0..1u32 << (32 - t.shift) {
                        for l in [0, 1, 2, low >> 1, (low >> 1) + 1, low - 1, low] {
                            check((hi << t.shift) | l);
                        }
                    }
                    specials.iter().for_each(|&x| check(x));
                    let mut s = 0x2545_F491u32;
                    for _ in 0..300_000 {
                        s ^= s << 13;
                        s ^= s >> 17;
                        s ^= s << 5;
                        check(s);
                    }
                    // The slice loop, across block boundaries.
                    let xs: Vec<f32> = (0..1000u32)
                        .map(|i| f32::from_bits(i.wrapping_mul(0x9E37_79B9)))
                        .collect();
                    let mut out = vec![0u8; xs.len()];
                    t.encode_loop(&xs, |x| x, &mut out);
                    for (x, o) in xs.iter().zip(&out) {
                        assert_eq!(u32::from(*o), f.encode_nan(x.to_bits(), sat, unsigned_nan));
                    }
                }
            }
        }
    }
}
