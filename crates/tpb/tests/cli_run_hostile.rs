//! `tpb run` against a hostile repository or a careless user (issue 20): symbolic links and
//! duplicate outputs, outputs checked before the run, escaped report lines, bounded reads,
//! capped flags and exact `.expect` literals. Each test names its item.

#[path = "support/cli.rs"]
mod cli;
use std::path::{Path, PathBuf};
use std::process::Output;

fn scratch(test: &str) -> PathBuf {
    cli::scratch("run-hostile", test)
}

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

const IOTA: &str = "iota channels=128 out=fp32 src=0:[[1,64]] dst=sbuf[p0..128]+0x0:[[1,64]]\n";
const OUT: &str = "sbuf[p0..128]+0x0:fp32:128x64";

/// A program: Iota writing 128×64 fp32 at sbuf 0x0, then `tail` (directives).
fn program(dir: &Path, tail: &str) {
    std::fs::write(dir.join("p.tpb"), format!("{IOTA}{tail}")).unwrap();
}

#[cfg(unix)]
fn symlink(target: &str, link: &Path) {
    std::os::unix::fs::symlink(target, link).unwrap();
}

/// Item 1: a symbolic link under --out-dir (the file itself or a directory on the way) is
/// refused before the run; the file it points to is untouched. So is a default `out` that is
/// a link; an --out-dir the user names may be one.
#[cfg(unix)]
#[test]
fn symlinks_under_the_out_dir_are_refused() {
    let dir = scratch("symlinks");
    std::fs::create_dir_all(dir.join("elsewhere")).unwrap();
    std::fs::write(dir.join("elsewhere/victim.npy"), "precious").unwrap();
    std::fs::create_dir_all(dir.join("out")).unwrap();
    symlink("../elsewhere/victim.npy", &dir.join("out/result.npy"));
    symlink("../elsewhere", &dir.join("out/sub"));
    for (target, engines) in [("result.npy", false), ("sub/x.npy", true)] {
        program(&dir, &format!(".out {OUT} @ {target}\n"));
        let mut args = vec!["p.tpb"];
        if !engines {
            args.insert(0, "--serial");
        }
        let err = status(&run(&dir, &args), 2);
        assert!(err.contains("symbolic link"), "{target}: {err}");
        assert!(err.contains("nothing was run"), "{err}");
        assert_eq!(
            std::fs::read(dir.join("elsewhere/victim.npy")).unwrap(),
            b"precious"
        );
        assert!(!dir.join("elsewhere/x.npy").exists());
    }
    // The default `out` itself a link: refused; named by the user: theirs to choose.
    std::fs::remove_dir_all(dir.join("out")).unwrap();
    symlink("elsewhere", &dir.join("out"));
    program(&dir, &format!(".out {OUT} @ y.npy\n"));
    let err = status(&run(&dir, &["p.tpb"]), 2);
    assert!(
        err.contains("symbolic link") && err.contains("--out-dir"),
        "{err}"
    );
    assert!(!dir.join("elsewhere/y.npy").exists());
    status(&run(&dir, &["p.tpb", "--out-dir", "out"]), 0);
    assert!(dir.join("elsewhere/y.npy").exists());
}

/// Item 1: the temporary file is created exclusively under an unpredictable name; a link
/// planted at the old predictable name `.NAME.tpb-tmp-PID` is never followed.
#[cfg(unix)]
#[test]
fn a_planted_temporary_link_is_not_followed() {
    let dir = scratch("tmp_link");
    std::fs::write(dir.join("victim"), "precious").unwrap();
    // The test runs in this process: the old name used its id.
    let pid = std::process::id();
    symlink("victim", &dir.join(format!(".a.npy.tpb-tmp-{pid}")));
    let target = dir.join("a.npy");
    tpb::atomic::write_file(&target, b"new").unwrap();
    assert_eq!(std::fs::read(&target).unwrap(), b"new");
    assert_eq!(std::fs::read(dir.join("victim")).unwrap(), b"precious");
    // A symlink at the target itself is refused, not written through.
    symlink("victim", &dir.join("b.npy"));
    let e = tpb::atomic::write_file(&dir.join("b.npy"), b"new").unwrap_err();
    assert!(e.to_string().contains("symbolic link"), "{e}");
    assert_eq!(std::fs::read(dir.join("victim")).unwrap(), b"precious");
}

