//! `tpb run` on careless or hostile input (issue 8): bounded memory and cost, nothing written
//! outside where the user said or after an input error, outputs replaced atomically, printed
//! names escaped, and error texts that name the real problem. Each test names its item.

#[path = "support/cli.rs"]
mod cli;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use tpb::npy::{write_npy, NpyArray, NpyStyle};
use tpb_isa::Dtype;

/// A fresh directory for one test (the working directory of its runs).
fn scratch(test: &str) -> PathBuf {
    cli::scratch("run-limits", test)
}

/// Runs `tpb run ARGS` in `cwd`.
fn run(cwd: &Path, args: &[&str]) -> Output {
    let mut all = vec!["run"];
    all.extend_from_slice(args);
    cli::tpb(cwd, &all)
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// Asserts the exit status and returns stderr.
fn status(o: &Output, code: i32) -> String {
    assert_eq!(
        o.status.code(),
        Some(code),
        "stdout:\n{}\nstderr:\n{}",
        text(&o.stdout),
        text(&o.stderr)
    );
    text(&o.stderr)
}

/// An fp32 array of `rows × cols` ones, written as `.npy`.
fn ones(dir: &Path, name: &str, rows: usize, cols: usize) {
    let data: Vec<u8> = std::iter::repeat_n(1f32.to_le_bytes(), rows * cols)
        .flatten()
        .collect();
    let arr = NpyArray::new(Dtype::FP32, vec![rows, cols], data).unwrap();
    std::fs::write(dir.join(name), write_npy(&arr, NpyStyle::BitView).unwrap()).unwrap();
}

const IOTA: &str = "iota channels=128 out=fp32 src=0:[[1,64]] dst=sbuf[p0..128]+0x0:[[1,64]]\n";

/// Item 3: twenty `.in` lines of one 8 MiB file hold one file at a time, not twenty
/// (before: 189 MB peak; the machine itself is about 25 MB).
#[test]
fn inputs_are_dropped_once_loaded() {
    let dir = scratch("inputs_dropped");
    ones(&dir, "big.npy", 128, 16384);
    let line = ".in big.npy @ sbuf[p0..128]+0x0:fp32:128x16384\n";
    std::fs::write(dir.join("p.tpb"), line.repeat(20) + IOTA).unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_tpb"))
        .current_dir(&dir)
        .args(["run", "--serial", "p.tpb"])
        .env("TPB_PEAK_MEMORY", "1")
        .output()
        .unwrap();
    let err = status(&o, 0);
    let Some(kb) = err
        .lines()
        .find_map(|l| l.strip_prefix("tpb: peak memory "))
        .and_then(|v| v.trim_end_matches(" kB").parse::<u64>().ok())
    else {
        return; // not Linux: no VmHWM
    };
    assert!(kb < 80_000, "peak {kb} kB for 20 inputs of 8 MiB");
}

/// A program: Iota writing 128×64 fp32 at sbuf 0x0, then `tail` (directives).
fn program(dir: &Path, tail: &str) {
    std::fs::write(dir.join("p.tpb"), format!("{IOTA}{tail}")).unwrap();
}

const OUT: &str = "sbuf[p0..128]+0x0:fp32:128x64";

/// Item 4: an output path that cannot be written is an input error (exit 2) before any
/// instruction runs and before any file is written.
#[test]
fn unwritable_output_paths_fail_before_anything_runs() {
    let dir = scratch("unwritable");
    program(&dir, &format!(".out {OUT} @ first.npy\n"));
    std::fs::create_dir_all(dir.join("out/adir")).unwrap();
    std::fs::write(dir.join("afile"), "x").unwrap();
    for (args, needle) in [
        (
            vec!["--serial", "p.tpb", "--out", &format!("{OUT}@adir")],
            "is a directory",
        ),
        (
            vec!["--serial", "p.tpb", "--out-dir", "afile"],
            "`afile` is not a directory",
        ),
        (
            vec!["p.tpb", "--out-dir", "afile"],
            "`afile` is not a directory",
        ),
    ] {
        let o = run(&dir, &args);
        let err = status(&o, 2);
        assert!(err.contains(needle), "{args:?}: {err}");
        assert!(err.contains("nothing was run"), "{err}");
        assert!(!text(&o.stdout).contains("ran "), "{}", text(&o.stdout));
        assert!(
            !dir.join("out/first.npy").exists(),
            "{args:?} wrote an output"
        );
    }
}

/// Item 9: two outputs to one file are refused instead of leaving a manifest that
/// describes both.
#[test]
fn two_outputs_to_one_file_are_refused() {
    let dir = scratch("two_outputs");
    program(&dir, &format!(".out {OUT} @ same.npy\n"));
    let o = run(&dir, &["p.tpb", "--out", &format!("{OUT}@./same.npy")]);
    let err = status(&o, 2);
    assert!(err.contains("also written by line 2"), "{err}");
    assert!(!dir.join("out").exists());
}

/// Item 6: a program's `.out` may not leave --out-dir unless the command line says so;
/// a command-line `--out` path stays the user's choice.
#[test]
fn program_outputs_are_confined_to_the_out_dir() {
    let dir = scratch("confined");
    let outside = dir.join("outside.npy");
    for target in [outside.display().to_string(), "../outside.npy".to_string()] {
        program(&dir, &format!(".out {OUT} @ {target}\n"));
        let err = status(&run(&dir, &["--serial", "p.tpb"]), 2);
        assert!(err.contains("is outside --out-dir"), "{err}");
        assert!(err.contains("--allow-outside-out-dir"), "{err}");
        assert!(!outside.exists());
        status(
            &run(&dir, &["--serial", "p.tpb", "--allow-outside-out-dir"]),
            0,
        );
        assert!(outside.exists(), "{target}");
        std::fs::remove_file(&outside).unwrap();
    }
    program(&dir, "");
    let o = run(
        &dir,
        &[
            "--serial",
            "p.tpb",
            "--out",
            &format!("{OUT}@../outside.npy"),
        ],
    );
    status(&o, 0);
    assert!(outside.exists(), "--out is the user's own choice");
}

/// Item 5: an output is replaced atomically. A run killed while writing (here by a 64 KiB
/// file-size limit on a 96 KiB output) leaves the earlier file whole, never a truncated
/// `.npy` with a valid-looking header.
#[test]
fn a_failed_write_keeps_the_earlier_output() {
    if !Path::new("/bin/sh").exists() {
        return;
    }
    let dir = scratch("atomic");
    program(&dir, ".out sbuf[p0..128]+0x0:fp32:128x192 @ big.npy\n");
    status(&run(&dir, &["--serial", "p.tpb"]), 0);
    let good = std::fs::read(dir.join("out/big.npy")).unwrap();
    assert!(good.len() > 96 << 10);
    let o = Command::new("/bin/sh")
        .current_dir(&dir)
        .arg("-c")
        .arg(r#"ulimit -f 128; exec "$0" run --serial p.tpb"#)
        .arg(env!("CARGO_BIN_EXE_tpb"))
        .output()
        .unwrap();
    assert!(!o.status.success(), "the limit must stop the write");
    assert_eq!(std::fs::read(dir.join("out/big.npy")).unwrap(), good);
}

/// Item 9: an expectation met only by never-written (zero) memory says so.
#[test]
fn an_expectation_over_unwritten_memory_says_so() {
    let dir = scratch("unwritten");
    program(
        &dir,
        ".expect sbuf[p0..1]+0x4000:fp32:1x4 == [0, 0, 0, 0]\n",
    );
    let o = run(&dir, &["--serial", "p.tpb"]);
    status(&o, 0);
    let out = text(&o.stdout);
    assert!(
        out.contains("ok, 4 elements (but 16 bytes of the region were never written)"),
        "{out}"
    );
}

/// Item 9: each error names the real problem.
#[test]
fn error_texts_name_the_real_problem() {
    let dir = scratch("texts");
    program(&dir, "");
    let arr = NpyArray::new(Dtype::UINT64, vec![1, 4], vec![0; 32]).unwrap();
    std::fs::write(
        dir.join("u64.npy"),
        write_npy(&arr, NpyStyle::BitView).unwrap(),
    )
    .unwrap();
    for (args, needle) in [
        (
            vec!["--show", "sbuf[p0..4294967296]+0x0:fp32:1x4"],
            "goes beyond the 128 partitions",
        ),
        (
            vec!["--show", "sbuf[p0..1]+0x0:fp32:"],
            "empty part after `:`",
        ),
        (
            vec!["--gen", "maverick", "--show", "psum[p0..1]+0x0:fp32:1x4"],
            "maverick has no psum",
        ),
        (vec!["--reg", "3=0x-5"], "`0x-5`"),
        (vec!["--reg", "3=0b-1"], "`0b-1`"),
        (
            vec!["--in", "u64.npy@sbuf[p0..1]+0x0"],
            "holds uint64, which no region can hold",
        ),
    ] {
        let mut a = vec!["--serial", "p.tpb"];
        a.extend(&args);
        let err = status(&run(&dir, &a), 2);
        assert!(err.contains(needle), "{args:?}: {err}");
        assert!(
            !err.contains("on maverick on maverick") && !err.contains("psum on maverick"),
            "{err}"
        );
        assert!(
            !err.contains("is empty") && !err.contains("given twice"),
            "{err}"
        );
    }
}

/// Item 7: control characters from file names and contents are escaped in error messages,
/// so a hostile file cannot send terminal escape sequences.
#[test]
fn control_characters_in_errors_are_escaped() {
    let dir = scratch("escapes");
    std::fs::write(
        dir.join("evil.tpb"),
        "iota \u{1b}]0;pwned\u{7}=1\n\u{1b}[2J\n",
    )
    .unwrap();
    let nasty = "no\u{1b}[31mfile.tpb";
    let runs = [
        Command::new(env!("CARGO_BIN_EXE_tpb"))
            .current_dir(&dir)
            .args(["run", "evil.tpb"])
            .output()
            .unwrap(),
        Command::new(env!("CARGO_BIN_EXE_tpb"))
            .current_dir(&dir)
            .args(["asm", "evil.tpb", "-o", "x.bin"])
            .output()
            .unwrap(),
        Command::new(env!("CARGO_BIN_EXE_tpb"))
            .current_dir(&dir)
            .args(["run", nasty])
            .output()
            .unwrap(),
        Command::new(env!("CARGO_BIN_EXE_tpb"))
            .current_dir(&dir)
            .args(["decode", nasty])
            .output()
            .unwrap(),
    ];
    for o in runs {
        let err = text(&o.stderr);
        assert!(!o.status.success());
        assert!(!err.contains('\u{1b}') && !err.contains('\u{7}'), "{err:?}");
        assert!(err.contains("\\u{1b}"), "{err}");
    }
}

/// Item 10: `--max-run-elements` bounds a run; passing it is a fault (exit 1) naming the flag.
#[test]
fn the_run_budget_is_a_clear_fault() {
    let dir = scratch("budget");
    std::fs::write(dir.join("p.tpb"), IOTA.repeat(3)).unwrap();
    for mode in ["--serial", "--allow-races"] {
        let o = run(&dir, &[mode, "p.tpb", "--max-run-elements", "20000"]);
        let err = status(&o, 1);
        assert!(err.contains("instruction #2"), "{err}");
        assert!(err.contains("run budget exceeded"), "{err}");
        assert!(err.contains("--max-run-elements"), "{err}");
    }
    status(&run(&dir, &["--serial", "p.tpb"]), 0);
}

/// Item 18: `.show flops[cA..B]` (and `--show`) prints the DVE scalar slots of channels after
/// a run: who loaded them, the 8 words, and the fp32 values an ImmLdArith loaded.
#[test]
fn show_flops_prints_the_scalar_slots() {
    let dir = scratch("flops");
    std::fs::write(
        dir.join("p.tpb"),
        ".in s.npy @ sbuf[p0..2]+0x0:fp32:2x2\n\
         imm_ld_arith src=sbuf[p0..2]+0x0:[[1,2]] dtype=fp32\n\
         .show flops[c0..3]\n",
    )
    .unwrap();
    let data: Vec<u8> = [2f32, -1.0, 0.5, 3.0]
        .iter()
        .flat_map(|x| x.to_le_bytes())
        .collect();
    let arr = NpyArray::new(Dtype::FP32, vec![2, 2], data).unwrap();
    std::fs::write(
        dir.join("s.npy"),
        write_npy(&arr, NpyStyle::BitView).unwrap(),
    )
    .unwrap();
    let o = run(&dir, &["--serial", "p.tpb", "--show", "flops[1]"]);
    status(&o, 0);
    let out = text(&o.stdout);
    assert!(out.contains("flops    channels 0..3"), "{out}");
    assert!(
        out.contains("c0   2 loaded by TensorScalarImmLdArith: 40000000 bf800000 00000000")
            && out.contains("(fp32 2.0, -1.0)"),
        "{out}"
    );
    assert!(
        out.contains("c1   2 loaded by TensorScalarImmLdArith: 3f000000 40400000"),
        "{out}"
    );
    assert!(out.contains("c2   never loaded: 00000000"), "{out}");
    assert!(out.contains("flops    channels 1..2"), "{out}");
    let err = status(
        &run(&dir, &["--serial", "p.tpb", "--show", "flops[c0..129]"]),
        2,
    );
    assert!(err.contains("channels 0..128"), "{err}");
}
