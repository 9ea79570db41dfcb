//! `decode`, `validate` and `explain` stream (issue 8 item 2): their peak memory does not grow
//! with the file. On programs of up to 1 MiB (before, `decode --json` needed 413 MB per MiB
//! and `validate` 27 MB per MiB) each stays under the documented 100 MB and within 4 MB of
//! its peak on a 64 KiB program.
//! `TPB_PEAK_MIB=64 cargo test --release -p tpb --test peak_memory -- --nocapture` measures
//! the 64 MiB figure docs/cli.md quotes.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// A program of `kib` KiB: a repeating mix of valid and invalid bundles of every struct.
fn program(kib: usize) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    let path = dir.join(format!("peak_memory_{kib}kib.bin"));
    if std::fs::metadata(&path).is_ok_and(|m| m.len() == (kib as u64) << 10) {
        return path;
    }
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples");
    let mut seed = std::fs::read(examples.join("bad_bundles.bin")).unwrap();
    seed.extend(std::fs::read(examples.join("causal_mask.bin")).unwrap());
    let bytes: Vec<u8> = seed.iter().copied().cycle().take(kib << 10).collect();
    assert_eq!(bytes.len() % 64, 0);
    std::fs::write(&path, bytes).unwrap();
    path
}

/// Runs `tpb ARGS FILE` with stdout discarded and returns its peak resident memory in kB.
fn peak_kb(args: &[&str], file: &Path) -> u64 {
    let out = Command::new(env!("CARGO_BIN_EXE_tpb"))
        .args(args)
        .arg(file)
        .env("TPB_PEAK_MEMORY", "1")
        .stdout(Stdio::null())
        .output()
        .expect("run tpb");
    assert!(out.status.code().is_some_and(|c| c <= 1), "{args:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    let line = err
        .lines()
        .find_map(|l| l.strip_prefix("tpb: peak memory "))
        .unwrap_or_else(|| panic!("{args:?}: no peak memory line in {err}"));
    line.trim_end_matches(" kB").trim().parse().unwrap()
}

#[test]
fn decode_validate_explain_memory_does_not_grow_with_the_file() {
    if !Path::new("/proc/self/status").exists() {
        eprintln!("no /proc: peak memory is measured on Linux only");
        return;
    }
    let forced: Option<usize> = std::env::var("TPB_PEAK_MIB")
        .ok()
        .and_then(|v| v.parse().ok());
    // Sizes (KiB) at which the old, whole-file commands grew by well over the 4 MB allowed:
    // a debug build formats JSON and explanations slowly, so those get smaller files.
    let commands: [(&[&str], usize); 7] = [
        (&["decode"], 1024),
        (&["decode", "--json"], 256),
        (&["validate"], 1024),
        (&["validate", "--json"], 512),
        (&["validate", "--all-gens"], 1024),
        (&["explain"], 256),
        (&["explain", "--all-gens"], 128),
    ];
    let small = program(64);
    for (args, kib) in commands {
        let kib = forced.map_or(kib, |m| m << 10);
        let large = program(kib);
        let (a, b) = (peak_kb(args, &small), peak_kb(args, &large));
        println!("tpb {args:?}: peak {a} kB on 64 KiB, {b} kB on {kib} KiB");
        assert!(b < 100_000, "tpb {args:?}: {b} kB on {kib} KiB");
        assert!(b < a + 4_000, "tpb {args:?} grows: {a} kB → {b} kB");
    }
}

/// A binary program: an Iota (POOL) that fills 16 fp32 slots and bumps semaphore 0, then
/// `n` copies of a one-element TensorScalar (DVE) that waits for it — race-free, no warning.
fn one_element_program(n: usize) -> PathBuf {
    use tpb_isa::text::{asm, AsmOptions};
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    let path = dir.join(format!("peak_memory_run_{n}.bin"));
    let src = "iota src=0:[[1,16]] out=fp32 dst=sbuf[p0..1]+0x0:[[1,16]] \
               update_mode=sem_inc_complete update_idx=0\n\
               ts_arith src=sbuf[p0..1]+0x4:[[1,1]] in=fp32 out=fp32 op0=mult imm0=0.5 \
               dst=sbuf[p0..1]+0x100:[[1,1]] wait_mode=sem_ge_imm wait_idx=0 semaphore_value=1\n";
    let bundles = asm(src, &AsmOptions::new(tpb_isa::Gen::Cayman))
        .unwrap()
        .to_bytes();
    let (first, each) = bundles.split_at(64);
    let mut bytes = first.to_vec();
    for _ in 0..n {
        bytes.extend_from_slice(each);
    }
    std::fs::write(&path, bytes).unwrap();
    path
}

/// `tpb run` keeps state proportional to the program and no more (issue 11 target 3): the
/// decoded instruction (68 bytes) and, on the engine model, one compact schedule record; no
/// per-instruction report, text or timeline event unless asked for. Measured as the growth of
/// peak memory per added instruction between two program sizes (before: 254 bytes with
/// `--serial`, 1.2 kB on the engines).
#[test]
fn run_memory_per_instruction_stays_small() {
    if !Path::new("/proc/self/status").exists() {
        eprintln!("no /proc: peak memory is measured on Linux only");
        return;
    }
    let (n_small, n_large) = (10_000usize, 60_000usize);
    let (small, large) = (one_element_program(n_small), one_element_program(n_large));
    let out = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("peak_memory_run_out");
    let out_dir = out.to_str().unwrap();
    // Bytes per instruction allowed: the instruction, its engine and a little slack; on the
    // engine model also the schedule record (`ScheduledStep`, 136 bytes).
    for (mode, limit) in [(&["run", "--serial"][..], 100), (&["run"][..], 250)] {
        let args: Vec<&str> = mode.iter().copied().chain(["--out-dir", out_dir]).collect();
        let (a, b) = (peak_kb(&args, &small), peak_kb(&args, &large));
        let per = (b.saturating_sub(a) * 1024) as f64 / (n_large - n_small) as f64;
        println!("tpb {mode:?}: peak {a} kB at {n_small}, {b} kB at {n_large}: {per:.0} B each");
        assert!(
            per <= limit as f64,
            "tpb {mode:?}: {per:.0} bytes per instruction"
        );
    }
}

/// `--timeline t.json` streams its events (issue 20 item 6): the growth of peak memory per
/// added instruction stays below the size of its event text: the JSON is streamed into the
/// temporary file, never held whole (before: about 11 KB per instruction as a JSON document
/// tree; 100k instructions took 1.1 GB; then 662 B with the text held for the write; now ~210 B).
#[test]
fn a_json_timeline_costs_about_its_own_size_per_instruction() {
    if !Path::new("/proc/self/status").exists() {
        eprintln!("no /proc: peak memory is measured on Linux only");
        return;
    }
    let (n_small, n_large) = (10_000usize, 40_000usize);
    let (small, large) = (one_element_program(n_small), one_element_program(n_large));
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("peak_memory_timeline");
    std::fs::create_dir_all(&dir).unwrap();
    let (out_dir, trace) = (dir.join("out"), dir.join("t.json"));
    let args = [
        "run",
        "--out-dir",
        out_dir.to_str().unwrap(),
        "--timeline",
        trace.to_str().unwrap(),
    ];
    let a = peak_kb(&args, &small);
    let b = peak_kb(&args, &large);
    let per = (b.saturating_sub(a) * 1024) as f64 / (n_large - n_small) as f64;
    let text = std::fs::metadata(&trace).unwrap().len() as f64 / (n_large + 1) as f64;
    println!("--timeline json: peak {a} kB at {n_small}, {b} kB at {n_large}: {per:.0} B each ({text:.0} B of JSON each)");
    // Only the schedule record: a run that held the JSON text would cost more than `text`.
    assert!(
        per < text,
        "{per:.0} bytes per instruction, {text:.0} of JSON each"
    );
}
