//! `tpb.nki.Tile`: a tile object and its views (indexing, reshape, permute, broadcast).

use super::{dtype_arg, nki_error, Core};
use crate::arrays::{host_view, numpy_dtype, to_numpy};
use crate::errors::{raise, ErrorKind};
use pyo3::prelude::*;
use pyo3::types::{PySlice, PyTuple};
use tpb_isa::geometry::Space;
use tpb_nki::{Affine, Index};

/// A tile: partition dimension first, in SBUF or PSUM of one `Core` (or an HBM tensor).
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
    /// The shape as a tuple, partition dim first (a legacy block-dim tile,
    /// `nl.ndarray((n, nl.par_dim(128), F))`, shows its block dims first and its partition
    /// dim as an `nl.par_dim`).
    #[getter]
    fn shape<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let user = self.tile.user_shape();
        if self.tile.blocks == 0 {
            return PyTuple::new(py, user);
        }
        let par_dim = crate::pycache::module!(py, "tpb.nki.language")?.getattr("par_dim")?;
        let items = user
            .iter()
            .enumerate()
            .map(|(k, &d)| {
                if k == self.tile.blocks {
                    par_dim.call1((d,))
                } else {
                    Ok(d.into_pyobject(py)?.into_any())
                }
            })
            .collect::<PyResult<Vec<_>>>()?;
        PyTuple::new(py, items)
    }

    /// The NumPy dtype (ml_dtypes for bfloat16 / fp8).
    #[getter]
    fn dtype<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let fp8 = self.core.get().lock(py).machine().config().fp8;
        let t = numpy_dtype(py, self.tile.dtype, &fp8)?;
        crate::pycache::module!(py, "numpy")?.call_method1("dtype", (t,))
    }

    /// `"sbuf"`, `"psum"` or `"hbm"`.
    #[getter]
    fn buffer(&self) -> &'static str {
        self.tile.space.name()
    }

    /// Byte offset inside each partition (in HBM: the byte address).
    #[getter]
    fn offset(&self) -> u64 {
        self.tile.offset
    }

    /// The region in `tpb run` / `Machine.read` syntax.
    #[getter]
    fn region(&self) -> String {
        self.tile.region()
    }

    /// The first element (flat C-order index of `shape`) of this HBM tensor with a byte never
    /// written, or ``None``; ``None`` for an on-chip tile.
    fn _first_unwritten(&self, py: Python<'_>) -> PyResult<Option<usize>> {
        let core = self.core.get().lock(py);
        core.first_unwritten(&self.tile).map_err(nki_error)
    }

    /// Reads the tile back as a NumPy array (in the order of `shape`).
    fn numpy<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let (bytes, fp8) = {
            let mut core = self.core.get().lock(py);
            core.mark_host_read();
            let inner = &*core;
            let bytes = py.detach(|| inner.read(&self.tile)).map_err(nki_error)?;
            (bytes, core.machine().config().fp8)
        };
        let a = to_numpy(py, bytes, self.tile.dtype, &self.tile.shape, &fp8)?;
        let b = self.tile.blocks;
        if b == 0 {
            return Ok(a);
        }
        let order: Vec<usize> = tpb_nki_to_user(&(0..self.tile.shape.len()).collect::<Vec<_>>(), b);
        a.call_method1("transpose", (order,))
    }

    fn __repr__(&self) -> String {
        format!("<tpb.nki.Tile {}>", self.tile)
    }

    /// `tile[key]`: a view (no data moves) — integers, slices, `nl.ds(start, size)` and
    /// `...`, or `nl.arange` / `nl.mgrid` index expressions with their axes (sums and
    /// scaled sums, transposed placement in HBM; integers among them are constants). An
    /// integer keeps the partition dim of an on-chip tile and drops any other dim, as NumPy
    /// does. Out-of-bounds slices raise `tpb.OutOfBoundsError`; out-of-bounds index
    /// expressions make a view that a `mask=` must bring back in bounds before it is used.
    fn __getitem__(slf: &Bound<'_, Tile>, key: &Bound<'_, PyAny>) -> PyResult<Tile> {
        let view = view_for(slf, key)?;
        Ok(slf.get().view_of(slf, view))
    }

    /// `tile[key] = value`: writes a NumPy array (or a number) into the view from the host; a
    /// tile value is copied on the device (NKI's legacy assignment), or nothing for the view
    /// itself (the end of `tile[key] += ...`).
    fn __setitem__(
        slf: &Bound<'_, Tile>,
        key: &Bound<'_, PyAny>,
        value: &Bound<'_, PyAny>,
    ) -> PyResult<()> {
        assign(slf, key, value)
    }

    /// `tile += value` in a kernel: `acc += nl.matmul(...)` (or the legacy
    /// `acc += nisa.nc_matmul(a, b)`) is one Matmul accumulating into `acc`; any other value
    /// is an element-wise add (`tpb.nki.language._iadd`).
    fn __iadd__(slf: &Bound<'_, Tile>, value: &Bound<'_, PyAny>) -> PyResult<()> {
        let py = slf.py();
        crate::pycache::module!(py, "tpb.nki.language")?
            .getattr("_iadd")?
            .call1((slf, value))?;
        Ok(())
    }

    /// `tile.reshape(shape)`: a view with the same elements (partition dim kept, one -1
    /// allowed; the tile must be contiguous).
    fn reshape(slf: &Bound<'_, Tile>, shape: &Bound<'_, PyAny>) -> PyResult<Tile> {
        let shape: Vec<i64> = crate::args::ints(shape, "shape")?;
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

    /// `tile.broadcast_to(shape)` (legacy NKI): `shape` has the tile's rank and each
    /// size-1 dim may grow. Free dims broadcast as a view (zero steps, no data moves); a
    /// one-partition tile broadcast over partitions is copied into a new tile
    /// (`nl.broadcast_to`: engines cannot read one partition into many, a DMA can).
    ///
    /// Example: `g_tile.broadcast_to((128, 512))` of a `(1, 512)` tile, or
    /// `(1.0 / s).broadcast_to((128, 64))` of a `(128, 1)` one.
    fn broadcast_to<'py>(
        slf: &Bound<'py, Tile>,
        shape: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let py = slf.py();
        let want: Vec<usize> = crate::args::ints(shape, "shape")?;
        let t = slf.get();
        let have = t.tile.user_shape();
        if want.len() != have.len() || want.iter().zip(&have).any(|(&w, &h)| w != h && h != 1) {
            return Err(raise(
                ErrorKind::Usage,
                format!(
                    "broadcast_to{want:?}: the tile's shape {have:?} does not broadcast to it \
                     (same rank; only size-1 dims grow)"
                ),
            ));
        }
        if want[0] != have[0] {
            return crate::pycache::module!(py, "tpb.nki.language")?
                .getattr("broadcast_to")?
                .call1((slf, PyTuple::new(py, &want)?));
        }
        let mut view = t.tile.clone();
        for (d, (&w, &h)) in want.iter().zip(&have).enumerate() {
            if w != h {
                view = view.broadcast(d, w).map_err(|e| nki_error(e.into()))?;
            }
        }
        Ok(Bound::new(py, t.view_of(slf, view))?.into_any())
    }

    /// `tile.ap(pattern, offset=None, scalar_offset=None, vector_offset=None,
    /// indirect_dim=0, dtype=None)`: NKI's raw access pattern over the tensor's storage
    /// (flattened row-major; on chip the first `[step, num]` pair is the partitions, its step
    /// the tensor's elements per partition). `offset` counts elements from this view's first
    /// element; `dtype` reinterprets the bytes. The view's shape is the pattern's counts.
    /// `scalar_offset` / `vector_offset` (runtime offsets) raise `tpb.NotSupported`.
    ///
    /// Example: `q.ap([[d, n], [1, d]], offset=b * s * d)` reads `n` rows of `d` elements of
    /// batch `b` of a `(bs, s, d)` tensor.
    #[pyo3(signature = (pattern, offset = None, scalar_offset = None, vector_offset = None, indirect_dim = None, dtype = None))]
    fn ap(
        slf: &Bound<'_, Tile>,
        pattern: &Bound<'_, PyAny>,
        offset: Option<&Bound<'_, PyAny>>,
        scalar_offset: Option<&Bound<'_, PyAny>>,
        vector_offset: Option<&Bound<'_, PyAny>>,
        indirect_dim: Option<&Bound<'_, PyAny>>,
        dtype: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Tile> {
        let py = slf.py();
        let given = |o: Option<&Bound<'_, PyAny>>| o.is_some_and(|v| !v.is_none());
        if given(scalar_offset) || given(vector_offset) {
            return Err(raise(
                ErrorKind::NotSupported,
                "not supported: ap(scalar_offset=, vector_offset=): a runtime offset read from \
                 SBUF needs the DMA's indirect descriptor, which tpb does not model"
                    .to_string(),
            ));
        }
        let _: i64 = crate::args::int_or(indirect_dim, "indirect_dim", 0)?;
        let pattern = crate::args::pattern(pattern, "pattern")?;
        let offset: Option<i64> = match offset.filter(|o| !o.is_none()) {
            Some(o) => Some(crate::args::int(o, "offset")?),
            None => None,
        };
        let t = slf.get();
        let d = match dtype.filter(|d| !d.is_none()) {
            Some(d) => {
                let fp8 = t.core.get().lock(py).machine().config().fp8;
                Some(dtype_arg(&fp8, d)?)
            }
            None => None,
        };
        // The storage is the allocation this view was taken from.
        let mut root = slf.clone();
        while let Some(p) = root.get().parent.as_ref().map(|p| p.bind(py).clone()) {
            root = p;
        }
        let view = t
            .tile
            .ap(&root.get().tile, &pattern, offset, d)
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

    /// Element strides of the free dims (outermost first; a block-dim tile lists its block
    /// dims first).
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

    /// The same tile seen with its first `blocks` free dims before the partition dim (a
    /// legacy block-dim tile, `nl.ndarray((n, nl.par_dim(P), F))`).
    fn _with_blocks(slf: &Bound<'_, Tile>, blocks: usize) -> PyResult<Tile> {
        let t = slf.get();
        if t.tile.blocks != 0 || blocks >= t.tile.shape.len() || t.tile.space == Space::Hbm {
            return Err(raise(
                ErrorKind::Usage,
                format!("{blocks} block dims on {}", t.tile),
            ));
        }
        let mut view = t.tile.clone();
        view.blocks = blocks;
        Ok(t.view_of(slf, view))
    }

    /// Declares the tile's elements written without changing them (a masked call's
    /// destination: the elements the mask skips are the kernel's don't-care;
    /// `tpb_nki::Core::mark_masked_out`).
    fn _mark_masked_out(&self, py: Python<'_>) -> PyResult<()> {
        self.core
            .get()
            .lock(py)
            .mark_masked_out(&self.tile)
            .map_err(nki_error)
    }
}

/// Kernel-order axes of a partition-first array with `blocks` block dims.
fn tpb_nki_to_user(internal: &[usize], blocks: usize) -> Vec<usize> {
    let mut out = internal[1..=blocks].to_vec();
    out.push(internal[0]);
    out.extend_from_slice(&internal[blocks + 1..]);
    out
}

/// One basic subscript: an int, a slice, `...`, or an object with `__tpb_index__()`
/// returning `(start, size, step)` (`nl.ds`, an unplaced `nl.arange`).
fn one_key(k: &Bound<'_, PyAny>) -> PyResult<Index> {
    if k.is(k.py().Ellipsis()) {
        return Ok(Index::Ellipsis);
    }
    if let Ok(s) = k.cast::<PySlice>() {
        let get = |name: &str| -> PyResult<Option<i64>> {
            let v = s.getattr(name)?;
            if v.is_none() {
                Ok(None)
            } else {
                crate::args::int(&v, &format!("slice {name}")).map(Some)
            }
        };
        return Ok(Index::Slice {
            start: get("start")?,
            stop: get("stop")?,
            step: get("step")?,
        });
    }
    if let Ok(f) = k.getattr("__tpb_index__") {
        let (start, size, step): (i64, i64, i64) = f.call0()?.extract()?;
        return Ok(Index::Range { start, size, step });
    }
    if crate::args::is_int(k) {
        return Ok(Index::At(crate::args::int(k, "index")?));
    }
    Err(raise(
        ErrorKind::Usage,
        format!(
            "a tile subscript must be an int, a slice, nl.ds(...), an nl.arange expression \
             or ..., not {}",
            k.get_type()
        ),
    ))
}

/// The subscripts of `tile[key]`, one per item of a tuple key.
fn items<'py>(key: &Bound<'py, PyAny>) -> Vec<Bound<'py, PyAny>> {
    match key.cast::<PyTuple>() {
        Ok(t) => t.iter().collect(),
        Err(_) => vec![key.clone()],
    }
}

