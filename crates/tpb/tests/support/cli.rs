//! Helpers shared by the `tpb` command-line tests: a scratch directory per test and running
//! the built binary in it.

#![allow(dead_code)] // each test file uses its own subset

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// A fresh, empty directory for one test (the working directory of its runs); `suite` keeps
/// the directories of different test files apart.
pub fn scratch(suite: &str, test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tpb-{suite}-{}-{test}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Runs `tpb ARGS` in `cwd`.
pub fn tpb(cwd: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tpb"))
        .current_dir(cwd)
        .args(args)
        .output()
        .expect("run tpb")
}
