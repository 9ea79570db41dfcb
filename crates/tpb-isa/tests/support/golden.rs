//! The one bless helper for golden files, shared by the test suites of every crate
//! (`#[path]`-included): compare with the committed file, or rewrite it under `TPB_BLESS=1`.
#![allow(dead_code)] // each suite uses part of it

use std::path::Path;

/// Whether `TPB_BLESS=1` asks the suite to rewrite golden files.
pub fn bless() -> bool {
    std::env::var_os("TPB_BLESS").is_some_and(|v| v == "1")
}

/// Compares `actual` with the committed file at `path`, or rewrites it under `TPB_BLESS=1`.
pub fn check_file(path: &Path, actual: &[u8]) {
    if bless() {
        std::fs::create_dir_all(path.parent().expect("a golden file has a directory"))
            .expect("create the golden directory");
        std::fs::write(path, actual).expect("write the golden file");
        return;
    }
    let expected = std::fs::read(path).unwrap_or_else(|e| {
        panic!(
            "{}: {e} (run with TPB_BLESS=1 to create it)",
            path.display()
        )
    });
    if expected != actual {
        panic!(
            "{} differs from the output; review, then TPB_BLESS=1 to accept:\n--- expected\n{}\n--- actual\n{}",
            path.display(),
            String::from_utf8_lossy(&expected),
            String::from_utf8_lossy(actual)
        );
    }
}
