//! `tpb.nki`: `Core` and `Tile` (thin over `tpb_nki`); the calls go through
//! [`crate::lowering`].

use crate::args;
use crate::arrays::{check_dims, host_view, numpy_dtype, to_numpy, tpb_dtype};
use crate::errors::{raise, raise_with, ErrorKind};
use crate::isa::{findings, parse_space, Instruction};
use crate::machine::{config, fault_error, lock, register_bits};
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use std::sync::{Mutex, MutexGuard};
use tpb_isa::{CodeEnum, Dtype};
use tpb_nki::NkiError;

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

/// A tile: partition dimension first, in SBUF or PSUM of one `Core`.
#[pyclass(module = "tpb._tpb", name = "Tile", frozen)]
pub struct Tile {
    pub(crate) core: Py<Core>,
    pub(crate) tile: tpb_nki::Tile,
    /// Whether this object owns the tile's space (an allocation, not a view): dropping it
    /// frees the space.
    pub(crate) owner: bool,
    /// The tile a view was taken of (kept alive while the view is).
    pub(crate) parent: Option<Py<Tile>>,
}

impl Tile {
    /// A tile object that owns a new allocation.
    pub(crate) fn owning(core: Py<Core>, tile: tpb_nki::Tile) -> Tile {
        Tile {
            core,
            tile,
            owner: true,
            parent: None,
        }
    }
}

impl Drop for Tile {
    fn drop(&mut self) {
        if !self.owner {
            return;
        }
        // A core busy with a call keeps the space (it is freed with the core).
        if let Ok(mut c) = self.core.get().inner.try_lock() {
            c.free(&self.tile);
        }
    }
}

