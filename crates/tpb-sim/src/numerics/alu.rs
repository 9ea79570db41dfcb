//! The ALU ops on their three paths: FP32 arith (decisions §4.1–4.3, §4.13), raw-bit
//! bitvec (§4.8) and the integer band (§4.12), the last two written once for 32- and
//! 64-bit words ([`IntWord`]; the 64-bit path is TensorTensor / TensorReduce on
//! INT64/UINT64, isa-facts-dve-pool §1.5). Op meanings: isa-facts §5.1.

use super::{canonical_nan, NumError};
use tpb_isa::AluOp;

const ARITH: &str = "arith";
const BITVEC: &str = "bitvec";
const INTEGER: &str = "integer";

fn unsupported(op: AluOp, path: &'static str, why: &'static str) -> NumError {
    NumError::Unsupported { op, path, why }
}

/// Compare and logical results are 1.0 / 0.0 in FP32 (decisions §4.2).
#[inline(always)]
fn flag(c: bool) -> f32 {
    if c {
        1.0
    } else {
        0.0
    }
}

/// IEEE 754-2008 maxNum: a NaN loses to a number (decisions §4.3). Equal operands: −0 < +0
/// (as 754-2019 maximumNumber), so the result never depends on operand order or host.
#[inline(always)]
pub(crate) fn max_num(a: f32, b: f32) -> f32 {
    if a.is_nan() || b > a || (b == a && a.is_sign_negative()) {
        b
    } else {
        a
    }
}

/// IEEE 754-2008 minNum; see [`max_num`].
#[inline(always)]
pub(crate) fn min_num(a: f32, b: f32) -> f32 {
    if a.is_nan() || b < a || (b == a && b.is_sign_negative()) {
        b
    } else {
        a
    }
}

/// One ALU op on the FP32 arith path: `a` is the left operand, `b` the right one (the
/// caller applies `reverse_operands`).
///
/// - ADD, SUBTRACT, MULT, DIVIDE, ABSOLUTE_DIFF (`|a − b|`), SQUARE (`a · a`): IEEE single,
///   round to nearest even, subnormals kept, never fused.
/// - IS_EQ/GT/GE/LE/LT are ordered (false when either operand is NaN); IS_NE is unordered
///   (`NaN != NaN` is true). Results are 1.0 / 0.0.
/// - LOGICAL_AND/OR/XOR: an operand is true when it is not ±0 (NaN is true, as C's
///   `x != 0`). Results are 1.0 / 0.0.
/// - MAX/MIN: maxNum/minNum (a NaN operand loses to a number; −0 < +0). ABS_MAX/ABS_MIN
///   apply them to `|a|`, `|b|`; RE_LU is `maxNum(a, +0)` (so ReLU(NaN) = +0).
/// - BYPASS returns `a` unchanged (bits included); ABSOLUTE_VALUE is `|a|`. Both ignore `b`.
/// - DIVIDE: `a / b` (IEEE: x/0 = ±inf, 0/0 = NaN). RSQRT: `1 / sqrt(a)`, two correctly
///   rounded steps, ignores `b`. POW: `a^b` evaluated in f64 and rounded once to f32, so the
///   result does not depend on the host's `powf` (C `pow` special cases: `x^0 = 1`).
///   All three approximate the hardware's Newton/polynomial code (decisions §4.13, ASSUMED).
/// - MOD: C `fmod` (`a − trunc(a / b) · b`, exact, sign of `a`; `x mod 0` = NaN) (ASSUMED).
/// - Every NaN result other than BYPASS's is the canonical `0x7FC0_0000`
///   ([`canonical_nan::FP32`]), whatever the inputs' NaN payloads or the host.
///
/// Errors ([`NumError::Unsupported`]): bitvec-only ops (BITWISE_*, shifts), CRC32 (not
/// public), SYMMETRIC_CLAMP (semantics unconfirmed, isa-facts §13.14), the integer band
/// (use [`alu_int`]) and unknown codes.
pub fn alu_arith(op: AluOp, a: f32, b: f32) -> Result<f32, NumError> {
    let r = match op {
        AluOp::BYPASS => return Ok(a),
        AluOp::ADD => a + b,
        AluOp::SUBTRACT => a - b,
        AluOp::MULT => a * b,
        AluOp::DIVIDE => a / b,
        AluOp::MAX => max_num(a, b),
        AluOp::MIN => min_num(a, b),
        AluOp::LOGICAL_AND => flag(a != 0.0 && b != 0.0),
        AluOp::LOGICAL_OR => flag(a != 0.0 || b != 0.0),
        AluOp::LOGICAL_XOR => flag((a != 0.0) != (b != 0.0)),
        AluOp::IS_EQ => flag(a == b),
        AluOp::IS_GT => flag(a > b),
        AluOp::IS_GE => flag(a >= b),
        AluOp::IS_LE => flag(a <= b),
        AluOp::IS_LT => flag(a < b),
        AluOp::IS_NE => flag(a != b),
        AluOp::ABSOLUTE_DIFF => (a - b).abs(),
        AluOp::ABSOLUTE_VALUE => a.abs(),
        AluOp::POW => (a as f64).powf(b as f64) as f32,
        // Rust's `%` on floats is C fmod.
        AluOp::MOD => a % b,
        AluOp::RSQRT => 1.0 / a.sqrt(),
        AluOp::ABS_MAX => max_num(a.abs(), b.abs()),
        AluOp::ABS_MIN => min_num(a.abs(), b.abs()),
        AluOp::RE_LU => max_num(a, 0.0),
        AluOp::SQUARE => a * a,
        AluOp::CRC32 => return Err(unsupported(op, ARITH, "CRC32 arithmetic is not public")),
        AluOp::SYMMETRIC_CLAMP => {
            return Err(unsupported(
                op,
                ARITH,
                "semantics not confirmed (isa-facts §13.14)",
            ))
        }
        _ if op.is_bitvec_op() => {
            return Err(unsupported(
                op,
                ARITH,
                "bitvec-only op; use the bitvec path",
            ))
        }
        _ if op.0 >= 0xC0 => {
            return Err(unsupported(
                op,
                ARITH,
                "integer-band op; evaluated on the integer path",
            ))
        }
        _ => return Err(unsupported(op, ARITH, "not an ALU op")),
    };
    Ok(if r.is_nan() {
        f32::from_bits(canonical_nan::FP32)
    } else {
        r
    })
}

