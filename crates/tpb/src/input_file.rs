//! Opening an input file without blocking on a FIFO, shared by the commands and the `.npy`
//! reader (a module of its own so that `npy` does not depend on `cmd`).

use std::fs::File;

/// Opens an input file for reading without waiting on the open: a FIFO (named pipe) that no
/// program is writing opens at once and reads as empty, where a plain open would wait
/// forever for a writer (issue 29 item 3). A pipe with a writer (`<(…)`, `/dev/stdin` fed
/// by a pipe) is read as usual, until the writer closes it; what is read is bounded by the
/// reader (a program's size limit, an `.npy` header's shape).
pub fn open_input(path: &std::path::Path) -> std::io::Result<File> {
    #[cfg(unix)]
    {
        use rustix::fs::{fcntl_getfl, fcntl_setfl, open, Mode, OFlags};
        let fd = open(
            path,
            OFlags::RDONLY | OFlags::NONBLOCK | OFlags::CLOEXEC,
            Mode::empty(),
        )?;
        // Reads block again: with a writer, a pipe waits for its data rather than failing.
        fcntl_setfl(&fd, fcntl_getfl(&fd)? - OFlags::NONBLOCK)?;
        Ok(File::from(fd))
    }
    #[cfg(not(unix))]
    File::open(path)
}
