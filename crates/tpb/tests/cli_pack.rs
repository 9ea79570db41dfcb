//! `tpb pack` end to end: the built binary, its text and JSON output and its errors
//! (seed 001; isa-facts §3.4 error texts; issue 3 item 2).

use std::process::{Command, Output};

fn tpb(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tpb"))
        .arg("pack")
        .args(args)
        .output()
        .expect("spawn tpb")
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).unwrap()
}

const EXAMPLE: &[&str] = &[
    "--gen",
    "cayman",
    "--space",
    "sbuf",
    "--partitions",
    "0..128",
    "--offset",
    "0x400",
    "--dims",
    "[[64,2],[1,64]]",
    "--nd",
    "4",
];

#[test]
fn text_output_of_the_documented_example() {
    let o = tpb(EXAMPLE);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        stdout(&o),
        "descriptor:          TENSOR4D sbuf[p0]+0x400:[[1,64],[64,2],[1,1],[1,1]]\n\
         num_active_channels: 128\n\
         active_dims:         3 (limit 5)\n\
         slots:               [Pattern[2], Pattern[1], fill, fill]\n\
         bytes:               00 04 00 00 01 00 40 00 01 00 01 00 40 00 02 00 01 00 01 00\n"
    );
}

#[test]
fn innermost_first_flag_gives_the_same_descriptor() {
    let o = tpb(&[
        "--partitions",
        "0..128",
        "--offset",
        "0x400",
        "--dims",
        "[[1,64],[64,2]]",
        "--innermost-first",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(stdout(&o), stdout(&tpb(EXAMPLE)));
}

#[test]
fn json_output() {
    let mut args = EXAMPLE.to_vec();
    args.push("--json");
    let o = tpb(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(v["type"], "TENSOR4D");
    assert_eq!(v["text"], "sbuf[p0]+0x400:[[1,64],[64,2],[1,1],[1,1]]");
    assert_eq!(v["start_addr"], 0x400);
    assert_eq!(v["step_elem"], serde_json::json!([1, 64, 1, 1]));
    assert_eq!(v["num_elem"], serde_json::json!([64, 2, 1, 1]));
    assert_eq!(v["num_active_channels"], 128);
    assert_eq!(v["slot_source"], serde_json::json!([2, 1, null, null]));
    assert_eq!(v["bytes"], "0004000001004000010001004000020001000100");
}

// seed 001: PSUM folding (0x2000000 + p*32KiB + off) and a TENSOR3D of 16 bytes.
#[test]
fn psum_3d() {
    let o = tpb(&[
        "--gen",
        "sunda",
        "--space",
        "psum",
        "--partitions",
        "32..64",
        "--dims",
        "[[-1,8]]",
        "--nd",
        "3",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let s = stdout(&o);
    assert!(
        s.contains("TENSOR3D psum[p32]+0x0:[[-1,8],[1,1],[1,1]]"),
        "{s}"
    );
    assert!(s.contains("num_active_channels: 32"), "{s}");
    // 0x2000000 + 32 * 0x8000 = 0x2100000 -> 00 00 10 02; step -1 -> ff ff.
    assert!(
        s.contains("bytes:               00 00 10 02 ff ff 01 00 01 00 08 00 01 00 01 00"),
        "{s}"
    );
}

// decisions §1.5 GOTCHA: --explicit keeps PtrMulti's W in num_elem[3].
#[test]
fn explicit_keeps_slots() {
    let dims = "[[16,4],[16,1],[8,2],[1,8]]";
    let o = tpb(&["--dims", dims]);
    assert!(
        stdout(&o).contains(":[[1,8],[8,2],[16,4],[1,1]]"),
        "{}",
        stdout(&o)
    );
    let o = tpb(&["--dims", dims, "--explicit"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stdout(&o).contains(":[[1,8],[8,2],[16,1],[16,4]]"),
        "{}",
        stdout(&o)
    );
}

fn fails_with(args: &[&str], want: &str) {
    let o = tpb(args);
    assert!(!o.status.success(), "expected failure for {args:?}");
    assert!(o.stdout.is_empty());
    let e = stderr(&o);
    assert_eq!(e.lines().count(), 1, "one line on stderr: {e}");
    assert!(e.contains(want), "stderr `{e}` lacks `{want}`");
}

// isa-facts §3.4: the compiler's exact active-dimension texts.
#[test]
fn errors_are_one_line() {
    fails_with(
        &["--dims", "[[32,2],[16,2],[8,2],[4,2],[2,2]]"],
        "Illegal ISA memory access dimension: 6, which must be in range of [1, 4]D tensor for ISA mem pattern",
    );
    fails_with(
        &["--dims", "[[16,2],[8,2],[4,2],[2,2]]", "--nd", "3"],
        "Illegal ISA memory access dimension 5, which must be in range of [1, 3]D tensor for ISA mem pattern",
    );
    fails_with(&["--dims", "[[40000,2]]"], "Pattern[1] step 40000");
    fails_with(&["--dims", "[[1,2],[1,0]]"], "Pattern[2] num is 0");
    fails_with(&["--dims", "[[1,70000]]"], "Pattern[1] num 70000");
    fails_with(
        &["--gen", "maverick", "--space", "psum"],
        "psum is not available on maverick",
    );
    fails_with(&["--partitions", "100..129"], "exceed the 128 partitions");
    fails_with(
        &["--partition-step", "-1"],
        "Negative step in Pattern[0] not supported",
    );
    fails_with(&["--dims", "[[1,2"], "--dims");
    fails_with(&["--partitions", "x"], "--partitions");
}
