//! The ACT pipeline over a block of elements, vectorisable and bit-identical to the plain
//! per-element definition (`libm::fmaf`, then [`super::act::apply`]). Knows no instructions.
//!
//! Each loop below is plain branch-free Rust that the callers run inside `simd::vectorize`,
//! so it is compiled for every SIMD level. Where the fast form is not the definition's own
//! arithmetic, it is exact *by construction*: the loop marks every element where it cannot
//! prove that its result equals the definition's, and those elements are redone by the
//! definition itself (a scalar fix-up loop, taken only when some element is marked).
//!
//! - `t = fmaf(x, s, b)`: with `s = 1` it is the f32 sum `x + b`; with `b = ±0` the f32
//!   product plus `b`, except where a product of non-zero factors underflowed to zero. In
//!   general `x·s` is exact in f64 (24 + 24 significant bits), so
//!   `r = x·s + b` in f64 is the exact sum rounded once; rounding `r` to f32 is then the
//!   correctly rounded fma unless `r` sits exactly on an f32 rounding boundary (an f64
//!   value strictly between the exact sum and `r` would be nearer the exact sum than `r`,
//!   and every f32 midpoint is an f64 value). Marked: `r` exactly on a midpoint, `r` in the
//!   f32 subnormal range, a non-finite `r` (a NaN or infinite operand).
//! - `exp`: see [`exp_f64`] for the error bound and [`exp_one`] for the check.
//! - `sqrt`, `rsqrt`, `abs_reciprocal_sqrt`, `reciprocal`: the definition's f64 operations
//!   (`libm::sqrt` is the SSE2 `sqrtsd` on x86-64, and IEEE square root and division are
//!   correctly rounded at every width), so the same bits; NaN and negative inputs (whose NaN
//!   bits the definition leaves to libm) are marked.
//! - The hardwired functions are exact f32 operations: the same expressions as `apply`.
//! - Every other table function runs the definition per element.

use super::act::{apply, exactness, hardwired_value, Exactness};
use tpb_isa::ActFunc;

/// Elements per block (stack buffers of the callers; in L1).
pub(crate) const BLOCK: usize = 256;

/// Low 29 bits of an f64: the bits an f64 → f32 rounding drops from a normal f32 value.
const LOW29: u64 = (1 << 29) - 1;
/// The dropped bits of an f32 midpoint (half an f32 ulp).
const HALF29: u64 = 1 << 28;
/// The smallest normal f32, 2^-126, as f64.
const F32_MIN_NORMAL: f64 = f32::MIN_POSITIVE as f64;

/// `t = fmaf(x, s, b)` for each `x` of `xs` into `ts`; `mark[i] != 0` where `ts[i]` must
/// be redone by the definition. Returns whether any element is marked.
#[inline(always)]
fn fma_loop(xs: &[f32], s: f32, b: f32, ts: &mut [f32], mark: &mut [u32]) -> bool {
    let (s, b) = (f64::from(s), f64::from(b));
    let mut any = 0u32;
    for ((t, m), &x) in ts.iter_mut().zip(mark.iter_mut()).zip(xs) {
        let r = f64::from(x) * s + b;
        let a = r.abs();
        let tie = r.to_bits() & LOW29 == HALF29;
        let hazard = !r.is_finite() | tie | ((a < F32_MIN_NORMAL) & (a != 0.0));
        *t = r as f32;
        *m = u32::from(hazard);
        any |= *m;
    }
    any != 0
}