/// An integer ALU word: `u32` (the 32-bit paths) or `u64` (the 64-bit path of TensorTensor
/// and TensorReduce on INT64/UINT64, isa-facts-dve-pool §1.5; decisions §4.12). The integer
/// and bitvec ops are written once, over this trait, for both widths.
pub trait IntWord: Copy + Ord + private::Sealed {
    /// The two's-complement reading of the same bits.
    type Signed: Copy + Ord;
    /// The word's width in bits.
    const BITS: u32;
    /// 0 and 1 (the compare results).
    #[doc(hidden)]
    fn from_bool(c: bool) -> Self;
    #[doc(hidden)]
    fn signed(self) -> Self::Signed;
    #[doc(hidden)]
    fn from_signed(s: Self::Signed) -> Self;
    #[doc(hidden)]
    fn wrapping_add(self, b: Self) -> Self;
    #[doc(hidden)]
    fn wrapping_sub(self, b: Self) -> Self;
    #[doc(hidden)]
    fn wrapping_mul(self, b: Self) -> Self;
    #[doc(hidden)]
    fn checked_div(self, b: Self) -> Option<Self>;
    #[doc(hidden)]
    fn checked_rem(self, b: Self) -> Option<Self>;
    #[doc(hidden)]
    fn is_zero(self) -> bool;
    #[doc(hidden)]
    fn signed_wrapping_div(a: Self::Signed, b: Self::Signed) -> Self::Signed;
    #[doc(hidden)]
    fn signed_wrapping_rem(a: Self::Signed, b: Self::Signed) -> Self::Signed;
    #[doc(hidden)]
    fn signed_wrapping_sub(a: Self::Signed, b: Self::Signed) -> Self::Signed;
    #[doc(hidden)]
    fn signed_wrapping_abs(a: Self::Signed) -> Self::Signed;
    /// The low `bits` bits set.
    #[doc(hidden)]
    fn mask(bits: u32) -> Self;
    #[doc(hidden)]
    fn and(self, b: Self) -> Self;
    #[doc(hidden)]
    fn or(self, b: Self) -> Self;
    #[doc(hidden)]
    fn xor(self, b: Self) -> Self;
    #[doc(hidden)]
    fn not(self) -> Self;
    /// The value as a shift count, saturated at `u32::MAX`.
    #[doc(hidden)]
    fn count(self) -> u32;
    /// `self << n` / `self >> n` for `n < BITS`.
    #[doc(hidden)]
    fn shl(self, n: u32) -> Self;
    #[doc(hidden)]
    fn shr(self, n: u32) -> Self;
    /// Arithmetic `self >> n` for `n < BITS`.
    #[doc(hidden)]
    fn sar(self, n: u32) -> Self;
}

mod private {
    pub trait Sealed {}
    impl Sealed for u32 {}
    impl Sealed for u64 {}
}

macro_rules! int_word {
    ($u:ty, $i:ty) => {
        impl IntWord for $u {
            type Signed = $i;
            const BITS: u32 = <$u>::BITS;
            #[inline(always)]
            fn from_bool(c: bool) -> $u {
                <$u>::from(c)
            }
            #[inline(always)]
            fn signed(self) -> $i {
                self as $i
            }
            #[inline(always)]
            fn from_signed(s: $i) -> $u {
                s as $u
            }
            #[inline(always)]
            fn wrapping_add(self, b: $u) -> $u {
                <$u>::wrapping_add(self, b)
            }
            #[inline(always)]
            fn wrapping_sub(self, b: $u) -> $u {
                <$u>::wrapping_sub(self, b)
            }
            #[inline(always)]
            fn wrapping_mul(self, b: $u) -> $u {
                <$u>::wrapping_mul(self, b)
            }
            #[inline(always)]
            fn checked_div(self, b: $u) -> Option<$u> {
                <$u>::checked_div(self, b)
            }
            #[inline(always)]
            fn checked_rem(self, b: $u) -> Option<$u> {
                <$u>::checked_rem(self, b)
            }
            #[inline(always)]
            fn is_zero(self) -> bool {
                self == 0
            }
            #[inline(always)]
            fn signed_wrapping_div(a: $i, b: $i) -> $i {
                a.wrapping_div(b)
            }
            #[inline(always)]
            fn signed_wrapping_rem(a: $i, b: $i) -> $i {
                a.wrapping_rem(b)
            }
            #[inline(always)]
            fn signed_wrapping_sub(a: $i, b: $i) -> $i {
                a.wrapping_sub(b)
            }
            #[inline(always)]
            fn signed_wrapping_abs(a: $i) -> $i {
                a.wrapping_abs()
            }
            #[inline(always)]
            fn mask(bits: u32) -> $u {
                <$u>::MAX >> (<$u>::BITS - bits)
            }
            #[inline(always)]
            fn and(self, b: $u) -> $u {
                self & b
            }
            #[inline(always)]
            fn or(self, b: $u) -> $u {
                self | b
            }
            #[inline(always)]
            fn xor(self, b: $u) -> $u {
                self ^ b
            }
            #[inline(always)]
            fn not(self) -> $u {
                !self
            }
            #[inline(always)]
            fn count(self) -> u32 {
                u32::try_from(self).unwrap_or(u32::MAX)
            }
            #[inline(always)]
            fn shl(self, n: u32) -> $u {
                self << n
            }
            #[inline(always)]
            fn shr(self, n: u32) -> $u {
                self >> n
            }
            #[inline(always)]
            fn sar(self, n: u32) -> $u {
                ((self as $i) >> n) as $u
            }
        }
    };
}
int_word!(u32, i32);
int_word!(u64, i64);

