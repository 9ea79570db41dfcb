//! `tpb.nki`: `Core` (thin over `tpb_nki`) and, in the child module `tile`, its `Tile` (the
//! two name each other, so the tile is a part of this module, not a sibling); the calls go
//! through [`crate::lowering`].

use crate::args;
use crate::arrays::{check_dims, host_view, tpb_dtype};
use crate::errors::{raise, raise_with, ErrorKind};
use crate::isa::{findings, parse_space, Instruction};
use crate::machine::{config, fault_error, lock, register_bits};
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use std::sync::{Mutex, MutexGuard};
use tpb_isa::{CodeEnum, Dtype};
use tpb_nki::NkiError;

pub(crate) mod tile;
pub(crate) use tile::Tile;

/// An NKI error as the matching `tpb` exception.
pub(crate) fn nki_error(e: NkiError) -> PyErr {
    match e {
        NkiError::Fault(f) => fault_error(f),
        NkiError::Invalid {
            ref inst,
            ref report,
            ..
        } => {
            let found = findings(report, false);
            let bytes = inst.encode().to_vec();
            raise_with(ErrorKind::Invalid, e.to_string(), move |kw| {
                kw.set_item("findings", found)?;
                kw.set_item("bundle", PyBytes::new(kw.py(), &bytes))
            })
        }
        NkiError::NotSupported { .. } | NkiError::NotYet { .. } => {
            raise(ErrorKind::NotSupported, e.to_string())
        }
        NkiError::OutOfBounds(_) => raise(ErrorKind::OutOfBounds, e.to_string()),
        NkiError::OutOfMemory { .. } => raise(ErrorKind::Capacity, e.to_string()),
        // Shapes, patterns, operators, values, memory and registers: the caller's arguments.
        _ => raise(ErrorKind::Usage, e.to_string()),
    }
}

/// A simulated NeuronCore for `tpb.nki` calls: a machine, a tile allocator and the program
/// the calls emitted. Safe to share between threads: calls take turns (issue 20 item 12).
#[pyclass(module = "tpb._tpb", name = "Core", frozen)]
pub struct Core {
    pub(crate) inner: Mutex<tpb_nki::Core>,
}

impl Core {
    pub(crate) fn lock(&self, py: Python<'_>) -> MutexGuard<'_, tpb_nki::Core> {
        lock(py, &self.inner)
    }
}

/// A dtype argument: anything `numpy.dtype` takes (`numpy.float32`, `ml_dtypes.bfloat16`,
/// `"float32"`), or a TPB dtype name (`"bf16"`, `"fp8_exp4"`).
pub(crate) fn dtype_arg(
    fp8: &tpb_sim::numerics::Fp8Config,
    obj: &Bound<'_, PyAny>,
) -> PyResult<Dtype> {
    let py = obj.py();
    if let Ok(dt) = crate::pycache::module!(py, "numpy")?.call_method1("dtype", (obj,)) {
        return tpb_dtype(&crate::arrays::dtype_name(&dt)?, fp8);
    }
    let s: String = obj
        .extract()
        .map_err(|_| raise(ErrorKind::Dtype, format!("{obj}: not a dtype")))?;
    let d = Dtype::parse_name(&s)
        .filter(|d| d.size().is_some())
        .ok_or_else(|| raise(ErrorKind::Dtype, format!("unknown dtype {s:?}")))?;
    Ok(d)
}

#[pymethods]
impl Core {
    /// `strict_exact=True`: a result that is not exact (a Matmul, exact only per tpb's
    /// summation order; an approximate activation) raises `tpb.Fault` instead of running.
    #[new]
    #[pyo3(signature = (gen = "cayman", strict = false, fp8_e4m3 = "ieee", fp8_ocp_sat = false, strict_exact = false))]
    fn new(
        py: Python<'_>,
        gen: &str,
        strict: bool,
        fp8_e4m3: &str,
        fp8_ocp_sat: bool,
        strict_exact: bool,
    ) -> PyResult<Core> {
        let mut c = config(gen, strict, fp8_e4m3, fp8_ocp_sat)?;
        c.strict_exact = strict_exact;
        // A reused machine is reset here (what the last kernel wrote is zeroed): other
        // threads run meanwhile.
        let inner = py.detach(|| tpb_nki::Core::with_config(c));
        Ok(Core {
            inner: Mutex::new(inner),
        })
    }

