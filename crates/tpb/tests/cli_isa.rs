//! `tpb decode`, `tpb validate` and `tpb explain` end to end (issue 2, items 4 and 5): the
//! built binary on the example programs, golden files for the human output, JSON keys,
//! the verdict matrix and the one-line errors.
//!
//! Golden files live in `tests/golden/`; the example programs in `examples/` are generated
//! here. `TPB_BLESS=1 cargo test -p tpb --test cli_isa` rewrites both.

#[path = "../../tpb-isa/tests/support/golden.rs"]
mod golden;
use golden::bless;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use tpb_isa::geometry::Space;
use tpb_isa::wire::*;
use tpb_isa::*;

// ---- the example programs ---------------------------------------------------------------

fn sbuf(off: u32) -> Addr4 {
    // Partition 0 has the same address on every generation, so the bytes are gen-free.
    Addr4::at(Gen::Cayman, Space::Sbuf, 0, off).unwrap()
}

fn t2(off: u32, pairs: [(i16, u16); 2]) -> Tensor2 {
    Tensor2 {
        start_addr: sbuf(off),
        step_elem: pairs.map(|p| p.0),
        num_elem: pairs.map(|p| p.1),
    }
}

fn t3(off: u32, pairs: [(i16, u16); 3]) -> Tensor3 {
    Tensor3 {
        start_addr: sbuf(off),
        step_elem: pairs.map(|p| p.0),
        num_elem: pairs.map(|p| p.1),
    }
}

fn with_body(op: Opcode, body: Body) -> Instruction {
    let mut i = Instruction::new(op, Gen::Sunda);
    i.body = body;
    i
}

/// `scores *= 0.125` over two 128×512 fp32 score tiles at sbuf+0x0 and sbuf+0x800
/// (1024 elements per partition), then signal semaphore 1.
fn scale_scores() -> Instruction {
    let tiles = t3(0, [(1, 512), (512, 2), (1, 1)]);
    let mut i = with_body(
        Opcode::TENSOR_SCALAR_ARITH,
        Body::S3d3Ts(S3d3Ts {
            src_mem_pattern: tiles,
            in_dtype: Dtype::FP32,
            out_dtype: Dtype::FP32,
            num_active_channels: 128,
            op0: AluOp::MULT,
            op1: AluOp::BYPASS,
            imm0: ImmVal(0.125f32.to_bits()),
            dst_mem_pattern: tiles,
            ..Default::default()
        }),
    );
    i.events.update_mode = UpdateMode::SEM_INC_COMPLETE;
    i.events.update_idx = 1;
    i
}

/// The nki-library causal mask (nki-semantics §1.1): keep score[q, k] where
/// `(q0 + p) - (k0 + x) >= 0`, else the fill value held in register 0 (−FLT_MAX, set by the
/// host); fp32 scores in, bf16 out. `pattern=[[-1, 512]]`, `channel_multiplier=1`.
fn causal_mask(q0: i32, src: u32, dst: u32) -> Instruction {
    with_body(
        Opcode::TENSOR_SCALAR_AFFINE_SELECT,
        Body::S2d2TsAs(S2d2TsAs {
            num_active_channels: 128,
            in_out_dtype: DtypePair::new(Dtype::FP32, Dtype::BFLOAT16),
            fill_mode: AffineSelectCmp::GREATER_THAN_EQ,
            fill_reg: 0,
            mask_pattern: Data4d {
                base: q0,
                step_elem: [-1, 1, 1, 1],
                num_elem: [512, 1, 1, 1],
            },
            src_mem_pattern: t2(src, [(1, 512), (1, 1)]),
            dst_mem_pattern: t2(dst, [(1, 512), (1, 1)]),
            channel_multiplier: 1,
        }),
    )
}