/// Item 2: outputs are compared by what they resolve to: two paths to one file through a
/// directory link or a hard link are one output; `x/../A.npy` inside --out-dir is inside.
#[cfg(unix)]
#[test]
fn outputs_are_compared_by_identity() {
    let dir = scratch("identity");
    std::fs::create_dir_all(dir.join("dst")).unwrap();
    symlink(".", &dir.join("dst/same"));
    program(&dir, "");
    let d = dir.join("dst").display().to_string();
    let a = format!("{OUT}@{d}/a.npy");
    let same = format!("{OUT}@{d}/same/a.npy");
    let err = status(
        &run(&dir, &["--serial", "p.tpb", "--out", &a, "--out", &same]),
        2,
    );
    assert!(err.contains("also written by --out"), "{err}");
    assert!(!dir.join("dst/a.npy").exists());
    // A hard link.
    std::fs::write(dir.join("dst/h1.npy"), "x").unwrap();
    std::fs::hard_link(dir.join("dst/h1.npy"), dir.join("dst/h2.npy")).unwrap();
    let (h1, h2) = (format!("{OUT}@{d}/h1.npy"), format!("{OUT}@{d}/h2.npy"));
    let err = status(
        &run(&dir, &["--serial", "p.tpb", "--out", &h1, "--out", &h2]),
        2,
    );
    assert!(err.contains("also written by --out"), "{err}");
    // `x/../A.npy` is inside the output directory, and is the same file as `A.npy`.
    program(&dir, &format!(".out {OUT} @ x/../A.npy\n"));
    let o = run(&dir, &["--serial", "p.tpb"]);
    status(&o, 0);
    assert!(dir.join("out/A.npy").exists());
    assert!(!dir.join("out/x").exists(), "no stray directory");
    program(
        &dir,
        &format!(".out {OUT} @ A.npy\n.out {OUT} @ x/../A.npy\n"),
    );
    let err = status(&run(&dir, &["--serial", "p.tpb"]), 2);
    assert!(err.contains("also written by line 2"), "{err}");
}

/// Item 3: `--timeline` is checked with the other outputs, before anything runs: a bad
/// extension, a missing directory or an unwritable place is exit 2 with nothing written.
#[test]
fn the_timeline_is_checked_before_the_run() {
    let dir = scratch("timeline");
    program(&dir, &format!(".out {OUT} @ o.npy\n"));
    let mut cases = vec![
        ("t.txt", "must end in .json or .svg"),
        ("nodir/t.json", "does not exist"),
    ];
    if Path::new("/proc/self").exists() {
        cases.push(("/proc/t.json", "cannot be written"));
    }
    for (t, needle) in cases {
        let o = run(&dir, &["p.tpb", "--timeline", t]);
        let err = status(&o, 2);
        assert!(
            err.contains(needle) && err.contains("nothing was run"),
            "{t}: {err}"
        );
        assert!(!text(&o.stdout).contains("ran "), "{}", text(&o.stdout));
        assert!(!dir.join("out").exists(), "{t}: outputs written");
        assert!(!dir.join("nodir").exists(), "{t}: directory created");
    }
}