/// One ALU op on the bitvec path, on raw elements `bits` wide (8, 16, 32, or 64 on the
/// 64-bit path) held in a word `W` (decisions §4.8; isa-facts-dve-pool §1.5 for 64 bits).
/// Both operands are first reduced to `bits` bits (they are elements of the type); the
/// result is masked to `bits` and zero-extended.
///
/// - BYPASS: `a`. BITWISE_NOT: `!a` within the width (8-bit `0x0F` → `0xF0`); ignores `b`.
/// - BITWISE_AND/OR/XOR: bitwise (on 64 bits: two independent 32-bit halves, the same bits).
/// - Shifts take `b` as an unsigned count. LOGICAL_SHIFT_LEFT and ARITH_SHIFT_LEFT are the
///   same op; a count ≥ `bits` gives 0 for both left shifts and LOGICAL_SHIFT_RIGHT, and the
///   sign fill (bit `bits − 1` copied everywhere) for ARITH_SHIFT_RIGHT (ASSUMED).
///
/// Errors: CRC32 (polynomial not public), any non-bitvec op ([`NumError::Unsupported`]);
/// a width other than 8/16/32/64 or wider than `W` ([`NumError::InvalidWidth`]).
pub fn alu_bitvec<W: IntWord>(op: AluOp, a: W, b: W, bits: u32) -> Result<W, NumError> {
    if !matches!(bits, 8 | 16 | 32 | 64) || bits > W::BITS {
        return Err(NumError::InvalidWidth { bits });
    }
    let mask = W::mask(bits);
    let (a, b) = (a.and(mask), b.and(mask));
    let count = b.count();
    let r = match op {
        AluOp::BYPASS => a,
        AluOp::BITWISE_NOT => a.not(),
        AluOp::BITWISE_AND => a.and(b),
        AluOp::BITWISE_OR => a.or(b),
        AluOp::BITWISE_XOR => a.xor(b),
        AluOp::ARITH_SHIFT_LEFT | AluOp::LOGICAL_SHIFT_LEFT => {
            if count >= bits {
                a.xor(a)
            } else {
                a.shl(count)
            }
        }
        AluOp::LOGICAL_SHIFT_RIGHT => {
            if count >= bits {
                a.xor(a)
            } else {
                a.shr(count)
            }
        }
        AluOp::ARITH_SHIFT_RIGHT => {
            // Sign-extend the element to the word; a shift by ≥ BITS − 1 is the sign fill.
            let s = W::BITS - bits;
            a.shl(s).sar(s).sar(count.min(W::BITS - 1))
        }
        AluOp::CRC32 => {
            return Err(unsupported(
                op,
                BITVEC,
                "polynomial and bit order are not public",
            ))
        }
        _ => return Err(unsupported(op, BITVEC, "not a bitvec op")),
    };
    Ok(r.and(mask))
}

/// One op of the integer band (0xC4..=0xE1) on 32-bit operands, with the signedness
/// the op's name gives (decisions §4.12). Same as `alu_int_as(op, a, b, true)`; see
/// [`alu_int_as`] for the rules.
pub fn alu_int(op: AluOp, a: u32, b: u32) -> Result<u32, NumError> {
    alu_int_as(op, a, b, true)
}