/// `examples/causal_mask.bin`: scale two query tiles of attention scores, then mask each
/// causally (query tiles q0 = 0 and q0 = 128 against keys 0..512). Valid on every generation.
fn causal_mask_program() -> Vec<Instruction> {
    let mut first = causal_mask(0, 0x0, 0x1000);
    first.events.wait_mode = WaitMode::SEM_GE_IMM;
    first.events.wait_idx = 1;
    first.events.semaphore_value = 1;
    let mut second = causal_mask(128, 0x800, 0x1400);
    second.events.update_mode = UpdateMode::SEM_INC_COMPLETE;
    second.events.update_idx = 2;
    vec![scale_scores(), first, second]
}

/// PtrMulti (0x4F, or sunda's Dual 0x87) with W scalars: fp32 × 128 channels.
fn ptr_multi(op: Opcode, w: u16) -> Instruction {
    let t4 = |off| Tensor4 {
        start_addr: sbuf(off),
        step_elem: [1, 1, 1, 1],
        num_elem: [16, 1, 1, w],
    };
    with_body(
        op,
        Body::S4d4Tsm(S4d4Tsm {
            src_mem_pattern: t4(0),
            in_dtype: Dtype::FP32,
            out_dtype: Dtype::FP32,
            num_active_channels: 128,
            op: AluOp::MULT,
            op_dim: TensorSubdim::XYZ,
            dst_mem_pattern: t4(0x1000),
            ..Default::default()
        }),
    )
}

/// A RangeSelect (0xBC) that is valid from cayman on.
fn range_select() -> Instruction {
    with_body(
        Opcode::RANGE_SELECT,
        Body::S2d2Rs(S2d2Rs {
            num_active_channels: 128,
            in_out_dtype: DtypePair::new(Dtype::FP32, Dtype::BFLOAT16),
            reduce_cmd: AccumCmd::IDLE,
            reduce_op: AluOp::MAX,
            fill_val: F32Bits(f32::MIN.to_bits()),
            src_mem_pattern: t2(0, [(1, 256), (1, 1)]),
            comp_op0: AluOp::IS_GE,
            comp_op1: AluOp::IS_LT,
            bound1: ImmVal(128.0f32.to_bits()),
            dst_mem_pattern: t2(0x400, [(1, 256), (1, 1)]),
            ..Default::default()
        }),
    )
}

fn ts(i: &mut Instruction) -> &mut S3d3Ts {
    match &mut i.body {
        Body::S3d3Ts(s) => s,
        _ => unreachable!("built as S3D3_TS"),
    }
}

/// `examples/bad_bundles.bin`: one bundle per kind of failure (each otherwise valid).
/// The last two depend on the generation: 0x87 exists only on sunda, RangeSelect only
/// from cayman.
fn bad_bundles() -> Vec<Instruction> {
    let mut header = causal_mask(0, 0x0, 0x1000);
    header.header.inst_word_len = 0x11; // header: inst_word_len != 0x10
    let mut unmodelled = Instruction::new(Opcode(0x93), Gen::Cayman); // TransposeTensorScalarArith
    unmodelled.body = Body::Opaque(Opaque::default());
    let mut event = scale_scores();
    event.events.wait_mode = WaitMode(0x08); // not a WAIT_MODE
    let mut channels = causal_mask(0, 0x0, 0x1000);
    if let Body::S2d2TsAs(s) = &mut channels.body {
        s.num_active_channels = 129; // > 128
    }
    let mut dtype = scale_scores();
    ts(&mut dtype).in_dtype = Dtype::FP32R; // fp32r is an output-only dtype
    let mut reserved = scale_scores();
    ts(&mut reserved).reserved0 = Bytes([0, 0x5A, 0]);
    let mut aligned = scale_scores();
    ts(&mut aligned).src_mem_pattern.start_addr = sbuf(0x2); // fp32 needs 4-byte alignment
    let w9 = ptr_multi(Opcode::TENSOR_SCALAR_PTR_MULTI_ARITH, 9); // W ∈ 1..=8
    let dual = ptr_multi(Opcode(0x87), 4); // sunda only
    vec![
        header,
        unmodelled,
        event,
        channels,
        dtype,
        reserved,
        aligned,
        w9,
        dual,
        range_select(),
    ]
}