/// A dtype argument: anything `numpy.dtype` takes (`numpy.float32`, `ml_dtypes.bfloat16`,
/// `"float32"`), or a TPB dtype name (`"bf16"`, `"fp8_exp4"`).
pub(crate) fn dtype_arg(
    fp8: &tpb_sim::numerics::Fp8Config,
    obj: &Bound<'_, PyAny>,
) -> PyResult<Dtype> {
    let py = obj.py();
    if let Ok(dt) = py.import("numpy")?.call_method1("dtype", (obj,)) {
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
        gen: &str,
        strict: bool,
        fp8_e4m3: &str,
        fp8_ocp_sat: bool,
        strict_exact: bool,
    ) -> PyResult<Core> {
        let mut c = config(gen, strict, fp8_e4m3, fp8_ocp_sat)?;
        c.strict_exact = strict_exact;
        Ok(Core {
            inner: Mutex::new(tpb_nki::Core::with_config(c)),
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
        let mut core = slf.get().lock(py);
        let tile = core
            .ndarray(&host.shape, host.dtype, space)
            .map_err(nki_error)?;
        core.write(&tile, host.as_slice()?).map_err(nki_error)?;
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

#[pymethods]
impl Tile {
    /// The array shape, partition dimension first.
    #[getter]
    fn shape(&self) -> Vec<usize> {
        self.tile.shape.clone()
    }

    /// The NumPy dtype (ml_dtypes for bfloat16 / fp8).
    #[getter]
    fn dtype<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let fp8 = self.core.get().lock(py).machine().config().fp8;
        let t = numpy_dtype(py, self.tile.dtype, &fp8)?;
        py.import("numpy")?.call_method1("dtype", (t,))
    }

    /// `"sbuf"` or `"psum"`.
    #[getter]
    fn buffer(&self) -> &'static str {
        self.tile.space.name()
    }

    /// Byte offset inside each partition.
    #[getter]
    fn offset(&self) -> u64 {
        self.tile.offset
    }

    /// The region in `tpb run` / `Machine.read` syntax.
    #[getter]
    fn region(&self) -> String {
        self.tile.region()
    }

    /// Reads the tile back as a NumPy array.
    fn numpy<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let (bytes, fp8) = {
            let core = self.core.get().lock(py);
            let bytes = core.read(&self.tile).map_err(nki_error)?;
            (bytes, core.machine().config().fp8)
        };
        to_numpy(py, bytes, self.tile.dtype, &self.tile.shape, &fp8)
    }

    fn __repr__(&self) -> String {
        format!("<tpb.nki.Tile {}>", self.tile)
    }

    /// `tile[key]`: a view (no data moves) — integers, slices, `nl.ds(start, size)`,
    /// `nl.arange` index expressions and `...` (NKI indexing; an integer keeps the partition
    /// dim). Out-of-bounds subscripts raise `tpb.OutOfBoundsError`.
    fn __getitem__(slf: &Bound<'_, Tile>, key: &Bound<'_, PyAny>) -> PyResult<Tile> {
        let keys = crate::kernel::index_keys(key)?;
        let t = slf.get();
        let clip = t.core.get().lock(slf.py()).clip_views();
        if clip {
            let (view, warning) = t
                .tile
                .index_clipped(&keys)
                .map_err(|e| nki_error(e.into()))?;
            if let Some(w) = warning {
                let py = slf.py();
                let category = py.get_type::<pyo3::exceptions::PyUserWarning>();
                let msg = std::ffi::CString::new(w).unwrap_or_default();
                PyErr::warn(py, &category, &msg, 1)?;
            }
            return Ok(t.view_of(slf, view));
        }
        let view = t.tile.index(&keys).map_err(|e| nki_error(e.into()))?;
        Ok(t.view_of(slf, view))
    }

    /// `tile[key] = value`: writes a NumPy array (or a number) into the view from the host; a
    /// tile value is copied on the device (NKI's legacy assignment), or nothing for the view
    /// itself (the end of `tile[key] += ...`).
    fn __setitem__(
        slf: &Bound<'_, Tile>,
        key: &Bound<'_, PyAny>,
        value: &Bound<'_, PyAny>,
    ) -> PyResult<()> {
        crate::kernel::assign(slf, key, value)
    }

    /// `tile += value` in a kernel: `acc += nl.matmul(...)` (or the legacy
    /// `acc += nisa.nc_matmul(a, b)`) is one Matmul accumulating into `acc`; any other value
    /// is an element-wise add (`tpb.nki.language._iadd`).
    fn __iadd__(slf: &Bound<'_, Tile>, value: &Bound<'_, PyAny>) -> PyResult<()> {
        let py = slf.py();
        py.import("tpb.nki.language")?
            .getattr("_iadd")?
            .call1((slf, value))?;
        Ok(())
    }

    /// `tile.reshape(shape)`: a view with the same elements (partition dim kept, one -1
    /// allowed; the tile must be contiguous).
    fn reshape(slf: &Bound<'_, Tile>, shape: Vec<i64>) -> PyResult<Tile> {
        let t = slf.get();
        let view = t.tile.reshape(&shape).map_err(|e| nki_error(e.into()))?;
        Ok(t.view_of(slf, view))
    }

    /// `tile.view(dtype)`: the same bytes as another dtype (the last dim scales by the
    /// byte-size ratio).
    fn view(slf: &Bound<'_, Tile>, dtype: &Bound<'_, PyAny>) -> PyResult<Tile> {
        let t = slf.get();
        let fp8 = t.core.get().lock(slf.py()).machine().config().fp8;
        let d = dtype_arg(&fp8, dtype)?;
        let view = t.tile.view(d).map_err(|e| nki_error(e.into()))?;
        Ok(t.view_of(slf, view))
    }

    /// `tile.broadcast(dim, size)`: a size-1 free dim read `size` times (a zero step).
    fn broadcast(slf: &Bound<'_, Tile>, dim: usize, size: usize) -> PyResult<Tile> {
        let t = slf.get();
        let view = t
            .tile
            .broadcast(dim, size)
            .map_err(|e| nki_error(e.into()))?;
        Ok(t.view_of(slf, view))
    }

    /// `tile.permute(order)`: the free dims in `order` (a permutation of `1..ndim`; the
    /// partition dim stays first). No data moves: the view's strides are permuted.
    fn permute(slf: &Bound<'_, Tile>, order: Vec<usize>) -> PyResult<Tile> {
        let t = slf.get();
        let view = t.tile.permute(&order).map_err(|e| nki_error(e.into()))?;
        Ok(t.view_of(slf, view))
    }

    /// The first partition.
    #[getter]
    fn start_partition(&self) -> u32 {
        self.tile.start_partition
    }

    /// Element strides of the free dims (outermost first).
    #[getter]
    fn strides(&self) -> Vec<i64> {
        self.tile.strides()
    }

    /// Number of dims.
    #[getter]
    fn ndim(&self) -> usize {
        self.tile.shape.len()
    }

    /// The core the tile lives on.
    #[getter]
    fn core(&self, py: Python<'_>) -> Py<Core> {
        self.core.clone_ref(py)
    }

    /// The tile this view was taken of (`None` for an allocation).
    #[getter]
    fn base(&self, py: Python<'_>) -> Option<Py<Tile>> {
        self.parent.as_ref().map(|p| p.clone_ref(py))
    }

    /// Whether the free dims are contiguous.
    fn is_contiguous(&self) -> bool {
        self.tile.is_contiguous()
    }
}

impl Tile {
    /// A view of `slf` (which it keeps alive).
    fn view_of(&self, slf: &Bound<'_, Tile>, tile: tpb_nki::Tile) -> Tile {
        Tile {
            core: self.core.clone_ref(slf.py()),
            tile,
            owner: false,
            parent: Some(slf.clone().unbind()),
        }
    }
}