/// One integer-band op on 32- or 64-bit operands (decisions §4.12; the 64-bit path of
/// TensorTensor / TensorReduce, isa-facts-dve-pool §1.5). Arithmetic wraps (two's
/// complement); compares return 1 / 0.
///
/// Signedness: `_UINT` ops are unsigned and the other fixed-sign ops (MULT_INT is the same
/// either way; ABS_*_INT, MAX/MIN_INT, IS_*_INT) signed, whatever `signed` says. DIVIDE_INT,
/// MOD_INT and MOD are in both of the header's signedness lists (isa-facts §5.2): the
/// hardware picks the leaf from the dtype, so they follow `signed` (operands' dtype signed).
///
/// - ADD/SUBTRACT/MULT (`_INT`, `MULT_UINT`): the low 32 (64) bits of the result (on 64
///   bits the hardware's lo/hi-half carry, borrow and cross-product schedule gives exactly
///   these bits).
/// - DIVIDE_*: truncating; `MIN / −1` wraps to `MIN`. MOD_*, and MOD (0x1B, in
///   `is_valid_int_aluop`): remainder with the dividend's sign (C `%`); `MIN % −1` = 0. On
///   64 bits the hardware's algorithm is not recovered: the same rules (ASSUMED,
///   `int64-divide`).
/// - ABS_VALUE_INT `|a|`, ABS_DIFF_INT `|a − b|`, ABS_MAX/MIN_INT `max/min(|a|, |b|)`
///   compose the wrapping ops: `|MIN|` is `MIN` (isa-facts §5.1), compared signed.
/// - MAX/MIN: signed for `_INT`, unsigned for `_UINT`.
/// - BYPASS returns `a` (it is in maverick's `is_valid_int_aluop_dve`).
///
/// Errors: divide/mod by zero → [`NumError::IntDivideByZero`] (a fatal fault on hardware);
/// AMAX/AMIN (argmax/argmin reductions, not elementwise) and non-integer ops →
/// [`NumError::Unsupported`].
pub fn alu_int_as<W: IntWord>(op: AluOp, a: W, b: W, signed: bool) -> Result<W, NumError> {
    let (sa, sb) = (a.signed(), b.signed());
    let div0 = || NumError::IntDivideByZero { op };
    let flag = W::from_bool;
    let abs = W::signed_wrapping_abs;
    let r = match op {
        AluOp::BYPASS => a,
        AluOp::ADD_INT => a.wrapping_add(b),
        AluOp::SUBTRACT_INT => a.wrapping_sub(b),
        AluOp::MULT_INT | AluOp::MULT_UINT => a.wrapping_mul(b),
        AluOp::DIVIDE_INT | AluOp::MOD_INT | AluOp::MOD if signed => {
            if b.is_zero() {
                return Err(div0());
            }
            W::from_signed(if op == AluOp::DIVIDE_INT {
                W::signed_wrapping_div(sa, sb)
            } else {
                W::signed_wrapping_rem(sa, sb)
            })
        }
        AluOp::DIVIDE_INT | AluOp::DIVIDE_UINT => a.checked_div(b).ok_or_else(div0)?,
        AluOp::MOD_INT | AluOp::MOD | AluOp::MOD_UINT => a.checked_rem(b).ok_or_else(div0)?,
        AluOp::IS_EQUAL_INT => flag(a == b),
        AluOp::IS_NE_INT => flag(a != b),
        AluOp::ABS_MAX_INT => W::from_signed(abs(sa).max(abs(sb))),
        AluOp::ABS_MIN_INT => W::from_signed(abs(sa).min(abs(sb))),
        AluOp::ABS_DIFF_INT => W::from_signed(abs(W::signed_wrapping_sub(sa, sb))),
        AluOp::ABS_VALUE_INT => W::from_signed(abs(sa)),
        AluOp::MAX_INT => W::from_signed(sa.max(sb)),
        AluOp::MIN_INT => W::from_signed(sa.min(sb)),
        AluOp::IS_GT_INT => flag(sa > sb),
        AluOp::IS_GE_INT => flag(sa >= sb),
        AluOp::IS_LE_INT => flag(sa <= sb),
        AluOp::IS_LT_INT => flag(sa < sb),
        AluOp::MAX_UINT => a.max(b),
        AluOp::MIN_UINT => a.min(b),
        AluOp::IS_GT_UINT => flag(a > b),
        AluOp::IS_GE_UINT => flag(a >= b),
        AluOp::IS_LE_UINT => flag(a <= b),
        AluOp::IS_LT_UINT => flag(a < b),
        AluOp::AMAX_INT | AluOp::AMIN_INT | AluOp::AMAX_UINT | AluOp::AMIN_UINT => {
            return Err(unsupported(
                op,
                INTEGER,
                "argmax/argmin is a reduction, not an elementwise op",
            ))
        }
        _ => return Err(unsupported(op, INTEGER, "not an integer-band op")),
    };
    Ok(r)
}

#[cfg(test)]
mod tests {
    use super::*;

    const NAN: f32 = f32::NAN;
    const INF: f32 = f32::INFINITY;

    fn arith(op: AluOp, a: f32, b: f32) -> u32 {
        alu_arith(op, a, b).unwrap().to_bits()
    }

