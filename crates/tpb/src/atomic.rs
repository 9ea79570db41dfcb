//! Writing a file so that no reader, crash or full disk ever sees it half-written: the bytes
//! go to a temporary file in the same directory, which is flushed to disk and then renamed
//! over the target (a rename within one directory is atomic on POSIX and Windows). A failed
//! write leaves the earlier file at that path untouched.
//!
//! The temporary file is created exclusively (`O_EXCL`) under an unpredictable name by the
//! `tempfile` crate, so a link planted next to the target is never opened or followed; the
//! rename replaces whatever entry is at the target without following it. It is created with
//! mode 0666 less the umask, as `open(2)` creates any file (0644 under the usual 022), not
//! `tempfile`'s private 0600.
//!
//! Only regular files are written: a symbolic link, a FIFO, a device (`/dev/null`,
//! `/dev/stdout`), a socket or a directory at the target is refused before anything is
//! written (a FIFO with no reader would block the writer forever, and a rename over a device
//! would replace the device).
//!
//! Several files written as one set ([`FileSet`]): each is staged beside its target as it is
//! produced, and none is renamed into place until all of them are ready, so a failure part
//! way (a full disk, a closed standard output, a fault) leaves none of the new files.

use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// Writes `bytes` to `path` atomically (see the module doc). The directory must exist.
pub fn write_file(path: &Path, bytes: &[u8]) -> io::Result<()> {
    write_with(path, |out| out.write_all(bytes))
}

/// As [`write_file`], with the contents produced by `fill` straight into the temporary file
/// (through a buffer), so a large output (a timeline) is never held in memory whole.
pub fn write_with(
    path: &Path,
    fill: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> io::Result<()> {
    stage(path, fill)?.commit()
}

/// Checks that `path` may be written: nothing there yet, or a regular file (not a link to
/// one). Run before the work that produces a file, so that a bad target is refused first.
pub fn check_target(path: &Path) -> io::Result<()> {
    let Ok(meta) = fs::symlink_metadata(path) else {
        return Ok(());
    };
    let kind = meta.file_type();
    if kind.is_symlink() {
        return Err(symlink_error());
    }
    if kind.is_file() {
        return Ok(());
    }
    Err(io::Error::new(
        io::ErrorKind::InvalidInput,
        format!(
            "is {}, not a regular file; tpb writes only regular files (name a file)",
            kind_name(&kind)
        ),
    ))
}

/// `a FIFO`, `a character device`, …: what a directory entry is, for messages.
pub fn kind_name(kind: &fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if kind.is_fifo() {
            return "a FIFO (named pipe)";
        }
        if kind.is_char_device() {
            return "a character device";
        }
        if kind.is_block_device() {
            return "a block device";
        }
        if kind.is_socket() {
            return "a socket";
        }
    }
    if kind.is_dir() {
        "a directory"
    } else if kind.is_symlink() {
        "a symbolic link"
    } else if kind.is_file() {
        "a regular file"
    } else {
        "a special file"
    }
}

/// A file written in full beside its target, not yet in place: [`Staged::commit`] renames it
/// over the target; dropping it removes it.
pub struct Staged {
    tmp: tempfile::TempPath,
    target: PathBuf,
}

impl Staged {
    /// Renames the file over its target (the target is checked again first: something may
    /// have appeared there since it was staged).
    pub fn commit(self) -> io::Result<()> {
        check_target(&self.target)?;
        self.tmp.persist(&self.target).map_err(|e| e.error)
    }

    /// The file it will replace.
    pub fn target(&self) -> &Path {
        &self.target
    }
}

