//! Writing a file so that no reader, crash or full disk ever sees it half-written: the bytes
//! go to a temporary file in the same directory, which is flushed to disk and then renamed
//! over the target (a rename within one directory is atomic on POSIX and Windows). A failed
//! write leaves the earlier file at that path untouched.

use std::fs::{self, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// Writes `bytes` to `path` atomically (see the module doc). The directory must exist.
/// A symbolic link is written through (its target is replaced, not the link), and a path
/// that is not a regular file (`/dev/stdout`, a pipe) is written in place: renaming over a
/// device would replace the device.
pub fn write_file(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let resolved;
    let mut path = path;
    if let Ok(meta) = fs::metadata(path) {
        if !meta.is_file() && !meta.is_dir() {
            return fs::write(path, bytes);
        }
        if fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink()) {
            resolved = fs::canonicalize(path)?;
            path = &resolved;
        }
    }
    let tmp = temporary_path(path)?;
    let result = (|| {
        let mut f = OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .open(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        drop(f);
        fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result
}

/// `DIR/.NAME.tpb-tmp-PID` next to `path`: hidden, and unique per process.
fn temporary_path(path: &Path) -> io::Result<PathBuf> {
    let name = path.file_name().ok_or_else(|| {
        io::Error::new(
            io::ErrorKind::InvalidInput,
            "the path names no file (it ends in `..` or `/`)",
        )
    })?;
    let mut tmp = std::ffi::OsString::from(".");
    tmp.push(name);
    tmp.push(format!(".tpb-tmp-{}", std::process::id()));
    Ok(path.with_file_name(tmp))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replaces_the_file_and_leaves_no_temporary() {
        let dir = std::env::temp_dir().join(format!("tpb-atomic-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let p = dir.join("a.npy");
        fs::write(&p, b"old").unwrap();
        write_file(&p, b"new").unwrap();
        assert_eq!(fs::read(&p).unwrap(), b"new");
        assert_eq!(fs::read_dir(&dir).unwrap().count(), 1);
        // A failure (the target is a non-empty directory) keeps what was there.
        let d = dir.join("sub");
        fs::create_dir_all(d.join("x")).unwrap();
        assert!(write_file(&d, b"data").is_err());
        assert!(d.join("x").is_dir());
        assert_eq!(fs::read_dir(&dir).unwrap().count(), 2, "no temporary left");
        fs::remove_dir_all(&dir).unwrap();
    }
}
