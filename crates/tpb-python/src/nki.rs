//! `tpb.nki`: `Core`, `Tile` and the NKI-shaped calls (thin over `tpb_nki`).

use crate::args;
use crate::arrays::{check_dims, host_view, numpy_dtype, to_numpy, tpb_dtype};
use crate::errors::{raise, raise_with, ErrorKind};
use crate::isa::{findings, parse_space, Instruction};
use crate::machine::{config, fault_error, lock, register_bits, RunReport};
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use std::sync::{Mutex, MutexGuard};
use tpb_isa::{CodeEnum, Dtype};
use tpb_nki::{alu_op, Cmp, NkiError, Operand};

/// An NKI error as the matching `tpb` exception.
fn nki_error(e: NkiError) -> PyErr {
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
        NkiError::NotSupported { .. } => raise(ErrorKind::NotSupported, e.to_string()),
        // Shapes, patterns, operators, values, memory and registers: the caller's arguments.
        _ => raise(ErrorKind::Usage, e.to_string()),
    }
}

/// A simulated NeuronCore for `tpb.nki` calls: a machine, a tile allocator and the program
/// the calls emitted. Safe to share between threads: calls take turns (issue 20 item 12).
#[pyclass(module = "tpb._tpb", name = "Core", frozen)]
pub struct Core {
    inner: Mutex<tpb_nki::Core>,
}

