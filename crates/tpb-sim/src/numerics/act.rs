//! The ACT functions by id (isa-facts-pe-act-dma §2.9–§2.11; `docs/reference/pe-act.md`).
//! Knows no instructions.
//!
//! The hardwired functions (identity, copy, relu, leaky/parametric relu, square, sign, abs,
//! is_finite, memset_zero) have a value defined exactly and are bit-exact. Every other
//! function is computed on hardware from piecewise-polynomial tables that are not public
//! (§2.11): here it is computed from its mathematical definition in f64 with the `libm`
//! crate (a port of musl's libm: the same results on every platform, unlike the platform's
//! C library behind `std`), rounded once to f32, and labelled [`Exactness::Approximate`]
//! (assumption `act-table-functions`).

use tpb_isa::ActFunc;

/// How far a result can be trusted to be the hardware's bits (decisions §6.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Exactness {
    /// The facts fix every bit.
    Exact,
    /// A documented choice where the order or a detail is not public (the PE sum order).
    PerOurChoice,
    /// The hardware uses unpublished tables; ours is the mathematical function.
    Approximate,
}

/// The documented valid input range of a table function (NKI activation table,
/// isa-facts-pe-act-dma §2.11): outside it the hardware output is "invalid". `None`: the
/// whole real line.
pub fn valid_range(f: ActFunc) -> Option<(f64, f64)> {
    use std::f64::consts::{FRAC_PI_2, PI};
    Some(match f {
        ActFunc::LN => (2f64.powi(-64), 2f64.powi(64)),
        ActFunc::SIN => (-PI, PI),
        ActFunc::ARCTAN => (-FRAC_PI_2, FRAC_PI_2),
        ActFunc::SQRT => (2f64.powi(-116), 2f64.powi(118)),
        ActFunc::RSQRT => (2f64.powi(-87), 2f64.powi(97)),
        _ => return None,
    })
}

/// Whether `x` lies in `f`'s documented valid range (reciprocal: ±[2^-42, 2^42]).
pub fn in_valid_range(f: ActFunc, x: f32) -> bool {
    if x.is_nan() {
        return true;
    }
    let a = f64::from(x);
    if f == ActFunc::RECIPROCAL {
        return (2f64.powi(-42)..=2f64.powi(42)).contains(&a.abs());
    }
    match valid_range(f) {
        Some((lo, hi)) => (lo..=hi).contains(&a),
        None => true,
    }
}

/// How exact `f` is, or `None` if the id is not one we compute (unknown ids and the
/// derivative functions whose ids are not public, §8 item 14).
pub fn exactness(f: ActFunc) -> Option<Exactness> {
    use ActFunc as F;
    Some(match f {
        F::IDENTITY
        | F::COPY
        | F::RELU
        | F::LRELU
        | F::PRELU
        | F::SQUARE
        | F::SIGN
        | F::ABS
        | F::IS_FINITE
        | F::MEMSET_ZERO => Exactness::Exact,
        F::SIGMOID
        | F::TANH
        | F::EXP
        | F::SQRT
        | F::SOFTPLUS
        | F::LN
        | F::SIN
        | F::ERF
        | F::DERIVATIVE_ERF
        | F::GELU
        | F::MISH
        | F::GELU_APPRX_TANH
        | F::GELU_APPRX_SIGMOID
        | F::ARCTAN
        | F::RSQRT
        | F::DERIVATIVE_GELU
        | F::ABS_RECIPROCAL_SQRT
        | F::SILU
        | F::DERIVATIVE_SILU
        | F::DERIVATIVE_GELU_APPRX_SIGMOID
        | F::RECIPROCAL => Exactness::Approximate,
        _ => return None,
    })
}

fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + libm::exp(-x))
}

fn softplus(x: f64) -> f64 {
    // log(1 + e^x) without overflow for large x.
    if x > 30.0 {
        x + libm::log1p(libm::exp(-x))
    } else {
        libm::log1p(libm::exp(x))
    }
}

const SQRT_2_OVER_PI: f64 = 0.797_884_560_802_865_4;
const TWO_OVER_SQRT_PI: f64 = std::f64::consts::FRAC_2_SQRT_PI;
const FRAC_1_SQRT_2PI: f64 = 0.398_942_280_401_432_7;

