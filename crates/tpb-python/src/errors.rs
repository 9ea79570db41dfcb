//! Python exceptions. The classes live in `tpb/_errors.py` (one hierarchy under
//! `tpb.Error`, each also a builtin such as `ValueError`); Rust raises them by name.

use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

/// Which `tpb` exception to raise.
#[derive(Clone, Copy, Debug)]
pub enum ErrorKind {
    /// `tpb.AsmError` (ValueError).
    Asm,
    /// `tpb.InvalidInstruction` (ValueError).
    Invalid,
    /// `tpb.Fault` (RuntimeError).
    Fault,
    /// `tpb.RegionError` (ValueError).
    Region,
    /// `tpb.DtypeError` (TypeError).
    Dtype,
    /// `tpb.NotSupported` (NotImplementedError).
    NotSupported,
    /// `tpb.UsageError` (ValueError): a bad argument.
    Usage,
    /// `tpb._errors.KindError` (a `tpb.UsageError`): an argument of the wrong kind for its
    /// parameter; nothing ran.
    Kind,
    /// `tpb.OutOfBoundsError` (IndexError): a subscript outside its tile.
    OutOfBounds,
    /// `tpb.CapacityError` (MemoryError): a tile that does not fit.
    Capacity,
    /// `tpb.RaceError` (RuntimeError): two unordered conflicting accesses.
    Race,
    /// `tpb.DeadlockError` (RuntimeError): every unfinished queue waits.
    Deadlock,
}

impl ErrorKind {
    fn class(self) -> &'static str {
        match self {
            ErrorKind::Asm => "AsmError",
            ErrorKind::Invalid => "InvalidInstruction",
            ErrorKind::Fault => "Fault",
            ErrorKind::Region => "RegionError",
            ErrorKind::Dtype => "DtypeError",
            ErrorKind::NotSupported => "NotSupported",
            ErrorKind::Usage => "UsageError",
            ErrorKind::Kind => "KindError",
            ErrorKind::OutOfBounds => "OutOfBoundsError",
            ErrorKind::Capacity => "CapacityError",
            ErrorKind::Race => "RaceError",
            ErrorKind::Deadlock => "DeadlockError",
        }
    }
}

/// A `tpb` exception with `message`.
pub fn raise(kind: ErrorKind, message: impl Into<String>) -> PyErr {
    raise_with(kind, message, |_| Ok(()))
}

/// A `tpb` exception with `message` and attributes set by `attrs` (passed as keywords).
pub fn raise_with(
    kind: ErrorKind,
    message: impl Into<String>,
    attrs: impl for<'py> FnOnce(&Bound<'py, PyDict>) -> PyResult<()>,
) -> PyErr {
    let message = message.into();
    Python::attach(|py| {
        let build = || -> PyResult<PyErr> {
            let class = py.import("tpb._errors")?.getattr(kind.class())?;
            let kwargs = PyDict::new(py);
            attrs(&kwargs)?;
            let exc = class.call((message.as_str(),), Some(&kwargs))?;
            Ok(PyErr::from_value(exc))
        };
        build().unwrap_or_else(|e| {
            PyRuntimeError::new_err(format!("{message} (and raising it failed: {e})"))
        })
    })
}
