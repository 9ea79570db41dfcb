//! The one bless helper for golden files, shared by the test suites of every crate
//! (`#[path]`-included): compare with the committed file, or rewrite it under `TPB_BLESS=1`.
//!
//! Each generated file (or generated region of a file) has exactly one writer test, and a
//! rewrite is atomic (a temporary file in the same directory renamed over the old one) and
//! skipped when nothing changed, so sibling tests reading the same file in parallel never see
//! it half written (issue 26 item 2: `tools/bless.sh` was flaky while a test rewrote
//! docs/syntax.md under its readers).
#![allow(dead_code)] // each suite uses part of it

use std::path::Path;

/// Whether `TPB_BLESS=1` asks the suite to rewrite golden files.
pub fn bless() -> bool {
    std::env::var_os("TPB_BLESS").is_some_and(|v| v == "1")
}

/// Compares `actual` with the committed file at `path`, or rewrites it under `TPB_BLESS=1`.
pub fn check_file(path: &Path, actual: &[u8]) {
    if bless() {
        write_atomically(path, actual);
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

/// Replaces `path` with `bytes` by a rename (readers see the old or the new file, never a
/// partial one); does nothing when the file already holds `bytes`.
pub fn write_atomically(path: &Path, bytes: &[u8]) {
    if std::fs::read(path).is_ok_and(|old| old == bytes) {
        return;
    }
    let dir = path.parent().expect("a golden file has a directory");
    std::fs::create_dir_all(dir).expect("create the golden directory");
    let name = path.file_name().expect("a golden file has a name");
    let tmp = dir.join(format!(
        ".{}.bless-{}-{:?}",
        name.to_string_lossy(),
        std::process::id(),
        std::thread::current().id()
    ));
    std::fs::write(&tmp, bytes).expect("write the temporary golden file");
    std::fs::rename(&tmp, path).expect("move the golden file into place");
}

/// Checks the generated region of `path` between the `begin` and `end` markers (the text
/// after `begin`'s line up to `end`) against `generated`, or rewrites just that region under
/// `TPB_BLESS=1`; `what` names the command that regenerates it.
pub fn check_region(path: &Path, begin: &str, end: &str, generated: &str, what: &str) {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let start = text
        .find(begin)
        .unwrap_or_else(|| panic!("{} lacks the {begin} marker", path.display()));
    let body = start
        + text[start..]
            .find('\n')
            .map_or(text.len() - start, |i| i + 1);
    let stop = text
        .find(end)
        .unwrap_or_else(|| panic!("{} lacks the {end} marker", path.display()));
    assert!(
        body <= stop,
        "{}: {end} comes before {begin}",
        path.display()
    );
    if text[body..stop] == *generated {
        return;
    }
    if bless() {
        let updated = format!("{}{generated}{}", &text[..body], &text[stop..]);
        write_atomically(path, updated.as_bytes());
        return;
    }
    panic!(
        "{}: the generated region ({begin}) is stale; run `{what}` and commit the result.\n\
         Generated:\n{generated}",
        path.display()
    );
}
