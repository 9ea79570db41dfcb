//! `tpb run` end to end (issue 4 items 4–5, issue 3 item 3): every example runs with no flags
//! and checks itself; its outputs match the golden `.npy` files byte for byte; the flags,
//! directives, `.npy` encodings, warnings, faults and one-line errors.
//!
//! Golden files live in `tests/golden_run/`: the `.npy` outputs of every example and the
//! report of the main example. `TPB_BLESS=1 cargo test -p tpb --test cli_run` rewrites them.
//! The examples' expected values are independent of the simulator (numpy + ml_dtypes in
//! `tools/gen_example_inputs.py`); the goldens pin the exact files `tpb run` writes.

#[path = "support/cli.rs"]
mod cli;
#[path = "../../tpb-isa/tests/support/golden.rs"]
mod golden;
use cli::tpb;

use std::path::{Path, PathBuf};
use std::process::Output;
use tpb::npy::{read_npy, write_npy, NpyArray, NpyStyle};
use tpb_isa::Dtype;

// ---- helpers ------------------------------------------------------------------------------

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn examples() -> PathBuf {
    repo().join("examples").canonicalize().unwrap()
}

fn example(name: &str) -> String {
    examples().join(name).display().to_string()
}

fn golden(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden_run")
        .join(name)
}

/// A fresh directory for one test (the working directory of its runs).
fn scratch(test: &str) -> PathBuf {
    cli::scratch("cli-run", test)
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Asserts success and returns stdout.
fn ok(o: &Output) -> String {
    assert!(
        o.status.success(),
        "exit {:?}\nstdout:\n{}\nstderr:\n{}",
        o.status.code(),
        stdout(o),
        stderr(o)
    );
    stdout(o)
}

/// Asserts exit status `code` with exactly one `tpb: error:` line on stderr; returns it.
fn one_line_error(o: &Output, code: i32) -> String {
    let err = stderr(o);
    assert_eq!(
        o.status.code(),
        Some(code),
        "stdout:\n{}\nstderr:\n{err}",
        stdout(o)
    );
    assert_eq!(err.lines().count(), 1, "one line on stderr, got:\n{err}");
    assert!(err.starts_with("tpb: error: "), "{err}");
    err
}

/// Compares `actual` with its golden file (one bless helper: `support/golden.rs`).
fn check_golden(name: &str, actual: &[u8]) {
    golden::check_file(&golden(name), actual);
}

fn write(dir: &Path, name: &str, text: &str) -> String {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p.display().to_string()
}

fn write_array(dir: &Path, name: &str, arr: &NpyArray, style: NpyStyle) -> String {
    let p = dir.join(name);
    std::fs::write(&p, write_npy(arr, style).unwrap()).unwrap();
    p.display().to_string()
}

fn fp32_array(shape: Vec<usize>, values: &[f32]) -> NpyArray {
    let data = values.iter().flat_map(|v| v.to_le_bytes()).collect();
    NpyArray::new(Dtype::FP32, shape, data).unwrap()
}

/// The data bytes of an `.npy` file, read with `hint`.
fn npy_data(path: &Path, hint: Option<Dtype>) -> NpyArray {
    read_npy(&std::fs::read(path).unwrap(), hint).unwrap()
}

// ---- the examples -------------------------------------------------------------------------

/// Every `examples/*.tpb`, by file name.
fn example_programs() -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(examples())
        .unwrap()
        .filter_map(|e| {
            let name = e.unwrap().file_name().into_string().unwrap();
            name.ends_with(".tpb").then_some(name)
        })
        .collect();
    v.sort();
    v
}

