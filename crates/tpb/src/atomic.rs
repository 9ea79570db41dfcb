//! Writing a file so that no reader, crash or full disk ever sees it half-written: the bytes
//! go to a temporary file in the same directory, which is flushed to disk and then renamed
//! over the target (a rename within one directory is atomic on POSIX and Windows). A failed
//! write leaves the earlier file at that path untouched.
//!
//! The temporary file is created exclusively (`O_EXCL`) under an unpredictable name by the
//! `tempfile` crate, so a link planted next to the target is never opened or followed; the
//! rename replaces whatever entry is at the target without following it.

use std::fs;
use std::io::{self, Write};
use std::path::Path;

/// Writes `bytes` to `path` atomically (see the module doc). The directory must exist.
/// A symbolic link at `path` is refused (its target is never written), and a path that is
/// not a regular file (a device such as `/dev/stdout`, a pipe) is written in place: renaming
/// over a device would replace the device.
pub fn write_file(path: &Path, bytes: &[u8]) -> io::Result<()> {
    write_with(path, |out| out.write_all(bytes))
}

/// As [`write_file`], with the contents produced by `fill` straight into the temporary file
/// (through a buffer), so a large output (a timeline) is never held in memory whole.
pub fn write_with(
    path: &Path,
    fill: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> io::Result<()> {
    if let Ok(meta) = fs::symlink_metadata(path) {
        let target = fs::metadata(path).ok();
        if target.as_ref().is_some_and(|t| !t.is_file() && !t.is_dir()) {
            let mut out = io::BufWriter::new(fs::OpenOptions::new().write(true).open(path)?);
            fill(&mut out)?;
            return out.flush();
        }
        if meta.file_type().is_symlink() {
            return Err(symlink_error());
        }
    }
    let name = path.file_name().ok_or_else(|| {
        io::Error::new(
            io::ErrorKind::InvalidInput,
            "the path names no file (it ends in `..` or `/`)",
        )
    })?;
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let mut prefix = std::ffi::OsString::from(".");
    prefix.push(name);
    prefix.push(".tpb-tmp-");
    // Removed on drop unless persisted, so every failure below leaves no temporary behind.
    let mut tmp = tempfile::Builder::new().prefix(&prefix).tempfile_in(dir)?;
    {
        let mut out = io::BufWriter::new(tmp.as_file_mut());
        fill(&mut out)?;
        out.flush()?;
    }
    tmp.as_file().sync_all()?;
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}

/// The error for a link where a file is to be written.
pub fn symlink_error() -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidInput,
        "is a symbolic link; tpb never writes through a link (remove it, or name the file it \
         points to)",
    )
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
