//! The arguments of the program directives that set machine state, parsed once for every
//! front end (`tpb run` and the Python `Machine.run` both call these, issue 16 item 5).
//!
//! `.reg` takes a register and a 32-bit value, separated by `=` or whitespace:
//! `.reg 7 = 1.0`, `.reg r7=1.0`, `.reg reg[7] 1.0` and `.reg 7 1.0` are the same line.
//! The register is `N`, `rN` or `reg[N]` (as addresses write it), N in 0..64. The value is
//! written as instruction immediates are: `0x` bits, an integer (a negative one gives its
//! two's complement) or an fp32 literal (with a `.`, an `e`, `inf` or `nan`), stored as its
//! FP32 bits (decisions §3.4); a finite literal too large for fp32 is an error, not an
//! infinity.

use crate::gen::Gen;
use crate::geometry::NUM_REGISTERS;
use crate::wire::field::parse_int;
use crate::wire::{Field, ImmVal};

/// The register-setting directive's arguments: `(register, bits)`.
pub fn parse_reg(args: &str) -> Result<(usize, u32), String> {
    let t = args.trim();
    let (n, v) = t
        .split_once('=')
        .or_else(|| t.split_once(char::is_whitespace))
        .ok_or("expected N=VALUE (or N VALUE), e.g. 7=-3.4028235e38")?;
    Ok((parse_register(n)?, parse_register_value(v)?))
}

/// A register number: `N`, `rN` or `reg[N]`, N in 0..64.
pub fn parse_register(s: &str) -> Result<usize, String> {
    let n = s.trim();
    let l = n.to_ascii_lowercase();
    let digits = match l.strip_prefix("reg[") {
        Some(rest) => rest.strip_suffix(']'),
        None => Some(l.strip_prefix('r').unwrap_or(&l)),
    };
    digits
        .and_then(parse_int)
        .filter(|&i| (0..i128::from(NUM_REGISTERS)).contains(&i))
        .map(|i| i as usize)
        .ok_or_else(|| {
            format!("`{n}` is not a register number 0..{NUM_REGISTERS} (N, rN or reg[N])")
        })
}

/// A register value as the instruction immediates are written (module rules).
pub fn parse_register_value(s: &str) -> Result<u32, String> {
    let t = s.trim();
    let bits = ImmVal::parse_text(t, Gen::default())
        .map_err(|e| format!("{e}; expected an integer, 0x bits or an fp32 literal"))?
        .0;
    check_no_overflow(t, bits)?;
    Ok(bits)
}

/// An fp32 literal `text` that overflowed to infinity (`bits`) without saying `inf`.
pub fn check_no_overflow(text: &str, bits: u32) -> Result<(), String> {
    let l = text.to_ascii_lowercase();
    let looks_float = !l.starts_with("0x") && !l.starts_with("-0x");
    if looks_float && f32::from_bits(bits).is_infinite() && !l.contains("inf") {
        return Err(format!("`{text}` is beyond the fp32 range"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_spelling_of_a_register_line_is_the_same() {
        let one = 1.0f32.to_bits();
        for s in [
            "7 = 1.0",
            "7=1.0",
            "7 1.0",
            "r7 = 1.0",
            "R7 1.0",
            "reg[7] = 1.0",
            " 7\t1.0 ",
        ] {
            assert_eq!(parse_reg(s), Ok((7, one)), "{s}");
        }
        assert_eq!(parse_reg("63 = -1"), Ok((63, u32::MAX)));
        assert_eq!(parse_reg("0 0x7fc00001"), Ok((0, 0x7FC0_0001)));
    }

    #[test]
    fn bad_register_lines_say_why() {
        assert!(parse_reg("64 = 1").unwrap_err().contains("0..64"));
        assert!(parse_reg("x = 1").unwrap_err().contains("register number"));
        assert!(parse_reg("reg[7 = 1")
            .unwrap_err()
            .contains("register number"));
        assert!(parse_reg("7").unwrap_err().contains("N=VALUE"));
        assert!(parse_reg("7 = seven").is_err());
        assert!(parse_reg("7 = 1e39").unwrap_err().contains("fp32 range"));
        assert_eq!(parse_reg("7 = -inf"), Ok((7, 0xFF80_0000)));
    }
}