#[test]
fn every_example_runs_with_no_flags_checks_itself_and_matches_its_goldens() {
    let programs = example_programs();
    for required in [
        "causal_mask.tpb",
        "per_slice_scale.tpb",
        "bitvec_mask.tpb",
        "sunda_dual.tpb",
    ] {
        assert!(programs.iter().any(|p| p == required), "{required} missing");
    }
    for name in programs {
        let dir = scratch(&format!("example-{name}"));
        let out = ok(&tpb(&dir, &["run", &example(&name)]));
        assert!(
            out.contains(" passed\n") && !out.contains("FAILED") && out.contains("warnings none"),
            "{name}:\n{out}"
        );
        // The outputs are the files the manifest lists, under the default out/.
        let stem = name.trim_end_matches(".tpb");
        let manifest = std::fs::read_to_string(dir.join(format!("out/{stem}.manifest.json")))
            .unwrap_or_else(|e| panic!("{name}: manifest: {e}"));
        let doc: serde_json::Value = serde_json::from_str(&manifest).unwrap();
        let outputs = doc["outputs"].as_array().unwrap();
        assert!(!outputs.is_empty(), "{name} writes no output");
        for o in outputs {
            let file = o["file"].as_str().unwrap();
            assert!(file.starts_with("out/"), "{file}");
            let bytes = std::fs::read(dir.join(file)).unwrap();
            let golden_name = file.trim_start_matches("out/");
            check_golden(golden_name, &bytes);
        }
    }
}

#[test]
fn every_example_assembles_and_validates() {
    let dir = scratch("asm");
    for name in example_programs() {
        let bin = dir.join(name.replace(".tpb", ".bin"));
        ok(&tpb(
            &dir,
            &["asm", &example(&name), "-o", bin.to_str().unwrap()],
        ));
        assert_eq!(std::fs::read(&bin).unwrap().len(), 2 * 64, "{name}");
    }
}

#[test]
fn the_main_example_reports_and_pictures_the_masked_corner() {
    let dir = scratch("main-example");
    let out = ok(&tpb(&dir, &["run", &example("causal_mask.tpb")]));
    let report = out.replace(&format!("{}/", examples().display()), "examples/");
    check_golden("causal_mask.report.txt", report.as_bytes());
    for line in [
        "reg      r7 = 0xff7fffff (fp32 -3.4028235e38, int -8388609)",
        "ran      2 instructions: 131072 elements, 393216 bytes written",
        "expect   2 passed",
        "           p0 .###############",
        "           p1 ..##############",
        "           p7 ........########",
    ] {
        assert!(
            report.lines().any(|l| l == line),
            "missing {line:?}:\n{report}"
        );
    }
    // Bit views by default: loadable by any numpy; the ml_dtypes style on request.
    let masked = std::fs::read(dir.join("out/causal_mask.npy")).unwrap();
    assert!(String::from_utf8_lossy(&masked[..80]).contains("'descr': '<u2'"));
    let o = ok(&tpb(
        &dir,
        &[
            "run",
            &example("causal_mask.tpb"),
            "--npy-style",
            "ml-dtypes",
            "--out-dir",
            "ml",
        ],
    ));
    assert!(o.contains("(<V2: bfloat16 bits)"), "{o}");
    let raw = std::fs::read(dir.join("ml/causal_mask.npy")).unwrap();
    assert!(String::from_utf8_lossy(&raw[..80]).contains("'descr': '<V2'"));
    assert_eq!(raw[raw.len() - 131072..], masked[masked.len() - 131072..]);
}

// ---- expectations -------------------------------------------------------------------------

#[test]
fn a_failing_expectation_exits_1_naming_the_first_difference_and_the_count() {
    let dir = scratch("expect-fail");
    // Partition 0 of the masked scores is [2.4375, -inf, -inf, -inf, …].
    let prog = write(
        &dir,
        "fail.tpb",
        &format!(
            ".in {} @ sbuf[p0..128]+0x0:fp32\n.reg 7 = -3.4028235e38\n\
             affine_select dtypes=fp32->bf16 cmp=ge fill_reg=7 pattern=0:[[-1,512]] multiplier=1 \
             src=sbuf[p0..128]+0x0:[[1,512]] dst=sbuf[p0..128]+0x800:[[1,512]]\n\
             .expect sbuf[p0]+0x800:bf16 == [2.4375, -inf, 0, 0]\n\
             .expect sbuf[p0]+0x800:bf16 == [2.4375, -inf, -inf, -inf]\n",
            example("causal_scores.npy")
        ),
    );
    let o = tpb(&dir, &["run", &prog]);
    let err = one_line_error(&o, 1);
    assert_eq!(
        err.trim_end(),
        "tpb: error: expectation failed: line 4: sbuf[p0..1]+0x800:bfloat16:1x4 == [2.4375, \
         -inf, 0, 0]: 2 of 4 elements differ; first at [0, 2] (partition 0, byte 0x804): \
         expected 0x0000 (0.0), got 0xff80 (-inf)"
    );
    // Never-written memory is pointed out.
    let prog = write(
        &dir,
        "unwritten.tpb",
        ".expect sbuf[p0]:bf16 == [1.0, -inf]\n",
    );
    let err = one_line_error(&tpb(&dir, &["run", &prog]), 1);
    assert!(
        err.contains(
            "expected 0x3f80 (1.0), got 0x0000 (0.0) (4 bytes of the region were never written)"
        ),
        "{err}"
    );
    let out = stdout(&o);
    assert!(out.contains("expect   1 passed, 1 FAILED"), "{out}");
}

