//! What the commands do with their standard output and the files they write and read
//! (issue 29 items 1, 3 and 6; docs/cli.md "Limits and safety", docs/cli-run.md "Output
//! files"):
//!
//! - a standard output that fails (a reader that closed the pipe, a full disk, a descriptor
//!   open for reading only) ends the command with status 2 and one line on stderr, never a panic, and a
//!   run then writes none of its files: its outputs are a set, all or nothing;
//! - only regular files are written: a FIFO, a device or a link to one is refused before
//!   anything runs;
//! - an input that is a FIFO with no writer does not block;
//! - files are created with the mode the umask allows (0644 under 022), not 0600.
#![cfg(unix)]

#[path = "support/cli.rs"]
mod cli;
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

fn scratch(test: &str) -> PathBuf {
    cli::scratch("cli-files", test)
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn example(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples")
        .join(name)
        .canonicalize()
        .unwrap()
        .display()
        .to_string()
}

/// Waits for `child` at most 30 s (a command that blocks forever fails the test rather than
/// hanging it), then returns its output.
fn finish(mut child: Child, what: &str) -> Output {
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > Duration::from_secs(30) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{what}: still running after 30 s (blocked?)");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

/// `tpb ARGS` in `cwd` with `stdout` as standard output, stdin empty.
fn tpb_with_stdout(cwd: &Path, args: &[&str], stdout: Stdio) -> Output {
    let child = Command::new(env!("CARGO_BIN_EXE_tpb"))
        .current_dir(cwd)
        .args(args)
        .stdin(Stdio::null())
        .stdout(stdout)
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    finish(child, &format!("{args:?}"))
}

/// `sh -c SCRIPT tpb ARGS…` in `cwd`: `"$0" "$@"` in the script runs tpb.
fn tpb_in_shell(cwd: &Path, script: &str, args: &[&str]) -> Output {
    let child = Command::new("sh")
        .current_dir(cwd)
        .arg("-c")
        .arg(script)
        .arg(env!("CARGO_BIN_EXE_tpb"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    finish(child, &format!("{script} {args:?}"))
}

/// Every file under `dir`, relative, sorted.
fn files_under(dir: &Path) -> Vec<String> {
    fn walk(root: &Path, d: &Path, out: &mut Vec<String>) {
        let Ok(entries) = fs::read_dir(d) else {
            return;
        };
        for e in entries {
            let p = e.unwrap().path();
            if p.is_dir() {
                walk(root, &p, out);
            } else {
                out.push(p.strip_prefix(root).unwrap().display().to_string());
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, dir, &mut out);
    out.sort();
    out
}

/// The shipped example with its two outputs, manifest and both timelines.
fn example_run() -> Vec<String> {
    [
        "run",
        &example("causal_mask.tpb"),
        "--timeline",
        "out/t.svg",
        "--timeline",
        "out/t.json",
    ]
    .map(String::from)
    .to_vec()
}

const ALL_OUTPUTS: [&str; 5] = [
    "out/causal_mask.manifest.json",
    "out/causal_mask.npy",
    "out/causal_offsets.npy",
    "out/t.json",
    "out/t.svg",
];

fn assert_clean_error(o: &Output, needle: &str, what: &str) {
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{what}: {err}");
    assert!(!err.contains("panicked"), "{what}: {err}");
    assert!(err.contains(needle), "{what}: {err}");
    assert_eq!(err.lines().count(), 1, "{what}: one line on stderr: {err}");
}

// Item 1: a closed pipe (the reader gone before the first line) and a full disk
// (`> /dev/full`) on standard output: every command ends with status 2 and one line, never a
// panic (exit 101), and `tpb run` writes none of its files (before: one `.npy`, no manifest).
#[test]
fn a_failing_stdout_is_a_clean_error_and_the_run_writes_nothing() {
    let dir = scratch("failing-stdout");
    let run = example_run();
    let run: Vec<&str> = run.iter().map(String::as_str).collect();
    let bin = example("causal_mask.bin");
    let tpb_text = example("causal_mask.tpb");
    let commands: Vec<Vec<&str>> = vec![
        run.clone(),
        ["run", &tpb_text, "--serial", "--trace"].to_vec(),
        ["run", &tpb_text, "--trace"].to_vec(),
        ["decode", &bin].to_vec(),
        ["validate", &bin].to_vec(),
        ["explain", &bin].to_vec(),
        ["disasm", &bin].to_vec(),
        ["pack", "--dims", "[[64,2],[1,64]]"].to_vec(),
    ];
    for args in &commands {
        // A pipe whose reader is already closed: every write fails with EPIPE.
        let (reader, writer) = std::io::pipe().unwrap();
        drop(reader);
        let o = tpb_with_stdout(&dir, args, Stdio::from(writer));
        assert_clean_error(
            &o,
            "standard output: Broken pipe",
            &format!("{args:?} | closed"),
        );
        assert_eq!(files_under(&dir), Vec::<String>::new(), "{args:?}");
        let full = fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .unwrap();
        let o = tpb_with_stdout(&dir, args, Stdio::from(full));
        assert_clean_error(
            &o,
            "standard output: No space left on device",
            &format!("{args:?} > /dev/full"),
        );
        assert_eq!(files_under(&dir), Vec::<String>::new(), "{args:?}");
    }
    // The same run with a working standard output writes the whole set.
    let o = tpb_with_stdout(&dir, &run, Stdio::piped());
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert_eq!(files_under(&dir), ALL_OUTPUTS);
}

// Item 1: `tpb run … | head -1`: head takes the first line and leaves. Whether the run had
// written everything into the pipe by then depends on timing: either it completed (all
// files) or it stopped at the first failed write (no file), never a part of the set.
#[test]
fn a_reader_that_leaves_early_gets_all_the_files_or_none() {
    let run = example_run();
    for i in 0..4 {
        let dir = scratch(&format!("head-{i}"));
        let script = format!("\"$0\" \"$@\" | head -{}", 1 + i);
        let args: Vec<&str> = run.iter().map(String::as_str).collect();
        let o = tpb_in_shell(&dir, &script, &args);
        let err = text(&o.stderr);
        assert!(!err.contains("panicked"), "{err}");
        assert!(
            text(&o.stdout).starts_with("program  "),
            "{}",
            text(&o.stdout)
        );
        let files = files_under(&dir);
        assert!(
            files.is_empty() || files == ALL_OUTPUTS,
            "a part of the set: {files:?} ({err})"
        );
    }
}

// Item 1: a closed standard output (`>&-`). The Rust runtime opens /dev/null on a closed
// descriptor 0..2 before `main` (so the first file opened cannot become descriptor 1): the
// binary runs as with `>/dev/null`, the report discarded, every file written. The library
// refuses a closed descriptor 1 itself when called in-process (tpb._tpb.cli; Python does not
// reopen it, and python/tpb/_cli.py reopens it as the binary does: python/tests). A
// descriptor open for reading only is refused: writes to it would vanish.
#[test]
fn a_closed_stdout_discards_the_report_and_a_read_only_one_is_refused() {
    let dir = scratch("closed-stdout");
    let run = example_run();
    let mut args: Vec<&str> = run.iter().map(String::as_str).collect();
    let o = tpb_in_shell(&dir, "exec \"$0\" \"$@\" >&-", &args);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert!(o.stderr.is_empty(), "{}", text(&o.stderr));
    assert_eq!(files_under(&dir), ALL_OUTPUTS);
    fs::remove_dir_all(dir.join("out")).unwrap();
    args.truncate(2);
    let o = tpb_in_shell(&dir, "exec \"$0\" \"$@\" 1</dev/null", &args);
    assert_clean_error(
        &o,
        "standard output is open for reading only",
        "1</dev/null",
    );
    assert_eq!(files_under(&dir), Vec::<String>::new());
}

fn mkfifo(path: &Path) {
    let ok = Command::new("mkfifo").arg(path).status().unwrap();
    assert!(ok.success(), "mkfifo {}", path.display());
}

// Item 3: a FIFO, a device, or a link to either where a file is to be written is refused
// before anything runs (a FIFO with no reader blocked the run forever; a link to /dev/null
// was followed). Status 2, the file named, nothing written.
#[test]
fn fifos_devices_and_links_to_them_are_not_written() {
    let dir = scratch("special-outputs");
    mkfifo(&dir.join("fifo"));
    fs::create_dir_all(dir.join("out")).unwrap();
    mkfifo(&dir.join("out/causal_mask.npy"));
    std::os::unix::fs::symlink("fifo", dir.join("fifo.svg")).unwrap();
    std::os::unix::fs::symlink("/dev/null", dir.join("null.json")).unwrap();
    mkfifo(&dir.join("pipe.json"));
    let tpb_text = example("causal_mask.tpb");
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (vec!["asm", &tpb_text, "-o", "fifo"], "FIFO"),
        (
            vec!["asm", &tpb_text, "-o", "/dev/null"],
            "character device",
        ),
        (vec!["run", &tpb_text], "FIFO"),
        (
            vec![
                "run",
                &tpb_text,
                "--out-dir",
                "o2",
                "--timeline",
                "pipe.json",
            ],
            "FIFO",
        ),
        (
            vec![
                "run",
                &tpb_text,
                "--out-dir",
                "o2",
                "--timeline",
                "fifo.svg",
            ],
            "symbolic link",
        ),
        (
            vec![
                "run",
                &tpb_text,
                "--out-dir",
                "o2",
                "--timeline",
                "null.json",
            ],
            "symbolic link",
        ),
        (
            vec![
                "run",
                &tpb_text,
                "--out-dir",
                "o2",
                "--out",
                "sbuf[p0..1]+0x0:fp32:1x4@/dev/null",
            ],
            "character device",
        ),
    ];
    for (args, needle) in cases {
        let o = tpb_with_stdout(&dir, &args, Stdio::piped());
        let err = text(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(needle), "{args:?}: {err}");
        assert!(
            o.stdout.is_empty(),
            "{args:?}: nothing ran: {}",
            text(&o.stdout)
        );
        assert!(!dir.join("o2").exists(), "{args:?}");
    }
}

// Item 3: a FIFO that no program writes, given as an input, does not block: it reads as
// empty (an input error). A pipe with a writer is read as before, once: `tpb run
// /dev/stdin` fed a text program by a pipe runs it.
#[test]
fn an_input_fifo_without_a_writer_does_not_block() {
    let dir = scratch("special-inputs");
    mkfifo(&dir.join("prog.bin"));
    mkfifo(&dir.join("prog.tpb"));
    mkfifo(&dir.join("x.npy"));
    mkfifo(&dir.join("timing"));
    fs::write(dir.join("p.tpb"), ".in x.npy@sbuf[p0..1]+0x0:fp32\n").unwrap();
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (vec!["decode", "prog.bin"], "empty"),
        (vec!["validate", "prog.bin"], "empty"),
        (vec!["run", "prog.bin"], "empty"),
        // An empty text program is a program of no instructions.
        (vec!["run", "prog.tpb"], ""),
        (vec!["asm", "prog.tpb", "-o", "x.bin"], ""),
        (vec!["run", "--queue", "dve=prog.bin"], "empty"),
        (vec!["run", "p.tpb"], "x.npy"),
        (
            vec![
                "run",
                "p.tpb",
                "--timing-file",
                "timing",
                "--in",
                "x.npy@sbuf[p0..1]+0x0:fp32",
            ],
            "",
        ),
    ];
    for (args, needle) in cases {
        let o = tpb_with_stdout(&dir, &args, Stdio::piped());
        let err = text(&o.stderr);
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        assert!(err.contains(needle), "{args:?}: {err}");
    }
    // A text program through a pipe (no extension: text or binary is decided on its bytes,
    // read once).
    let mut child = Command::new(env!("CARGO_BIN_EXE_tpb"))
        .current_dir(&dir)
        .args(["run", "/dev/stdin"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let program = "iota src=0:[[1,4]] multiplier=4 out=int32 dst=sbuf[p0..1]+0x0:[[1,4]]\n\
                   .expect sbuf[p0..1]+0x0:int32:1x4 == [0, 1, 2, 3]\n";
    std::io::Write::write_all(child.stdin.as_mut().unwrap(), program.as_bytes()).unwrap();
    drop(child.stdin.take());
    let o = finish(child, "run /dev/stdin");
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert!(
        text(&o.stdout).contains("expect   1 passed"),
        "{}",
        text(&o.stdout)
    );
}

// Item 6: output files are created as the umask allows (0666 less the umask: 0644 under 022,
// 0640 under 027), as any program's `open(2)` creates them; before, 0600 whatever the umask.
#[test]
fn outputs_are_created_with_the_umask_mode() {
    for (umask, mode) in [("022", 0o644), ("027", 0o640), ("077", 0o600)] {
        let dir = scratch(&format!("umask-{umask}"));
        let run = example_run();
        let args: Vec<&str> = run.iter().map(String::as_str).collect();
        let script = format!("umask {umask}; exec \"$0\" \"$@\"");
        let o = tpb_in_shell(&dir, &script, &args);
        assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
        let asm = [
            "asm",
            &example("causal_mask.tpb"),
            "-o",
            "out/causal_mask.bin",
        ];
        let o = tpb_in_shell(&dir, &script, &asm);
        assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
        for f in ALL_OUTPUTS.iter().chain(&["out/causal_mask.bin"]) {
            let got = fs::metadata(dir.join(f)).unwrap().permissions().mode() & 0o777;
            assert_eq!(got, mode, "{f} under umask {umask}: {got:o}");
        }
    }
}