/// The basic subscripts of `tile[key]` (no index expressions).
pub fn index_keys(key: &Bound<'_, PyAny>) -> PyResult<Vec<Index>> {
    items(key).iter().map(one_key).collect()
}

/// An index expression's affine form: `(constant, coefficients, sizes)` per grid axis.
type AffineKey = (i64, Vec<i64>, Vec<usize>);

/// `tile[key]` with index expressions among the subscripts: the grid (their broadcast
/// shape) and one affine form per subscript (integers are constants; a trailing `...`
/// leaves the other dims whole). `None` when no subscript is an index expression.
fn affine_keys(key: &Bound<'_, PyAny>) -> PyResult<Option<(Vec<usize>, Vec<Affine>)>> {
    let items = items(key);
    let mut forms: Vec<Option<AffineKey>> = Vec::with_capacity(items.len());
    for k in &items {
        forms.push(match k.getattr("__tpb_affine__") {
            Ok(f) => Some(f.call0()?.extract()?),
            Err(_) => None,
        });
    }
    let Some(rank) = forms.iter().flatten().map(|f| f.1.len()).next() else {
        return Ok(None);
    };
    let mut grid = vec![1usize; rank];
    for (c, k, sizes) in forms.iter().flatten() {
        if k.len() != rank || sizes.len() != rank {
            return Err(raise(
                ErrorKind::Usage,
                format!(
                    "index expressions over {rank} and {} axes in one subscript: place every \
                     nl.arange with the same number of axes",
                    k.len()
                ),
            ));
        }
        for (a, &n) in sizes.iter().enumerate() {
            if n != 1 && grid[a] != 1 && grid[a] != n {
                return Err(raise(
                    ErrorKind::Usage,
                    format!(
                        "index expressions of sizes {} and {n} on axis {a} (the expression with \
                         constant {c}): they do not broadcast",
                        grid[a]
                    ),
                ));
            }
            grid[a] = grid[a].max(n);
        }
    }
    let last = items.len() - 1;
    let mut keys = Vec::with_capacity(items.len());
    for (i, (k, form)) in items.iter().zip(forms).enumerate() {
        if let Some((c, coeffs, _)) = form {
            keys.push(Affine {
                constant: c,
                coeffs,
            });
        } else if k.is(k.py().Ellipsis()) && i == last {
            // The dims not subscripted are taken whole.
        } else if crate::args::is_int(k) {
            keys.push(Affine::constant(crate::args::int(k, "index")?, rank));
        } else {
            return Err(raise(
                ErrorKind::NotSupported,
                format!(
                    "not supported: {} among nl.arange / nl.mgrid index expressions (subscript \
                     {i}): subscript every dim with index expressions and integers, or every \
                     dim with slices",
                    k.repr()?
                ),
            ));
        }
    }
    Ok(Some((grid, keys)))
}