#[test]
fn directives_act_at_their_place_in_the_program() {
    let dir = scratch("positions");
    let input = write_array(
        &dir,
        "x.npy",
        &fp32_array(vec![1, 4], &[1.0, 2.0, 3.0, 4.0]),
        NpyStyle::BitView,
    );
    let double = "ts_arith src=sbuf[p0..1]+0x0:[[1,4]] in=fp32 out=fp32 op0=mult imm0=2.0 \
                  dst=sbuf[p0..1]+0x0:[[1,4]]";
    let prog = write(
        &dir,
        "p.tpb",
        &format!(
            ".in x.npy@sbuf[p0]+0x0\n.expect sbuf[p0]:fp32 == [1, 2, 3, 4]\n{double}\n\
             .expect sbuf[p0]:fp32:1x4 == [2, 4, 6, 8]\n{double}\n\
             .expect sbuf[p0]:fp32 == [4, 8, 12, 16]\n"
        ),
    );
    let _ = input;
    let out = ok(&tpb(&dir, &["run", &prog]));
    assert!(
        out.contains("== [2, 4, 6, 8]: ok, 4 elements (before instruction #1)"),
        "{out}"
    );
    assert!(out.contains("expect   3 passed"), "{out}");
}

// ---- flags --------------------------------------------------------------------------------

#[test]
fn flags_bind_a_binary_program_and_trace_prints_one_line_per_instruction() {
    let dir = scratch("binary");
    let bin = dir.join("causal.bin").display().to_string();
    ok(&tpb(
        &dir,
        &["asm", &example("causal_mask.tpb"), "-o", &bin],
    ));
    let flags = [
        "--in".to_string(),
        format!("{}@sbuf[p0..128]+0x0:fp32", example("causal_scores.npy")),
        "--reg".into(),
        "7=-3.4028235e38".into(),
        "--out".into(),
        "sbuf[p0..128]+0x800:bf16:128x512@mask.npy".into(),
        "--expect".into(),
        format!(
            "sbuf[p0..128]+0x800:bf16:128x512=={}",
            example("causal_mask.expected.npy")
        ),
        "--show".into(),
        "sbuf[p0..128]+0x800:bf16 2x3".into(),
        "--trace".into(),
    ];
    let mut args = vec!["run", bin.as_str()];
    args.extend(flags.iter().map(String::as_str));
    let out = ok(&tpb(&dir, &args));
    let trace: Vec<&str> = out.lines().filter(|l| l.starts_with('#')).collect();
    assert_eq!(trace.len(), 2, "{out}");
    assert!(
        trace[0].starts_with("#0") && trace[0].contains("iota"),
        "{}",
        trace[0]
    );
    assert!(
        trace[1].starts_with("#1")
            && trace[1].contains("affine_select")
            && trace[1].contains("elements      65536")
            && trace[1].contains("bytes written     131072"),
        "{}",
        trace[1]
    );
    assert!(out.contains("expect   1 passed"), "{out}");
    assert!(out.contains("p1   -3.938 -0.4707    -inf"), "{out}");
    // The same bytes as the text program writes.
    check_golden(
        "causal_mask.npy",
        &std::fs::read(dir.join("out/mask.npy")).unwrap(),
    );

    // --hex runs the same binary.
    let hex: String = std::fs::read(&bin)
        .unwrap()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    let mut args = vec!["run", "--hex", hex.as_str()];
    args.extend(flags.iter().map(String::as_str));
    ok(&tpb(&dir, &args));
}

