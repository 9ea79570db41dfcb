//! `tpb._tpb.cli`: the `tpb` command line run in-process, behind Python's `tpb` command and
//! `python -m tpb` (python/tpb/_cli.py).

use pyo3::prelude::*;
use std::ffi::OsString;

/// Runs the `tpb` command line with ``args`` (without the program name) exactly as the
/// cargo-built ``tpb`` binary would, and returns its exit status.
///
/// Parameters:
///     args: the arguments after the program name, e.g. ``["validate", "prog.bin"]``.
///
/// Output goes to the process's standard output and error (file descriptors 1 and 2, not
/// ``sys.stdout``) and is flushed before returning; the GIL is released while it runs.
/// Status 0 is success, 1 a finding (an invalid bundle, a failed expectation), 2 an input
/// or usage error, or a standard output that cannot be written (descriptor 1 closed or
/// read-only, a reader that closed the pipe, a full disk: one line on standard error, and
/// ``run`` writes none of its files).
///
/// Example::
///
///     >>> import tpb._tpb
///     >>> tpb._tpb.cli(["validate", "--gen", "nosuchgen", "x.bin"])
///     2
#[pyfunction]
pub fn cli(py: Python<'_>, args: Vec<OsString>) -> u8 {
    // The program is named `tpb` whatever Python's argv[0] is (`__main__.py` under
    // `python -m tpb`), so usage and help read as the binary's do.
    let argv = std::iter::once(OsString::from("tpb")).chain(args);
    py.detach(|| tpb::cli::run(argv))
}