    /// The generation.
    #[getter]
    fn gen(&self, py: Python<'_>) -> &'static str {
        self.lock(py).gen().name()
    }

    /// Allocates a tile of `shape` (partition dimension first, at most 128).
    #[pyo3(signature = (shape, dtype, buffer = "sbuf", name = ""))]
    fn ndarray(
        slf: &Bound<'_, Core>,
        shape: &Bound<'_, PyAny>,
        dtype: &Bound<'_, PyAny>,
        buffer: &str,
        name: &str,
    ) -> PyResult<Tile> {
        let py = slf.py();
        let space = parse_space(buffer)?;
        let shape: Vec<usize> = args::ints(shape, "shape")?;
        check_dims(&shape, "shape")?;
        let fp8 = slf.get().lock(py).machine().config().fp8;
        // Python code (a dtype's constructor) runs before the lock is taken.
        let d = dtype_arg(&fp8, dtype)?;
        let tile = slf
            .get()
            .lock(py)
            .ndarray_named(&shape, d, space, name)
            .map_err(nki_error)?;
        Ok(Tile::owning(slf.clone().unbind(), tile))
    }

    /// Allocates a tile shaped like `array` and writes the array into it.
    #[pyo3(signature = (array, buffer = "sbuf"))]
    fn from_numpy(slf: &Bound<'_, Core>, array: &Bound<'_, PyAny>, buffer: &str) -> PyResult<Tile> {
        let py = slf.py();
        let space = parse_space(buffer)?;
        let fp8 = slf.get().lock(py).machine().config().fp8;
        // The array is converted before the lock is taken: its `__array__` may read a tile
        // of this very core (issue 20 item 12). Its shape is checked against the free space
        // before a broadcast or strided view is gathered (item 16).
        let view = host_view(array, &fp8)?;
        check_dims(&view.shape, "the array")?;
        slf.get()
            .lock(py)
            .check_ndarray(&view.shape, view.dtype, space)
            .map_err(nki_error)?;
        let host = view.bytes()?;
        let bytes = host.as_slice()?;
        let mut core = slf.get().lock(py);
        let tile = core
            .ndarray(&host.shape, host.dtype, space)
            .map_err(nki_error)?;
        let inner = &mut *core;
        py.detach(|| inner.write(&tile, bytes)).map_err(nki_error)?;
        drop(core);
        Ok(Tile::owning(slf.clone().unbind(), tile))
    }

    /// Sets register `n` (0..32; 32..64 hold the calls' constants) to an int's bits or a
    /// float's FP32 bits.
    fn set_register(
        &self,
        py: Python<'_>,
        n: &Bound<'_, PyAny>,
        value: &Bound<'_, PyAny>,
    ) -> PyResult<()> {
        let n: usize = args::int(n, "register")?;
        let bits = register_bits(value)?;
        self.lock(py).set_register(n, bits).map_err(nki_error)
    }

    /// The emitted program as bundle bytes (64 per instruction).
    fn bundles<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        let bytes = self.lock(py).bundles();
        PyBytes::new(py, &bytes)
    }

    /// The emitted program as `tpb asm` text (`.gen`, `.reg` lines for the constants the
    /// calls placed in registers, one line per instruction).
    fn disasm(&self, py: Python<'_>) -> String {
        self.lock(py).disasm()
    }

    /// The emitted instructions.
    fn instructions(&self, py: Python<'_>) -> Vec<Instruction> {
        let core = self.lock(py);
        let gen = core.gen();
        core.program()
            .iter()
            .map(|&inst| Instruction { inst, gen })
            .collect()
    }

    fn __repr__(&self, py: Python<'_>) -> String {
        let core = self.lock(py);
        format!(
            "<tpb.nki.Core gen={} instructions={}>",
            core.gen(),
            core.program().len()
        )
    }
}