/// The ACT pre-function stage of one block: `t = fmaf(x, scale, bias)` (Activate,
/// ActivateQuantize) into `ts`, exact.
#[inline(always)]
pub(crate) fn fma_block(xs: &[f32], s: f32, b: f32, ts: &mut [f32]) {
    let n = xs.len().min(ts.len()).min(BLOCK);
    let (xs, ts) = (&xs[..n], &mut ts[..n]);
    let mut mark = [0u32; BLOCK];
    let mark = &mut mark[..n];
    let any = if s == 1.0 {
        // x·1 is exact: the fma is the f32 sum, rounded once.
        f32_loop(xs, ts, mark, |x| {
            let t = x + b;
            (t, t.is_nan())
        })
    } else if b == 0.0 {
        // Adding ±0 to the rounded product is the fma, except where the product of two
        // non-zero factors underflowed to zero (the fma keeps the exact product's sign).
        f32_loop(xs, ts, mark, |x| {
            let p = x * s;
            let t = p + b;
            (t, t.is_nan() | ((p == 0.0) & (x != 0.0) & (s != 0.0)))
        })
    } else {
        fma_loop(xs, s, b, ts, mark)
    };
    if any {
        fix(xs, ts, mark, |x| libm::fmaf(x, s, b));
    }
}

/// `(ts[i], marked) = g(xs[i])`; whether any element is marked.
#[inline(always)]
fn f32_loop(xs: &[f32], ts: &mut [f32], mark: &mut [u32], g: impl Fn(f32) -> (f32, bool)) -> bool {
    let mut any = 0u32;
    for ((t, m), &x) in ts.iter_mut().zip(mark.iter_mut()).zip(xs) {
        let (v, bad) = g(x);
        *t = v;
        *m = u32::from(bad);
        any |= *m;
    }
    any != 0
}

/// Redoes the marked elements with the definition `def`.
#[cold]
#[inline(never)]
fn fix(xs: &[f32], out: &mut [f32], mark: &[u32], def: impl Fn(f32) -> f32) {
    for ((o, &m), &x) in out.iter_mut().zip(mark).zip(xs) {
        if m != 0 {
            *o = def(x);
        }
    }
}

/// Inputs below this give `exp` under half the smallest f32 subnormal: +0 (e^-104 ≈
/// 0.97 · 2^-150, far below the bound of [`exp_f64`]).
const EXP_LO: f64 = -104.0;
/// Inputs above this give `exp` over f32's overflow threshold: +inf (e^89 ≈ 1.3 · 2^128).
const EXP_HI: f64 = 89.0;
/// 4 / ln 2: a quarter of ln 2 is the reduction step.
const FOUR_INV_LN2: f64 = 4.0 * std::f64::consts::LOG2_E;
/// 1.5 · 2^52: adding it rounds to an integer, which then sits in the low mantissa bits.
const SHIFT: f64 = 6_755_399_441_055_744.0;
/// ln 2 / 4 = QUARTER_LN2_HI + QUARTER_LN2_LO: fdlibm's split of ln 2 (the high part with 32
/// significant bits) divided by 4, which is exact.
const QUARTER_LN2_HI: f64 = f64::from_bits(0x3FE6_2E42_FEE0_0000) / 4.0;
const QUARTER_LN2_LO: f64 = f64::from_bits(0x3DEA_39EF_3579_3C76) / 4.0;
/// 2^(j/4) for j = 0..4, each within 2^-52 of its value (`quarter_powers_of_two_are_within_an_ulp`).
const POW2_QUARTERS: [f64; 4] = [
    1.0,
    1.189_207_115_002_721,
    std::f64::consts::SQRT_2,
    1.681_792_830_507_429,
];
/// Degree of the Taylor polynomial of e^r.
const EXP_DEGREE: usize = 7;
/// 1/i! for i = 0..=EXP_DEGREE (Taylor coefficients of e^r, each rounded to f64).
const INV_FACT: [f64; EXP_DEGREE + 1] = {
    let mut c = [1.0f64; EXP_DEGREE + 1];
    let mut i = 1;
    while i <= EXP_DEGREE {
        c[i] = c[i - 1] / i as f64;
        i += 1;
    }
    c
};

