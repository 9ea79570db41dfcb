//! `tpb asm` / `tpb disasm` end to end (issue 3 item 1): the round trip on the shipped
//! programs, every error of a file with line and column, and validation unless
//! `--no-validate`. Exit status (docs/cli-isa.md): 2 for a file that does not assemble (an
//! input error, issue 29 item 5), 1 for instructions that break the generation's rules.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn tpb(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tpb"))
        .args(args)
        .output()
        .expect("run tpb")
}

fn example(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples")
        .join(name)
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tpb-cli-asm-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

#[test]
fn disasm_then_asm_gives_back_the_bytes() {
    for (file, gen, extra) in [
        ("causal_mask.bin", "cayman", None),
        ("bad_bundles.bin", "sunda", Some("--no-validate")),
        ("bad_bundles.bin", "maverick", Some("--no-validate")),
    ] {
        let path = example(file);
        let d = tpb(&["disasm", "--gen", gen, path.to_str().unwrap()]);
        assert!(d.status.success(), "{}", String::from_utf8_lossy(&d.stderr));
        let text = scratch(&format!("{file}.{gen}.tpb"));
        std::fs::write(&text, &d.stdout).unwrap();
        let out = scratch(&format!("{file}.{gen}.bin"));
        let mut args = vec!["asm", text.to_str().unwrap(), "-o", out.to_str().unwrap()];
        args.extend(extra);
        let a = tpb(&args);
        assert!(a.status.success(), "{}", String::from_utf8_lossy(&a.stderr));
        assert_eq!(
            std::fs::read(&out).unwrap(),
            std::fs::read(&path).unwrap(),
            "{file} on {gen}"
        );
    }
}

#[test]
fn every_assembly_error_is_reported_with_line_and_column() {
    let src = scratch("bad.tpb");
    std::fs::write(
        &src,
        "# two bad lines\naffine_select dtypes=fp33->bf16\niota bogus=1\n",
    )
    .unwrap();
    let out = scratch("bad.bin");
    let r = tpb(&["asm", src.to_str().unwrap(), "-o", out.to_str().unwrap()]);
    assert_eq!(r.status.code(), Some(2), "a syntax error is an input error");
    let err = String::from_utf8_lossy(&r.stderr);
    assert!(err.contains("bad.tpb:2:"), "{err}");
    assert!(
        err.contains("unknown dtype `fp33`; expected one of"),
        "{err}"
    );
    assert!(err.contains("bad.tpb:3:6: unknown field `bogus`"), "{err}");
    assert!(err.contains("2 assembly error(s)"), "{err}");
    assert!(!out.exists(), "nothing is written on error");
}

#[test]
fn asm_validates_unless_told_not_to() {
    // W = 9 breaks has_valid_src_slices_tsm_singular (seed 000 §5a).
    let src = scratch("w9.tpb");
    std::fs::write(
        &src,
        "ptr_multi_arith src=sbuf[p0..128]+0x0:[[1,4],[1,1],[1,1],[1,9]] dst=sbuf[p0..128]+0x100:[[1,4],[1,1],[1,1],[1,9]] in_dtype=fp32 out_dtype=fp32 op=mult op_dim=xyz\n",
    )
    .unwrap();
    let out = scratch("w9.bin");
    let r = tpb(&["asm", src.to_str().unwrap(), "-o", out.to_str().unwrap()]);
    assert_eq!(r.status.code(), Some(1));
    let err = String::from_utf8_lossy(&r.stderr);
    assert!(err.contains("has_valid_src_slices_tsm_singular"), "{err}");
    let r = tpb(&[
        "asm",
        "--no-validate",
        src.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ]);
    assert!(r.status.success());
    assert_eq!(std::fs::read(&out).unwrap().len(), 64);
}

/// Issue 8 item 1: a line of 200 000 errors is reported up to the cap, and the last line says
/// that the rest was cut.
#[test]
fn a_flood_of_errors_is_capped_and_the_last_line_says_so() {
    let src = scratch("flood.tpb");
    std::fs::write(&src, format!("iota {}\n", "iota ".repeat(200_000))).unwrap();
    let out = scratch("flood.bin");
    let r = tpb(&["asm", src.to_str().unwrap(), "-o", out.to_str().unwrap()]);
    assert_eq!(r.status.code(), Some(2));
    let err = String::from_utf8_lossy(&r.stderr);
    assert_eq!(
        err.lines().count(),
        102,
        "100 errors, the cap note, the summary"
    );
    let last = err.lines().last().unwrap();
    assert!(last.contains("more than 100 assembly errors"), "{last}");
    assert!(last.contains("only the first 100 are reported"), "{last}");
}

/// Issue 29 item 5: a 10 MB literal is not echoed whole. Each quoted piece of the source is cut
/// in the message (its length said), so stderr stays small whatever the file holds; `tpb run`
/// of the same file too.
#[test]
fn a_long_literal_is_cut_in_the_message() {
    const HUGE: usize = 10 << 20;
    let src = scratch("huge.tpb");
    std::fs::write(
        &src,
        format!(
            "iota dst={}\n{}\niota src={}:[[1,1]]\n",
            "9".repeat(HUGE),
            "x".repeat(HUGE),
            "\u{1b}".repeat(1000)
        ),
    )
    .unwrap();
    let out = scratch("huge.bin");
    for args in [
        vec!["asm", src.to_str().unwrap(), "-o", out.to_str().unwrap()],
        vec!["run", src.to_str().unwrap()],
    ] {
        let r = tpb(&args);
        assert_eq!(r.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&r.stderr);
        assert!(
            err.len() < 16 << 10,
            "{args:?}: {} bytes of stderr",
            err.len()
        );
        assert!(err.contains(":1:10: "), "{args:?}: {err}");
        assert!(err.contains(":2:1: unknown mnemonic `xxxx"), "{err}");
        assert!(
            err.contains(&format!("({HUGE} characters)")),
            "the message says how long the literal was: {err}"
        );
        assert!(
            err.contains("expected one of"),
            "the rest of the message stays: {err}"
        );
        assert!(!err.contains('\u{1b}'), "{err:?}");
    }
    assert!(!out.exists());
}
