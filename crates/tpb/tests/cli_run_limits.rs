//! `tpb run` on careless or hostile input (issue 8): bounded memory and cost, nothing written
//! outside where the user said or after an input error, outputs replaced atomically, printed
//! names escaped, and error texts that name the real problem. Each test names its item.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use tpb::npy::{write_npy, NpyArray, NpyStyle};
use tpb_isa::Dtype;

/// A fresh directory for one test (the working directory of its runs).
fn scratch(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tpb-run-limits-{}-{test}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Runs `tpb run ARGS` in `cwd`.
fn run(cwd: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tpb"))
        .current_dir(cwd)
        .arg("run")
        .args(args)
        .output()
        .expect("run tpb")
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