/// e^x in f64 for `x` in [`EXP_LO`, `EXP_HI`] (any other `x` gives some value), relative
/// error below 2^-43.2:
///
/// - k = round(x · 4/ln 2) (|k| ≤ 601; the rounding of x · 4/ln 2 moves it by under
///   2^-42), j = k mod 4, m = (k − j)/4, so e^x = 2^m · 2^(j/4) · e^r with
///   r = (x − k·QUARTER_LN2_HI) − k·QUARTER_LN2_LO, |r| ≤ 0.0867. k·QUARTER_LN2_HI is exact
///   (10 + 32 bits); x − k·QUARTER_LN2_HI is exact (for k ≠ 0, |x| > 1/16, so x, an f32,
///   and k·QUARTER_LN2_HI are multiples of 2^-34 whose difference is below 1/8); the rest
///   (k·QUARTER_LN2_LO, the split's own error, the last subtraction) stays below 2^-56.4.
/// - e^r by its Taylor polynomial of degree 7, Horner with fused multiply-adds (each
///   rounded once: `f64::mul_add` is correctly rounded at every level): truncation
///   ≤ 1.02 · 0.0867^8 / 8! < 2^-43.3 relative to e^r ≥ e^-0.0867; the eight roundings and
///   the coefficients' ≤ 9 · 2^-53 · e^0.174 < 2^-49.5.
/// - 2^(j/4) from [`POW2_QUARTERS`] (≤ 2^-52), the product rounded once (2^-53), · 2^m
///   exact (the result stays a normal f64).
///
/// Sum: 2^-43.3 + 2^-49.5 + 2^-52 + 2^-53 + 2^-56.4 < 2^-43.2. The reduction by quarters
/// of ln 2 (four constants, chosen with two selects) is what lets the degree be 7, where
/// halves of ln 2 needed 11 (docs/benchmarks.md, "Fifth pass").
#[inline(always)]
fn exp_f64(x: f64) -> f64 {
    let kd = x * FOUR_INV_LN2 + SHIFT;
    let k = kd - SHIFT;
    let r = (x - k * QUARTER_LN2_HI) - k * QUARTER_LN2_LO;
    let mut p = INV_FACT[EXP_DEGREE];
    for &c in INV_FACT[..EXP_DEGREE].iter().rev() {
        p = p.mul_add(r, c);
    }
    // The low bits of `kd` hold k (two's complement, SHIFT's low bits being 0): j is its low
    // two bits, and m + 1023 in 873..=1151 is the exponent field of 2^m.
    let ki = kd.to_bits();
    let odd = ki & 1 != 0;
    let (lo, hi) = if odd {
        (POW2_QUARTERS[1], POW2_QUARTERS[3])
    } else {
        (POW2_QUARTERS[0], POW2_QUARTERS[2])
    };
    let q = if ki & 2 != 0 { hi } else { lo };
    let m = (ki.wrapping_sub(SHIFT.to_bits()) as i64) >> 2;
    p * q * f64::from_bits((m.wrapping_add(1023) as u64) << 52)
}

/// How many f64 ulps of the result must separate [`exp_f64`]'s value from an f32 rounding
/// boundary. libm's `exp` (fdlibm) is within 1 f64 ulp (2^-52 relative) of e^x, ours within
/// 2^-43.2, so the two lie within 2^-43.19 · y < 2^9.9 ulps of y of each other; 2^12 leaves
/// a factor 4 (and sends about one input in 2^16 to the definition).
const EXP_MARGIN: u64 = 1 << 12;

/// `exp(t)` as the definition rounds it (`libm::exp(t as f64) as f32`), and whether it must
/// be redone by the definition: when the f64 value lies within [`EXP_MARGIN`] of an f32
/// midpoint (including the overflow threshold, the midpoint above f32::MAX), in the f32
/// subnormal range (other midpoints), or for a NaN. Below [`EXP_LO`] (−inf too) the result is
/// +0, above [`EXP_HI`] +inf.
#[inline(always)]
fn exp_one(t: f32) -> (f32, bool) {
    let x = f64::from(t);
    let y = exp_f64(x);
    let low = y.to_bits() & LOW29;
    let near = low.wrapping_sub(HALF29 - EXP_MARGIN) <= 2 * EXP_MARGIN;
    let inside = (EXP_LO..=EXP_HI).contains(&x);
    let out = if x > EXP_HI {
        f32::INFINITY
    } else if inside {
        y as f32
    } else {
        0.0
    };
    (out, x.is_nan() | (inside & (near | (y < F32_MIN_NORMAL))))
}

