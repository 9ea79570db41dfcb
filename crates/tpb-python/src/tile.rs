//! `tpb.nki.Tile`: a tile object and its views (indexing, reshape, permute, broadcast).

use crate::arrays::{numpy_dtype, to_numpy};
use crate::nki::{dtype_arg, nki_error, Core};
use pyo3::prelude::*;

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
