//! `tpb.nki.isa` calls on the DVE per-lane state instructions (issue 17b), thin over
//! `tpb_nki`: `scalar_tensor_tensor`, `tensor_tensor_scan`, `select_reduce`,
//! `tensor_scalar_reduce`, `max8`, `nc_find_index8`, `nc_match_replace8`. Signatures are NKI
//! 0.6.0's (dst first, keyword names as NKI spells them, `name=` accepted and ignored).

use crate::errors::{raise, ErrorKind};
use crate::machine::RunReport;
use crate::nki::{alu, nki_error, on_core, operand, same_core, Tile};
use pyo3::prelude::*;
use tpb_nki::{NkiError, Operand, ReduceCmd};
use tpb_sim::StepReport;

/// Runs a call that may emit several instructions on `dst`'s core, GIL released.
pub(crate) fn on_core_steps(
    py: Python<'_>,
    dst: &Tile,
    call: impl FnOnce(&mut tpb_nki::Core) -> Result<Vec<StepReport>, NkiError> + Send,
) -> PyResult<RunReport> {
    let mut core = dst.core.get().lock(py);
    let inner = &mut *core;
    let r = py.detach(|| call(inner)).map_err(nki_error)?;
    drop(core);
    Ok(RunReport::from_steps(&r))
}

/// A `reduce_cmd` argument: a name (`"reset_reduce"`), its number, or an object whose
/// `name` attribute is one (an enum member).
pub(crate) fn reduce_cmd(
    obj: Option<&Bound<'_, PyAny>>,
    default: ReduceCmd,
) -> PyResult<ReduceCmd> {
    let Some(obj) = obj.filter(|o| !o.is_none()) else {
        return Ok(default);
    };
    let text = if let Ok(s) = obj.extract::<String>() {
        s
    } else if let Ok(i) = obj.extract::<i64>() {
        i.to_string()
    } else {
        obj.getattr("name")
            .and_then(|n| n.extract::<String>())
            .unwrap_or_default()
    };
    ReduceCmd::parse(&text).ok_or_else(|| {
        raise(
            ErrorKind::Usage,
            format!(
                "reduce_cmd: {obj} is not one of idle, reset, reduce, reset_reduce, load_reduce"
            ),
        )
    })
}

fn required(
    py: Python<'_>,
    dst: &Tile,
    obj: &Bound<'_, PyAny>,
    argument: &str,
) -> PyResult<Operand> {
    operand(py, dst, Some(obj), argument)?
        .ok_or_else(|| raise(ErrorKind::Usage, format!("{argument} is required")))
}

/// `scalar_tensor_tensor(dst, data, op0, operand0, op1, operand1, reverse0=False,
/// reverse1=False, name=None)` — ScalarTensorTensor (0x9d; 0x9e when both ops are bitvec).
///
/// Per element, ``dst = (data op0 operand0) op1 operand1`` in fp32 (``reverse0`` /
/// ``reverse1`` swap the operands of stage 0 / 1), converted to ``dst.dtype``.
///
/// Parameters: ``dst`` output tile; ``data`` input tile (same partitions and element count);
/// ``op0``, ``op1`` numpy ufuncs or names (``numpy.multiply``); ``operand0`` a float
/// (fp32 immediate) or a ``(P, 1)`` tile (one scalar per partition); ``operand1`` a tile of
/// ``data``'s element count; not both ``data`` and ``operand1`` in PSUM.
///
/// Example: ``scalar_tensor_tensor(out, a, numpy.multiply, 0.5, numpy.add, b)`` is
/// ``out = 0.5 * a + b``.
#[pyfunction]
#[pyo3(name = "scalar_tensor_tensor", signature = (dst, data, op0, operand0, op1, operand1, reverse0 = false, reverse1 = false, name = None))]
#[allow(clippy::too_many_arguments)]
pub fn nki_scalar_tensor_tensor(
    py: Python<'_>,
    dst: &Tile,
    data: &Tile,
    op0: &Bound<'_, PyAny>,
    operand0: &Bound<'_, PyAny>,
    op1: &Bound<'_, PyAny>,
    operand1: &Tile,
    reverse0: bool,
    reverse1: bool,
    name: Option<String>,
) -> PyResult<RunReport> {
    let _ = name;
    let a = same_core(py, dst, data, "data")?.clone();
    let b = same_core(py, dst, operand1, "operand1")?.clone();
    let (o0, o1) = (alu(op0, "op0")?, alu(op1, "op1")?);
    let s = required(py, dst, operand0, "operand0")?;
    let d = dst.tile.clone();
    on_core_steps(py, dst, move |c| {
        c.scalar_tensor_tensor(&d, &a, o0, &s, o1, &b, reverse0, reverse1)
            .map(|r| vec![r])
    })
}

