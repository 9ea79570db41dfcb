//! The PE's arithmetic in our documented order (assumption `pe-summation-order`,
//! `docs/reference/pe-act.md` "Numerics"). Knows no instructions.
//!
//! The hardware's product rounding and summation order are not public
//! (isa-facts-pe-act-dma §1.9). We follow the sheet's recommendation (§1.9, §8 item 7: exact
//! products, a sequential f32 RNE sum over rows 0..K−1) and call every result *exact per our
//! order*, never the hardware's bits:
//!
//! 1. each product `w[k] · x[k]` is exact (two f32 significands of 24 bits give at most 48
//!    bits) and is never rounded on its own except at k = 0, where the sum starts from it:
//!    `acc = fp32(w[0] · x[0])`;
//! 2. each later step adds the exact product to the running f32 sum with ONE rounding to
//!    nearest even, a fused multiply-add, sequentially over k = 1..K−1:
//!    `acc = fp32(acc + w[k] · x[k])` ([`f32::mul_add`], correctly rounded on every target);
//! 3. the PSUM write either stores `acc` (overwrite) or adds it to the old fp32 value with one
//!    more f32 RNE addition (accumulate; §1.9 "then add the PSUM old value in f32 with RNE").
//!
//! The products of bf16, fp16, fp8 and tf32 inputs fit in 24 bits, so for them step 2 equals
//! an f32 multiply then add; only full fp32 inputs see the difference. NumPy reproduces the
//! order with a float32 fused multiply-add checked against exact rational arithmetic
//! (`tools/gen_pe_act_fixtures.py`, `fma32`), which the fixtures use.

use crate::numerics::simd;
use pulp::Simd;
use std::ops::Range;

/// The k = 0 step: the exact product rounded once to f32 (the IEEE f32 multiply; a −0
/// product stays −0).
#[inline(always)]
pub fn first_product(w: f32, x: f32) -> f32 {
    w * x
}

/// A step k ≥ 1: `fp32(acc + w · x)` with the product exact and one rounding (a fused
/// multiply-add; `f32::mul_add` is the correctly rounded IEEE fusedMultiplyAdd on every target,
/// the FMA instruction where the CPU has one and libm's `fmaf` otherwise).
#[inline(always)]
pub fn step(acc: f32, w: f32, x: f32) -> f32 {
    w.mul_add(x, acc)
}

/// The dot product of `w` and `x` in our order (steps 1–2 above); 0.0 for empty inputs.
#[inline]
pub fn dot(w: &[f32], x: &[f32]) -> f32 {
    let mut it = w.iter().zip(x);
    let Some((&w0, &x0)) = it.next() else {
        return 0.0;
    };
    it.fold(first_product(w0, x0), |acc, (&a, &b)| step(acc, a, b))
}

/// The dot product over strided weights: `Σ_k w[k·stride + col] · x[k]` in our order.
#[inline]
pub fn dot_strided(w: &[f32], stride: usize, col: usize, x: &[f32]) -> f32 {
    let mut acc = 0.0f32;
    for (k, &xv) in x.iter().enumerate() {
        let wv = w[k * stride + col];
        acc = if k == 0 {
            first_product(wv, xv)
        } else {
            step(acc, wv, xv)
        };
    }
    acc
}

/// Columns of one block of the plain blocked loop: four output rows of this many f32 stay
/// in L1.
const BLOCK_COLS: usize = 512;

/// The whole product in our order: `out[m·n + j] = Σ_k w[k·cols + m] · x[k·n + j]` for
/// `m < cols`, `j < n`, `k < rows` (`w` is rows × cols, `x` rows × n, `out` cols × n) — the
/// fast form of [`dot_strided`], which a differential test holds it to bit for bit.
///
/// Same order, faster loop: every output element still starts from its k = 0 product and adds
/// the exact products k = 1, 2, … one at a time, each step one fused multiply-add (the vector
/// FMA at AVX2 and AVX-512, `f32::mul_add` in the plain loops: the same correctly rounded
/// operation, so every level gives the same bits). Only the loop nest changes, and the products of one (m, k) across columns j are
/// independent, so they run side by side in vector lanes:
///
/// - at AVX-512 and AVX2, a register tile of [`TILE_ROWS_AVX512`] (or [`TILE_ROWS_AVX2`])
///   output rows × [`TILE_VECS`] vectors of columns stays in registers for the whole k loop
///   (k innermost: per step one broadcast weight per row, one vector load of moving data per
///   column vector, then one fused multiply-add per accumulator), and is stored once;
/// - at the baseline level and for the columns past the last whole vector, k runs outside
///   a sweep over four output rows × up to 512 columns (`blocked`), auto-vectorised.
///
/// A BLAS such as `matrixmultiply` or `gemm` would reorder the sum (k split into panels and
/// partial sums), so it cannot give our bits.
pub fn matmul(w: &[f32], cols: usize, x: &[f32], n: usize, out: &mut [f32]) {
    let rows = w.len().checked_div(cols).unwrap_or(0);
    if rows == 0 || n == 0 || out.len() < cols * n || x.len() < rows * n {
        out.iter_mut().for_each(|o| *o = 0.0);
        return;
    }
    let (w, x, out) = (&w[..rows * cols], &x[..rows * n], &mut out[..cols * n]);
    let mm = Mm {
        w,
        cols,
        x,
        n,
        rows,
    };
    match simd::token() {
        #[cfg(target_arch = "x86_64")]
        simd::Token::Avx512(v) => v.vectorize(
            #[inline(always)]
            || mm.tiled::<_, TILE_ROWS_AVX512>(v, out),
        ),
        #[cfg(target_arch = "x86_64")]
        simd::Token::Avx2(v) => v.vectorize(
            #[inline(always)]
            || mm.tiled::<_, TILE_ROWS_AVX2>(v, out),
        ),
        simd::Token::Baseline => mm.blocked(out, 0..cols, 0..n),
    }
}

