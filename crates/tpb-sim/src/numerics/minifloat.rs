//! A generic codec for the 8-bit minifloats: f32 → bits (round to nearest even) and
//! bits → f32 (exact, through 256-entry tables built at compile time).
//!
//! Why our own codec and not `microfloat =0.1.3` (the crate guide's pick):
//! - microfloat's finite-only E4M3 overflows the exact tie ±464 to NaN where ml_dtypes
//!   rounds to ±448 (crate guide B.2), and we support that variant;
//! - the encoder below is branch-free (every path is computed, then selected), so the slice
//!   loop vectorises: that is what gets fp32 → fp8 above 1 G elements/s on one core;
//! - the saturation and NaN policy must live in our code anyway.
//!
//! The committed ml_dtypes fixtures (`tests/fixtures/numerics`) are the oracle for it.

/// One sign–exponent–mantissa format narrower than f32, with f32's radix and no FTZ.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Minifloat {
    /// Exponent field width.
    exp_bits: u32,
    /// Mantissa field width (≤ 22).
    man_bits: u32,
    /// Exponent bias.
    bias: i32,
    /// `false`: IEEE-like (all-ones exponent = inf when the mantissa is 0, NaN otherwise).
    /// `true`: finite-only ("fn"): no inf, the all-ones pattern is the only NaN.
    finite_only: bool,
    /// Canonical NaN magnitude (from [`super::canonical_nan`]).
    nan: u32,
    /// Encoding a NaN keeps the top of its f32 payload, as numpy's fp16 cast does, instead
    /// of giving the canonical NaN (ml_dtypes' rule for bf16 and fp8).
    nan_payload: bool,
}

impl Minifloat {
    pub(crate) const fn new(
        exp_bits: u32,
        man_bits: u32,
        bias: i32,
        finite_only: bool,
        nan: u32,
    ) -> Self {
        Minifloat {
            exp_bits,
            man_bits,
            bias,
            finite_only,
            nan,
            nan_payload: false,
        }
    }

    /// This format with numpy's NaN narrowing: the sign, an all-ones exponent and the top
    /// mantissa bits of the f32 payload, or mantissa 1 if those are all zero (so the result
    /// stays a NaN and a signalling NaN stays signalling).
    pub(crate) const fn keeping_nan_payload(self) -> Self {
        Minifloat {
            nan_payload: true,
            ..self
        }
    }

    /// Mantissa field width.
    pub(crate) const fn man_bits(self) -> u32 {
        self.man_bits
    }

    /// The canonical NaN magnitude.
    pub(crate) const fn nan(self) -> u32 {
        self.nan
    }

    const fn exp_all(self) -> u32 {
        (1 << self.exp_bits) - 1
    }

    const fn man_mask(self) -> u32 {
        (1 << self.man_bits) - 1
    }

    /// Position of the sign bit.
    const fn sign_shift(self) -> u32 {
        self.exp_bits + self.man_bits
    }

    /// f32 mantissa bits dropped by the encoding.
    const fn shift(self) -> u32 {
        23 - self.man_bits
    }

    /// Bits of the largest finite magnitude.
    pub(crate) const fn max_bits(self) -> u32 {
        if self.finite_only {
            (self.exp_all() << self.man_bits) | (self.man_mask() - 1)
        } else {
            ((self.exp_all() - 1) << self.man_bits) | self.man_mask()
        }
    }

    /// Bits of +inf, or of the NaN for a finite-only format (where overflow goes).
    pub(crate) const fn overflow_bits(self) -> u32 {
        if self.finite_only {
            self.nan
        } else {
            self.exp_all() << self.man_bits
        }
    }

    /// f32 bits of the smallest normal magnitude.
    const fn min_normal_f32(self) -> u32 {
        ((127 + 1 - self.bias) as u32) << 23
    }

    /// f32 whose ulp equals the format's subnormal step, so `x + MAGIC` rounds `x` (RNE) to
    /// a multiple of that step and `bits(x + MAGIC) - bits(MAGIC)` is the encoded value.
    const fn magic_f32(self) -> u32 {
        ((127 + 1 - self.bias - self.man_bits as i32 + 23) as u32) << 23
    }