/// The definition's f64 form of the functions computed here from IEEE operations alone.
#[inline(always)]
fn ieee_f64(f: ActFunc, x: f64) -> f64 {
    match f {
        ActFunc::SQRT => x.sqrt(),
        ActFunc::RSQRT => 1.0 / x.sqrt(),
        ActFunc::ABS_RECIPROCAL_SQRT => 1.0 / x.abs().sqrt(),
        _ => 1.0 / x, // RECIPROCAL
    }
}

/// `y = apply(f, t, alpha)` for each `t` of `ts` into `ys`, bit for bit.
#[inline(always)]
pub(crate) fn apply_block(f: ActFunc, alpha: f32, ts: &[f32], ys: &mut [f32]) {
    let n = ts.len().min(ys.len()).min(BLOCK);
    let (ts, ys) = (&ts[..n], &mut ys[..n]);
    let map = |ys: &mut [f32], g: &dyn Fn(f32) -> f32| {
        for (y, &t) in ys.iter_mut().zip(ts) {
            *y = g(t);
        }
    };
    use ActFunc as F;
    match f {
        F::EXP => {
            let mut mark = [0u32; BLOCK];
            let mut any = 0u32;
            for ((y, m), &t) in ys.iter_mut().zip(&mut mark[..n]).zip(ts) {
                let (v, bad) = exp_one(t);
                *y = v;
                *m = u32::from(bad);
                any |= *m;
            }
            if any != 0 {
                fix(ts, ys, &mark[..n], |t| {
                    apply(F::EXP, t, 0.0).unwrap_or(f32::NAN)
                });
            }
        }
        F::SQRT | F::RSQRT | F::ABS_RECIPROCAL_SQRT | F::RECIPROCAL => {
            let mut mark = [0u32; BLOCK];
            let mut any = 0u32;
            let check_sign = f != F::ABS_RECIPROCAL_SQRT && f != F::RECIPROCAL;
            for ((y, m), &t) in ys.iter_mut().zip(&mut mark[..n]).zip(ts) {
                *y = ieee_f64(f, f64::from(t)) as f32;
                *m = u32::from(t.is_nan() | (check_sign & (t < 0.0)));
                any |= *m;
            }
            if any != 0 {
                fix(ts, ys, &mark[..n], |t| apply(f, t, 0.0).unwrap_or(f32::NAN));
            }
        }
        _ => match exactness(f) {
            // Monomorphic loops: the function is a constant inside each.
            Some(Exactness::Exact) => match f {
                F::IDENTITY | F::COPY => ys.copy_from_slice(ts),
                F::RELU => map(ys, &|t| hardwired_fn(F::RELU, t, alpha)),
                F::LRELU | F::PRELU => map(ys, &|t| hardwired_fn(F::PRELU, t, alpha)),
                F::SQUARE => map(ys, &|t| hardwired_fn(F::SQUARE, t, alpha)),
                F::SIGN => map(ys, &|t| hardwired_fn(F::SIGN, t, alpha)),
                F::ABS => map(ys, &|t| hardwired_fn(F::ABS, t, alpha)),
                F::IS_FINITE => map(ys, &|t| hardwired_fn(F::IS_FINITE, t, alpha)),
                _ => ys.fill(0.0), // MEMSET_ZERO
            },
            // The other table functions: the definition, element by element.
            _ => map(ys, &|t| apply(f, t, alpha).unwrap_or(f32::NAN)),
        },
    }
}

#[inline(always)]
fn hardwired_fn(f: ActFunc, t: f32, alpha: f32) -> f32 {
    hardwired_value(f, t, alpha).unwrap_or(f32::NAN)
}

#[cfg(test)]
mod tests {
    use super::super::simd;
    use super::*;

