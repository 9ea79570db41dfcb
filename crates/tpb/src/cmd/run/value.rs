//! Scalar text for `tpb run`: register values (`--reg`, `.reg`), element literals in a
//! region's dtype (inline `.expect` values, `.show mark=`), and element formatting for
//! reports.
//!
//! Bit-exactness rules: an element literal must denote exactly one bit pattern of its dtype.
//! `0x…` is the raw bits; an integer must fit the dtype; a float literal is read as fp32 (the
//! nearest fp32, as any compiler would) and must then be exactly representable in a narrower
//! float dtype, except that an integer literal must be an fp32 exactly and a nonzero literal
//! may not underflow to zero; NaN has many encodings, so it is written by its bits.

use tpb_isa::wire::descriptor::f32_text;
use tpb_isa::Dtype;
use tpb_sim::numerics::{from_f32, to_f32, Fp8Config};

use tpb_isa::text::directive::check_no_overflow;
pub use tpb_isa::text::directive::parse_register_value;

/// Element width in bits of a datapath dtype.
fn width(dtype: Dtype) -> u32 {
    8 * dtype.size().unwrap_or(4) as u32
}

/// Whether the dtype is a signed or unsigned integer type.
fn int_kind(dtype: Dtype) -> Option<bool> {
    match dtype {
        Dtype::INT8 | Dtype::INT16 | Dtype::INT32 => Some(true),
        Dtype::UINT8 | Dtype::UINT16 | Dtype::UINT32 => Some(false),
        _ => None,
    }
}

/// Parses one element literal of `dtype` into its raw bits (see the module rules).
pub fn parse_element(s: &str, dtype: Dtype, fp8: &Fp8Config) -> Result<u32, String> {
    let t = s.trim();
    let l = t.to_ascii_lowercase();
    let bits = width(dtype);
    let mask = if bits == 32 {
        u32::MAX
    } else {
        (1u32 << bits) - 1
    };
    if let Some(h) = l.strip_prefix("0x") {
        let v = u32::from_str_radix(&h.replace('_', ""), 16)
            .map_err(|_| format!("`{t}` is not hex bits"))?;
        if v & !mask != 0 {
            return Err(format!("`{t}` has more than the {bits} bits of {dtype}"));
        }
        return Ok(v);
    }
    if let Some(signed) = int_kind(dtype) {
        let v: i64 = l
            .replace('_', "")
            .parse()
            .map_err(|_| format!("`{t}` is not an integer of {dtype} (or 0x bits)"))?;
        let (lo, hi) = if signed {
            (-(1i64 << (bits - 1)), (1i64 << (bits - 1)) - 1)
        } else {
            (0, (1i64 << bits) - 1)
        };
        if !(lo..=hi).contains(&v) {
            return Err(format!("{v} is outside the {dtype} range {lo}..={hi}"));
        }
        return Ok(v as u32 & mask);
    }
    if l.contains("nan") {
        return Err(format!(
            "NaN has many encodings in {dtype}: write its bits (e.g. {:#x})",
            from_f32(dtype, f32::NAN, fp8)
        ));
    }
    let f = parse_f32(t)?;
    check_exact_literal(t, f, dtype)?;
    let enc = from_f32(dtype, f, fp8);
    if to_f32(dtype, enc, fp8).to_bits() != f.to_bits() {
        return Err(format!(
            "`{t}` is not exactly representable in {dtype} (nearest: {enc:#x} = {}); write \
             the value or its bits",
            element_text(enc, dtype, fp8)
        ));
    }
    Ok(enc)
}

/// The reading of a literal as the nearest fp32 is silent only for a decimal fraction
/// (`0.1`, which no binary float holds): an integer literal must be that fp32 exactly
/// (`16777217` is not), and a nonzero literal must not underflow to zero (`1e-50`).
fn check_exact_literal(t: &str, f: f32, dtype: Dtype) -> Result<(), String> {
    let l = t.to_ascii_lowercase().replace('_', "");
    let magnitude = l.trim_start_matches(['+', '-']);
    if !magnitude.is_empty() && magnitude.bytes().all(|b| b.is_ascii_digit()) {
        // fp32's largest finite value is below 2^128, so an integer one fits u128 exactly.
        let exact = magnitude.parse::<u128>().ok() == Some(f.abs() as u128);
        if !exact {
            return Err(format!(
                "`{t}` is not exactly representable in {dtype} (it rounds to {} in fp32); \
                 write a value the type holds, or its bits",
                f32_text(f.to_bits())
            ));
        }
        return Ok(());
    }
    let mantissa = magnitude.split('e').next().unwrap_or("");
    if f == 0.0 && mantissa.bytes().any(|b| (b'1'..=b'9').contains(&b)) {
        return Err(format!(
            "`{t}` underflows to 0 in fp32 (the smallest nonzero fp32 is 1e-45); write 0 \
             for zero"
        ));
    }
    Ok(())
}