/// `tensor_tensor_scan(dst, data0, data1, initial, op0, op1, reverse0=False,
/// reverse1=False, name=None)` — TensorTensorScan (0xe5).
///
/// Per partition, ``r[i] = op1(op0(data0[i], r[i-1]), data1[i])`` in fp32 from
/// ``r[-1] = initial``, and ``dst[i] = r[i]`` (``reverse0`` / ``reverse1`` swap the
/// operands of ``op0`` / ``op1``).
///
/// Parameters: ``dst`` output tile; ``data0``, ``data1`` input tiles of dst's element count;
/// ``initial`` a float (fp32) or a ``(P, 1)`` tile; ``op0``, ``op1`` arithmetic operators.
///
/// Example: ``tensor_tensor_scan(out, decay, x, 0.0, numpy.multiply, numpy.add)`` is the
/// running ``r = decay * r + x`` along the free axis.
#[pyfunction]
#[pyo3(name = "tensor_tensor_scan", signature = (dst, data0, data1, initial, op0, op1, reverse0 = false, reverse1 = false, name = None))]
#[allow(clippy::too_many_arguments)]
pub fn nki_tensor_tensor_scan(
    py: Python<'_>,
    dst: &Tile,
    data0: &Tile,
    data1: &Tile,
    initial: &Bound<'_, PyAny>,
    op0: &Bound<'_, PyAny>,
    op1: &Bound<'_, PyAny>,
    reverse0: bool,
    reverse1: bool,
    name: Option<String>,
) -> PyResult<RunReport> {
    let _ = name;
    let a = same_core(py, dst, data0, "data0")?.clone();
    let b = same_core(py, dst, data1, "data1")?.clone();
    let (o0, o1) = (alu(op0, "op0")?, alu(op1, "op1")?);
    let init = required(py, dst, initial, "initial")?;
    let d = dst.tile.clone();
    on_core_steps(py, dst, move |c| {
        c.tensor_tensor_scan(&d, &a, &b, &init, o0, o1, reverse0, reverse1)
            .map(|r| vec![r])
    })
}

/// `select_reduce(dst, predicate, on_true, on_false, reduce_res=None, reduce_cmd="idle",
/// reduce_op=numpy.maximum, reverse_pred=False, name=None)` — SelectReduce (0xea), then
/// DveReadAccumulator (0x9b) when ``reduce_res`` is given.
///
/// ``dst = numpy.where(predicate != 0, on_true, on_false)``; the maximum of the selected
/// values goes to the vector engine's per-partition accumulator (``reset_reduce`` starts it
/// at -inf, ``reduce`` continues it, ``idle`` leaves it) and, with ``reduce_res``, into that
/// ``(P, 1)`` tile.
///
/// Parameters: ``predicate`` an int8/uint8/int16/uint16 tile; ``on_true`` a tile (not
/// int32/uint32); ``on_false`` a float (fp32) or a ``(P, 1)`` tile; ``reduce_op`` must be
/// maximum. ``reverse_pred=True`` raises :class:`tpb.NotSupported` (no known encoding).
///
/// Example: ``select_reduce(out, mask, scores, -1e30, reduce_res=row_max,
/// reduce_cmd="reset_reduce")``.
#[pyfunction]
#[pyo3(name = "select_reduce", signature = (dst, predicate, on_true, on_false, reduce_res = None, reduce_cmd = None, reduce_op = None, reverse_pred = false, name = None))]
#[allow(clippy::too_many_arguments)]
pub fn nki_select_reduce(
    py: Python<'_>,
    dst: &Tile,
    predicate: &Tile,
    on_true: &Tile,
    on_false: &Bound<'_, PyAny>,
    reduce_res: Option<&Tile>,
    reduce_cmd: Option<&Bound<'_, PyAny>>,
    reduce_op: Option<&Bound<'_, PyAny>>,
    reverse_pred: bool,
    name: Option<String>,
) -> PyResult<RunReport> {
    let _ = name;
    let p = same_core(py, dst, predicate, "predicate")?.clone();
    let t = same_core(py, dst, on_true, "on_true")?.clone();
    let res = match reduce_res {
        Some(r) => Some(same_core(py, dst, r, "reduce_res")?.clone()),
        None => None,
    };
    let f = required(py, dst, on_false, "on_false")?;
    let cmd = self::reduce_cmd(reduce_cmd, ReduceCmd::Idle)?;
    let op = match reduce_op {
        Some(o) if !o.is_none() => alu(o, "reduce_op")?,
        _ => tpb_isa::AluOp::MAX,
    };
    let d = dst.tile.clone();
    on_core_steps(py, dst, move |c| {
        c.select_reduce(&d, &p, &t, &f, res.as_ref(), cmd, op, reverse_pred)
    })
}