// ---- harness ------------------------------------------------------------------------------

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Compares `actual` with its golden file (one bless helper: `support/golden.rs`).
fn check_file(path: &Path, actual: &[u8]) {
    golden::check_file(path, actual);
}

fn tpb(args: &[&str]) -> Output {
    // Under TPB_BLESS the examples are rewritten before any command reads them.
    if bless() {
        write_examples();
    }
    Command::new(env!("CARGO_BIN_EXE_tpb"))
        .current_dir(root())
        .args(args)
        .output()
        .expect("spawn tpb")
}

fn text(b: &[u8]) -> String {
    String::from_utf8(b.to_vec()).unwrap()
}

/// Runs `tpb args…`, checks the exit code and an empty stderr, and compares stdout with
/// `tests/golden/<name>.txt`.
fn golden(name: &str, args: &[&str], code: i32) {
    let o = tpb(args);
    assert_eq!(
        o.status.code(),
        Some(code),
        "tpb {args:?}: stderr {}",
        text(&o.stderr)
    );
    assert_eq!(text(&o.stderr), "", "tpb {args:?}");
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("tests/golden/{name}.txt"));
    check_file(&path, &o.stdout);
}

fn hex_of(i: &Instruction) -> String {
    i.encode().iter().map(|b| format!("{b:02x}")).collect()
}

const CAUSAL: &str = "examples/causal_mask.bin";
const BAD: &str = "examples/bad_bundles.bin";

// ---- the examples are what the generators say ----------------------------------------------

/// Checks (or, under TPB_BLESS, rewrites) the example programs, once per run: their one
/// writer, so no command reads them while they are rewritten.
fn write_examples() {
    static EXAMPLES: std::sync::Once = std::sync::Once::new();
    EXAMPLES.call_once(write_example_files);
}

fn write_example_files() {
    check_file(
        &root().join(CAUSAL),
        &encode_program(&causal_mask_program()),
    );
    check_file(&root().join(BAD), &encode_program(&bad_bundles()));
}

#[test]
fn example_programs_are_generated() {
    write_examples();
}

#[test]
fn generators_mean_what_they_say() {
    use tpb_isa::validate::validate;
    for g in Gen::ALL {
        for i in causal_mask_program() {
            let r = validate(&Instruction::decode(&i.encode(), g), g);
            assert!(
                r.is_valid() && r.lints().count() == 0,
                "{g}: {:?}",
                r.findings
            );
        }
    }
    // Every bad bundle but the two generation-dependent ones fails on every generation.
    let bad = bad_bundles();
    for (n, i) in bad.iter().enumerate() {
        for g in Gen::ALL {
            let valid = validate(&Instruction::decode(&i.encode(), g), g).is_valid();
            let expect = match n {
                8 => g == Gen::Sunda,
                9 => g != Gen::Sunda,
                _ => false,
            };
            assert_eq!(valid, expect, "bundle {n} on {g}");
        }
    }
}

// ---- golden human output --------------------------------------------------------------------

#[test]
fn decode_golden() {
    golden("decode_causal_cayman", &["decode", CAUSAL], 0);
    golden(
        "decode_causal_sunda",
        &["decode", "--gen", "sunda", CAUSAL],
        0,
    );
    golden("decode_bad_cayman", &["decode", BAD], 0);
    golden("decode_bad_sunda", &["decode", "--gen", "sunda", BAD], 0);
}

#[test]
fn validate_golden() {
    golden("validate_causal_cayman", &["validate", CAUSAL], 0);
    golden(
        "validate_causal_all",
        &["validate", "--all-gens", CAUSAL],
        0,
    );
    golden("validate_bad_cayman", &["validate", BAD], 1);
    golden(
        "validate_bad_sunda",
        &["validate", "--gen", "sunda", BAD],
        1,
    );
    golden("validate_bad_all", &["validate", "--all-gens", BAD], 1);
}