    /// First |x| (as f32 bits) that rounds past the largest finite value. The halfway point
    /// rounds up for IEEE-like formats (max has an odd mantissa) and down to max for the
    /// finite-only one (max mantissa is even: ml_dtypes maps 464 to 448).
    const fn overflow_threshold(self) -> u32 {
        let max = self.max_bits();
        let e = (max >> self.man_bits) as i32 - self.bias + 127;
        let max_f32 = ((e as u32) << 23) | ((max & self.man_mask()) << self.shift());
        let half_ulp = 1 << (self.shift() - 1);
        max_f32 + half_ulp + self.finite_only as u32
    }

    /// Rebias the f32 exponent and add the "round half up, minus one" bias of the
    /// round-to-nearest-even bit trick.
    const fn rebias(self) -> u32 {
        (((self.bias - 127) << 23) as u32).wrapping_add((1 << (self.shift() - 1)) - 1)
    }

    /// Encodes f32 bits (RNE). Overflow and ±inf give ±inf (±NaN for finite-only), or ±max
    /// with `sat`; NaN gives the canonical NaN with the input's sign (as ml_dtypes does), or
    /// the truncated payload with [`Minifloat::keeping_nan_payload`] (as numpy does for fp16).
    #[inline(always)]
    pub(crate) fn encode(self, bits: u32, sat: bool) -> u32 {
        self.encode_nan(bits, sat, false)
    }

    /// [`Minifloat::encode`]; with `unsigned_nan`, NaN gives the positive canonical NaN
    /// whatever its sign: the encoding of the canonical f32 NaN an ALU op returns, so a
    /// fused op → encode can skip pinning the f32 NaN first (same cost: the sign is ORed
    /// in before the NaN select instead of after).
    #[inline(always)]
    pub(crate) fn encode_nan(self, bits: u32, sat: bool, unsigned_nan: bool) -> u32 {
        let sign = (bits >> 31) << self.sign_shift();
        let a = bits & 0x7FFF_FFFF;
        // Normal range: rebias, then round on the dropped bits (ties to the even mantissa).
        let odd = (a >> self.shift()) & 1;
        let normal = a.wrapping_add(self.rebias()).wrapping_add(odd) >> self.shift();
        // Subnormal range: let the FPU's RNE addition do the rounding (exact, no FTZ in Rust).
        let magic = self.magic_f32();
        let sub = (f32::from_bits(a) + f32::from_bits(magic))
            .to_bits()
            .wrapping_sub(magic);
        let mut r = if a < self.min_normal_f32() {
            sub
        } else {
            normal
        };
        let over = if sat {
            self.max_bits()
        } else {
            self.overflow_bits()
        };
        r = if a >= self.overflow_threshold() {
            over
        } else {
            r
        };
        if unsigned_nan {
            if a > 0x7F80_0000 {
                self.nan
            } else {
                r | sign
            }
        } else {
            let nan = if self.nan_payload {
                let m = (a >> self.shift()) & self.man_mask();
                (self.exp_all() << self.man_bits) | if m == 0 { 1 } else { m }
            } else {
                self.nan
            };
            r = if a > 0x7F80_0000 { nan } else { r };
            r | sign
        }
    }

    /// Whether `b` (low 8 bits used) is a NaN pattern.
    const fn is_nan_bits(self, b: u32) -> bool {
        let e = (b >> self.man_bits) & self.exp_all();
        let m = b & self.man_mask();
        if self.finite_only {
            e == self.exp_all() && m == self.man_mask()
        } else {
            e == self.exp_all() && m != 0
        }
    }

