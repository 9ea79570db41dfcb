//! Where a run may write, checked before the first instruction runs (docs/cli-run.md,
//! "Output files"): every output (the `.npy` files, the manifest and the timelines) must be
//! writable, distinct by what it resolves to, and reached through no symbolic link under
//! `--out-dir`; a program's `.out` stays inside `--out-dir`.

use crate::atomic::{FileSet, Staged};
use crate::cmd::CliError;
use std::fs;
use std::path::{Component, Path, PathBuf};

/// `--out-dir` when the command line names none.
pub const DEFAULT_OUT_DIR: &str = "out";

/// Every file a run writes, staged as the run goes and put in place together when it ends
/// (docs/cli-run.md, "Output files"): the `.npy` outputs, then the timelines, then the
/// manifest, which lists the outputs and so comes last. Dropped without [`RunFiles::commit`]
/// (an error, a closed standard output), the run leaves none of them.
#[derive(Default)]
pub struct RunFiles {
    /// The `.npy` outputs (`.out`, `--out`).
    pub outputs: FileSet,
    /// The `--timeline` files.
    pub timelines: FileSet,
    /// `<out-dir>/<program>.manifest.json`, when there are outputs.
    pub manifest: Option<Staged>,
}

impl RunFiles {
    /// A run that faulted or deadlocked writes no outputs (the `.out`s after the fault never
    /// ran, and a part of the set would pass for the whole); its timelines show how it
    /// stopped and are still written.
    pub fn drop_outputs(&mut self) {
        self.outputs = FileSet::default();
        self.manifest = None;
    }

    /// Puts every staged file in place.
    pub fn commit(self) -> Result<(), CliError> {
        let io = |(path, e): (PathBuf, std::io::Error)| CliError::io(path, e);
        self.outputs.commit().map_err(io)?;
        self.timelines.commit().map_err(io)?;
        if let Some(m) = self.manifest {
            let path = m.target().to_path_buf();
            m.commit().map_err(|e| CliError::io(path, e))?;
        }
        Ok(())
    }
}

/// What one file is: an existing file's device and inode (so that hard links, directory
/// links and `x/..` detours to one file compare equal), else its resolved path.
#[derive(PartialEq, Eq, Debug)]
enum Identity {
    File(u64, u64),
    Path(PathBuf),
}

fn identity(path: &Path) -> Identity {
    #[cfg(unix)]
    if let Ok(m) = fs::metadata(path) {
        use std::os::unix::fs::MetadataExt;
        return Identity::File(m.dev(), m.ino());
    }
    Identity::Path(resolve(path))
}

/// `path` with `.` dropped and each `..` applied to the name before it, unless that name
/// is a symbolic link (then the kernel's meaning differs and the `..` stays). A name that
/// does not exist yet is popped too: `x/../a.npy` writes `a.npy` and creates no `x`.
pub fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                let last_is_name =
                    matches!(out.components().next_back(), Some(Component::Normal(_)));
                if last_is_name && !is_symlink(&out) {
                    out.pop();
                } else {
                    out.push("..");
                }
            }
            c => out.push(c),
        }
    }
    out
}

/// The absolute path `path` names: its longest existing prefix with every link resolved,
/// then the rest applied by name.
pub fn resolve(path: &Path) -> PathBuf {
    let path = normalize(path);
    let abs = if path.is_absolute() {
        path
    } else {
        std::env::current_dir().unwrap_or_default().join(path)
    };
    let parts: Vec<Component> = abs.components().collect();
    for k in (1..=parts.len()).rev() {
        let prefix: PathBuf = parts[..k].iter().collect();
        if let Ok(mut real) = fs::canonicalize(&prefix) {
            for c in &parts[k..] {
                match c {
                    Component::ParentDir => {
                        real.pop();
                    }
                    Component::Normal(n) => real.push(n),
                    _ => {}
                }
            }
            return real;
        }
    }
    abs
}

fn is_symlink(p: &Path) -> bool {
    fs::symlink_metadata(p).is_ok_and(|m| m.file_type().is_symlink())
}

/// Whether `file` lies inside `dir` once both are resolved (a `..` that stays inside is
/// inside; an absolute path elsewhere or a `..` that leaves is not).
pub fn is_inside(dir: &Path, file: &Path) -> bool {
    let (d, f) = (resolve(dir), resolve(file));
    f != d && f.starts_with(&d)
}

/// One file the run will write, and who asked for it.
pub struct Output<'a> {
    /// `line 3`, `--out`, `the manifest`, `--timeline`.
    pub origin: String,
    /// The file.
    pub file: &'a Path,
    /// A `--timeline` file: its directory must exist or be the out-dir (no other directory
    /// is created for it).
    pub timeline: bool,
}