/// Output rows per register tile at AVX-512: 6 × [`TILE_VECS`] accumulators, the moving
/// vectors and a broadcast weight fit the 32 vector registers.
const TILE_ROWS_AVX512: usize = 6;
/// Output rows per register tile at AVX2 (16 registers of 8 lanes).
const TILE_ROWS_AVX2: usize = 2;
/// Column vectors per register tile (4 × 16 = 64 columns at AVX-512, 32 at AVX2).
const TILE_VECS: usize = 4;

/// The operands of one [`matmul`] (shapes checked).
#[derive(Clone, Copy)]
struct Mm<'a> {
    w: &'a [f32],
    cols: usize,
    x: &'a [f32],
    n: usize,
    rows: usize,
}

impl Mm<'_> {
    /// The register-tiled form (see [`matmul`]): whole vectors of columns in tiles of `R`
    /// rows (then single rows), the columns past the last whole vector in [`Mm::blocked`].
    #[inline(always)]
    fn tiled<S: Simd, const R: usize>(self, s: S, out: &mut [f32]) {
        let lanes = S::F32_LANES;
        let whole = self.n / lanes * lanes;
        let mut j = 0;
        while j + TILE_VECS * lanes <= whole {
            self.tile_rows::<S, R, TILE_VECS>(s, out, j);
            j += TILE_VECS * lanes;
        }
        while j + lanes <= whole {
            self.tile_rows::<S, R, 1>(s, out, j);
            j += lanes;
        }
        if j < self.n {
            self.blocked(out, 0..self.cols, j..self.n);
        }
    }

    /// Columns `j0..j0 + C` vectors of every output row: tiles of `R` rows, then one row
    /// at a time.
    #[inline(always)]
    fn tile_rows<S: Simd, const R: usize, const C: usize>(self, s: S, out: &mut [f32], j0: usize) {
        let mut m = 0;
        while m + R <= self.cols {
            self.tile::<S, R, C>(s, out, m, j0);
            m += R;
        }
        while m < self.cols {
            self.tile::<S, 1, C>(s, out, m, j0);
            m += 1;
        }
    }

    /// Output rows `m0..m0 + R`, columns `j0..j0 + C` vectors: the accumulators stay in
    /// registers over the whole k loop (k = 0 is the first product rounded once, then one
    /// fused multiply-add per k, in order).
    #[inline(always)]
    fn tile<S: Simd, const R: usize, const C: usize>(
        self,
        s: S,
        out: &mut [f32],
        m0: usize,
        j0: usize,
    ) {
        // Plain loops over fixed-size arrays only (no `array::from_fn`, whose closures
        // LLVM left uninlined outside the level's features).
        let width = C * S::F32_LANES;
        let zero = s.splat_f32s(0.0);
        let load = |k: usize| {
            let (v, _) = S::as_simd_f32s(&self.x[k * self.n + j0..][..width]);
            let mut xv = [zero; C];
            xv.copy_from_slice(&v[..C]);
            xv
        };
        let weights = |k: usize| -> &[f32] { &self.w[k * self.cols + m0..][..R] };
        let mut acc = [[zero; C]; R];
        let (xv, wk) = (load(0), weights(0));
        for (a, &wv) in acc.iter_mut().zip(wk) {
            let wv = s.splat_f32s(wv);
            for (a, &xv) in a.iter_mut().zip(&xv) {
                *a = s.mul_f32s(wv, xv);
            }
        }
        for k in 1..self.rows {
            let (xv, wk) = (load(k), weights(k));
            for (a, &wv) in acc.iter_mut().zip(wk) {
                let wv = s.splat_f32s(wv);
                for (a, &xv) in a.iter_mut().zip(&xv) {
                    *a = s.mul_add_f32s(wv, xv, *a);
                }
            }
        }
        for (r, a) in acc.iter().enumerate() {
            let (o, _) = S::as_mut_simd_f32s(&mut out[(m0 + r) * self.n + j0..][..width]);
            o.copy_from_slice(a);
        }
    }

    /// The plain blocked form over output rows `ms` and columns `js`: k runs outside a sweep
    /// over four output rows × up to [`BLOCK_COLS`] columns, so each moving element loaded
    /// serves four outputs (auto-vectorised at the level in force).
    #[inline(always)]
    fn blocked(self, out: &mut [f32], ms: Range<usize>, js: Range<usize>) {
        let n = self.n;
        for j0 in js.clone().step_by(BLOCK_COLS) {
            let jl = (js.end - j0).min(BLOCK_COLS);
            let mut m = ms.start;
            while m + 4 <= ms.end {
                let quad = &mut out[m * n..(m + 4) * n];
                let (r01, r23) = quad.split_at_mut(2 * n);
                let (r0, r1) = r01.split_at_mut(n);
                let (r2, r3) = r23.split_at_mut(n);
                let o = [
                    &mut r0[j0..j0 + jl],
                    &mut r1[j0..j0 + jl],
                    &mut r2[j0..j0 + jl],
                    &mut r3[j0..j0 + jl],
                ];
                self.rows4(m, j0, o);
                m += 4;
            }
            for m in m..ms.end {
                self.row1(m, j0, &mut out[m * n + j0..m * n + j0 + jl]);
            }
        }
    }

    /// Four output rows `m0..m0 + 4`, columns `j0..j0 + o[i].len()`, of [`Mm::blocked`].
    #[inline(always)]
    fn rows4(self, m0: usize, j0: usize, o: [&mut [f32]; 4]) {
        let (w, cols, x, n) = (self.w, self.cols, self.x, self.n);
        let [o0, o1, o2, o3] = o;
        let jl = o0.len();
        let (o1, o2, o3) = (&mut o1[..jl], &mut o2[..jl], &mut o3[..jl]);
        let wk = |k: usize, r: usize| w[k * cols + m0 + r];
        let (a0, a1, a2, a3) = (wk(0, 0), wk(0, 1), wk(0, 2), wk(0, 3));
        let xr = &x[j0..j0 + jl];
        for j in 0..jl {
            let xv = xr[j];
            o0[j] = a0 * xv;
            o1[j] = a1 * xv;
            o2[j] = a2 * xv;
            o3[j] = a3 * xv;
        }
        for k in 1..self.rows {
            let (a0, a1, a2, a3) = (wk(k, 0), wk(k, 1), wk(k, 2), wk(k, 3));
            let xr = &x[k * n + j0..k * n + j0 + jl];
            for j in 0..jl {
                let xv = xr[j];
                o0[j] = step(o0[j], a0, xv);
                o1[j] = step(o1[j], a1, xv);
                o2[j] = step(o2[j], a2, xv);
                o3[j] = step(o3[j], a3, xv);
            }
        }
    }

    /// One output row `m`, columns `j0..j0 + o.len()`, of [`Mm::blocked`].
    #[inline(always)]
    fn row1(self, m: usize, j0: usize, o: &mut [f32]) {
        let jl = o.len();
        for k in 0..self.rows {
            let a = self.w[k * self.cols + m];
            let xr = &self.x[k * self.n + j0..k * self.n + j0 + jl];
            if k == 0 {
                o.iter_mut().zip(xr).for_each(|(o, &xv)| *o = a * xv);
            } else {
                o.iter_mut()
                    .zip(xr)
                    .for_each(|(o, &xv)| *o = step(*o, a, xv));
            }
        }
    }
}