    #[test]
    fn arith_basic_ops() {
        assert_eq!(alu_arith(AluOp::ADD, 1.5, 2.25), Ok(3.75));
        assert_eq!(alu_arith(AluOp::SUBTRACT, 1.0, 3.0), Ok(-2.0));
        assert_eq!(alu_arith(AluOp::MULT, -2.0, 3.0), Ok(-6.0));
        assert_eq!(alu_arith(AluOp::DIVIDE, 1.0, 0.0), Ok(INF));
        assert_eq!(alu_arith(AluOp::DIVIDE, -1.0, 0.0), Ok(-INF));
        assert_eq!(alu_arith(AluOp::ABSOLUTE_DIFF, 1.0, 4.0), Ok(3.0));
        assert_eq!(alu_arith(AluOp::ABSOLUTE_VALUE, -7.0, NAN), Ok(7.0));
        assert_eq!(alu_arith(AluOp::SQUARE, -3.0, 99.0), Ok(9.0));
        assert_eq!(alu_arith(AluOp::RSQRT, 4.0, 0.0), Ok(0.5));
        assert_eq!(alu_arith(AluOp::RSQRT, -0.0, 0.0), Ok(-INF));
        assert_eq!(alu_arith(AluOp::POW, 2.0, 10.0), Ok(1024.0));
        assert_eq!(alu_arith(AluOp::POW, NAN, 0.0), Ok(1.0));
        // fmod: truncated, sign of the dividend.
        assert_eq!(alu_arith(AluOp::MOD, -7.5, 2.0), Ok(-1.5));
        assert_eq!(alu_arith(AluOp::MOD, 7.5, -2.0), Ok(1.5));
        // Subnormals are kept (no FTZ): min subnormal / 2 ties to 0, × 1 stays.
        assert_eq!(arith(AluOp::MULT, f32::from_bits(1), 1.0), 1);
        assert_eq!(arith(AluOp::MULT, f32::from_bits(3), 0.5), 2);
        // BYPASS passes a's bits untouched, NaN payload included.
        let payload = f32::from_bits(0xFF81_2345);
        assert_eq!(arith(AluOp::BYPASS, payload, 1.0), 0xFF81_2345);
    }

    #[test]
    fn arith_compares_are_one_zero_and_nan_rules() {
        let t = |op, a, b| alu_arith(op, a, b).unwrap();
        assert_eq!(t(AluOp::IS_EQ, 2.0, 2.0), 1.0);
        assert_eq!(t(AluOp::IS_EQ, 0.0, -0.0), 1.0);
        assert_eq!(t(AluOp::IS_EQ, NAN, NAN), 0.0); // ordered
        assert_eq!(t(AluOp::IS_NE, NAN, NAN), 1.0); // unordered
        assert_eq!(t(AluOp::IS_NE, 1.0, 1.0), 0.0);
        assert_eq!(t(AluOp::IS_GT, 3.0, 2.0), 1.0);
        assert_eq!(t(AluOp::IS_GT, 2.0, 3.0), 0.0);
        assert_eq!(t(AluOp::IS_GE, 2.0, 2.0), 1.0);
        assert_eq!(t(AluOp::IS_LE, 2.0, 2.0), 1.0);
        assert_eq!(t(AluOp::IS_LT, 2.0, 2.0), 0.0);
        for op in [AluOp::IS_GT, AluOp::IS_GE, AluOp::IS_LE, AluOp::IS_LT] {
            assert_eq!(t(op, NAN, 1.0), 0.0, "{op}");
            assert_eq!(t(op, 1.0, NAN), 0.0, "{op}");
        }
        // Logical ops: nonzero (NaN included) is true; ±0 is false.
        assert_eq!(t(AluOp::LOGICAL_AND, 2.0, -0.0), 0.0);
        assert_eq!(t(AluOp::LOGICAL_AND, NAN, 0.5), 1.0);
        assert_eq!(t(AluOp::LOGICAL_OR, 0.0, -0.0), 0.0);
        assert_eq!(t(AluOp::LOGICAL_OR, 0.0, -3.0), 1.0);
        assert_eq!(t(AluOp::LOGICAL_XOR, 1.0, 5.0), 0.0);
        assert_eq!(t(AluOp::LOGICAL_XOR, 1.0, 0.0), 1.0);
        // Exactly 1.0 / +0.0, nothing else.
        assert_eq!(arith(AluOp::IS_LT, 1.0, 2.0), 0x3F80_0000);
        assert_eq!(arith(AluOp::IS_LT, 2.0, 1.0), 0);
    }

    #[test]
    fn arith_max_min_are_maxnum_minnum() {
        let t = |op, a, b| arith(op, a, b);
        assert_eq!(t(AluOp::MAX, NAN, 1.0), 1f32.to_bits());
        assert_eq!(t(AluOp::MAX, 1.0, NAN), 1f32.to_bits());
        assert_eq!(t(AluOp::MIN, NAN, -1.0), (-1f32).to_bits());
        assert_eq!(t(AluOp::MIN, -1.0, NAN), (-1f32).to_bits());
        assert_eq!(t(AluOp::MAX, NAN, NAN), canonical_nan::FP32);
        assert_eq!(t(AluOp::MAX, -INF, 3.0), 3f32.to_bits());
        assert_eq!(t(AluOp::MIN, -INF, 3.0), (-INF).to_bits());
        // ±0 is ordered −0 < +0, whatever the operand order.
        assert_eq!(t(AluOp::MAX, -0.0, 0.0), 0);
        assert_eq!(t(AluOp::MAX, 0.0, -0.0), 0);
        assert_eq!(t(AluOp::MIN, -0.0, 0.0), 0x8000_0000);
        assert_eq!(t(AluOp::MIN, 0.0, -0.0), 0x8000_0000);
        // Mariana ops built on them.
        assert_eq!(t(AluOp::ABS_MAX, -5.0, 3.0), 5f32.to_bits());
        assert_eq!(t(AluOp::ABS_MIN, -5.0, 3.0), 3f32.to_bits());
        assert_eq!(t(AluOp::ABS_MAX, NAN, -2.0), 2f32.to_bits());
        assert_eq!(t(AluOp::RE_LU, -3.0, 99.0), 0);
        assert_eq!(t(AluOp::RE_LU, -0.0, 99.0), 0);
        assert_eq!(t(AluOp::RE_LU, 2.5, -99.0), 2.5f32.to_bits());
        assert_eq!(t(AluOp::RE_LU, NAN, 0.0), 0);
    }