/// `tensor_scalar_reduce(dst, data, op0, operand0, reduce_op, reduce_res=None,
/// reverse0=False, reduce_cmd="reset_reduce", reduce_init=None, reduce_res_negate=False,
/// name=None)` — TensorScalarCacheReduce (0x9a), then DveReadAccumulator (0x9b) when
/// ``reduce_res`` is given.
///
/// ``dst = data op0 operand0`` (fp32), and ``reduce_op`` (add, subtract, multiply, maximum,
/// minimum) folds those values along the free axes into the vector engine's per-partition
/// accumulator: ``reset_reduce`` seeds the op's identity (0, 1, -inf, +inf), ``reduce``
/// continues, ``load_reduce`` seeds ``reduce_init``. ``reduce_res`` ``(P, 1)`` receives the
/// result, negated when ``reduce_res_negate``. ``reverse0=True`` raises
/// :class:`tpb.NotSupported` (the ISA requires no reversal).
///
/// Example: ``tensor_scalar_reduce(out, x, numpy.multiply, 2.0, numpy.add,
/// reduce_res=row_sum)``.
#[pyfunction]
#[pyo3(name = "tensor_scalar_reduce", signature = (dst, data, op0, operand0, reduce_op, reduce_res = None, reverse0 = false, reduce_cmd = None, reduce_init = None, reduce_res_negate = false, name = None))]
#[allow(clippy::too_many_arguments)]
pub fn nki_tensor_scalar_reduce(
    py: Python<'_>,
    dst: &Tile,
    data: &Tile,
    op0: &Bound<'_, PyAny>,
    operand0: &Bound<'_, PyAny>,
    reduce_op: &Bound<'_, PyAny>,
    reduce_res: Option<&Tile>,
    reverse0: bool,
    reduce_cmd: Option<&Bound<'_, PyAny>>,
    reduce_init: Option<&Bound<'_, PyAny>>,
    reduce_res_negate: bool,
    name: Option<String>,
) -> PyResult<RunReport> {
    let _ = name;
    let x = same_core(py, dst, data, "data")?.clone();
    let res = match reduce_res {
        Some(r) => Some(same_core(py, dst, r, "reduce_res")?.clone()),
        None => None,
    };
    let (o0, rop) = (alu(op0, "op0")?, alu(reduce_op, "reduce_op")?);
    let s0 = required(py, dst, operand0, "operand0")?;
    let init = operand(py, dst, reduce_init, "reduce_init")?;
    let cmd = self::reduce_cmd(reduce_cmd, ReduceCmd::ResetReduce)?;
    let d = dst.tile.clone();
    on_core_steps(py, dst, move |c| {
        c.tensor_scalar_reduce(
            &d,
            &x,
            o0,
            &s0,
            rop,
            res.as_ref(),
            reverse0,
            cmd,
            init.as_ref(),
            reduce_res_negate,
        )
    })
}

/// `tensor_scalar_cumulative(dst, src, op0, op1, imm0, imm1=None,
/// reduce_cmd="reset_reduce", name=None)` — TensorScalarCacheCumulative (0xe6).
///
/// A running scan along each partition's free elements in fp32:
/// ``reg = op1(op0(src[i], imm0), reg); dst[i] = reg``. ``op1`` is add, subtract, multiply,
/// maximum or minimum; ``imm0``/``imm1`` fp32 numbers or ``(P, 1)`` float32 tiles.
/// ``reset_reduce`` seeds op1's identity (0, 0, 1, -inf, +inf), ``load_reduce`` seeds
/// ``imm1`` (required then, refused otherwise), ``reduce`` continues the vector engine's
/// accumulator. No int32/uint32 src or dst.
///
/// Example: ``tensor_scalar_cumulative(out, x, numpy.multiply, numpy.add, 1.0)`` (cumsum).
#[pyfunction]
#[pyo3(name = "tensor_scalar_cumulative", signature = (dst, src, op0, op1, imm0, imm1 = None, reduce_cmd = None, name = None))]
#[allow(clippy::too_many_arguments)]
pub fn nki_tensor_scalar_cumulative(
    py: Python<'_>,
    dst: &Tile,
    src: &Tile,
    op0: &Bound<'_, PyAny>,
    op1: &Bound<'_, PyAny>,
    imm0: &Bound<'_, PyAny>,
    imm1: Option<&Bound<'_, PyAny>>,
    reduce_cmd: Option<&Bound<'_, PyAny>>,
    name: Option<String>,
) -> PyResult<RunReport> {
    let _ = name;
    let x = same_core(py, dst, src, "src")?.clone();
    let (o0, o1) = (alu(op0, "op0")?, alu(op1, "op1")?);
    let s0 = required(py, dst, imm0, "imm0")?;
    let s1 = operand(py, dst, imm1, "imm1")?;
    let cmd = self::reduce_cmd(reduce_cmd, ReduceCmd::ResetReduce)?;
    let d = dst.tile.clone();
    on_core(py, dst, move |c| {
        c.tensor_scalar_cumulative(&d, &x, o0, o1, &s0, s1.as_ref(), cmd)
    })
}

