//! The 64-bit integer ALU of TensorTensor / TensorReduce on INT64/UINT64 operands
//! (isa-facts-dve-pool §1.5 "64-bit path"; decisions §4.12).
//!
//! - ADD/SUBTRACT/MULT (`_INT`, `MULT_UINT`): the low 64 bits (the hardware's lo/hi-half
//!   carry, borrow and cross-product schedule gives exactly these bits).
//! - MAX/MIN: signed for `_INT`, unsigned for `_UINT` (high halves, then low halves).
//! - Compares give 1 / 0; ABS_* compose the wrapping ops, as on 32 bits.
//! - DIVIDE/MOD: the hardware's algorithm is not recovered; truncating division with the
//!   dividend's sign for the remainder, as the 32-bit path (ASSUMED, `int64-divide`);
//!   a zero divisor is [`NumError::IntDivideByZero`].
//! - Bitvec: the bitwise ops on all 64 bits (two independent 32-bit halves); shifts take an
//!   unsigned count, a count ≥ 64 gives 0 (logical) or the sign fill (arithmetic right).

use super::NumError;
use tpb_isa::AluOp;

fn unsupported(op: AluOp, path: &'static str, why: &'static str) -> NumError {
    NumError::Unsupported { op, path, why }
}

/// One integer-band op on 64-bit operands; `signed` follows the operands' dtype for the ops
/// in both signedness lists (DIVIDE_INT, MOD_INT, MOD, ADD/SUBTRACT/MULT_INT).
pub fn alu_int64(op: AluOp, a: u64, b: u64, signed: bool) -> Result<u64, NumError> {
    let (sa, sb) = (a as i64, b as i64);
    let div0 = || NumError::IntDivideByZero { op };
    Ok(match op {
        AluOp::BYPASS => a,
        AluOp::ADD_INT => a.wrapping_add(b),
        AluOp::SUBTRACT_INT => a.wrapping_sub(b),
        AluOp::MULT_INT | AluOp::MULT_UINT => a.wrapping_mul(b),
        AluOp::DIVIDE_INT | AluOp::MOD_INT | AluOp::MOD if signed => {
            if b == 0 {
                return Err(div0());
            }
            if op == AluOp::DIVIDE_INT {
                sa.wrapping_div(sb) as u64
            } else {
                sa.wrapping_rem(sb) as u64
            }
        }
        AluOp::DIVIDE_INT | AluOp::DIVIDE_UINT => a.checked_div(b).ok_or_else(div0)?,
        AluOp::MOD_INT | AluOp::MOD | AluOp::MOD_UINT => a.checked_rem(b).ok_or_else(div0)?,
        AluOp::IS_EQUAL_INT => u64::from(a == b),
        AluOp::IS_NE_INT => u64::from(a != b),
        AluOp::ABS_MAX_INT => sa.wrapping_abs().max(sb.wrapping_abs()) as u64,
        AluOp::ABS_MIN_INT => sa.wrapping_abs().min(sb.wrapping_abs()) as u64,
        AluOp::ABS_DIFF_INT => sa.wrapping_sub(sb).wrapping_abs() as u64,
        AluOp::ABS_VALUE_INT => sa.wrapping_abs() as u64,
        AluOp::MAX_INT => sa.max(sb) as u64,
        AluOp::MIN_INT => sa.min(sb) as u64,
        AluOp::IS_GT_INT => u64::from(sa > sb),
        AluOp::IS_GE_INT => u64::from(sa >= sb),
        AluOp::IS_LE_INT => u64::from(sa <= sb),
        AluOp::IS_LT_INT => u64::from(sa < sb),
        AluOp::MAX_UINT => a.max(b),
        AluOp::MIN_UINT => a.min(b),
        AluOp::IS_GT_UINT => u64::from(a > b),
        AluOp::IS_GE_UINT => u64::from(a >= b),
        AluOp::IS_LE_UINT => u64::from(a <= b),
        AluOp::IS_LT_UINT => u64::from(a < b),
        _ => {
            return Err(unsupported(
                op,
                "integer",
                "not an op of the 64-bit integer path",
            ))
        }
    })
}

/// One bitvec op on 64-bit elements (`b` is the count for shifts).
pub fn alu_bitvec64(op: AluOp, a: u64, b: u64) -> Result<u64, NumError> {
    Ok(match op {
        AluOp::BYPASS => a,
        AluOp::BITWISE_NOT => !a,
        AluOp::BITWISE_AND => a & b,
        AluOp::BITWISE_OR => a | b,
        AluOp::BITWISE_XOR => a ^ b,
        AluOp::ARITH_SHIFT_LEFT | AluOp::LOGICAL_SHIFT_LEFT => {
            if b >= 64 {
                0
            } else {
                a << b
            }
        }
        AluOp::LOGICAL_SHIFT_RIGHT => {
            if b >= 64 {
                0
            } else {
                a >> b
            }
        }
        AluOp::ARITH_SHIFT_RIGHT => ((a as i64) >> b.min(63)) as u64,
        _ => {
            return Err(unsupported(
                op,
                "bitvec",
                "not a bitvec op of the 64-bit path",
            ))
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    // isa-facts-dve-pool §1.5: carry across the halves, low 64 bits of the product.
    #[test]
    fn add_carries_and_mult_keeps_the_low_bits() {
        assert_eq!(
            alu_int64(AluOp::ADD_INT, 0xFFFF_FFFF, 1, true),
            Ok(0x1_0000_0000)
        );
        assert_eq!(
            alu_int64(AluOp::SUBTRACT_INT, 0x1_0000_0000, 1, true),
            Ok(0xFFFF_FFFF)
        );
        let (a, b) = (0x1234_5678_9ABC_DEF0u64, 0x0FED_CBA9_8765_4321u64);
        assert_eq!(
            alu_int64(AluOp::MULT_INT, a, b, true),
            Ok((u128::from(a) * u128::from(b)) as u64)
        );
        assert_eq!(alu_int64(AluOp::MAX_INT, u64::MAX, 1, true), Ok(1));
        assert_eq!(alu_int64(AluOp::MAX_UINT, u64::MAX, 1, false), Ok(u64::MAX));
        assert_eq!(
            alu_int64(AluOp::DIVIDE_INT, 7, 0, true),
            Err(NumError::IntDivideByZero {
                op: AluOp::DIVIDE_INT
            })
        );
        assert_eq!(
            alu_int64(AluOp::MOD_INT, -7i64 as u64, 2, true),
            Ok(-1i64 as u64)
        );
        assert!(alu_int64(AluOp::ADD, 1, 2, true).is_err());
        assert_eq!(alu_bitvec64(AluOp::LOGICAL_SHIFT_LEFT, 1, 40), Ok(1 << 40));
        assert_eq!(
            alu_bitvec64(AluOp::ARITH_SHIFT_RIGHT, 1 << 63, 70),
            Ok(u64::MAX)
        );
        assert_eq!(
            alu_bitvec64(AluOp::LOGICAL_SHIFT_RIGHT, u64::MAX, 64),
            Ok(0)
        );
    }
}