    #[test]
    fn arith_nan_results_are_canonical() {
        let qnan_neg = f32::from_bits(0xFFC0_0001);
        assert_eq!(arith(AluOp::ADD, qnan_neg, 1.0), canonical_nan::FP32);
        assert_eq!(arith(AluOp::DIVIDE, 0.0, 0.0), canonical_nan::FP32);
        assert_eq!(arith(AluOp::SUBTRACT, INF, INF), canonical_nan::FP32);
        assert_eq!(arith(AluOp::MOD, 1.0, 0.0), canonical_nan::FP32);
        assert_eq!(arith(AluOp::RSQRT, -1.0, 0.0), canonical_nan::FP32);
        assert_eq!(
            arith(AluOp::ABSOLUTE_VALUE, qnan_neg, 0.0),
            canonical_nan::FP32
        );
    }

    #[test]
    fn arith_rejects_other_paths() {
        for op in [
            AluOp::BITWISE_NOT,
            AluOp::BITWISE_AND,
            AluOp::ARITH_SHIFT_RIGHT,
            AluOp::LOGICAL_SHIFT_LEFT,
            AluOp::CRC32,
            AluOp::SYMMETRIC_CLAMP,
            AluOp::ADD_INT,
            AluOp::DIVIDE_INT,
            AluOp::AMAX_UINT,
            AluOp(0x1E),
            AluOp(0x80),
        ] {
            assert!(
                matches!(
                    alu_arith(op, 1.0, 2.0),
                    Err(NumError::Unsupported { path: "arith", .. })
                ),
                "{op}"
            );
        }
        let e = alu_arith(AluOp::CRC32, 1.0, 2.0).unwrap_err();
        assert_eq!(
            e.to_string(),
            "not supported: CRC32 on the arith path: CRC32 arithmetic is not public"
        );
        let e = alu_arith(AluOp(0x30), 1.0, 2.0).unwrap_err();
        assert_eq!(
            e.to_string(),
            "not supported: ALU_OP 0x30 on the arith path: not an ALU op"
        );
    }

    #[test]
    fn bitvec_shifts_and_widths() {
        let t = |op, a, b, w| alu_bitvec(op, a, b, w).unwrap();
        for w in [8, 16, 32] {
            for op in [
                AluOp::LOGICAL_SHIFT_LEFT,
                AluOp::ARITH_SHIFT_LEFT,
                AluOp::LOGICAL_SHIFT_RIGHT,
            ] {
                assert_eq!(t(op, 0xFFFF_FFFF, w, w), 0, "{op} by width {w}");
                assert_eq!(t(op, 0xFFFF_FFFF, w + 5, w), 0, "{op} past width {w}");
            }
            // Arithmetic right shift: sign fill for counts >= width.
            let neg = 1u32 << (w - 1);
            let all = if w == 32 { u32::MAX } else { (1 << w) - 1 };
            assert_eq!(t(AluOp::ARITH_SHIFT_RIGHT, neg, w, w), all);
            assert_eq!(t(AluOp::ARITH_SHIFT_RIGHT, neg, 200, w), all);
            assert_eq!(t(AluOp::ARITH_SHIFT_RIGHT, neg - 1, w, w), 0);
            assert_eq!(t(AluOp::ARITH_SHIFT_RIGHT, neg, 1, w), neg | (neg >> 1));
        }
        assert_eq!(t(AluOp::LOGICAL_SHIFT_LEFT, 0x81, 1, 8), 0x02);
        assert_eq!(t(AluOp::ARITH_SHIFT_LEFT, 0x81, 1, 8), 0x02);
        assert_eq!(t(AluOp::LOGICAL_SHIFT_RIGHT, 0x80, 7, 8), 0x01);
        assert_eq!(t(AluOp::ARITH_SHIFT_RIGHT, 0x80, 7, 8), 0xFF);
        assert_eq!(t(AluOp::ARITH_SHIFT_RIGHT, 0x8000, 4, 16), 0xF800);
        assert_eq!(t(AluOp::ARITH_SHIFT_RIGHT, 0x8000_0000, 31, 32), u32::MAX);
        assert_eq!(t(AluOp::LOGICAL_SHIFT_RIGHT, 0x8000_0000, 31, 32), 1);
        // Operands are elements of the type: bits above the width are dropped first.
        assert_eq!(t(AluOp::LOGICAL_SHIFT_LEFT, 0x1_01, 0x1_01, 8), 0x02);
        assert_eq!(t(AluOp::BYPASS, 0xABCD, 7, 8), 0xCD);
    }

    #[test]
    fn bitvec_logic_and_not() {
        let t = |op, a, b, w| alu_bitvec(op, a, b, w).unwrap();
        assert_eq!(t(AluOp::BITWISE_NOT, 0x0F, 0, 8), 0xF0);
        assert_eq!(t(AluOp::BITWISE_NOT, 0x00, 0xFF, 8), 0xFF);
        assert_eq!(t(AluOp::BITWISE_NOT, 0x00FF, 0, 16), 0xFF00);
        assert_eq!(t(AluOp::BITWISE_NOT, 0, 0, 32), u32::MAX);
        assert_eq!(t(AluOp::BITWISE_AND, 0xF0F0, 0xFF00, 16), 0xF000);
        assert_eq!(t(AluOp::BITWISE_OR, 0xF0, 0x0F, 8), 0xFF);
        assert_eq!(t(AluOp::BITWISE_XOR, 0xFF, 0x0F, 8), 0xF0);
        assert_eq!(t(AluOp::BYPASS, 0xDEAD_BEEF, 0, 32), 0xDEAD_BEEF);
    }

