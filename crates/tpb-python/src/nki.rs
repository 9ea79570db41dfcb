//! `tpb.nki`: `Core` and the NKI-shaped calls (thin over `tpb_nki`; `Tile` is in `tile.rs`).

use crate::args;
use crate::arrays::{check_dims, host_view, tpb_dtype};
use crate::errors::{raise, raise_with, ErrorKind};
use crate::isa::{findings, parse_space, Instruction};
use crate::machine::{config, fault_error, lock, register_bits, RunReport};
use crate::nki_dve::on_core_steps;
pub(crate) use crate::tile::Tile;
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use std::sync::{Mutex, MutexGuard};
use tpb_isa::{CodeEnum, Dtype};
use tpb_nki::{alu_op, Cmp, NkiError, Operand};

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

/// Resolves an operator argument: a callable (its `__name__`, e.g. `numpy.multiply`) or a
/// name.
pub(crate) fn op_name(obj: &Bound<'_, PyAny>) -> PyResult<String> {
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

pub(crate) fn alu(obj: &Bound<'_, PyAny>, argument: &str) -> PyResult<tpb_isa::AluOp> {
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
pub(crate) fn same_core<'a>(
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
pub(crate) fn operand(
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
pub(crate) fn on_core(
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
/// ``name`` -- labels the request (``tpb.nki.isa.dma_copy`` sets it with the kernel line).
///
/// Semantics: ``dst = src`` element by element in C order; a dtype change converts through
/// fp32 (round to nearest even). The data moves at once; the request is recorded on its
/// issuing engine's queue (``Core.disasm`` writes ``.engine`` lines) and its transfer on that
/// engine's DMA queue, which bumps the queue's semaphore when the data has landed: what the
/// emitted waits of the data's readers wait for.
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
/// `nl.broadcast_to` over the partition dim: one DMA from `src`'s single partition to every
/// partition of `dst` (a partition step of 0; `tpb_nki::Core::broadcast_partitions`).
#[pyfunction]
pub fn _kernel_broadcast_partitions(py: Python<'_>, dst: &Tile, src: &Tile) -> PyResult<RunReport> {
    let s = same_core(py, dst, src, "src")?.clone();
    let d = dst.tile.clone();
    on_core(py, dst, move |core| core.broadcast_partitions(&d, &s))
}

// Issue 17a: the DVE/POOL calls (tpb_nki::dve_pool; docs/reference/dve-pool.md).

/// `engine=`: `None`, a name (`"vector"`, `"gpsimd"`, …), the NKI enum's number, or an object
/// whose `name` is one (`nki.isa.engine.vector`).
fn engine_arg(obj: Option<&Bound<'_, PyAny>>) -> PyResult<tpb_nki::NkiEngine> {
    let Some(obj) = obj.filter(|o| !o.is_none()) else {
        return Ok(tpb_nki::NkiEngine::Unknown);
    };
    let text = if let Ok(s) = obj.extract::<String>() {
        s
    } else if let Ok(n) = obj.extract::<i64>() {
        n.to_string()
    } else if let Ok(n) = obj.getattr("name").and_then(|n| n.extract::<String>()) {
        n
    } else {
        obj.str()?.to_string()
    };
    let key = text.rsplit('.').next().unwrap_or(&text).to_string();
    tpb_nki::NkiEngine::parse(&key).ok_or_else(|| {
        raise(
            ErrorKind::Usage,
            format!("engine: {text:?} is not one of unknown, vector, gpsimd, scalar, tensor"),
        )
    })
}

/// `nki.isa.tensor_tensor(dst, data1, data2, op, engine=engine.unknown, name=None)`.
///
/// Element-wise `dst = data1 op data2` (TensorTensor 0x41, or 0x51 for bitvec ops).
///
/// Parameters: `dst`, `data1`, `data2` — tiles with equal partitions and elements per
/// partition; `op` — a numpy ufunc or name (`numpy.add`, `"maximum"`, `numpy.bitwise_and`);
/// `engine` — `"vector"`, `"gpsimd"` or unknown; `name` — accepted, unused.
///
/// Semantics: arithmetic ops convert both inputs to float32, compute in float32 and convert
/// to `dst.dtype` (RNE; integers saturate). With all three tiles int32/uint32, add, subtract
/// and multiply run on GpSimd's exact wrapping integer ops unless `engine="vector"`.
/// Bitvec ops need one integer dtype and work on raw bits.
///
/// Example: `tensor_tensor(out, a, b, numpy.multiply)`.
#[pyfunction]
#[pyo3(name = "tensor_tensor", signature = (dst, data1, data2, op, engine = None, name = None))]
pub fn nki_tensor_tensor(
    py: Python<'_>,
    dst: &Tile,
    data1: &Tile,
    data2: &Tile,
    op: &Bound<'_, PyAny>,
    engine: Option<&Bound<'_, PyAny>>,
    name: Option<&str>,
) -> PyResult<RunReport> {
    let _ = name;
    let a = same_core(py, dst, data1, "data1")?.clone();
    let b = same_core(py, dst, data2, "data2")?.clone();
    let o = alu(op, "op")?;
    let e = engine_arg(engine)?;
    let d = dst.tile.clone();
    on_core(py, dst, move |c| c.tensor_tensor(&d, &a, &b, o, e))
}

/// `nki.isa.tensor_copy(dst, src, engine=engine.unknown, name=None)`.
///
/// Parameters: `dst`, `src` — tiles with equal partitions and elements per partition;
/// `engine` — `"vector"`, `"gpsimd"` or unknown (`"scalar"` is refused: its always-float32
/// copy is not modelled); `name` — accepted, unused.
///
/// Semantics: bit-exact when the dtypes are equal (Copy 0x46), else converted through float32
/// (Cast 0x47: RNE; integer targets saturate, NaN → 0).
///
/// Example: `tensor_copy(out_bf16, in_fp32)`.
#[pyfunction]
#[pyo3(name = "tensor_copy", signature = (dst, src, engine = None, name = None))]
pub fn nki_tensor_copy(
    py: Python<'_>,
    dst: &Tile,
    src: &Tile,
    engine: Option<&Bound<'_, PyAny>>,
    name: Option<&str>,
) -> PyResult<RunReport> {
    let _ = name;
    let s = same_core(py, dst, src, "src")?.clone();
    let e = engine_arg(engine)?;
    let d = dst.tile.clone();
    on_core(py, dst, move |c| c.tensor_copy(&d, &s, e))
}

/// `nki.isa.memset(dst, value, engine=engine.unknown, name=None)`.
///
/// Parameters: `dst` — the tile to fill; `value` — a number converted to `dst.dtype` (an
/// integer in range for integer dtypes); `engine` — `"vector"`, `"gpsimd"` or unknown;
/// `name` — accepted, unused.
///
/// Semantics: every element of `dst` gets `value` (Memset 0x49, a raw fill).
///
/// Example: `memset(acc, 0.0)`.
#[pyfunction]
#[pyo3(name = "memset", signature = (dst, value, engine = None, name = None))]
pub fn nki_memset(
    py: Python<'_>,
    dst: &Tile,
    value: f64,
    engine: Option<&Bound<'_, PyAny>>,
    name: Option<&str>,
) -> PyResult<RunReport> {
    let _ = name;
    let e = engine_arg(engine)?;
    let d = dst.tile.clone();
    on_core(py, dst, move |c| c.memset(&d, value, e))
}

/// `nki.isa.reciprocal(dst, data, name=None)`.
///
/// Parameters: `dst`, `data` — tiles with equal partitions and elements per partition;
/// `name` — accepted, unused.
///
/// Semantics: `dst = 1 / data` in float32 (Reciprocal 0x48; IEEE division, an approximation
/// of the hardware's datapath).
///
/// Example: `reciprocal(inv, x)`.
#[pyfunction]
#[pyo3(name = "reciprocal", signature = (dst, data, name = None))]
pub fn nki_reciprocal(
    py: Python<'_>,
    dst: &Tile,
    data: &Tile,
    name: Option<&str>,
) -> PyResult<RunReport> {
    let _ = name;
    let s = same_core(py, dst, data, "data")?.clone();
    let d = dst.tile.clone();
    on_core(py, dst, move |c| c.reciprocal(&d, &s))
}

/// `nki.isa.tensor_reduce(dst, op, data, axis, negate=False, keepdims=False, name=None)`.
///
/// Parameters: `dst` — one value per kept index; `op` — a reduction operator (`numpy.add`,
/// `numpy.maximum`, `numpy.bitwise_or`, …); `data` — the input tile; `axis` — an int or a list
/// of trailing free axes (never 0); `negate` — negate arithmetic results; `keepdims` —
/// accepted (the shape is the caller's `dst`); `name` — accepted, unused.
///
/// Semantics: per partition, fold the reduced axes with `op` in float32, element order
/// (TensorReduce 0x42; 0x52 for bitvec ops), then negate and convert to `dst.dtype`.
///
/// Example: `tensor_reduce(rowsum, numpy.add, x, axis=1)` on a `(P, F)` tile.
#[pyfunction]
#[pyo3(name = "tensor_reduce", signature = (dst, op, data, axis, negate = false, keepdims = false, name = None))]
#[allow(clippy::too_many_arguments)]
pub fn nki_tensor_reduce(
    py: Python<'_>,
    dst: &Tile,
    op: &Bound<'_, PyAny>,
    data: &Tile,
    axis: &Bound<'_, PyAny>,
    negate: bool,
    keepdims: bool,
    name: Option<&str>,
) -> PyResult<RunReport> {
    let _ = name;
    let s = same_core(py, dst, data, "data")?.clone();
    let o = alu(op, "op")?;
    let axes: Vec<usize> = match axis.extract::<usize>() {
        Ok(a) => vec![a],
        Err(_) => axis.extract::<Vec<usize>>().map_err(|_| {
            raise(
                ErrorKind::Usage,
                format!("axis: {axis} is not an int or a list of ints"),
            )
        })?,
    };
    let d = dst.tile.clone();
    on_core(py, dst, move |c| {
        c.tensor_reduce(&d, o, &s, &axes, negate, keepdims)
    })
}

/// `nki.isa.tensor_copy_predicated(dst, src, predicate, reverse_pred=False, name=None)`.
///
/// Parameters: `dst` — the tile written where selected, kept elsewhere; `src` — a tile of
/// `dst`'s shape or a number; `predicate` — an integer tile of `dst`'s shape;
/// `reverse_pred` — select where the predicate is zero; `name` — accepted, unused.
///
/// Semantics: where `predicate != 0` (`== 0` with `reverse_pred`) `dst = src`, elsewhere
/// `dst` keeps its value (CopyPredicated 0x72 / CastPredicated 0x99 for a tile,
/// CopyPredicatedScalar 0xe8 for a number). A tile `src` with `reverse_pred=True` is refused
/// (0x72 has no polarity flag).
///
/// Example: `tensor_copy_predicated(scores, -numpy.inf, mask)`.
#[pyfunction]
#[pyo3(name = "tensor_copy_predicated", signature = (dst, src, predicate, reverse_pred = false, name = None))]
pub fn nki_tensor_copy_predicated(
    py: Python<'_>,
    dst: &Tile,
    src: &Bound<'_, PyAny>,
    predicate: &Tile,
    reverse_pred: bool,
    name: Option<&str>,
) -> PyResult<RunReport> {
    let _ = name;
    let p = same_core(py, dst, predicate, "predicate")?.clone();
    let s = operand(py, dst, Some(src), "src")?
        .ok_or_else(|| raise(ErrorKind::Usage, "src is required".to_string()))?;
    let d = dst.tile.clone();
    on_core(py, dst, move |c| {
        c.tensor_copy_predicated(&d, &s, &p, reverse_pred)
    })
}

/// `nki.isa.nc_transpose(dst, data, engine=engine.unknown, name=None)`.
///
/// Parameters: `data` — an SBUF tile `[K, M]` (free dims flattened); `dst` — `[M, K]`;
/// `engine` — `"vector"` (whole `[32, 32]` tiles, StreamTranspose 0x6b), `"tensor"` (the PE:
/// LoadWeights + Matmul against an identity, dst in PSUM, K, M ≤ 128) or unknown (the Vector
/// engine for a `[32, 32]` tile unless it goes from SBUF to PSUM, else the PE); `name` —
/// labels the instructions.
///
/// Semantics: `dst[i, j] = data[j, i]`. On the PE, fp32 on cayman/mariana is the
/// bit-accurate transpose (`transpose_mode` 1); other dtypes (and sunda) multiply by the
/// identity into an fp32 dst: exact for finite non-zero values, exact-per-our-order in the
/// report.
///
/// Example: `nc_transpose(t_psum, x, engine="tensor")`.
#[pyfunction]
#[pyo3(name = "nc_transpose", signature = (dst, data, engine = None, name = None))]
pub fn nki_nc_transpose(
    py: Python<'_>,
    dst: &Tile,
    data: &Tile,
    engine: Option<&Bound<'_, PyAny>>,
    name: Option<&str>,
) -> PyResult<RunReport> {
    let _ = name;
    let s = same_core(py, dst, data, "data")?.clone();
    let e = engine_arg(engine)?;
    let d = dst.tile.clone();
    on_core_steps(py, dst, move |c| c.nc_transpose_any(&d, &s, e))
}

/// `nki.isa.nc_stream_shuffle(dst, src, shuffle_mask, name=None)`.
///
/// Parameters: `dst`, `src` — tiles with one dtype and the same elements per partition
/// (in place allowed); `shuffle_mask` — 32 ints, each 0..31 or 255; `name` — accepted,
/// unused.
///
/// Semantics: inside each 32-partition quadrant, dst partition `i` takes src partition
/// `shuffle_mask[i]`; 255 leaves dst partition `i` unchanged. Emits LoadMaskSelect (0x69)
/// then StreamShuffle (0x6a) (a second pair for a partial last quadrant of dst).
///
/// Example: `nc_stream_shuffle(dst, src, list(range(31, -1, -1)))` reverses 32 partitions.
#[pyfunction]
#[pyo3(name = "nc_stream_shuffle", signature = (dst, src, shuffle_mask, name = None))]
pub fn nki_nc_stream_shuffle(
    py: Python<'_>,
    dst: &Tile,
    src: &Tile,
    shuffle_mask: Vec<i64>,
    name: Option<&str>,
) -> PyResult<RunReport> {
    let _ = name;
    let s = same_core(py, dst, src, "src")?.clone();
    let d = dst.tile.clone();
    on_core_steps(py, dst, move |c| c.nc_stream_shuffle(&d, &s, &shuffle_mask))
}

// Issue 18a: the PE call (tpb_nki::pe; docs/reference/pe-act.md).

/// Whether an optional tuple argument (`tile_position`, `tile_size`) was given non-empty.
fn given(o: Option<&Bound<'_, PyAny>>) -> bool {
    match o {
        Some(v) if !v.is_none() => v.len().map(|n| n > 0).unwrap_or(true),
        _ => false,
    }
}

/// Checks `nc_matmul(dst, stationary, moving)`'s operands without emitting anything
/// (`nl.matmul` emits its Matmul later, but its errors belong to its own line).
#[pyfunction]
pub fn _nc_matmul_check(
    py: Python<'_>,
    dst: &Tile,
    stationary: &Tile,
    moving: &Tile,
) -> PyResult<()> {
    let st = same_core(py, dst, stationary, "stationary")?;
    let mv = same_core(py, dst, moving, "moving")?;
    let core = dst.core.get().lock(py);
    core.check_nc_matmul(&dst.tile, st, mv).map_err(nki_error)
}

/// `nki.isa.nc_matmul(dst, stationary, moving, is_stationary_onezero=False,
/// is_moving_onezero=False, is_transpose=False, accumulate=None, tile_position=(),
/// tile_size=(), perf_mode=None, name=None)`: LoadWeights then Matmul on the PE queue,
/// `dst = stationary.T @ moving` into PSUM.
///
/// Parameters: `stationary` `[K, M]` and `moving` `[K, N]` SBUF tiles (K, M ≤ 128, N ≤ 512;
/// fp8/bf16/fp16/fp32, fp32 only with fp32); `dst` an fp32 PSUM tile `[M, N]` inside one
/// 2 KiB bank; `accumulate` False overwrites, True adds, None overwrites the first time a
/// matmul writes this PSUM view and adds after; `is_transpose` the bit-accurate fp32
/// transpose (moving is the K × K identity); the onezero hints change only speed;
/// `tile_position`, `tile_size` and a `perf_mode` other than none are refused (their
/// encodings are not public); `name` labels the instructions.
///
/// Semantics: exact per tpb's documented order (products rounded once to fp32, summed
/// sequentially over K, PSUM accumulation one more fp32 addition), not the hardware's bits.
///
/// Example: `nc_matmul(acc, lhsT, rhs, accumulate=True)`.
#[pyfunction]
#[pyo3(
    name = "nc_matmul",
    signature = (dst, stationary, moving, is_stationary_onezero = false, is_moving_onezero = false, is_transpose = false, accumulate = None, tile_position = None, tile_size = None, perf_mode = None, name = None),
    text_signature = "(dst, stationary, moving, is_stationary_onezero=False, is_moving_onezero=False, is_transpose=False, accumulate=None, tile_position=(), tile_size=(), perf_mode=None, name=None)"
)]
#[allow(clippy::too_many_arguments)]
pub fn nki_nc_matmul(
    py: Python<'_>,
    dst: &Tile,
    stationary: &Tile,
    moving: &Tile,
    is_stationary_onezero: bool,
    is_moving_onezero: bool,
    is_transpose: bool,
    accumulate: Option<bool>,
    tile_position: Option<&Bound<'_, PyAny>>,
    tile_size: Option<&Bound<'_, PyAny>>,
    perf_mode: Option<&Bound<'_, PyAny>>,
    name: Option<&str>,
) -> PyResult<RunReport> {
    // The onezero hints change only speed (isa-facts-pe-act-dma §1.13); `name` is a label.
    let _ = (is_stationary_onezero, is_moving_onezero, name);
    if given(tile_position) || given(tile_size) {
        return Err(raise(
            ErrorKind::NotSupported,
            "not supported: nc_matmul tile_position / tile_size: how NKI's row and column \
             tiles map onto row_grp / col_grp and the array's inputs is not public \
             (isa-facts-pe-act-dma §1.5.8)"
                .to_string(),
        ));
    }
    if let Some(p) = perf_mode.filter(|p| !p.is_none()) {
        let text = p
            .getattr("value")
            .unwrap_or_else(|_| p.clone())
            .str()?
            .to_string();
        if text != "none" {
            return Err(raise(
                ErrorKind::NotSupported,
                format!(
                    "not supported: nc_matmul perf_mode={text:?}: the PERF_OPT_MODE values and \
                     the double-row data layout are not public (isa-facts-pe-act-dma §1.2, §8 \
                     item 2)"
                ),
            ));
        }
    }
    let st = same_core(py, dst, stationary, "stationary")?.clone();
    let mv = same_core(py, dst, moving, "moving")?.clone();
    let d = dst.tile.clone();
    on_core_steps(py, dst, move |c| {
        if is_transpose {
            c.nc_matmul_transpose(&d, &st, &mv)
        } else {
            c.nc_matmul(&d, &st, &mv, accumulate)
        }
    })
}