/// Item 3, the other side: the out-dir is created by the run, so a timeline straight into it
/// (the natural `--out-dir out --timeline out/t.json`) is accepted, and no other directory is.
#[test]
fn a_timeline_may_go_into_the_out_dir_the_run_creates() {
    let dir = scratch("timeline_out_dir");
    program(&dir, &format!(".out {OUT} @ o.npy\n"));
    let o = run(
        &dir,
        &[
            "p.tpb",
            "--timeline",
            "out/t.json",
            "--timeline",
            "./out/t.svg",
        ],
    );
    status(&o, 0);
    assert!(dir.join("out/t.json").is_file() && dir.join("out/t.svg").is_file());
    let o = run(&dir, &["p.tpb", "--timeline", "out/sub/t.json"]);
    assert!(status(&o, 2).contains("does not exist"));
}

/// Item 4: program-controlled names in report lines (stdout) have control characters and
/// bidirectional overrides escaped; so do errors on stderr.
#[test]
fn report_lines_escape_controls_and_bidi() {
    let dir = scratch("escapes");
    program(
        &dir,
        &format!(".out {OUT} @ a\u{1b}[2Jb\u{202e}c.npy\n.out {OUT} @ d\u{2066}e.npy\n"),
    );
    let o = run(&dir, &["--serial", "p.tpb"]);
    status(&o, 0);
    let out = text(&o.stdout);
    for c in ['\u{1b}', '\u{202e}', '\u{2066}'] {
        assert!(!out.contains(c), "raw {c:?} on stdout:\n{out}");
    }
    assert!(out.contains("\\u{202e}"), "{out}");
    std::fs::write(
        dir.join("q.tpb"),
        format!("{IOTA}.in x\u{202e}y.npy @ {OUT}\n"),
    )
    .unwrap();
    let err = status(&run(&dir, &["--serial", "q.tpb"]), 2);
    assert!(
        !err.contains('\u{202e}') && err.contains("\\u{202e}"),
        "{err}"
    );
}