#[test]
fn an_uninitialised_read_warns_and_is_a_fault_under_strict() {
    let dir = scratch("uninit");
    let prog = write(
        &dir,
        "u.tpb",
        "# reads memory nothing wrote\n\
         ts_arith src=sbuf[p0..1]+0x0:[[1,4]] in=fp32 out=fp32 op0=mult imm0=2.0 \
         dst=sbuf[p0..1]+0x100:[[1,4]]\n",
    );
    let out = ok(&tpb(&dir, &["run", &prog, "--trace"]));
    assert!(out.contains("warnings 1\n"), "{out}");
    assert!(
        out.contains("instruction #0 (0x43 ts_arith): warning [uninitialised-read]"),
        "{out}"
    );
    assert!(out.contains("      warning [uninitialised-read]: src_mem_pattern reads 4"));

    let o = tpb(&dir, &["run", &prog, "--strict"]);
    let err = one_line_error(&o, 1);
    assert!(
        err.contains(&format!(
            "{prog}:2: instruction #0 (0x43 ts_arith): strict mode: [uninitialised-read]"
        )),
        "{err}"
    );
}

#[test]
fn fp8_configuration_flags_reach_the_machine() {
    let dir = scratch("fp8");
    write_array(
        &dir,
        "big.npy",
        &fp32_array(vec![1, 1], &[1000.0]),
        NpyStyle::BitView,
    );
    let prog = write(
        &dir,
        "f.tpb",
        ".in big.npy@sbuf[p0]+0x0:fp32\n\
         ts_arith src=sbuf[p0..1]+0x0:[[1,1]] in=fp32 out=fp8_exp4 op0=bypass \
         dst=sbuf[p0..1]+0x100:[[1,1]]\n",
    );
    for (flags, bits) in [
        (&[][..], "0x78"),                                    // IEEE-like e4m3: +inf
        (&["--fp8-ocp-sat"][..], "0x77"),                     // saturated: 240
        (&["--fp8-e4m3", "fn"][..], "0x7f"),                  // finite-only: NaN
        (&["--fp8-e4m3", "fn", "--fp8-ocp-sat"][..], "0x7e"), // 448
    ] {
        let expect = format!("sbuf[p0]+0x100:fp8_exp4 == [{bits}]");
        let mut args = vec!["run", prog.as_str(), "--expect", expect.as_str()];
        args.extend(flags);
        let out = ok(&tpb(&dir, &args));
        assert!(out.contains("expect   1 passed"), "{flags:?}: {out}");
    }
}

#[test]
fn firmware_stubs_mirror_the_shipped_log_only_firmware() {
    let dir = scratch("stubs");
    let o = tpb(
        &dir,
        &["run", &example("per_slice_scale.tpb"), "--firmware-stubs"],
    );
    assert_eq!(o.status.code(), Some(1));
    let out = stdout(&o);
    assert!(out.contains("warnings 2\n"), "{out}");
    assert!(out.contains("warning [firmware-stub]"), "{out}");
    assert!(stderr(&o).contains("expectation failed"), "{}", stderr(&o));
}

// ---- .npy encodings -----------------------------------------------------------------------

/// Loads `file` into a region with no instructions and writes it back out: the output's
/// data must be the input's bytes.
fn round_trip(dir: &Path, file: &str, region_in: &str, out_region: &str, extra: &[&str]) -> Output {
    let empty = write(dir, "empty.tpb", "# no instructions\n");
    let inb = format!("{file}@{region_in}");
    let outb = format!("{out_region}@rt.npy");
    let mut args = vec![
        "run",
        empty.as_str(),
        "--in",
        inb.as_str(),
        "--out",
        outb.as_str(),
    ];
    args.extend(extra);
    tpb(dir, &args)
}