#[test]
fn explain_golden() {
    golden("explain_causal_cayman", &["explain", CAUSAL], 0);
    golden("explain_causal_all", &["explain", "--all-gens", CAUSAL], 0);
    golden(
        "explain_bad_maverick",
        &["explain", "--gen", "maverick", BAD],
        0,
    );
}

// ---- --hex, the verdict matrix and generation-dependent decoding -----------------------------

#[test]
fn hex_input_matches_the_file() {
    let spaced: String = encode_program(&causal_mask_program())
        .chunks(4)
        .map(|w| {
            format!(
                "0x{} ",
                w.iter().map(|b| format!("{b:02x}")).collect::<String>()
            )
        })
        .collect();
    for cmd in ["decode", "validate", "explain"] {
        let a = tpb(&[cmd, CAUSAL]);
        let b = tpb(&[cmd, "--hex", &spaced]);
        assert_eq!(a.status.code(), b.status.code(), "{cmd}");
        assert_eq!(text(&a.stdout), text(&b.stdout), "{cmd}");
    }
}

fn matrix_row(hex: &str) -> (i32, Vec<String>) {
    let o = tpb(&["validate", "--all-gens", "--hex", hex]);
    let out = text(&o.stdout);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(
        lines[0].split_whitespace().collect::<Vec<_>>(),
        ["bundle", "opcode", "sunda", "cayman", "mariana", "maverick"]
    );
    let cells = lines[1]
        .split_whitespace()
        .rev()
        .take(4)
        .map(String::from)
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect();
    (o.status.code().unwrap(), cells)
}

#[test]
fn all_gens_matrix_for_the_dual_opcode() {
    let (code, cells) = matrix_row(&hex_of(&ptr_multi(Opcode(0x87), 4)));
    assert_eq!(code, 1);
    assert_eq!(cells, ["ok", "FAIL(1)", "FAIL(1)", "FAIL(1)"]);
}

#[test]
fn all_gens_matrix_for_range_select() {
    let (code, cells) = matrix_row(&hex_of(&range_select()));
    assert_eq!(code, 1);
    assert_eq!(cells, ["FAIL(1)", "ok", "ok", "ok"]);
}

#[test]
fn decoding_depends_on_the_generation() {
    let dual = hex_of(&ptr_multi(Opcode(0x87), 4));
    let on = |g: &str| text(&tpb(&["decode", "--gen", g, "--hex", &dual]).stdout);
    assert!(on("sunda").starts_with("#0 @0x0000 ptr_multi_dual_arith src_mem_pattern="));
    assert!(on("cayman")
        .starts_with("#0 @0x0000 opaque 0x87 (TensorScalarPtrMultiDualArith, only on sunda) raw="));
    let rs = hex_of(&range_select());
    let on = |g: &str| text(&tpb(&["decode", "--gen", g, "--hex", &rs]).stdout);
    assert!(on("sunda").starts_with("#0 @0x0000 opaque 0xbc (RangeSelect, only on cayman"));
    assert!(on("mariana").starts_with("#0 @0x0000 range_select "));
}

#[test]
fn lints_are_reported_but_do_not_fail() {
    // 64 channels starting at partition 32: legal, but the compiler would start at 0 or 64.
    let mut i = causal_mask(0, 0, 0x1000);
    if let Body::S2d2TsAs(s) = &mut i.body {
        s.num_active_channels = 64;
        s.src_mem_pattern.start_addr = Addr4::at(Gen::Cayman, Space::Sbuf, 32, 0).unwrap();
    }
    let o = tpb(&["validate", "--hex", &hex_of(&i)]);
    assert_eq!(o.status.code(), Some(0));
    let out = text(&o.stdout);
    assert!(
        out.starts_with(
            "#0 @0x0000 affine_select: valid on cayman (1 lint)\n  lint partition_placement: "
        ),
        "{out}"
    );
    assert!(out.ends_with("cayman: valid (1 bundle)\n"), "{out}");
}

