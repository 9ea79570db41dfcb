//! Bounded cost on hostile text (issue 8 item 1): the assembler's error reporting is linear in
//! the line length and stops at `MAX_ASM_ERRORS`, saying so in its last error.

use tpb_isa::text::{asm, AsmOptions, MAX_ASM_ERRORS};
use tpb_isa::Gen;

fn options() -> AsmOptions {
    AsmOptions::new(Gen::Cayman)
}

#[test]
fn a_long_line_of_errors_is_capped_and_says_so_last() {
    // 400 000 bad words on one line (2 MB): quadratic column counting took minutes here.
    let src = format!("iota {}", "iota ".repeat(400_000));
    let errors = asm(&src, &options()).unwrap_err();
    assert!(errors.is_truncated());
    assert_eq!(errors.len(), MAX_ASM_ERRORS + 1);
    let last = errors.iter().last().unwrap();
    assert!(last.message.contains("too many errors"), "{last}");
    assert!(last.message.contains(&MAX_ASM_ERRORS.to_string()), "{last}");
    // Columns stay exact: the k-th bad word starts at character 6 + 5k.
    for (k, e) in errors.iter().take(MAX_ASM_ERRORS).enumerate() {
        assert_eq!(e.column, 6 + 5 * k, "{e}");
    }
}

#[test]
fn many_lines_of_errors_stop_at_the_cap() {
    let src = "bogus\n".repeat(100_000);
    let errors = asm(&src, &options()).unwrap_err();
    assert!(errors.is_truncated());
    assert_eq!(errors.len(), MAX_ASM_ERRORS + 1);
    assert_eq!(errors.iter().last().unwrap().line, MAX_ASM_ERRORS + 1);
}

#[test]
fn unknown_fields_with_long_messages_are_capped_within_a_line() {
    let src = format!("iota {}", "x=1 ".repeat(200_000));
    let errors = asm(&src, &options()).unwrap_err();
    assert_eq!(errors.len(), MAX_ASM_ERRORS + 1);
}

#[test]
fn exactly_the_cap_is_not_called_truncated() {
    let src = "bogus\n".repeat(MAX_ASM_ERRORS);
    let errors = asm(&src, &options()).unwrap_err();
    assert!(!errors.is_truncated());
    assert_eq!(errors.len(), MAX_ASM_ERRORS);
    assert!(errors
        .iter()
        .all(|e| e.message.contains("unknown mnemonic")));
}

#[test]
fn columns_count_characters_not_bytes_on_a_capped_line() {
    // A two-byte character before every bad word.
    let src = format!("iota {}", "é ".repeat(300));
    let errors = asm(&src, &options()).unwrap_err();
    for (k, e) in errors.iter().take(MAX_ASM_ERRORS).enumerate() {
        assert_eq!(e.column, 6 + 2 * k, "{e}");
    }
}

/// Issue 8 item 8: a finite float literal beyond the fp32 range is an error, not a silent
/// infinity (as `--reg` already refuses it); infinity is written `inf`.
#[test]
fn out_of_range_float_literals_are_refused() {
    let line = |imm: &str| {
        format!(
            "ts_arith src=sbuf[p0..64]+0x0:[[1,32]] in=fp32 out=fp32 op0=add imm0={imm} \
             dst=sbuf[p0..64]+0x100:[[1,32]]"
        )
    };
    for bad in ["1e39", "3.4028236e38", "1e400", "-1e39"] {
        let e = asm(&line(bad), &options()).unwrap_err();
        let msg = &e.iter().next().unwrap().message;
        assert!(msg.contains("beyond the fp32 range"), "{bad}: {msg}");
        assert!(msg.contains("`inf`"), "{bad}: {msg}");
    }
    for (ok, bits) in [
        ("inf", 0x7f80_0000u32),
        ("-inf", 0xff80_0000),
        ("3.4028235e38", 0x7f7f_ffff),
        ("1e-50", 0), // underflow to zero is rounding, not a change of kind
    ] {
        let a = asm(&line(ok), &options()).unwrap_or_else(|e| panic!("{ok}: {e}"));
        let hex = asm(&line(&format!("{bits:#x}")), &options()).unwrap();
        assert_eq!(a.insts(), hex.insts(), "{ok}");
    }
    // The RangeSelect FP32 fields share the rule.
    let rs = "range_select base=1e39";
    let e = asm(rs, &options()).unwrap_err();
    assert!(
        e.iter()
            .any(|e| e.message.contains("beyond the fp32 range")),
        "{e}"
    );
}

/// Issue 8 item 9: `0x-5` and `0b-1` are not numbers (a sign goes before the prefix).
#[test]
fn a_sign_after_a_radix_prefix_is_refused() {
    use tpb_isa::wire::field::parse_int;
    for bad in ["0x-5", "0b-1", "0x+5", "-0x-5"] {
        assert_eq!(parse_int(bad), None, "{bad}");
    }
    assert_eq!(parse_int("-0x5"), Some(-5));
    assert_eq!(parse_int("0b101"), Some(5));
}

/// Issue 8 item 18: Iota/AffineSelect `base` and `channel_multiplier` take hex bit patterns
/// as registers do (`0xffffffff` = -1).
#[test]
fn signed_words_take_hex_bit_patterns() {
    let hex = "affine_select channels=128 dtypes=fp32->bf16 cmp=ge fill_reg=7 \
               mask=0xffffff00:[[-1,512]] channel_multiplier=0xffffffff \
               src=sbuf[p0..128]+0x0:[[1,512]] dst=sbuf[p0..128]+0x800:[[1,512]]";
    let dec = "affine_select channels=128 dtypes=fp32->bf16 cmp=ge fill_reg=7 \
               mask=-256:[[-1,512]] channel_multiplier=-1 \
               src=sbuf[p0..128]+0x0:[[1,512]] dst=sbuf[p0..128]+0x800:[[1,512]]";
    let (a, b) = (asm(hex, &options()).unwrap(), asm(dec, &options()).unwrap());
    assert_eq!(a.insts(), b.insts());
    let iota = "iota channels=128 out=fp32 src=0x80000000:[[1,64]] dst=sbuf[p0..128]+0x0:[[1,64]]";
    let text = tpb_isa::text::disasm(&asm(iota, &options()).unwrap().insts()[0], Gen::Cayman);
    assert!(text.contains("src_data_pattern=-2147483648:"), "{text}");
    let e = asm(&iota.replace("0x80000000", "0x100000000"), &options()).unwrap_err();
    assert!(
        e.iter().any(|e| e.message.contains("32-bit pattern")),
        "{e}"
    );
}