#[test]
fn inputs_in_numpy_and_ml_dtypes_encodings() {
    let dir = scratch("encodings");
    // bfloat16 as ml_dtypes writes it ('<V2'): the type comes from --dtype or the region.
    let v2 = example("scale_data.npy");
    let want = npy_data(Path::new(&v2), Some(Dtype::BFLOAT16)).data;
    let region = "sbuf[p0..128]+0x0";
    let out_region = "sbuf[p0..128]+0x0:bf16:128x4x64";
    let o = round_trip(&dir, &v2, region, out_region, &[]);
    let err = one_line_error(&o, 2);
    assert!(
        err.contains("raw 2-byte blob") && err.contains("--dtype"),
        "{err}"
    );
    ok(&round_trip(
        &dir,
        &v2,
        region,
        out_region,
        &["--dtype", "bf16"],
    ));
    assert_eq!(
        npy_data(&dir.join("out/rt.npy"), Some(Dtype::BFLOAT16)).data,
        want
    );
    ok(&round_trip(
        &dir,
        &v2,
        "sbuf[p0..128]+0x0:bfloat16",
        out_region,
        &[],
    ));
    assert_eq!(
        npy_data(&dir.join("out/rt.npy"), Some(Dtype::BFLOAT16)).data,
        want
    );

    // float8_e5m2 as ml_dtypes writes it ('<f1', which numpy cannot load): read as e5m2.
    let f1 = example("dual_data.npy");
    let out = ok(&round_trip(
        &dir,
        &f1,
        region,
        "sbuf[p0..128]+0x0:e5m2:128x4x64",
        &[],
    ));
    assert!(
        out.contains("-> sbuf[p0..128]+0x0:fp8_exp5:128x4x64"),
        "{out}"
    );
    let back = npy_data(&dir.join("out/rt.npy"), Some(Dtype::FP8_EXP5));
    assert_eq!(back.data, npy_data(Path::new(&f1), None).data);

    // Bit views ('<u2' holding bf16 bits) take the region's type.
    let u2 = example("scale.expected.npy");
    ok(&round_trip(
        &dir,
        &u2,
        "sbuf[p0..128]+0x0:bf16",
        out_region,
        &[],
    ));
    assert_eq!(
        npy_data(&dir.join("out/rt.npy"), None).data,
        npy_data(Path::new(&u2), None).data
    );

    // numpy's own types, and no silent conversion between float types.
    let f16 = write_array(
        &dir,
        "f16.npy",
        &NpyArray::new(Dtype::FP16, vec![1, 2], vec![0, 0x3c, 0, 0xc0]).unwrap(),
        NpyStyle::BitView,
    );
    ok(&round_trip(
        &dir,
        &f16,
        "sbuf[p0]",
        "sbuf[p0]:fp16:1x2",
        &[],
    ));
    let err = one_line_error(
        &round_trip(&dir, &f16, "sbuf[p0]:bf16", "sbuf[p0]:bf16:1x2", &[]),
        2,
    );
    assert!(
        err.contains("holds fp16 but the region is bfloat16"),
        "{err}"
    );
}

#[test]
fn malformed_npy_files_give_one_line_errors() {
    let dir = scratch("malformed");
    let mut truncated = write_npy(&fp32_array(vec![2], &[1.0, 2.0]), NpyStyle::BitView).unwrap();
    truncated.truncate(truncated.len() - 3);
    for (name, bytes, want) in [
        ("garbage.npy", b"hello".to_vec(), "bad .npy magic"),
        ("short.npy", truncated, "needs 8"),
        (
            "header.npy",
            b"\x93NUMPY\x01\x00\x10\x00{'descr': 'f8'}\n".to_vec(),
            "malformed .npy header",
        ),
    ] {
        std::fs::write(dir.join(name), bytes).unwrap();
        let err = one_line_error(
            &round_trip(&dir, name, "sbuf[p0]", "sbuf[p0]:fp32:2", &[]),
            2,
        );
        assert!(err.contains(name) && err.contains(want), "{name}: {err}");
    }
}

// ---- faults and input errors --------------------------------------------------------------

#[test]
fn a_fault_names_the_instruction_its_line_and_the_cause() {
    let dir = scratch("fault");
    let prog = write(
        &dir,
        "f.tpb",
        ".gen cayman\n\
         iota src=0:[[1,4096]] out=int32 dst=sbuf[p0..128]+0x37000:[[1,4096]]\n",
    );
    let err = one_line_error(&tpb(&dir, &["run", &prog]), 1);
    assert!(
        err.contains(&format!(
            "{prog}:2: instruction #0 (0x7e iota): dst_mem_pattern out of range"
        )),
        "{err}"
    );
}