/// Parses a float literal (`1.5`, `-3.4028235e38`, `inf`, `-inf`) as the nearest fp32.
fn parse_f32(t: &str) -> Result<f32, String> {
    let l = t.to_ascii_lowercase();
    let f = match l.as_str() {
        "inf" | "+inf" => f32::INFINITY,
        "-inf" => f32::NEG_INFINITY,
        _ => l
            .replace('_', "")
            .parse::<f32>()
            .map_err(|_| format!("`{t}` is not a number"))?,
    };
    check_no_overflow(t, f.to_bits())?;
    Ok(f)
}

/// The exact value of an element: integers in decimal, floats as the shortest literal that
/// reads back to the same value, NaN as `nan`.
pub fn element_text(bits: u32, dtype: Dtype, fp8: &Fp8Config) -> String {
    match int_kind(dtype) {
        Some(true) => {
            let sh = 32 - width(dtype);
            (((bits << sh) as i32) >> sh).to_string()
        }
        Some(false) => bits.to_string(),
        None => {
            let f = to_f32(dtype, bits, fp8);
            if f.is_nan() {
                "nan".into()
            } else if dtype == Dtype::FP32 || dtype == Dtype::FP32R {
                f32_text(bits)
            } else {
                format!("{f:?}")
            }
        }
    }
}

/// A value in at most `w` characters for the `.show` grid: integers exactly, floats with at
/// most four significant digits (`8.375`, `-13.44`, `0.2754`, `1.2e-7`, `-inf`).
pub fn compact_text(bits: u32, dtype: Dtype, fp8: &Fp8Config, w: usize) -> String {
    let f = to_f32(dtype, bits, fp8);
    if int_kind(dtype).is_some() || !f.is_finite() || f == 0.0 {
        return element_text(bits, dtype, fp8);
    }
    let trim = |t: String| -> String {
        match t.split_once('e') {
            Some((m, e)) if m.contains('.') => {
                format!("{}e{e}", m.trim_end_matches('0').trim_end_matches('.'))
            }
            None if t.contains('.') => t.trim_end_matches('0').trim_end_matches('.').into(),
            _ => t,
        }
    };
    let e = f.abs().log10().floor();
    if (-3.0..5.0).contains(&e) {
        for sig in (1..=4).rev() {
            let d = (sig - 1 - e as i32).max(0) as usize;
            let fixed = trim(format!("{f:.d$}"));
            if fixed.len() <= w {
                return fixed;
            }
        }
    }
    for p in (0..4).rev() {
        let sci = trim(format!("{f:.p$e}"));
        if sci.len() <= w {
            return sci;
        }
    }
    format!("{f:e}")
}

#[cfg(test)]
mod tests {
    use super::*;

    const CFG: Fp8Config = Fp8Config {
        ocp_sat: false,
        e4m3: tpb_sim::numerics::E4m3Variant::Ieee,
    };

    #[test]
    fn register_values() {
        assert_eq!(parse_register_value("-3.4028235e38"), Ok(0xFF7F_FFFF));
        assert_eq!(parse_register_value("7"), Ok(7));
        assert_eq!(parse_register_value("-1"), Ok(u32::MAX));
        assert_eq!(parse_register_value("0x7fc00001"), Ok(0x7FC0_0001));
        assert_eq!(parse_register_value("-inf"), Ok(0xFF80_0000));
        assert_eq!(parse_register_value("1.5"), Ok(1.5f32.to_bits()));
        assert!(parse_register_value("1e39")
            .unwrap_err()
            .contains("beyond the fp32 range"));
        assert!(parse_register_value("seven").is_err());
    }