    #[test]
    fn bitvec_errors() {
        let e = alu_bitvec(AluOp::CRC32, 1u32, 2, 32).unwrap_err();
        assert_eq!(
            e.to_string(),
            "not supported: CRC32 on the bitvec path: polynomial and bit order are not public"
        );
        assert!(matches!(
            alu_bitvec(AluOp::ADD, 1u32, 2, 8),
            Err(NumError::Unsupported { path: "bitvec", .. })
        ));
        for bits in [0, 1, 7, 24, 33, 64, u32::MAX] {
            assert_eq!(
                alu_bitvec(AluOp::BYPASS, 1u32, 2, bits),
                Err(NumError::InvalidWidth { bits })
            );
        }
        // 64-bit elements only in a 64-bit word.
        assert_eq!(alu_bitvec(AluOp::BYPASS, 1u64, 2, 64), Ok(1));
        for bits in [0, 33, 65, u32::MAX] {
            assert_eq!(
                alu_bitvec(AluOp::BYPASS, 1u64, 2, bits),
                Err(NumError::InvalidWidth { bits })
            );
        }
    }

    #[test]
    fn int_wraps_in_signedness() {
        let t = |op, a: i32, b: i32| alu_int(op, a as u32, b as u32).unwrap();
        let u = |op, a: u32, b: u32| alu_int(op, a, b).unwrap();
        assert_eq!(t(AluOp::ADD_INT, i32::MAX, 1), i32::MIN as u32);
        assert_eq!(t(AluOp::SUBTRACT_INT, i32::MIN, 1), i32::MAX as u32);
        assert_eq!(t(AluOp::MULT_INT, 0x10000, 0x10000), 0);
        assert_eq!(t(AluOp::MULT_INT, -3, 7), -21i32 as u32);
        assert_eq!(u(AluOp::MULT_UINT, 0xFFFF_FFFF, 2), 0xFFFF_FFFE);
        assert_eq!(t(AluOp::DIVIDE_INT, -7, 2), -3i32 as u32);
        assert_eq!(t(AluOp::DIVIDE_INT, i32::MIN, -1), i32::MIN as u32);
        assert_eq!(t(AluOp::MOD_INT, -7, 2), -1i32 as u32);
        assert_eq!(t(AluOp::MOD_INT, i32::MIN, -1), 0);
        assert_eq!(t(AluOp::MOD, 7, -2), 1);
        assert_eq!(u(AluOp::DIVIDE_UINT, 0xFFFF_FFFE, 2), 0x7FFF_FFFF);
        assert_eq!(u(AluOp::MOD_UINT, 0xFFFF_FFFF, 10), 5);
        // Signedness decides order: 0xFFFF_FFFF is −1 signed, u32::MAX unsigned.
        assert_eq!(u(AluOp::MAX_INT, 0xFFFF_FFFF, 1), 1);
        assert_eq!(u(AluOp::MAX_UINT, 0xFFFF_FFFF, 1), 0xFFFF_FFFF);
        assert_eq!(u(AluOp::MIN_INT, 0xFFFF_FFFF, 1), 0xFFFF_FFFF);
        assert_eq!(u(AluOp::MIN_UINT, 0xFFFF_FFFF, 1), 1);
        assert_eq!(u(AluOp::IS_GT_INT, 0xFFFF_FFFF, 1), 0);
        assert_eq!(u(AluOp::IS_GT_UINT, 0xFFFF_FFFF, 1), 1);
        assert_eq!(u(AluOp::IS_LT_INT, 0x8000_0000, 0), 1);
        assert_eq!(u(AluOp::IS_LT_UINT, 0x8000_0000, 0), 0);
        assert_eq!(u(AluOp::IS_GE_INT, 5, 5), 1);
        assert_eq!(u(AluOp::IS_LE_UINT, 6, 5), 0);
        assert_eq!(u(AluOp::IS_EQUAL_INT, 5, 5), 1);
        assert_eq!(u(AluOp::IS_NE_INT, 5, 5), 0);
        // Abs family: wrapping, |i32::MIN| stays i32::MIN.
        assert_eq!(t(AluOp::ABS_VALUE_INT, -5, 99), 5);
        assert_eq!(t(AluOp::ABS_VALUE_INT, i32::MIN, 0), i32::MIN as u32);
        assert_eq!(t(AluOp::ABS_DIFF_INT, 3, 10), 7);
        assert_eq!(t(AluOp::ABS_MAX_INT, -9, 4), 9);
        assert_eq!(t(AluOp::ABS_MIN_INT, -9, 4), 4);
        assert_eq!(t(AluOp::ABS_MAX_INT, i32::MIN, 4), 4);
        assert_eq!(u(AluOp::BYPASS, 0xABCD, 1), 0xABCD);
    }