// ---- JSON -----------------------------------------------------------------------------------

fn json(args: &[&str]) -> (i32, serde_json::Value) {
    let o = tpb(args);
    let v = serde_json::from_slice(&o.stdout)
        .unwrap_or_else(|e| panic!("tpb {args:?} is not JSON: {e}\n{}", text(&o.stdout)));
    (o.status.code().unwrap(), v)
}

fn keys(v: &serde_json::Value) -> Vec<&str> {
    let mut k: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
    k.sort();
    k
}

#[test]
fn decode_json_has_the_documented_keys() {
    let (code, v) = json(&["decode", "--json", "--gen", "mariana", CAUSAL]);
    assert_eq!(code, 0);
    assert_eq!(keys(&v), ["bundles", "gen"]);
    assert_eq!(v["gen"], "mariana");
    let b = &v["bundles"][1];
    assert_eq!(
        keys(b),
        ["fields", "hex", "index", "label", "mnemonic", "offset", "opcode", "struct"]
    );
    assert_eq!(b["index"], 1);
    assert_eq!(b["offset"], 64);
    assert_eq!(b["opcode"], "0x92");
    assert_eq!(b["mnemonic"], "affine_select");
    assert_eq!(b["struct"], "S2D2_TS_AS");
    assert_eq!(b["hex"], hex_of(&causal_mask_program()[1]));
    let f = &b["fields"][0];
    assert_eq!(keys(f), ["name", "offset", "parts", "raw", "size", "text"]);
    assert_eq!(
        (&f["name"], &f["offset"], &f["size"]),
        (&"header.opcode".into(), &0.into(), &1.into())
    );
    assert_eq!(f["raw"], "92");
    // Every byte of the bundle is covered by exactly one field, in order.
    let mut at = 0;
    for f in b["fields"].as_array().unwrap() {
        assert_eq!(f["offset"], at);
        at += f["size"].as_u64().unwrap();
    }
    assert_eq!(at, 64);
    // An opaque bundle has a null mnemonic and struct.
    let (_, v) = json(&[
        "decode",
        "--json",
        "--hex",
        &hex_of(&ptr_multi(Opcode(0x87), 4)),
    ]);
    assert_eq!(v["bundles"][0]["mnemonic"], serde_json::Value::Null);
    assert_eq!(v["bundles"][0]["struct"], serde_json::Value::Null);
}

#[test]
fn validate_json_has_the_documented_keys() {
    let (code, v) = json(&["validate", "--json", "--all-gens", BAD]);
    assert_eq!(code, 1);
    assert_eq!(keys(&v), ["bundles", "gens", "valid"]);
    assert_eq!(v["valid"], false);
    assert_eq!(
        v["gens"],
        serde_json::json!(["sunda", "cayman", "mariana", "maverick"])
    );
    let b = &v["bundles"][0];
    assert_eq!(keys(b), ["hex", "index", "offset", "opcode", "reports"]);
    let r = &b["reports"][1];
    assert_eq!(keys(r), ["failures", "gen", "label", "lints", "valid"]);
    assert_eq!((&r["gen"], &r["valid"]), (&"cayman".into(), &false.into()));
    let f = &r["failures"][0];
    assert_eq!(
        keys(f),
        [
            "allowed",
            "bytes",
            "clause",
            "confidence",
            "field",
            "lint",
            "passed",
            "rule",
            "source",
            "value"
        ]
    );
    assert_eq!(f["rule"], "has_valid_neuron_header");
    assert_eq!(f["field"], "header.inst_word_len");
    assert_eq!(f["bytes"], serde_json::json!([1, 2]));
    let (code, v) = json(&["validate", "--json", CAUSAL]);
    assert_eq!(
        (code, &v["valid"], &v["gens"]),
        (0, &true.into(), &serde_json::json!(["cayman"]))
    );
}