/// FP32 → TF32 (fp32_mode = low, ASSUMED §8 item 7): round the significand to 10 bits,
/// nearest even; infinities and NaN pass unchanged (a NaN keeps a payload bit set).
#[inline(always)]
pub fn round_tf32(x: f32) -> f32 {
    if !x.is_finite() {
        return x;
    }
    let b = x.to_bits();
    let lsb = (b >> 13) & 1;
    let r = b.wrapping_add(0x0FFF + lsb) & !0x1FFF;
    f32::from_bits(r)
}

#[cfg(test)]
mod tests {
    use super::*;

    // The order is observable: (1e8 + 1) - 1e8 in f32 sums to 0, not 1.
    #[test]
    fn sequential_order_is_kept() {
        assert_eq!(dot(&[1e8, 1.0, -1e8], &[1.0, 1.0, 1.0]), 0.0);
        assert_eq!(dot(&[1e8, -1e8, 1.0], &[1.0, 1.0, 1.0]), 1.0);
        assert_eq!(dot(&[], &[]), 0.0);
    }

    // isa-facts-pe-act-dma §1.9, §8 item 7 (issue 29 item 25): products are exact, each step rounds once. With
    // W = [1, 1 + 2^-12], X = [-1, 1 + 2^-12] the second product 1 + 2^-11 + 2^-24 is not an
    // f32; rounding it first (a tie, to even) would give 2^-11, the exact sum is 2^-11 + 2^-24.
    #[test]
    fn products_are_exact_and_each_step_rounds_once() {
        let a = 1.0 + 2f32.powi(-12);
        let exact = 2f32.powi(-11) + 2f32.powi(-24);
        assert_eq!(dot(&[1.0, a], &[-1.0, a]).to_bits(), exact.to_bits());
        assert_ne!((-1.0f32 + a * a).to_bits(), exact.to_bits());
        // The k = 0 product is rounded once, and a −0 product stays −0.
        let b = f32::from_bits(0x3F80_0001);
        assert_eq!(dot(&[b], &[b]), b * b);
        assert_eq!(dot(&[-0.0], &[1.0]).to_bits(), (-0.0f32).to_bits());
        // One rounding, not two: 2^8(1 + 2^-23) · 2^8(1 - 2^-23) + (2^40 + 2^17) is just
        // below the fp32 midpoint 2^40 + 2^17 + 2^16, so it rounds down to 2^40 + 2^17; the
        // f64 sum lands on the midpoint and rounding it again would give 2^40 + 2^18.
        let u = 2f32.powi(-23);
        let c = 2f32.powi(40) + 2f32.powi(17);
        let (p, q) = (256.0 * (1.0 + u), 256.0 * (1.0 - u));
        assert_eq!(dot(&[1.0, p], &[c, q]), c);
        assert_eq!(
            (f64::from(p) * f64::from(q) + f64::from(c)) as f32,
            c + 2f32.powi(17)
        );
    }