/// Checks every file the run will write, so that exit 2 means nothing ran and nothing was
/// written. `out_dir_named` says whether the user gave `--out-dir` (then it may be a link).
pub fn check(outputs: &[Output<'_>], out_dir: &Path, out_dir_named: bool) -> Result<(), String> {
    if !out_dir_named && is_symlink(out_dir) && outputs.iter().any(|o| !o.timeline) {
        return Err(format!(
            "the default --out-dir `{}` is a symbolic link; tpb writes through a link only when \
             --out-dir names it; nothing was run",
            crate::cmd::shown(out_dir)
        ));
    }
    let mut seen: Vec<(Identity, &str)> = Vec::new();
    for o in outputs {
        let err = |why: String| format!("{}: {why}; nothing was run", o.origin);
        let file = o.file;
        let shown = crate::cmd::shown(file);
        if o.timeline {
            super::timeline::Format::of(file).map_err(err)?;
        }
        let id = identity(file);
        if let Some((_, first)) = seen.iter().find(|(i, _)| *i == id) {
            return Err(err(format!(
                "`{shown}` is also written by {first}: one file holds one output"
            )));
        }
        seen.push((id, &o.origin));
        if let Some(why) = link_on_the_way(out_dir, file) {
            return Err(err(why));
        }
        if file.is_dir() {
            return Err(err(format!("`{shown}` is a directory")));
        }
        // A FIFO would block the run forever, a device would take the bytes or be replaced.
        if let Err(e) = crate::atomic::check_target(file) {
            return Err(err(format!("`{shown}` {e}")));
        }
        let parent = file
            .parent()
            .filter(|d| !d.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        // The nearest existing ancestor must be a writable directory (the rest is created;
        // a timeline's directory must exist).
        let Some(a) = parent
            .ancestors()
            .find(|a| a.as_os_str().is_empty() || a.exists())
        else {
            continue;
        };
        let a = if a.as_os_str().is_empty() {
            Path::new(".")
        } else {
            a
        };
        // The out-dir itself is created by the run, so a timeline may go straight into it.
        let into_out_dir = normalize(parent) == normalize(out_dir);
        if o.timeline && a != parent && !into_out_dir {
            return Err(err(format!(
                "directory `{}` does not exist",
                crate::cmd::shown(parent)
            )));
        }
        if !a.is_dir() {
            return Err(err(format!(
                "`{}` is not a directory, so `{shown}` cannot be written",
                crate::cmd::shown(a)
            )));
        }
        if let Err(e) = tempfile::Builder::new()
            .prefix(".tpb-probe-")
            .tempfile_in(a)
        {
            // The OS error alone: tempfile's text names its random probe file.
            let why = match e.raw_os_error() {
                Some(code) => std::io::Error::from_raw_os_error(code).to_string(),
                None => e.kind().to_string(),
            };
            return Err(err(format!(
                "`{shown}` cannot be written: no file can be created in `{}` ({why})",
                crate::cmd::shown(a)
            )));
        }
    }
    Ok(())
}

/// Why `file` may not be written, if a symbolic link is on its way: the first link from
/// inside `out_dir` to `file` (the file itself included) when `file` is below `out_dir`; for
/// a file elsewhere, the file itself if it is a link (the user chose the directories; a link
/// is still never written through, whatever it points to: a file, a FIFO, `/dev/null`).
pub fn link_on_the_way(out_dir: &Path, file: &Path) -> Option<String> {
    let link = first_link(out_dir, file)?;
    Some(format!(
        "`{}` is a symbolic link, so `{}` could land anywhere; tpb never writes through a \
         link (remove it, or name the file it points to)",
        crate::cmd::shown(&link),
        crate::cmd::shown(file)
    ))
}

fn first_link(out_dir: &Path, file: &Path) -> Option<PathBuf> {
    let (dir, file) = (normalize(out_dir), normalize(file));
    match file.strip_prefix(&dir) {
        Ok(rel) => {
            let mut p = dir.clone();
            for c in rel.components() {
                p.push(c);
                if is_symlink(&p) {
                    return Some(p);
                }
            }
            None
        }
        Err(_) => is_symlink(&file).then_some(file),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalizing_applies_dot_dot_to_names() {
        let n = |s: &str| normalize(Path::new(s));
        assert_eq!(n("out/x/../a.npy"), Path::new("out/a.npy"));
        assert_eq!(n("./out/./a.npy"), Path::new("out/a.npy"));
        assert_eq!(n("../a.npy"), Path::new("../a.npy"));
        assert_eq!(n("out/../../a"), Path::new("../a"));
        assert_eq!(n("/x/../a"), Path::new("/a"));
    }

    #[test]
    fn inside_is_judged_on_resolved_paths() {
        let d = Path::new("out");
        assert!(is_inside(d, Path::new("out/x/../a.npy")));
        assert!(is_inside(d, Path::new("./out/a.npy")));
        assert!(!is_inside(d, Path::new("out/../a.npy")));
        assert!(!is_inside(d, Path::new("out")));
        assert!(!is_inside(d, Path::new("/etc/passwd")));
    }
}