    /// Exact decode to f32 bits; NaN decodes to the quiet f32 NaN with the same sign.
    pub(crate) const fn decode(self, b: u32) -> u32 {
        let m_bits = self.man_bits;
        let sign = ((b >> self.sign_shift()) & 1) << 31;
        let e = (b >> m_bits) & self.exp_all();
        let m = b & self.man_mask();
        if self.is_nan_bits(b) {
            return sign | super::canonical_nan::FP32;
        }
        if !self.finite_only && e == self.exp_all() {
            return sign | 0x7F80_0000;
        }
        if e == 0 {
            if m == 0 {
                return sign;
            }
            // m · 2^(emin − M) with m = 2^p · 1.f: normal in f32 for every format here.
            let p = 31 - m.leading_zeros();
            let exp = 127 + 1 - self.bias - m_bits as i32 + p as i32;
            return sign | ((exp as u32) << 23) | ((m ^ (1 << p)) << (23 - p));
        }
        sign | (((e as i32 - self.bias + 127) as u32) << 23) | (m << self.shift())
    }

    /// The 256-entry decode table (f32 bits per byte).
    pub(crate) const fn table(self) -> [u32; 256] {
        let mut t = [0u32; 256];
        let mut i = 0;
        while i < 256 {
            t[i] = self.decode(i as u32);
            i += 1;
        }
        t
    }
}

#[cfg(test)]
mod tests {
    use super::super::{BF16, E3M4, E4M3, E4M3FN, E5M2, FP16};

    // Constants from the crate guide B.2 table (ml_dtypes 0.6.0).
    #[test]
    fn derived_constants_match_ml_dtypes_finfo() {
        let max = |f: super::Minifloat| f32::from_bits(f.decode(f.max_bits()));
        assert_eq!(max(E3M4), 15.5);
        assert_eq!(max(E4M3), 240.0);
        assert_eq!(max(E4M3FN), 448.0);
        assert_eq!(max(E5M2), 57344.0);
        assert_eq!(E3M4.overflow_bits(), 0x70);
        assert_eq!(E4M3.overflow_bits(), 0x78);
        assert_eq!(E4M3FN.overflow_bits(), 0x7F);
        assert_eq!(E5M2.overflow_bits(), 0x7C);
        assert_eq!(f32::from_bits(E4M3.decode(1)), 2f32.powi(-9));
        assert_eq!(f32::from_bits(E5M2.decode(1)), 2f32.powi(-16));
        assert_eq!(f32::from_bits(E3M4.decode(1)), 2f32.powi(-6));
    }

    // Encoding every finite decoded value returns its own bits (except -0 → 0x80 stays).
    #[test]
    fn encode_decode_round_trip() {
        for f in [E3M4, E4M3, E4M3FN, E5M2] {
            for b in 0..256u32 {
                let x = f.decode(b);
                if f32::from_bits(x).is_nan() {
                    continue;
                }
                assert_eq!(f.encode(x, false), b, "{f:?} {b:#x}");
            }
        }
    }

    /// BF16/FP16 encoding agrees with `half` (bit-exact with ml_dtypes/numpy, crate guide
    /// B.2) on every non-NaN input tried: all 16-bit values, their midpoints ±1 and a
    /// xorshift sweep of f32 bit patterns. NaN is pinned by `tests/numerics.rs` against
    /// numpy/ml_dtypes fixtures (`half` quiets signalling NaNs).
    #[test]
    fn sixteen_bit_encode_matches_half() {
        let check = |x: u32| {
            let f = f32::from_bits(x);
            if f.is_nan() {
                return;
            }
            assert_eq!(
                BF16.encode(x, false),
                half::bf16::from_f32(f).to_bits() as u32,
                "bf16 {x:#x}"
            );
            assert_eq!(
                FP16.encode(x, false),
                half::f16::from_f32(f).to_bits() as u32,
                "fp16 {x:#x}"
            );
        };
        for h in 0..=u16::MAX {
            for w in [
                half::bf16::from_bits(h).to_f32().to_bits(),
                half::f16::from_bits(h).to_f32().to_bits(),
            ] {
                for d in [0u32, 1, 0x1000, 0x0FFF, 0x1001, 0x8000, 0x7FFF, 0x8001] {
                    check(w.wrapping_add(d));
                    check(w.wrapping_sub(d));
                }
            }
        }
        let mut s = 0x9E37_79B9u32;
        for _ in 0..1_000_000 {
            s ^= s << 13;
            s ^= s >> 17;
            s ^= s << 5;
            check(s);
        }
    }
}