#[test]
fn usage_and_input_errors_are_one_line_with_exit_2() {
    let dir = scratch("errors");
    let scores = format!("{}@sbuf[p0..128]+0x0:fp32", example("causal_scores.npy"));
    let causal = example("causal_mask.tpb");
    let sunda = example("sunda_dual.tpb");
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (
            vec!["run", &causal, "--in", "x.npy@dram[p0]"],
            "unknown space `dram`",
        ),
        (
            vec!["run", &causal, "--in", "missing.npy@sbuf[p0]"],
            "missing.npy",
        ),
        (
            vec!["run", &causal, "--reg", "64=1"],
            "register number 0..64",
        ),
        (
            vec!["run", &causal, "--reg", "7=1e39"],
            "beyond the fp32 range",
        ),
        (
            vec!["run", &causal, "--dtype", "fp33"],
            "unknown dtype `fp33`",
        ),
        (
            vec!["run", &causal, "--expect", "sbuf[p0]:bf16 == [0.1]"],
            "not exactly representable in bfloat16",
        ),
        (
            vec!["run", &causal, "--expect", "sbuf[p0] == [1]"],
            "needs a dtype to read inline values",
        ),
        (
            vec![
                "run",
                &causal,
                "--out",
                "sbuf[p0..128]+0x37000:fp32:128x2048@x.npy",
            ],
            "outside the 0x38000 active bytes",
        ),
        (
            vec!["run", &causal, "--out", "sbuf[p0]@x.npy"],
            "needs its dtype and shape",
        ),
        (
            vec!["run", &sunda, "--gen", "cayman"],
            "says `.gen sunda` (line",
        ),
        (
            vec!["run", &causal, "--in", &scores, "--gen", "nope"],
            "unknown generation",
        ),
        (vec!["run"], "no input"),
    ];
    for (args, want) in cases {
        let o = tpb(&dir, &args);
        let err = one_line_error(&o, 2);
        assert!(err.contains(want), "{args:?}: {err}");
        assert!(
            o.stdout.is_empty(),
            "{args:?}: nothing runs: {}",
            stdout(&o)
        );
    }
    // Directive errors name the program line.
    let bad = write(&dir, "bad.tpb", "# x\n.reg 99 = 1\n");
    let err = one_line_error(&tpb(&dir, &["run", &bad]), 2);
    assert!(
        err.contains(&format!("{bad}:2: .reg: `99` is not a register")),
        "{err}"
    );
    // Assembly errors: every one, with line and column.
    let bad = write(
        &dir,
        "asm.tpb",
        "iota bogus=1\naffine_select dtypes=fp33->bf16\n",
    );
    let o = tpb(&dir, &["run", &bad]);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(
        err.contains(&format!("{bad}:1:")) && err.contains(&format!("{bad}:2:")),
        "{err}"
    );
}

/// One program runs on one machine (docs/cli-run.md, "The generation"): instructions
/// assembled for two generations, or a `.gen` line that contradicts `--gen`, are refused
/// before anything runs, naming both lines.
#[test]
fn a_program_runs_on_one_generation() {
    let dir = scratch("one_generation");
    let iota = "iota src=0:[[1,4]] out=fp32 dst=sbuf[p0..1]+0x0:[[1,4]]";
    let mixed = write(
        &dir,
        "mixed.tpb",
        &format!("# two machines\n{iota}\n.gen sunda\n{iota}\n"),
    );
    let err = one_line_error(&tpb(&dir, &["run", &mixed]), 2);
    assert!(
        err.contains("line 3 (.gen) is for sunda but line 2 (instruction) is for cayman"),
        "{err}"
    );
    let declared = write(&dir, "declared.tpb", &format!(".gen sunda\n{iota}\n"));
    let err = one_line_error(&tpb(&dir, &["run", "--gen", "cayman", &declared]), 2);
    assert!(
        err.contains("says `.gen sunda` (line 1) but --gen cayman was given"),
        "{err}"
    );
    // The same file with --gen agreeing runs.
    ok(&tpb(&dir, &["run", "--gen", "sunda", &declared]));
}