/// Writes the contents `fill` produces to a temporary file beside `path`, flushed to disk,
/// ready to [`Staged::commit`]. The directory must exist; `path` must pass [`check_target`].
pub fn stage(
    path: &Path,
    fill: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> io::Result<Staged> {
    check_target(path)?;
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
    let mut builder = tempfile::Builder::new();
    builder.prefix(&prefix);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        // The kernel takes the umask off, as for any file `open(2)` creates.
        builder.permissions(fs::Permissions::from_mode(0o666));
    }
    // Removed on drop unless committed, so every failure below leaves no temporary behind.
    let mut tmp = builder.tempfile_in(dir)?;
    {
        let mut out = io::BufWriter::new(tmp.as_file_mut());
        fill(&mut out)?;
        out.flush()?;
    }
    tmp.as_file().sync_all()?;
    Ok(Staged {
        tmp: tmp.into_temp_path(),
        target: path.to_path_buf(),
    })
}

/// Files written as one set: staged as they are produced, renamed into place together by
/// [`FileSet::commit`], in the order they were staged. Dropped without a commit, the set
/// removes every staged file and leaves every target as it was.
#[derive(Default)]
pub struct FileSet {
    staged: Vec<Staged>,
}

impl FileSet {
    /// Stages one file of the set ([`stage`]).
    pub fn stage_with(
        &mut self,
        path: &Path,
        fill: impl FnOnce(&mut dyn Write) -> io::Result<()>,
    ) -> io::Result<()> {
        self.staged.push(stage(path, fill)?);
        Ok(())
    }

    /// Whether nothing is staged.
    pub fn is_empty(&self) -> bool {
        self.staged.is_empty()
    }

    /// Puts every staged file in place, in order. An error names the file that failed;
    /// the files before it are in place, the rest are removed.
    pub fn commit(self) -> Result<(), (PathBuf, io::Error)> {
        for s in self.staged {
            let target = s.target.clone();
            s.commit().map_err(|e| (target, e))?;
        }
        Ok(())
    }
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

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("tpb-atomic-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn replaces_the_file_and_leaves_no_temporary() {
        let dir = scratch("replace");
        let p = dir.join("a.npy");
        fs::write(&p, b"old").unwrap();
        write_file(&p, b"new").unwrap();
        assert_eq!(fs::read(&p).unwrap(), b"new");
        assert_eq!(fs::read_dir(&dir).unwrap().count(), 1);
        // A failure (the target is a non-empty directory) keeps what was there.
        let d = dir.join("sub");
        fs::create_dir_all(d.join("x")).unwrap();
        let e = write_file(&d, b"data").unwrap_err();
        assert!(
            e.to_string().contains("is a directory, not a regular file"),
            "{e}"
        );
        assert!(d.join("x").is_dir());
        assert_eq!(fs::read_dir(&dir).unwrap().count(), 2, "no temporary left");
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_set_is_all_or_nothing() {
        let dir = scratch("set");
        let (a, b) = (dir.join("a"), dir.join("b"));
        fs::write(&a, b"old a").unwrap();
        // Dropped before its commit: no new file, no temporary.
        let mut set = FileSet::default();
        set.stage_with(&a, |o| o.write_all(b"new a")).unwrap();
        set.stage_with(&b, |o| o.write_all(b"new b")).unwrap();
        assert_eq!(fs::read(&a).unwrap(), b"old a");
        assert!(!b.exists());
        drop(set);
        assert_eq!(fs::read_dir(&dir).unwrap().count(), 1, "only `a`");
        assert_eq!(fs::read(&a).unwrap(), b"old a");
        // Committed: both.
        let mut set = FileSet::default();
        set.stage_with(&a, |o| o.write_all(b"new a")).unwrap();
        set.stage_with(&b, |o| o.write_all(b"new b")).unwrap();
        set.commit().unwrap();
        assert_eq!(fs::read(&a).unwrap(), b"new a");
        assert_eq!(fs::read(&b).unwrap(), b"new b");
        assert_eq!(fs::read_dir(&dir).unwrap().count(), 2);
        fs::remove_dir_all(&dir).unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn devices_are_refused() {
        let e = write_file(Path::new("/dev/null"), b"x").unwrap_err();
        assert!(e.to_string().contains("is a character device"), "{e}");
    }
}