impl Core {
    fn lock(&self, py: Python<'_>) -> MutexGuard<'_, tpb_nki::Core> {
        lock(py, &self.inner)
    }
}

/// A tile: partition dimension first, in SBUF or PSUM of one `Core`.
#[pyclass(module = "tpb._tpb", name = "Tile", frozen)]
pub struct Tile {
    core: Py<Core>,
    tile: tpb_nki::Tile,
}

/// A dtype argument: anything `numpy.dtype` takes (`numpy.float32`, `ml_dtypes.bfloat16`,
/// `"float32"`), or a TPB dtype name (`"bf16"`, `"fp8_exp4"`).
fn dtype_arg(fp8: &tpb_sim::numerics::Fp8Config, obj: &Bound<'_, PyAny>) -> PyResult<Dtype> {
    let py = obj.py();
    if let Ok(dt) = py.import("numpy")?.call_method1("dtype", (obj,)) {
        let name: String = dt.getattr("name")?.extract()?;
        return tpb_dtype(&name, fp8);
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
    #[new]
    #[pyo3(signature = (gen = "cayman", strict = false, fp8_e4m3 = "ieee", fp8_ocp_sat = false))]
    fn new(gen: &str, strict: bool, fp8_e4m3: &str, fp8_ocp_sat: bool) -> PyResult<Core> {
        Ok(Core {
            inner: Mutex::new(tpb_nki::Core::with_config(config(
                gen,
                strict,
                fp8_e4m3,
                fp8_ocp_sat,
            )?)),
        })
    }

    /// The generation.
    #[getter]
    fn gen(&self, py: Python<'_>) -> &'static str {
        self.lock(py).gen().name()
    }

    /// Allocates a tile of `shape` (partition dimension first, at most 128).
    #[pyo3(signature = (shape, dtype, buffer = "sbuf"))]
    fn ndarray(
        slf: &Bound<'_, Core>,
        shape: &Bound<'_, PyAny>,
        dtype: &Bound<'_, PyAny>,
        buffer: &str,
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
            .ndarray(&shape, d, space)
            .map_err(nki_error)?;
        Ok(Tile {
            core: slf.clone().unbind(),
            tile,
        })
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
        Ok(Tile {
            core: slf.clone().unbind(),
            tile,
        })
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
}

/// Resolves an operator argument: a callable (its `__name__`, e.g. `numpy.multiply`) or a
/// name.
fn op_name(obj: &Bound<'_, PyAny>) -> PyResult<String> {
    if let Ok(s) = obj.extract::<String>() {
        return Ok(s);
    }
    obj.getattr("__name__")
        .and_then(|n| n.extract::<String>())
        .map_err(|_| {
            raise(
                ErrorKind::Usage,
                format!("{obj}: not an operator (a numpy ufunc or a name)"),
            )
        })
}

fn alu(obj: &Bound<'_, PyAny>, argument: &str) -> PyResult<tpb_isa::AluOp> {
    let name = op_name(obj)?;
    alu_op(&name).ok_or_else(|| {
        raise(
            ErrorKind::Usage,
            format!("{argument}: unknown operator {name:?} (numpy ufunc names such as multiply, greater_equal, or ISA ALU_OP names)"),
        )
    })
}

fn cmp(obj: &Bound<'_, PyAny>, argument: &str) -> PyResult<Cmp> {
    let name = op_name(obj)?;
    Cmp::parse(&name).ok_or_else(|| {
        raise(
            ErrorKind::Usage,
            format!("{argument}: {name:?} is not a comparison (greater, greater_equal, equal, not_equal, less, less_equal)"),
        )
    })
}

/// Checks that `t` lives on the same core as `dst`.
fn same_core<'a>(
    py: Python<'_>,
    dst: &Tile,
    t: &'a Tile,
    argument: &str,
) -> PyResult<&'a tpb_nki::Tile> {
    if !t.core.bind(py).is(dst.core.bind(py)) {
        return Err(raise(
            ErrorKind::Usage,
            format!("{argument} belongs to another Core than dst"),
        ));
    }
    Ok(&t.tile)
}

/// A scalar operand: None, a float/int immediate, or a `(P, 1)` tile of the same core.
fn operand(
    py: Python<'_>,
    dst: &Tile,
    obj: Option<&Bound<'_, PyAny>>,
    argument: &str,
) -> PyResult<Option<Operand>> {
    let Some(obj) = obj.filter(|o| !o.is_none()) else {
        return Ok(None);
    };
    if let Ok(t) = obj.cast::<Tile>() {
        return Ok(Some(Operand::Tile(
            same_core(py, dst, t.get(), argument)?.clone(),
        )));
    }
    if obj.is_instance_of::<pyo3::types::PyInt>() || obj.is_instance_of::<pyo3::types::PyFloat>() {
        return Ok(Some(Operand::Imm(args::float(obj, argument)?)));
    }
    if let Ok(v) = obj.extract::<f64>() {
        return Ok(Some(Operand::Imm(v)));
    }
    Err(raise(
        ErrorKind::Usage,
        format!(
            "{argument}: expected a number or a (P, 1) tile, not {}",
            obj.get_type()
        ),
    ))
}

/// Runs one call on `dst`'s core with the GIL released.
fn on_core(
    py: Python<'_>,
    dst: &Tile,
    call: impl FnOnce(&mut tpb_nki::Core) -> Result<tpb_sim::StepReport, NkiError> + Send,
) -> PyResult<RunReport> {
    let mut core = dst.core.get().lock(py);
    let inner = &mut *core;
    let r = py.detach(|| call(inner)).map_err(nki_error)?;
    drop(core);
    Ok(RunReport::from_steps(std::slice::from_ref(&r)))
}

/// `nki.isa.iota(dst, pattern, offset=0, channel_multiplier=0)`.
#[pyfunction]
#[pyo3(
    name = "iota",
    signature = (dst, pattern, offset = None, channel_multiplier = None),
    text_signature = "(dst, pattern, offset=0, channel_multiplier=0)"
)]
pub fn nki_iota(
    py: Python<'_>,
    dst: &Tile,
    pattern: &Bound<'_, PyAny>,
    offset: Option<&Bound<'_, PyAny>>,
    channel_multiplier: Option<&Bound<'_, PyAny>>,
) -> PyResult<RunReport> {
    let p = args::pattern(pattern, "pattern")?;
    let offset: i64 = args::int_or(offset, "offset", 0)?;
    let channel_multiplier: i64 = args::int_or(channel_multiplier, "channel_multiplier", 0)?;
    let d = dst.tile.clone();
    on_core(py, dst, move |c| c.iota(&d, &p, offset, channel_multiplier))
}