    #[test]
    fn dot_strided_matches_dot() {
        let w = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0];
        let x = [0.5, -1.5, 2.25];
        assert_eq!(dot_strided(&w, 2, 1, &x), dot(&[2.0, 4.0, 6.0], &x));
    }

    // The tiled and blocked kernels against the plain per-element order, bit for bit, at
    // every SIMD level, on shapes with and without edges (partial tiles, single vectors,
    // scalar tails) and on values where the order shows.
    #[test]
    fn blocked_matmul_matches_dot_strided() {
        let mut seed = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            // Wide exponents and both signs: cancellation makes the order observable.
            let e = (seed % 40) as i32 - 20;
            let v = ((seed >> 20) % 2001) as f32 / 1000.0 - 1.0;
            v * 2f32.powi(e)
        };
        for &(rows, cols, n) in &[
            (128, 128, 64),
            (7, 5, 33),
            (3, 8, 32),
            (1, 4, 1),
            (64, 12, 70),
            // Single 8- and 16-lane vectors beside a tile, a scalar tail, single rows.
            (9, 13, 47),
        ] {
            let w: Vec<f32> = (0..rows * cols).map(|_| next()).collect();
            let mut x: Vec<f32> = (0..rows * n).map(|_| next()).collect();
            x[0] = f32::INFINITY;
            x[n.min(rows * n - 1)] = f32::NAN;
            let mut want = vec![0f32; cols * n];
            for m in 0..cols {
                for j in 0..n {
                    let xk: Vec<f32> = (0..rows).map(|k| x[k * n + j]).collect();
                    want[m * n + j] = dot_strided(&w, cols, m, &xk);
                }
            }
            for level in crate::numerics::simd::available() {
                let mut got = vec![1f32; cols * n];
                crate::numerics::simd::with_level(level, || matmul(&w, cols, &x, n, &mut got))
                    .unwrap();
                let same = got
                    .iter()
                    .zip(&want)
                    .all(|(a, b)| a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan()));
                assert!(same, "{rows}x{cols}x{n} at {level:?}");
            }
        }
    }

    #[test]
    fn tf32_rounding() {
        assert_eq!(round_tf32(1.0), 1.0);
        // 1 + 2^-11 is halfway between 1 and 1 + 2^-10: ties to even (1.0).
        assert_eq!(round_tf32(1.0 + 2f32.powi(-11)), 1.0);
        assert_eq!(
            round_tf32(1.0 + 3.0 * 2f32.powi(-11)),
            1.0 + 2.0 * 2f32.powi(-10)
        );
        assert!(round_tf32(f32::NAN).is_nan());
        assert_eq!(round_tf32(f32::INFINITY), f32::INFINITY);
    }
}