/// Runs `tpb ARGS` in `cwd` with at most 1.5 GB of address space, so that an unbounded read
/// fails fast instead of taking the machine.
#[cfg(unix)]
fn tpb_capped(cwd: &Path, args: &[&str]) -> Output {
    std::process::Command::new("/bin/sh")
        .current_dir(cwd)
        .arg("-c")
        .arg(r#"ulimit -v 1500000; exec "$0" "$@""#)
        .arg(env!("CARGO_BIN_EXE_tpb"))
        .args(args)
        .output()
        .unwrap()
}

/// An `.npy` header (format 1.0) for `dict`, padded as numpy pads it.
fn npy_header(dict: &str) -> Vec<u8> {
    let mut h = dict.to_string();
    while !(10 + h.len() + 1).is_multiple_of(64) {
        h.push(' ');
    }
    h.push('\n');
    let mut out = b"\x93NUMPY\x01\x00".to_vec();
    out.extend_from_slice(&(h.len() as u16).to_le_bytes());
    out.extend_from_slice(h.as_bytes());
    out
}

/// Item 7: every read is bounded before it starts: a program, a queue, an `.in` file, a
/// timing file or an assembly source that never ends (`/dev/zero`) is a one-line error, and
/// an `.npy` whose header declares 16 elements is judged by its length, not read whole.
#[cfg(unix)]
#[test]
fn reads_are_bounded() {
    if !Path::new("/dev/zero").exists() {
        return;
    }
    let dir = scratch("bounded");
    program(&dir, "");
    let zero_in = format!("/dev/zero@{OUT}");
    for (args, needle) in [
        (vec!["run", "/dev/zero"], "limit"),
        (vec!["run", "--queue", "dve=/dev/zero"], "limit"),
        // Read only as far as its (missing) magic.
        (vec!["run", "p.tpb", "--in", &zero_in], "bad .npy magic"),
        (vec!["run", "p.tpb", "--timing-file", "/dev/zero"], "limit"),
        (vec!["asm", "/dev/zero", "-o", "x.bin"], "limit"),
    ] {
        let o = tpb_capped(&dir, &args);
        let err = status(&o, 2);
        assert!(
            err.contains(needle) && err.contains("/dev/zero"),
            "{args:?}: {err}"
        );
        assert_eq!(err.lines().count(), 1, "{err}");
    }
    // 16 fp32 elements declared, 3 GB present (a sparse file: no disk is used).
    let mut bytes = npy_header("{'descr': '<f4', 'fortran_order': False, 'shape': (16,), }");
    let header = bytes.len() as u64;
    bytes.extend_from_slice(&[0; 64]);
    std::fs::write(dir.join("big.npy"), &bytes).unwrap();
    let f = std::fs::OpenOptions::new()
        .write(true)
        .open(dir.join("big.npy"))
        .unwrap();
    f.set_len(header + (3u64 << 30)).unwrap();
    drop(f);
    let o = tpb_capped(&dir, &["run", "p.tpb", "--in", "big.npy@sbuf[p0..1]+0x0"]);
    let err = status(&o, 2);
    assert!(err.contains("needs 64"), "{err}");
    // A header that declares more than the region's memory can hold is refused before any
    // data is read.
    let huge =
        npy_header("{'descr': '<f4', 'fortran_order': False, 'shape': (128, 1099511627776), }");
    std::fs::write(dir.join("huge.npy"), &huge).unwrap();
    let o = tpb_capped(
        &dir,
        &["run", "p.tpb", "--in", "huge.npy@sbuf[p0..128]+0x0"],
    );
    let err = status(&o, 2);
    assert!(err.contains("huge.npy"), "{err}");
}

/// Item 9: an `.npy` holds at most 64 dimensions (numpy's limit) on the way in and out.
#[test]
fn npy_dimensions_are_capped_at_64() {
    let dir = scratch("ndim");
    let dims = vec!["1"; 65].join(", ");
    let file = npy_header(&format!(
        "{{'descr': '<f4', 'fortran_order': False, 'shape': ({dims}), }}"
    ));
    let mut file = file;
    file.extend_from_slice(&[0; 4]);
    std::fs::write(dir.join("deep.npy"), &file).unwrap();
    program(&dir, "");
    let err = status(
        &run(
            &dir,
            &["--serial", "p.tpb", "--in", "deep.npy@sbuf[p0..1]+0x0"],
        ),
        2,
    );
    assert!(err.contains("65 dimensions") && err.contains("64"), "{err}");
    let shape = vec!["1"; 64].join("x");
    let out = format!("sbuf[p0..1]+0x0:fp32:{shape}x1@deep_out.npy");
    let err = status(&run(&dir, &["--serial", "p.tpb", "--out", &out]), 2);
    assert!(err.contains("65 dimensions") && err.contains("64"), "{err}");
    assert!(!dir.join("out").exists());
    // A million dimensions: refused with a short line (the region is not echoed).
    let shape = vec!["1"; 1_000_000].join("x");
    program(
        &dir,
        &format!(".out sbuf[p0..1]+0x0:fp32:{shape} @ o.npy\n"),
    );
    let err = status(&run(&dir, &["--serial", "p.tpb"]), 2);
    assert!(
        err.contains("1000000 dimensions") && err.len() < 300,
        "{}",
        err.len()
    );
}

/// Item 10: `--threads` beyond a sane multiple of the cores is a clear error, not a panic.
#[test]
fn threads_are_capped() {
    let dir = scratch("threads");
    program(&dir, "");
    let o = run(&dir, &["--serial", "p.tpb", "--threads", "2000"]);
    let err = status(&o, 2);
    assert!(
        err.contains("--threads 2000") && err.contains("at most"),
        "{err}"
    );
    status(&run(&dir, &["--serial", "p.tpb", "--threads", "2"]), 0);
}

/// Item 11: timing values that would overflow the schedule, or a READ_DRAIN longer than the
/// shortest instruction, are refused before the run.
#[test]
fn out_of_range_timing_values_are_refused() {
    let dir = scratch("timing");
    program(&dir, "");
    for (v, needle) in [
        ("DVE_MIN_II=1099511627776", "DVE_MIN_II"),
        ("POOL_START=1000000000", "POOL_START"),
        ("CLOCK_MHZ_DVE_CAYMAN=1000000000", "CLOCK_MHZ_DVE_CAYMAN"),
        ("READ_DRAIN=100", "READ_DRAIN"),
    ] {
        let o = run(&dir, &["p.tpb", "--timing", v]);
        let err = status(&o, 2);
        assert!(
            err.contains(needle) && err.contains("at most"),
            "{v}: {err}"
        );
        assert!(!text(&o.stdout).contains("ran "), "{v}");
    }
    status(&run(&dir, &["p.tpb", "--timing", "READ_DRAIN=63"]), 0);
}

/// Peak resident memory of a `tpb` run (kB), when the platform reports it.
fn peak_kb(o: &Output) -> Option<u64> {
    text(&o.stderr)
        .lines()
        .find_map(|l| l.strip_prefix("tpb: peak memory "))
        .and_then(|v| v.trim_end_matches(" kB").parse().ok())
}

/// Item 8: `.expect FILE` lines hold one file at a time (compared when they act, then
/// dropped), and a failing inline `.expect` quotes a bounded excerpt of its values.
#[test]
fn expectations_are_bounded() {
    let dir = scratch("expect");
    let ones: Vec<u8> = std::iter::repeat_n(1f32.to_le_bytes(), 128 * 16384)
        .flatten()
        .collect();
    let mut file = npy_header("{'descr': '<f4', 'fortran_order': False, 'shape': (128, 16384), }");
    file.extend_from_slice(&ones);
    std::fs::write(dir.join("big.npy"), file).unwrap();
    let line = "sbuf[p0..128]+0x0:fp32:128x16384 == big.npy\n";
    program(&dir, &format!(".expect {line}").repeat(30));
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_tpb"))
        .current_dir(&dir)
        .args(["run", "--serial", "p.tpb"])
        .env("TPB_PEAK_MEMORY", "1")
        .output()
        .unwrap();
    status(&o, 1);
    if let Some(kb) = peak_kb(&o) {
        assert!(kb < 120_000, "peak {kb} kB for 30 expectations of 8 MiB");
    }
    // 100 000 inline values, all wrong: the report quotes a few, not all.
    let values = vec!["7"; 100_000].join(",");
    program(
        &dir,
        &format!(".expect sbuf[p0..100]+0x0:int32:100x1000 == [{values}]\n"),
    );
    let o = run(&dir, &["--serial", "--allow-races", "p.tpb"]);
    let err = status(&o, 1);
    let out = text(&o.stdout);
    assert!(
        out.len() + err.len() < 4096,
        "{} + {} bytes",
        out.len(),
        err.len()
    );
    assert!(err.contains("100000 values"), "{err}");
}

/// Item 15: an inline `.expect` value the dtype cannot hold exactly is an input error: an
/// integer literal past fp32's 24-bit significand, and a literal that underflows to zero.
#[test]
fn inexact_expect_literals_are_errors() {
    let dir = scratch("literals");
    for (values, needle) in [
        ("16777217", "not exactly representable in fp32"),
        ("1e-50", "underflows to 0"),
        ("-1e-46", "underflows to 0"),
    ] {
        program(
            &dir,
            &format!(".expect sbuf[p0..1]+0x0:fp32:1x1 == [{values}]\n"),
        );
        let err = status(&run(&dir, &["--serial", "p.tpb"]), 2);
        assert!(err.contains(needle), "{values}: {err}");
    }
    // Exact literals still pass: 16777216, -0.0, and the smallest subnormal.
    program(
        &dir,
        ".show sbuf[p0..1]+0x0:fp32 1x1 mark=16777216\n\
         .show sbuf[p0..1]+0x0:fp32 1x1 mark=-0.0\n\
         .show sbuf[p0..1]+0x0:fp32 1x1 mark=1e-45\n",
    );
    status(&run(&dir, &["--serial", "p.tpb"]), 0);
}