/// The table functions' definitions in f64 (before the single rounding to f32).
fn table_f64(f: ActFunc, x: f64) -> f64 {
    use ActFunc as F;
    match f {
        F::SIGMOID => sigmoid(x),
        F::TANH => libm::tanh(x),
        F::EXP => libm::exp(x),
        F::SQRT => libm::sqrt(x),
        F::SOFTPLUS => softplus(x),
        F::LN => libm::log(x),
        F::SIN => libm::sin(x),
        F::ERF => libm::erf(x),
        F::DERIVATIVE_ERF => TWO_OVER_SQRT_PI * libm::exp(-x * x),
        F::GELU => 0.5 * x * (1.0 + libm::erf(x * std::f64::consts::FRAC_1_SQRT_2)),
        F::DERIVATIVE_GELU => {
            0.5 * (1.0 + libm::erf(x * std::f64::consts::FRAC_1_SQRT_2))
                + x * FRAC_1_SQRT_2PI * libm::exp(-0.5 * x * x)
        }
        F::MISH => x * libm::tanh(softplus(x)),
        F::GELU_APPRX_TANH => {
            0.5 * x * (1.0 + libm::tanh(SQRT_2_OVER_PI * (x + 0.044715 * x * x * x)))
        }
        F::GELU_APPRX_SIGMOID => x * sigmoid(1.702 * x),
        F::DERIVATIVE_GELU_APPRX_SIGMOID => {
            let s = sigmoid(1.702 * x);
            s + 1.702 * x * s * (1.0 - s)
        }
        F::ARCTAN => libm::atan(x),
        F::RSQRT => 1.0 / libm::sqrt(x),
        F::ABS_RECIPROCAL_SQRT => 1.0 / libm::sqrt(x.abs()),
        F::SILU => x * sigmoid(x),
        F::DERIVATIVE_SILU => {
            let s = sigmoid(x);
            s * (1.0 + x * (1.0 - s))
        }
        F::RECIPROCAL => 1.0 / x,
        _ => f64::NAN,
    }
}

/// `f(x)` in f32 with `alpha` the parameter of the parametric functions (the `imm` operand:
/// the prelu slope, and by assumption `act-lrelu-slope` the leaky-relu slope), or `None` for
/// an id we do not compute. Hardwired functions are exact IEEE f32 operations.
pub fn apply(f: ActFunc, x: f32, alpha: f32) -> Option<f32> {
    if let Some(y) = hardwired_value(f, x, alpha) {
        return Some(y);
    }
    exactness(f)?;
    Some(table_f64(f, f64::from(x)) as f32)
}

/// [`apply`] of a hardwired function (the [`Exactness::Exact`] ids); `None` for any other.
#[inline(always)]
pub(crate) fn hardwired_value(f: ActFunc, x: f32, alpha: f32) -> Option<f32> {
    use ActFunc as F;
    Some(match f {
        F::IDENTITY | F::COPY => x,
        // NaN passes through (a comparison with NaN is false).
        F::RELU => {
            if x > 0.0 || x.is_nan() {
                x
            } else {
                0.0
            }
        }
        F::LRELU | F::PRELU => {
            if x < 0.0 {
                x * alpha
            } else {
                x
            }
        }
        F::SQUARE => x * x,
        F::SIGN => {
            if x > 0.0 {
                1.0
            } else if x < 0.0 {
                -1.0
            } else {
                x // ±0 and NaN keep themselves
            }
        }
        F::ABS => x.abs(),
        F::IS_FINITE => {
            if x.is_finite() {
                1.0
            } else {
                0.0
            }
        }
        F::MEMSET_ZERO => 0.0,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hardwired_values() {
        assert_eq!(apply(ActFunc::RELU, -2.0, 0.0), Some(0.0));
        assert_eq!(apply(ActFunc::RELU, 3.5, 0.0), Some(3.5));
        assert_eq!(apply(ActFunc::PRELU, -2.0, 0.25), Some(-0.5));
        assert_eq!(
            apply(ActFunc::SIGN, -0.0, 0.0).map(f32::to_bits),
            Some(0x8000_0000)
        );
        assert_eq!(apply(ActFunc::IS_FINITE, f32::INFINITY, 0.0), Some(0.0));
        assert_eq!(apply(ActFunc::SQUARE, 3.0, 0.0), Some(9.0));
        assert_eq!(exactness(ActFunc::RELU), Some(Exactness::Exact));
        assert_eq!(exactness(ActFunc::EXP), Some(Exactness::Approximate));
        assert_eq!(exactness(ActFunc(0x77)), None);
        assert_eq!(apply(ActFunc(0x77), 1.0, 0.0), None);
    }

    #[test]
    fn table_functions_are_their_definitions() {
        assert_eq!(apply(ActFunc::EXP, 0.0, 0.0), Some(1.0));
        assert_eq!(apply(ActFunc::EXP, 1.0, 0.0), Some(std::f32::consts::E));
        assert_eq!(apply(ActFunc::SIGMOID, 0.0, 0.0), Some(0.5));
        assert_eq!(apply(ActFunc::TANH, 0.0, 0.0), Some(0.0));
        assert_eq!(apply(ActFunc::RSQRT, 4.0, 0.0), Some(0.5));
        assert_eq!(apply(ActFunc::SOFTPLUS, 100.0, 0.0), Some(100.0));
    }

    // §2.11: sine is valid on [-π, π] only; the range check says so.
    #[test]
    fn sine_range() {
        assert!(in_valid_range(ActFunc::SIN, 3.0));
        assert!(!in_valid_range(ActFunc::SIN, 4.0));
        assert!(in_valid_range(ActFunc::EXP, 1e30));
        assert!(!in_valid_range(ActFunc::RECIPROCAL, 1e-20));
    }
}
