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