    /// Special inputs: NaN payloads (quiet, signalling, both signs), ±inf, ±0, subnormals,
    /// the extremes, the exp thresholds and ln2·k with neighbours.
    fn specials() -> Vec<f32> {
        let mut v = vec![
            0.0,
            -0.0,
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::MIN_POSITIVE,
            -f32::MIN_POSITIVE,
            f32::from_bits(1),
            f32::from_bits(0x8000_0001),
            f32::from_bits(0x007F_FFFF),
            f32::MAX,
            f32::MIN,
            1.0,
            -1.0,
            0.5,
            4.0,
            88.72284,
            88.72283,
            -87.33655,
            -103.97208,
            -104.0,
            89.0,
            -126.0 * std::f32::consts::LN_2,
            -149.0 * std::f32::consts::LN_2,
            -150.0 * std::f32::consts::LN_2,
        ];
        for bits in [
            0x7FC0_0000u32,
            0xFFC0_0001,
            0x7F80_0001,
            0xFF80_1234,
            0x7FBF_FFFF,
        ] {
            v.push(f32::from_bits(bits));
        }
        for k in -151..=129 {
            let t = k as f32 * std::f32::consts::LN_2;
            for d in -2i32..=2 {
                v.push(f32::from_bits(t.to_bits().wrapping_add_signed(d)));
            }
        }
        v
    }

    fn randoms(n: usize) -> Vec<f32> {
        let mut s = 0x9E37_79B9_7F4A_7C15u64;
        (0..n)
            .map(|i| {
                s ^= s << 13;
                s ^= s >> 7;
                s ^= s << 17;
                match i % 3 {
                    0 => f32::from_bits(s as u32), // any bits
                    1 => (s >> 40) as f32 / (1u64 << 24) as f32 * 220.0 - 110.0, // exp's range
                    _ => ((s >> 40) as f32 / (1u64 << 24) as f32 - 0.5) * 8.0,
                }
            })
            .collect()
    }

    /// Every function in `apply_block` against `apply`, at every SIMD level.
    fn check_apply(xs: &[f32]) {
        for level in simd::available() {
            simd::with_level(level, || {
                for id in 0..=0xFFu8 {
                    let f = ActFunc(id);
                    if super::super::act::exactness(f).is_none() {
                        continue;
                    }
                    for chunk in xs.chunks(BLOCK) {
                        let mut ys = [0f32; BLOCK];
                        simd::vectorize(
                            #[inline(always)]
                            || apply_block(f, 0.375, chunk, &mut ys),
                        );
                        for (&t, y) in chunk.iter().zip(&ys) {
                            let want = apply(f, t, 0.375).unwrap_or(f32::NAN);
                            assert_eq!(y.to_bits(), want.to_bits(), "{level} {f}({t:e})");
                        }
                    }
                }
            })
            .unwrap();
        }
    }

    /// The bound of `exp_f64` takes each 2^(j/4) within 2^-52 of its value: checked through
    /// q⁴ = (h + l)², h + l being q² exactly (the FMA gives the low part).
    #[test]
    fn quarter_powers_of_two_are_within_an_ulp() {
        for (j, &q) in POW2_QUARTERS.iter().enumerate() {
            let h = q * q;
            let l = q.mul_add(q, -h);
            let s = h * h;
            let e = h.mul_add(h, -s) + 2.0 * h * l;
            let two_j = 2f64.powi(j as i32);
            // q = 2^(j/4) · (1 + rel), to first order.
            let rel = ((s - two_j) + e) / two_j / 4.0;
            assert!(
                rel.abs() <= 2f64.powi(-52),
                "2^({j}/4): {q:e}, relative error {rel:e}"
            );
        }
        // A wrong last digit is seen.
        let q = 1.189_207_115_002_722f64;
        let h = q * q;
        let rel = ((h * h - 2.0) + h.mul_add(h, -h * h) + 2.0 * h * q.mul_add(q, -h)) / 8.0;
        assert!(rel.abs() > 2f64.powi(-52));
    }

    #[test]
    fn blocks_are_the_definition_on_special_values() {
        check_apply(&specials());
    }

    #[test]
    fn blocks_are_the_definition_on_random_values() {
        check_apply(&randoms(4 * BLOCK));
    }