    #[test]
    fn element_literals_are_exact() {
        assert_eq!(parse_element("-inf", Dtype::BFLOAT16, &CFG), Ok(0xFF80));
        assert_eq!(parse_element("0.5", Dtype::BFLOAT16, &CFG), Ok(0x3F00));
        assert_eq!(parse_element("0x7fc1", Dtype::BFLOAT16, &CFG), Ok(0x7FC1));
        assert!(parse_element("0x17fc1", Dtype::BFLOAT16, &CFG)
            .unwrap_err()
            .contains("16 bits"));
        let e = parse_element("0.1", Dtype::BFLOAT16, &CFG).unwrap_err();
        assert!(
            e.contains("not exactly representable") && e.contains("0x3dcd"),
            "{e}"
        );
        assert_eq!(
            parse_element("0.1", Dtype::FP32, &CFG),
            Ok(0.1f32.to_bits())
        );
        assert!(parse_element("nan", Dtype::FP32, &CFG)
            .unwrap_err()
            .contains("0x7fc00000"));
        assert_eq!(parse_element("-1", Dtype::INT8, &CFG), Ok(0xFF));
        assert_eq!(parse_element("255", Dtype::UINT8, &CFG), Ok(0xFF));
        assert!(parse_element("256", Dtype::UINT8, &CFG).is_err());
        assert!(parse_element("1.5", Dtype::INT32, &CFG).is_err());
        assert_eq!(parse_element("240", Dtype::FP8_EXP4, &CFG), Ok(0x77));
    }

    /// Issue 20 item 15: integer literals and underflow are exact or refused.
    #[test]
    fn float_literals_are_exact_or_refused() {
        let fp32 = |s| parse_element(s, Dtype::FP32, &CFG);
        assert_eq!(fp32("16777216"), Ok(0x4B80_0000));
        assert!(fp32("16777217")
            .unwrap_err()
            .contains("not exactly representable"));
        assert_eq!(fp32("-16777218"), Ok(0xCB80_0001));
        assert_eq!(
            fp32("340282346638528859811704183484516925440"),
            Ok(0x7F7F_FFFF)
        );
        assert!(fp32("340282346638528859811704183484516925441").is_err());
        assert!(fp32("1e-50").unwrap_err().contains("underflows to 0"));
        assert!(fp32("0.0000000000000000000000000000000000000000000000001")
            .unwrap_err()
            .contains("underflows"));
        assert_eq!(fp32("0e-50"), Ok(0));
        assert_eq!(fp32("-0.0"), Ok(0x8000_0000));
        assert_eq!(
            fp32("1e-45"),
            Ok(1),
            "the nearest subnormal is not an underflow"
        );
        assert_eq!(parse_element("0.1", Dtype::FP32, &CFG), Ok(0x3DCC_CCCD));
        assert!(parse_element("16777217", Dtype::BFLOAT16, &CFG).is_err());
        assert!(parse_element("1e-50", Dtype::FP16, &CFG).is_err());
    }

    #[test]
    fn formatting() {
        assert_eq!(element_text(0xFF80, Dtype::BFLOAT16, &CFG), "-inf");
        assert_eq!(element_text(0x3F00, Dtype::BFLOAT16, &CFG), "0.5");
        assert_eq!(element_text(0xFFFF, Dtype::INT16, &CFG), "-1");
        assert_eq!(
            element_text(0xFF7F_FFFF, Dtype::FP32, &CFG),
            "-3.4028235e38"
        );
        assert_eq!(element_text(0x7FC1, Dtype::BFLOAT16, &CFG), "nan");
        assert_eq!(
            compact_text(0.123456f32.to_bits(), Dtype::FP32, &CFG, 6),
            "0.1235"
        );
        assert_eq!(compact_text(0x4157_0000, Dtype::FP32, &CFG, 6), "13.44");
        assert_eq!(
            compact_text(0.27539f32.to_bits(), Dtype::FP32, &CFG, 7),
            "0.2754"
        );
        assert_eq!(
            compact_text(123456.7f32.to_bits(), Dtype::FP32, &CFG, 7),
            "1.235e5"
        );
        assert_eq!(compact_text(0xFF7F_FFFF, Dtype::FP32, &CFG, 7), "-3.4e38");
        assert_eq!(
            compact_text(1e-7f32.to_bits(), Dtype::FP32, &CFG, 6),
            "1e-7"
        );
        assert_eq!(
            compact_text(1.2345e-7f32.to_bits(), Dtype::FP32, &CFG, 6),
            "1.2e-7"
        );
    }
}
