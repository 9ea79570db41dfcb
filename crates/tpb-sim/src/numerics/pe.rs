//! The PE's arithmetic in our documented order (assumption `pe-summation-order`,
//! `docs/reference/pe-act.md` "Numerics"). Knows no instructions.
//!
//! The hardware's product rounding and summation order are not public
//! (isa-facts-pe-act-dma §1.9). We fix one order and call every result *exact per our
//! order*, never the hardware's bits:
//!
//! 1. each product `w[k] · x[k]` is formed exactly (in f64: two f32 significands of 24 bits
//!    give at most 48 bits) and rounded once to f32 (RNE) — the same value as an IEEE f32
//!    multiply;
//! 2. the products are added in f32, sequentially over the contraction index k = 0..K−1,
//!    each addition rounded to nearest even, no fused multiply-add:
//!    `acc = p[0]; acc = acc + p[1]; …`;
//! 3. the PSUM write either stores `acc` (overwrite) or adds it to the old fp32 value with one
//!    more f32 RNE addition (accumulate).
//!
//! NumPy reproduces this with `np.float32` scalars in a loop, which the fixtures do.

/// One product, exact then rounded once to f32 (the IEEE f32 multiply).
#[inline(always)]
pub fn product(w: f32, x: f32) -> f32 {
    (f64::from(w) * f64::from(x)) as f32
}

/// The dot product of `w` and `x` in our order (steps 1–2 above); 0.0 for empty inputs.
#[inline]
pub fn dot(w: &[f32], x: &[f32]) -> f32 {
    let mut it = w.iter().zip(x).map(|(&a, &b)| product(a, b));
    let Some(first) = it.next() else { return 0.0 };
    it.fold(first, |acc, p| acc + p)
}

/// The dot product over strided weights: `Σ_k w[k·stride + col] · x[k]` in our order.
#[inline]
pub fn dot_strided(w: &[f32], stride: usize, col: usize, x: &[f32]) -> f32 {
    let mut acc = 0.0f32;
    for (k, &xv) in x.iter().enumerate() {
        let p = product(w[k * stride + col], xv);
        acc = if k == 0 { p } else { acc + p };
    }
    acc
}

/// FP32 → TF32 (fp32_mode = low, ASSUMED §8 item 7): round the significand to 10 bits,
/// nearest even; infinities and NaN pass unchanged (a NaN keeps a payload bit set).
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

    // A product is rounded once: 1.000_000_1 squared is not exact in f32.
    #[test]
    fn products_round_once() {
        let a = f32::from_bits(0x3F80_0001);
        assert_eq!(product(a, a), a * a);
        assert_eq!(dot(&[-0.0], &[1.0]).to_bits(), (-0.0f32).to_bits());
    }

    #[test]
    fn dot_strided_matches_dot() {
        let w = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0];
        let x = [0.5, -1.5, 2.25];
        assert_eq!(dot_strided(&w, 2, 1, &x), dot(&[2.0, 4.0, 6.0], &x));
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