// ---- errors: one line on stderr, exit 2 -----------------------------------------------------

fn one_line_error(args: &[&str], needle: &str) {
    let o = tpb(args);
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "tpb {args:?}: {err}");
    assert_eq!(err.lines().count(), 1, "tpb {args:?}: {err}");
    assert!(err.starts_with("tpb: error: "), "{err}");
    assert!(
        err.contains(needle),
        "tpb {args:?}: `{err}` lacks `{needle}`"
    );
    assert_eq!(text(&o.stdout), "");
}

#[test]
fn errors_are_one_line() {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    let odd = dir.join("cli_isa_65_bytes.bin");
    std::fs::write(&odd, [0u8; 65]).unwrap();
    let odd = odd.to_str().unwrap();
    let empty = dir.join("cli_isa_empty.bin");
    std::fs::write(&empty, []).unwrap();
    let empty = empty.to_str().unwrap();
    let short = dir.join("cli_isa_10_bytes.bin");
    std::fs::write(&short, [0u8; 10]).unwrap();
    let short = short.to_str().unwrap();
    for cmd in ["decode", "validate", "explain"] {
        one_line_error(&[cmd, "no/such/file.bin"], "no/such/file.bin");
        one_line_error(
            &[cmd, odd],
            "program is 65 bytes, not a multiple of 64: 1 trailing bytes at offset 0x40, after bundle #0",
        );
        // Issue 8 item 9: an empty FILE is an error, as `--hex ""` is.
        one_line_error(&[cmd, empty], "program is empty (0 bytes)");
        one_line_error(&[cmd, short], "10 bytes, less than one bundle");
        one_line_error(
            &[cmd, "--hex", "00 1z"],
            "`z` at position 5 is not a hex digit",
        );
        one_line_error(&[cmd, "--hex", "0011"], "--hex: program is 2 bytes");
        one_line_error(
            &[cmd, "--gen", "cascade", CAUSAL],
            "unknown generation `cascade`",
        );
        one_line_error(&[cmd], "no input");
    }
    one_line_error(
        &["validate", "--gen", "sunda", "--all-gens", CAUSAL],
        "not both",
    );
}

