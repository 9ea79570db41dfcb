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