/// `nki.isa.affine_select(dst, pattern, channel_multiplier, on_true_tile, on_false_value,
/// cmp_op=numpy.equal, offset=0)`.
#[pyfunction]
#[pyo3(
    name = "affine_select",
    signature = (dst, pattern, channel_multiplier, on_true_tile, on_false_value, cmp_op = None, offset = None),
    text_signature = "(dst, pattern, channel_multiplier, on_true_tile, on_false_value, cmp_op=None, offset=0)"
)]
#[allow(clippy::too_many_arguments)]
pub fn nki_affine_select(
    py: Python<'_>,
    dst: &Tile,
    pattern: &Bound<'_, PyAny>,
    channel_multiplier: &Bound<'_, PyAny>,
    on_true_tile: &Tile,
    on_false_value: &Bound<'_, PyAny>,
    cmp_op: Option<&Bound<'_, PyAny>>,
    offset: Option<&Bound<'_, PyAny>>,
) -> PyResult<RunReport> {
    let pattern = args::pattern(pattern, "pattern")?;
    let channel_multiplier: i64 = args::int(channel_multiplier, "channel_multiplier")?;
    let on_false_value = args::float(on_false_value, "on_false_value")?;
    let offset: i64 = args::int_or(offset, "offset", 0)?;
    let c = match cmp_op {
        Some(o) if !o.is_none() => cmp(o, "cmp_op")?,
        _ => Cmp::Equal,
    };
    let src = same_core(py, dst, on_true_tile, "on_true_tile")?.clone();
    let p = pattern;
    let d = dst.tile.clone();
    on_core(py, dst, move |core| {
        core.affine_select(&d, &p, channel_multiplier, &src, on_false_value, c, offset)
    })
}

/// `nki.isa.tensor_scalar(dst, data, op0, operand0, reverse0=False, op1=None,
/// operand1=None, reverse1=False)`. `op1` and `operand1` are given together; a `(P, 1)` tile
/// operand has at least the data's partitions and, on the arithmetic path, is float32.
#[pyfunction]
#[pyo3(name = "tensor_scalar", signature = (dst, data, op0, operand0 = None, reverse0 = false, op1 = None, operand1 = None, reverse1 = false))]
#[allow(clippy::too_many_arguments)]
pub fn nki_tensor_scalar(
    py: Python<'_>,
    dst: &Tile,
    data: &Tile,
    op0: &Bound<'_, PyAny>,
    operand0: Option<&Bound<'_, PyAny>>,
    reverse0: bool,
    op1: Option<&Bound<'_, PyAny>>,
    operand1: Option<&Bound<'_, PyAny>>,
    reverse1: bool,
) -> PyResult<RunReport> {
    let src = same_core(py, dst, data, "data")?.clone();
    let o0 = alu(op0, "op0")?;
    let o1 = match op1 {
        Some(o) if !o.is_none() => Some(alu(o, "op1")?),
        _ => None,
    };
    let s0 = operand(py, dst, operand0, "operand0")?;
    let s1 = operand(py, dst, operand1, "operand1")?;
    let d = dst.tile.clone();
    on_core(py, dst, move |c| {
        c.tensor_scalar(
            &d,
            &src,
            o0,
            s0.as_ref(),
            reverse0,
            o1,
            s1.as_ref(),
            reverse1,
        )
    })
}