    #[test]
    fn fma_block_is_fmaf() {
        let xs: Vec<f32> = specials().into_iter().chain(randoms(2 * BLOCK)).collect();
        let pairs = [
            (1.0f32, 0.0f32),
            (0.25, 0.0),
            (2.0, -0.5),
            (-1.5, 3.0e-39),
            (f32::from_bits(0x3F80_0001), f32::from_bits(0xB380_0000)),
            (1.0e20, -1.0e30),
            (f32::NAN, 1.0),
            (1.0, f32::NEG_INFINITY),
            (3.0, f32::MAX),
            // The f32 forms: s = 1, b = ±0 (with products that underflow to zero).
            (1.0, 2.5),
            (1.0, -0.0),
            (1.0, f32::NAN),
            (1.0e-30, 0.0),
            (-1.0e-30, -0.0),
            (f32::INFINITY, 0.0),
        ];
        for level in simd::available() {
            simd::with_level(level, || {
                for (s, b) in pairs {
                    for chunk in xs.chunks(BLOCK) {
                        let mut ts = [0f32; BLOCK];
                        simd::vectorize(
                            #[inline(always)]
                            || fma_block(chunk, s, b, &mut ts),
                        );
                        for (&x, t) in chunk.iter().zip(&ts) {
                            let want = libm::fmaf(x, s, b);
                            assert_eq!(t.to_bits(), want.to_bits(), "{level} fma({x:e}, {s}, {b})");
                        }
                    }
                }
            })
            .unwrap();
        }
    }

    /// The double-rounding cases the fma check exists for: r exactly on an f32 midpoint
    /// after an inexact f64 sum (1 + 2^-24 + 2^-60 style), with the tie-break flipped.
    #[test]
    fn fma_block_catches_double_rounding() {
        // x·s = (1 + 2^-12)^2 = 1 + 2^-11 + 2^-24, an f32 midpoint; b = 2^-80 puts the exact
        // sum just above it, but the f64 sum rounds back onto it (and then to even, down).
        let x = 1.0 + 2f32.powi(-12);
        let s = x;
        let b = 2f32.powi(-80);
        let mut ts = [0f32; BLOCK];
        fma_block(&[x, x], s, b, &mut ts);
        assert_eq!(ts[0].to_bits(), libm::fmaf(x, s, b).to_bits());
        let r = f64::from(x) * f64::from(s) + f64::from(b);
        assert_ne!(
            ts[0].to_bits(),
            (r as f32).to_bits(),
            "the naive double rounding"
        );
    }

    /// Every f32 input of exp and the IEEE functions, at the best level (run by hand:
    /// `cargo test --release -p tpb-sim --lib act_block -- --ignored`).
    #[test]
    #[ignore = "exhaustive over 2^32 inputs: minutes in a release build"]
    fn blocks_are_the_definition_on_every_f32() {
        use rayon::prelude::*;
        let fs = [
            ActFunc::EXP,
            ActFunc::SQRT,
            ActFunc::RSQRT,
            ActFunc::ABS_RECIPROCAL_SQRT,
            ActFunc::RECIPROCAL,
        ];
        let fallbacks: u64 = (0u32..1 << 16)
            .into_par_iter()
            .map(|hi| {
                let xs: Vec<f32> = (0..1u32 << 16)
                    .map(|lo| f32::from_bits(hi << 16 | lo))
                    .collect();
                let mut fell = 0u64;
                for &f in &fs {
                    for chunk in xs.chunks(BLOCK) {
                        let mut ys = [0f32; BLOCK];
                        simd::vectorize(
                            #[inline(always)]
                            || apply_block(f, 0.0, chunk, &mut ys),
                        );
                        for (&t, y) in chunk.iter().zip(&ys) {
                            let want = apply(f, t, 0.0).unwrap_or(f32::NAN);
                            assert_eq!(y.to_bits(), want.to_bits(), "{f}({t:e})");
                            if f == ActFunc::EXP && exp_one(t).1 {
                                fell += 1;
                            }
                        }
                    }
                }
                fell
            })
            .sum();
        eprintln!("exp: {fallbacks} of 2^32 inputs took the definition");
    }
}