    #[test]
    fn int_shared_signedness_follows_the_dtype() {
        let big = 0xFFFF_FFFE; // −2 signed, 4294967294 unsigned
        assert_eq!(
            alu_int_as(AluOp::DIVIDE_INT, big, 2, true),
            Ok(-1i32 as u32)
        );
        assert_eq!(
            alu_int_as(AluOp::DIVIDE_INT, big, 2, false),
            Ok(0x7FFF_FFFF)
        );
        assert_eq!(alu_int_as(AluOp::MOD_INT, big, 3, true), Ok(-2i32 as u32));
        assert_eq!(alu_int_as(AluOp::MOD_INT, big, 3, false), Ok(2));
        // Fixed-sign ops ignore the flag.
        assert_eq!(alu_int_as(AluOp::MAX_INT, big, 1, false), Ok(1));
        assert_eq!(alu_int_as(AluOp::MAX_UINT, big, 1, true), Ok(big));
    }

    #[test]
    fn int_divide_by_zero_and_unsupported() {
        for op in [
            AluOp::DIVIDE_INT,
            AluOp::MOD_INT,
            AluOp::DIVIDE_UINT,
            AluOp::MOD_UINT,
            AluOp::MOD,
        ] {
            for signed in [true, false] {
                assert_eq!(
                    alu_int_as(op, 5u32, 0, signed),
                    Err(NumError::IntDivideByZero { op }),
                    "{op}"
                );
            }
        }
        assert_eq!(
            alu_int(AluOp::DIVIDE_INT, 1, 0).unwrap_err().to_string(),
            "integer divide by zero in DIVIDE_INT"
        );
        for op in [
            AluOp::AMAX_INT,
            AluOp::AMIN_INT,
            AluOp::AMAX_UINT,
            AluOp::AMIN_UINT,
        ] {
            assert!(matches!(
                alu_int(op, 1, 2),
                Err(NumError::Unsupported {
                    path: "integer",
                    ..
                })
            ));
        }
        assert!(matches!(
            alu_int(AluOp::ADD, 1, 2),
            Err(NumError::Unsupported { .. })
        ));
        assert!(alu_int(AluOp(0xE2), 1, 2).is_err());
    }

    /// No op code, path or operand panics.
    #[test]
    fn every_op_code_is_total() {
        let fs = [
            0.0,
            -0.0,
            1.0,
            -1.0,
            NAN,
            INF,
            -INF,
            f32::MIN_POSITIVE,
            3e38,
        ];
        let us = [0u32, 1, 7, 8, 31, 32, 0x80, 0xFFFF_FFFF, 0x8000_0000];
        for code in 0..=255u8 {
            let op = AluOp(code);
            for &a in &fs {
                for &b in &fs {
                    let _ = alu_arith(op, a, b);
                }
            }
            for &a in &us {
                for &b in &us {
                    for w in [8, 16, 32, 5] {
                        let _ = alu_bitvec(op, a, b, w);
                    }
                    let _ = alu_int_as(op, a, b, true);
                    let _ = alu_int_as(op, a, b, false);
                    let (a, b) = (u64::from(a) << 32 | u64::from(b), u64::from(b));
                    for w in [8, 16, 32, 64, 5] {
                        let _ = alu_bitvec(op, a, b, w);
                    }
                    let _ = alu_int_as(op, a, b, true);
                    let _ = alu_int_as(op, a, b, false);
                }
            }
        }
    }

    // isa-facts-dve-pool §1.5: carry across the halves, low 64 bits of the product.
    #[test]
    fn add_carries_and_mult_keeps_the_low_bits() {
        assert_eq!(
            alu_int_as::<u64>(AluOp::ADD_INT, 0xFFFF_FFFF, 1, true),
            Ok(0x1_0000_0000)
        );
        assert_eq!(
            alu_int_as::<u64>(AluOp::SUBTRACT_INT, 0x1_0000_0000, 1, true),
            Ok(0xFFFF_FFFF)
        );
        let (a, b) = (0x1234_5678_9ABC_DEF0u64, 0x0FED_CBA9_8765_4321u64);
        assert_eq!(
            alu_int_as::<u64>(AluOp::MULT_INT, a, b, true),
            Ok((u128::from(a) * u128::from(b)) as u64)
        );
        assert_eq!(alu_int_as::<u64>(AluOp::MAX_INT, u64::MAX, 1, true), Ok(1));
        assert_eq!(
            alu_int_as::<u64>(AluOp::MAX_UINT, u64::MAX, 1, false),
            Ok(u64::MAX)
        );
        assert_eq!(
            alu_int_as::<u64>(AluOp::DIVIDE_INT, 7, 0, true),
            Err(NumError::IntDivideByZero {
                op: AluOp::DIVIDE_INT
            })
        );
        assert_eq!(
            alu_int_as::<u64>(AluOp::MOD_INT, -7i64 as u64, 2, true),
            Ok(-1i64 as u64)
        );
        assert!(alu_int_as::<u64>(AluOp::ADD, 1, 2, true).is_err());
        assert_eq!(
            alu_bitvec::<u64>(AluOp::LOGICAL_SHIFT_LEFT, 1, 40, 64),
            Ok(1 << 40)
        );
        assert_eq!(
            alu_bitvec::<u64>(AluOp::ARITH_SHIFT_RIGHT, 1 << 63, 70, 64),
            Ok(u64::MAX)
        );
        assert_eq!(
            alu_bitvec::<u64>(AluOp::LOGICAL_SHIFT_RIGHT, u64::MAX, 64, 64),
            Ok(0)
        );
    }
}