/// `nki.isa.range_select(dst, on_true_tile, comp_op0, comp_op1, bound0, bound1,
/// range_start=0, on_false_value=-3.4028235e38, reduce_cmd="idle")`.
#[pyfunction]
#[pyo3(
    name = "range_select",
    signature = (dst, on_true_tile, comp_op0, comp_op1, bound0, bound1, range_start = None, on_false_value = None, reduce_cmd = "idle"),
    text_signature = "(dst, on_true_tile, comp_op0, comp_op1, bound0, bound1, range_start=0.0, on_false_value=-3.4028234663852886e+38, reduce_cmd='idle')"
)]
#[allow(clippy::too_many_arguments)]
pub fn nki_range_select(
    py: Python<'_>,
    dst: &Tile,
    on_true_tile: &Tile,
    comp_op0: &Bound<'_, PyAny>,
    comp_op1: &Bound<'_, PyAny>,
    bound0: &Bound<'_, PyAny>,
    bound1: &Bound<'_, PyAny>,
    range_start: Option<&Bound<'_, PyAny>>,
    on_false_value: Option<&Bound<'_, PyAny>>,
    reduce_cmd: &str,
) -> PyResult<RunReport> {
    let range_start = args::float_or(range_start, "range_start", 0.0)?;
    let on_false_value = args::float_or(on_false_value, "on_false_value", -3.4028234663852886e38)?;
    let src = same_core(py, dst, on_true_tile, "on_true_tile")?.clone();
    let (c0, c1) = (cmp(comp_op0, "comp_op0")?, cmp(comp_op1, "comp_op1")?);
    let required = |o: Option<Operand>, name: &str| {
        o.ok_or_else(|| raise(ErrorKind::Usage, format!("{name}: a bound is required")))
    };
    let b0 = required(operand(py, dst, Some(bound0), "bound0")?, "bound0")?;
    let b1 = required(operand(py, dst, Some(bound1), "bound1")?, "bound1")?;
    let d = dst.tile.clone();
    let reduce = reduce_cmd.to_string();
    on_core(py, dst, move |c| {
        c.range_select(
            &d,
            &src,
            c0,
            c1,
            &b0,
            &b1,
            range_start,
            on_false_value,
            &reduce,
        )
    })
}

/// TensorScalarSelect: `dst = predicate ? on_true_tile : on_false_value` per partition. On
/// an integer tile the fill must be a whole number the dtype holds (`300` on uint8 raises
/// `tpb.UsageError` rather than saturating to 255).
#[pyfunction]
#[pyo3(name = "select", signature = (dst, predicate, on_true_tile, on_false_value, reverse_pred = false))]
pub fn nki_select(
    py: Python<'_>,
    dst: &Tile,
    predicate: &Bound<'_, PyAny>,
    on_true_tile: &Tile,
    on_false_value: &Bound<'_, PyAny>,
    reverse_pred: bool,
) -> PyResult<RunReport> {
    let src = same_core(py, dst, on_true_tile, "on_true_tile")?.clone();
    let pred = operand(py, dst, Some(predicate), "predicate")?
        .ok_or_else(|| raise(ErrorKind::Usage, "predicate is required".to_string()))?;
    let fill = operand(py, dst, Some(on_false_value), "on_false_value")?
        .ok_or_else(|| raise(ErrorKind::Usage, "on_false_value is required".to_string()))?;
    let d = dst.tile.clone();
    on_core(py, dst, move |c| {
        c.select(&d, &pred, &src, &fill, reverse_pred)
    })
}

/// An NKI enum argument given as its int value or its member name.
fn enum_arg(
    v: Option<&Bound<'_, PyAny>>,
    argument: &str,
    members: &[(&str, i64)],
) -> PyResult<i64> {
    let Some(v) = v.filter(|v| !v.is_none()) else {
        return Ok(0);
    };
    if let Ok(i) = v.extract::<i64>() {
        if members.iter().any(|m| m.1 == i) {
            return Ok(i);
        }
    }
    let name = v
        .getattr("name")
        .and_then(|n| n.extract::<String>())
        .or_else(|_| v.extract::<String>())
        .unwrap_or_default();
    members
        .iter()
        .find(|m| m.0.eq_ignore_ascii_case(&name))
        .map(|m| m.1)
        .ok_or_else(|| {
            let names: Vec<&str> = members.iter().map(|m| m.0).collect();
            raise(
                ErrorKind::Usage,
                format!("{argument}={v}: expected one of {}", names.join(", ")),
            )
        })
}