/// The view `tile[key]` (basic subscripts, or index expressions over a grid); in the
/// out-of-bounds warning mode a basic subscript is clipped with a `UserWarning`.
pub(crate) fn view_for(slf: &Bound<'_, Tile>, key: &Bound<'_, PyAny>) -> PyResult<tpb_nki::Tile> {
    let t = slf.get();
    let py = slf.py();
    if let Some((grid, keys)) = affine_keys(key)? {
        return t
            .tile
            .index_affine(&grid, &keys)
            .map_err(|e| nki_error(e.into()));
    }
    let keys = index_keys(key)?;
    let clip = t.core.get().lock(py).clip_views();
    if clip {
        let (view, warning) = t
            .tile
            .index_clipped(&keys)
            .map_err(|e| nki_error(e.into()))?;
        if let Some(w) = warning {
            let category = py.get_type::<pyo3::exceptions::PyUserWarning>();
            let msg = std::ffi::CString::new(w).unwrap_or_default();
            PyErr::warn(py, &category, &msg, 1)?;
        }
        return Ok(view);
    }
    t.tile.index(&keys).map_err(|e| nki_error(e.into()))
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

/// `nl.ndarray(..., address=(partition_offset, byte_offset))`: an on-chip tile placed by
/// the kernel (`tpb_nki::Core::ndarray_at`; placed tiles may overlap only each other).
#[pyfunction]
#[pyo3(signature = (core, shape, dtype, buffer, name, address))]
pub fn _ndarray_at(
    core: &Bound<'_, Core>,
    shape: &Bound<'_, PyAny>,
    dtype: &Bound<'_, PyAny>,
    buffer: &str,
    name: &str,
    address: &Bound<'_, PyAny>,
) -> PyResult<Tile> {
    let py = core.py();
    let space = crate::isa::parse_space(buffer)?;
    let shape: Vec<usize> = crate::args::ints(shape, "shape")?;
    crate::arrays::check_dims(&shape, "shape")?;
    let place: Vec<u64> = crate::args::ints(address, "address")?;
    let [partition, offset] = place[..] else {
        return Err(raise(
            ErrorKind::Usage,
            format!(
                "address: (partition_offset, byte_offset), not {} values",
                place.len()
            ),
        ));
    };
    let partition = u32::try_from(partition).map_err(|_| {
        raise(
            ErrorKind::Usage,
            format!("address: partition {partition} is not in 0..128"),
        )
    })?;
    let fp8 = core.get().lock(py).machine().config().fp8;
    let d = dtype_arg(&fp8, dtype)?;
    let tile = core
        .get()
        .lock(py)
        .ndarray_at(&shape, d, space, name, (partition, offset))
        .map_err(nki_error)?;
    Ok(Tile::owning(core.clone().unbind(), tile))
}

/// `tile[key] = value` from the host: the array is broadcast to the view's shape by NumPy
/// and written in the view's dtype.
fn assign(slf: &Bound<'_, Tile>, key: &Bound<'_, PyAny>, value: &Bound<'_, PyAny>) -> PyResult<()> {
    let py = slf.py();
    let t = slf.get();
    let view = view_for(slf, key)?;
    // A value that writes itself into its destination (`nl.loop_reduce`'s result, whose
    // destination is also its operand).
    if let Ok(hook) = value.getattr("__tpb_assign__") {
        let target = slf.call_method1("__getitem__", (key,))?;
        hook.call1((target,))?;
        return Ok(());
    }
    if let Ok(v) = value.cast::<Tile>() {
        // `t[k] += x` ends with `t[k] = t[k]` after the in-place add: nothing to write. Any
        // other tile is NKI's legacy assignment, a copy on the device.
        if v.get().tile == view {
            return Ok(());
        }
        let target = slf.call_method1("__getitem__", (key,))?;
        crate::pycache::module!(py, "tpb.nki.isa")?
            .getattr("tensor_copy")?
            .call1((target, value))?;
        return Ok(());
    }
    // A held-back nl.matmul runs before the host write it precedes (program order).
    crate::pycache::module!(py, "tpb.nki._context")?
        .getattr("flush")?
        .call1((t.core.bind(py),))?;
    let np = crate::pycache::module!(py, "numpy")?;
    let target = slf.getattr("dtype")?;
    let given = np.call_method1("asarray", (value,))?;
    // Numbers only (ml_dtypes' are kind "V"): None or a str would become NaN or fail
    // inside NumPy.
    let dt = given.getattr("dtype")?;
    let kind: String = dt.getattr("kind")?.extract()?;
    let structured = !dt.getattr("names")?.is_none();
    if !matches!(kind.as_str(), "b" | "i" | "u" | "f" | "V") || structured {
        return Err(raise(
            ErrorKind::Usage,
            format!(
                "tile[...] = {}: expected a number, an array of numbers or a tile",
                value.repr()?
            ),
        ));
    }
    let shape: Vec<usize> = given.getattr("shape")?.extract()?;
    let want = view.user_shape();
    let fits = shape.len() <= want.len()
        && shape
            .iter()
            .rev()
            .zip(want.iter().rev())
            .all(|(&g, &v)| g == v || g == 1);
    if !fits {
        return Err(raise(
            ErrorKind::Usage,
            format!(
                "tile[...] = an array of shape {shape:?}: it does not broadcast to the view's {want:?}"
            ),
        ));
    }
    let mut arr = np
        .call_method1("broadcast_to", (given, want))?
        .call_method1("astype", (target,))?;
    if view.blocks > 0 {
        // The kernel's order (block dims, partitions, rest) to the tile's (partitions first).
        let b = view.blocks;
        let order: Vec<usize> = std::iter::once(b)
            .chain(0..b)
            .chain(b + 1..view.shape.len())
            .collect();
        arr = arr.call_method1("transpose", (order,))?;
    }
    let fp8 = t.core.get().lock(py).machine().config().fp8;
    let host = host_view(&arr, &fp8)?.bytes()?;
    let mut core = t.core.get().lock(py);
    core.write(&view, host.as_slice()?).map_err(nki_error)
}