// Issue 8 item 16 — isa-facts §8 (docs/reference/isa.md "Sunda Dual PtrMulti"): 0x88 is
// disabled in the sunda header and `tpb run` refuses it, so `tpb validate` must not call it
// plainly valid: it reports a `disabled_form` lint naming the reason and its source.
#[test]
fn validate_names_the_disabled_dual_bitvec_form_that_run_refuses() {
    let mut i = ptr_multi(Opcode::TENSOR_SCALAR_PTR_MULTI_DUAL_BITVEC, 4);
    if let Body::S4d4Tsm(s) = &mut i.body {
        s.in_dtype = Dtype::UINT32;
        s.out_dtype = Dtype::UINT32;
        s.op = AluOp::BITWISE_AND;
    }
    let hex = hex_of(&i);
    let o = tpb(&["validate", "--gen", "sunda", "--hex", &hex]);
    let out = text(&o.stdout);
    assert_eq!(o.status.code(), Some(0), "{out}{}", text(&o.stderr));
    assert!(out.contains("lint disabled_form"), "{out}");
    assert!(out.contains("disabled in the sunda header"), "{out}");
    assert!(out.contains("isa-facts §8"), "{out}");
    // …and `tpb run` refuses the same bytes as disabled.
    let dir = std::env::temp_dir().join(format!("tpb-dual-bitvec-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bin = dir.join("p.bin");
    std::fs::write(&bin, i.encode()).unwrap();
    let o = tpb(&[
        "run",
        "--gen",
        "sunda",
        bin.to_str().unwrap(),
        "--out-dir",
        dir.to_str().unwrap(),
    ]);
    let err = text(&o.stderr) + &text(&o.stdout);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("disabled"), "{err}");
    std::fs::remove_dir_all(&dir).ok();
}

/// Issue 8 item 2: a program that is not a regular file (a pipe) is read as a stream too; a
/// partial last bundle is still an input error.
#[test]
fn a_piped_program_streams() {
    if !Path::new("/dev/stdin").exists() {
        return;
    }
    let causal = std::fs::read(root().join(CAUSAL)).unwrap();
    // `tpb disasm` streams too (issue 11): same input, same error.
    for (cmd, first) in [
        ("decode", "#0 @0x0000 ts_arith"),
        ("disasm", ".gen cayman\nts_arith"),
    ] {
        for (input, code) in [
            (causal.clone(), 0),
            ([causal.clone(), vec![0u8; 3]].concat(), 2),
        ] {
            piped(cmd, first, &input, code);
        }
    }
}

/// Runs `tpb CMD /dev/stdin` with `input` piped in; checks the exit code, the first output
/// (success) or the trailing-bytes error.
fn piped(cmd: &str, first: &str, input: &[u8], code: i32) {
    use std::io::Write;
    use std::process::Stdio;
    let mut child = Command::new(env!("CARGO_BIN_EXE_tpb"))
        .args([cmd, "/dev/stdin"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(input).unwrap();
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(code), "{cmd}: {}", text(&o.stderr));
    if code == 0 {
        assert!(
            text(&o.stdout).starts_with(first),
            "{cmd}: {}",
            text(&o.stdout)
        );
    } else {
        assert!(
            text(&o.stderr).contains("3 trailing bytes"),
            "{cmd}: {}",
            text(&o.stderr)
        );
    }
}

// Issue 16 item 6 (seed audit): the log-only stub evidence covers cayman, mariana and
// maverick (isa-facts §6, §13); on sunda the header flag is shown without the stub claim.
#[test]
fn explain_maintenance_is_per_generation() {
    for (op, gen, stub) in [
        (0x4F, "sunda", false),
        (0x87, "sunda", false),
        (0x4F, "cayman", true),
        (0x4F, "maverick", true),
    ] {
        let hex = hex_of(&ptr_multi(Opcode(op), 4));
        let out = text(&tpb(&["explain", "--gen", gen, "--hex", &hex]).stdout);
        assert!(out.contains("not maintained"), "{op:#x} {gen}: {out}");
        assert_eq!(
            out.contains("log-only firmware stub"),
            stub,
            "{op:#x} {gen}: {out}"
        );
    }
}

// Issue 16 item 6 (seed 001 "QUIRK — an indirect 4D descriptor reinterprets +4 as a second
// address"): decode, decode --json and disasm show the second address, not two steps.
#[test]
fn decode_shows_the_indirect_second_address() {
    let mut i = ptr_multi(Opcode(0x4F), 4);
    if let Body::S4d4Tsm(s) = &mut i.body {
        s.dst_mem_pattern.start_addr = Addr4(0x2000_1000);
        s.dst_mem_pattern.step_elem[..2].copy_from_slice(&[0x0100, 0]);
    }
    let hex = hex_of(&i);
    let want = "0x20001000|sbuf[p0]+0x100:[[_,16],[_,1],[1,1],[1,4]]";
    let decoded = text(&tpb(&["decode", "--gen", "cayman", "--hex", &hex]).stdout);
    assert!(decoded.contains(want), "{decoded}");
    let (code, v) = json(&["decode", "--json", "--gen", "cayman", "--hex", &hex]);
    assert_eq!(code, 0);
    assert!(v.to_string().contains(want), "{v}");
    let bin = std::env::temp_dir().join(format!("tpb-indirect-{}.bin", std::process::id()));
    std::fs::write(&bin, i.encode()).unwrap();
    let o = tpb(&["disasm", "--gen", "cayman", bin.to_str().unwrap()]);
    let _ = std::fs::remove_file(&bin);
    assert!(text(&o.stdout).contains(want), "{}", text(&o.stdout));
}