/// `max8(dst, src, name=None)` — Max8 (0x6c).
///
/// The 8 largest values of each partition of ``src`` (fp32 compare, NaN below every number),
/// in descending order, into the ``(P, 8)`` tile ``dst`` (converted to its dtype).
///
/// Parameters: ``src`` a tile with 8..16384 elements per partition; ``dst`` ``(P, 8)``.
///
/// Example: ``max8(top, scores)`` then ``top.numpy()[p]`` is ``numpy.sort(scores[p])[::-1][:8]``.
#[pyfunction]
#[pyo3(name = "max8", signature = (dst, src, name = None))]
pub fn nki_max8(
    py: Python<'_>,
    dst: &Tile,
    src: &Tile,
    name: Option<String>,
) -> PyResult<RunReport> {
    let _ = name;
    let s = same_core(py, dst, src, "src")?.clone();
    let d = dst.tile.clone();
    on_core_steps(py, dst, move |c| c.max8(&d, &s).map(|r| vec![r]))
}

/// `nc_find_index8(dst, data, vals, name=None)` — MatchValueLoad (0x6d) then FindIndex8 (0x6e).
///
/// For each of the 8 ``vals`` of a partition, the index of its first occurrence in ``data``
/// (exact fp32 equality) into ``dst[p, i]``; a value that does not occur gives all ones.
///
/// Parameters: ``data`` 8..16384 elements per partition; ``vals`` ``(P, 8)``; ``dst``
/// ``(P, 8)`` uint16 or uint32.
///
/// Example: ``max8(top, x); nc_find_index8(idx, x, top)`` gives the arg-top-8.
#[pyfunction]
#[pyo3(name = "nc_find_index8", signature = (dst, data, vals, name = None))]
pub fn nki_nc_find_index8(
    py: Python<'_>,
    dst: &Tile,
    data: &Tile,
    vals: &Tile,
    name: Option<String>,
) -> PyResult<RunReport> {
    let _ = name;
    let x = same_core(py, dst, data, "data")?.clone();
    let v = same_core(py, dst, vals, "vals")?.clone();
    let d = dst.tile.clone();
    on_core_steps(py, dst, move |c| c.nc_find_index8(&d, &x, &v))
}

/// `nc_match_replace8(dst, data, vals, imm, dst_idx=None, name=None)` — MatchValueLoad (0x6d),
/// MatchReplace8 (0x6f) and, with ``dst_idx``, DveReadIndices (0xe9).
///
/// ``dst`` = ``data`` with the first occurrence of each of the 8 ``vals`` replaced by the fp32
/// ``imm``; ``dst_idx`` ``(P, 8)`` (uint16/uint32) receives the matched positions (all ones
/// for a value that does not occur).
///
/// Example: ``nc_match_replace8(x, x, top, -numpy.inf)`` removes the current top 8 before
/// the next ``max8``.
#[pyfunction]
#[pyo3(name = "nc_match_replace8", signature = (dst, data, vals, imm, dst_idx = None, name = None))]
pub fn nki_nc_match_replace8(
    py: Python<'_>,
    dst: &Tile,
    data: &Tile,
    vals: &Tile,
    imm: f64,
    dst_idx: Option<&Tile>,
    name: Option<String>,
) -> PyResult<RunReport> {
    let _ = name;
    let x = same_core(py, dst, data, "data")?.clone();
    let v = same_core(py, dst, vals, "vals")?.clone();
    let idx = match dst_idx {
        Some(t) => Some(same_core(py, dst, t, "dst_idx")?.clone()),
        None => None,
    };
    let d = dst.tile.clone();
    on_core_steps(py, dst, move |c| {
        c.nc_match_replace8(&d, &x, &v, imm, idx.as_ref())
    })
}