/// ``nki.isa.dma_copy(dst, src, priority=None, oob_mode=oob_mode.error,
/// dge_mode=dge_mode.unknown, engine=engine.unknown, name=None)``: copy ``src`` to ``dst``
/// with one DMAMEMCPY (0xB8).
///
/// Parameters: ``dst``, ``src`` -- tiles of the same core with equal element counts, in HBM
/// (``Core.ndarray(shape, dtype, buffer="hbm")``) or SBUF (a PSUM source is refused, as in
/// NKI 0.3.0+); ``priority`` -- 0..3, NeuronCore-v4+ only (written to
/// ``DMA_CONFIGS.priority_class``); ``oob_mode`` -- ``error`` / ``skip`` (a direct copy has no
/// indirect index to skip); ``dge_mode`` -- ``unknown`` / ``swdge`` (issued on GpSimd) /
/// ``hwdge`` (equal dtypes required) / ``none``; ``engine`` -- ``sync`` (SP), ``scalar`` (ACT),
/// ``gpsimd`` (POOL) or ``unknown`` (SP; POOL on trn1), as NKI enum values or names;
/// ``name`` -- accepted, unused.
///
/// Semantics: ``dst = src`` element by element in C order; a dtype change converts through
/// fp32 (round to nearest even). The data moves at once; the request is recorded on its
/// issuing engine's queue (``Core.disasm`` writes ``.engine`` lines).
///
/// Example::
///
///     >>> import numpy as np, tpb.nki as nki
///     >>> core = nki.Core(gen="cayman")
///     >>> x = core.from_numpy(np.arange(8, dtype=np.float32).reshape(2, 4))
///     >>> h = core.ndarray((2, 4), np.float32, buffer="hbm")
///     >>> _ = nki.isa.dma_copy(h, x, engine="scalar")
///     >>> y = core.ndarray((2, 4), np.float32)
///     >>> _ = nki.isa.dma_copy(y, h)
///     >>> y.numpy()[1]
///     array([4., 5., 6., 7.], dtype=float32)
#[pyfunction]
#[pyo3(name = "dma_copy", signature = (dst, src, priority = None, oob_mode = None, dge_mode = None, engine = None, name = None))]
#[allow(clippy::too_many_arguments)]
pub fn nki_dma_copy(
    py: Python<'_>,
    dst: &Tile,
    src: &Tile,
    priority: Option<u8>,
    oob_mode: Option<&Bound<'_, PyAny>>,
    dge_mode: Option<&Bound<'_, PyAny>>,
    engine: Option<&Bound<'_, PyAny>>,
    name: Option<&str>,
) -> PyResult<RunReport> {
    use tpb_sim::engines::EngineId;
    let _ = name;
    enum_arg(oob_mode, "oob_mode", &[("error", 0), ("skip", 1)])?;
    let dge = enum_arg(
        dge_mode,
        "dge_mode",
        &[("unknown", 0), ("swdge", 1), ("hwdge", 2), ("none", 3)],
    )?;
    let e = enum_arg(
        engine,
        "engine",
        &[
            ("unknown", 0),
            ("tensor", 1),
            ("scalar", 2),
            ("gpsimd", 3),
            ("dma", 4),
            ("vector", 5),
            ("sync", 6),
        ],
    )?;
    let engine = match (e, dge) {
        (0 | 4, 1) => Some(EngineId::Pool),
        (0 | 4, _) => None,
        (2, _) => Some(EngineId::Act),
        (3, _) => Some(EngineId::Pool),
        (6, _) => Some(EngineId::Sp),
        (1, _) => Some(EngineId::Pe),
        _ => Some(EngineId::Dve),
    };
    if dge == 2 && dst.tile.dtype != src.tile.dtype {
        return Err(raise(
            ErrorKind::Usage,
            "dge_mode=hwdge needs equal dtypes (use .view(); NKI dma_copy)".to_string(),
        ));
    }
    let src_tile = same_core(py, dst, src, "src")?.clone();
    let d = dst.tile.clone();
    let gen = dst.core.bind(py).borrow().lock(py).gen();
    if let Some(p) = priority {
        if !matches!(gen, tpb_isa::Gen::Mariana | tpb_isa::Gen::Maverick) || p > 3 {
            return Err(raise(
                ErrorKind::Usage,
                format!("priority={p}: 0..=3, and only on NeuronCore-v4+ (mariana)"),
            ));
        }
    }
    on_core(py, dst, move |core| {
        core.dma_copy_with(&d, &src_tile, engine, None, priority.unwrap_or(0))
    })
}
