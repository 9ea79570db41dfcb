//! `tpb.nki.isa` calls on the activation engine (issue 18), thin over `tpb_nki`:
//! `activation`, `activation_reduce`, `exponential`. Signatures are NKI 0.6.0's (dst first,
//! keyword names as NKI spells them; `name=` is taken by the Python layer's label).

use crate::machine::RunReport;
use crate::nki::{alu, nki_error, op_name, operand, same_core, Tile};
use crate::nki_dve::{on_core_steps, reduce_cmd};
use pyo3::prelude::*;
use tpb_nki::{act_func, Operand, ReduceCmd};

/// The activation function of an `op` argument: `nl.exp`, `numpy.tanh`, or a name.
fn function(op: &Bound<'_, PyAny>) -> PyResult<tpb_isa::ActFunc> {
    act_func(&op_name(op)?).map_err(nki_error)
}

/// `scale`: a number (default 1.0) or a `(P, 1)` fp32 tile.
fn scale_arg(py: Python<'_>, dst: &Tile, obj: Option<&Bound<'_, PyAny>>) -> PyResult<Operand> {
    Ok(operand(py, dst, obj, "scale")?.unwrap_or(Operand::Imm(1.0)))
}

fn reduce_op(obj: Option<&Bound<'_, PyAny>>) -> PyResult<Option<tpb_isa::AluOp>> {
    match obj {
        Some(o) if !o.is_none() => Ok(Some(alu(o, "reduce_op")?)),
        _ => Ok(None),
    }
}

fn optional_tile(
    py: Python<'_>,
    dst: &Tile,
    t: Option<&Tile>,
    argument: &str,
) -> PyResult<Option<tpb_nki::Tile>> {
    t.map(|t| same_core(py, dst, t, argument).cloned())
        .transpose()
}

/// `activation(dst, op, data, bias=None, scale=1.0, reduce_op=None, reduce_res=None,
/// reduce_cmd=reduce_cmd.idle, name=None)` — Activate 0x21 (then ActivationReadAccumulator
/// 0x24 with `reduce_res`): `dst = op(data * scale + bias)` in fp32.
#[pyfunction]
#[pyo3(
    name = "activation",
    signature = (dst, op, data, bias = None, scale = None, reduce_op = None, reduce_res = None, reduce_cmd = None, name = None),
    text_signature = "(dst, op, data, bias=None, scale=1.0, reduce_op=None, reduce_res=None, reduce_cmd='idle', name=None)"
)]
#[allow(clippy::too_many_arguments)]
pub fn nki_activation(
    py: Python<'_>,
    dst: &Tile,
    op: &Bound<'_, PyAny>,
    data: &Tile,
    bias: Option<&Bound<'_, PyAny>>,
    scale: Option<&Bound<'_, PyAny>>,
    reduce_op: Option<&Bound<'_, PyAny>>,
    reduce_res: Option<&Tile>,
    reduce_cmd: Option<&Bound<'_, PyAny>>,
    name: Option<&str>,
) -> PyResult<RunReport> {
    let _ = name;
    let f = function(op)?;
    let src = same_core(py, dst, data, "data")?.clone();
    let b = operand(py, dst, bias, "bias")?;
    let s = scale_arg(py, dst, scale)?;
    let r_op = self::reduce_op(reduce_op)?;
    let res = optional_tile(py, dst, reduce_res, "reduce_res")?;
    let cmd = self::reduce_cmd(reduce_cmd, ReduceCmd::Idle)?;
    let d = dst.tile.clone();
    on_core_steps(py, dst, move |c| {
        c.activation(&d, f, &src, b.as_ref(), &s, r_op, res.as_ref(), cmd)
    })
}

/// `activation_reduce(dst, op, data, reduce_op, reduce_res, bias=None, scale=1.0, name=None)`
/// — `activation` with `reduce_cmd=reset_reduce`: the row sums of the outputs go to
/// `reduce_res`.
#[pyfunction]
#[pyo3(
    name = "activation_reduce",
    signature = (dst, op, data, reduce_op, reduce_res, bias = None, scale = None, name = None),
    text_signature = "(dst, op, data, reduce_op, reduce_res, bias=None, scale=1.0, name=None)"
)]
#[allow(clippy::too_many_arguments)]
pub fn nki_activation_reduce(
    py: Python<'_>,
    dst: &Tile,
    op: &Bound<'_, PyAny>,
    data: &Tile,
    reduce_op: &Bound<'_, PyAny>,
    reduce_res: &Tile,
    bias: Option<&Bound<'_, PyAny>>,
    scale: Option<&Bound<'_, PyAny>>,
    name: Option<&str>,
) -> PyResult<RunReport> {
    let _ = name;
    let f = function(op)?;
    let src = same_core(py, dst, data, "data")?.clone();
    let b = operand(py, dst, bias, "bias")?;
    let s = scale_arg(py, dst, scale)?;
    let r_op = self::reduce_op(Some(reduce_op))?;
    let res = same_core(py, dst, reduce_res, "reduce_res")?.clone();
    let d = dst.tile.clone();
    on_core_steps(py, dst, move |c| {
        c.activation_reduce(&d, f, &src, r_op, &res, b.as_ref(), &s)
    })
}

/// `exponential(dst, src, max_value=0.0, reduce_res=None, reduce_cmd=reduce_cmd.idle,
/// reduce_init=0.0, name=None)` — Exponential 0x30 on the Vector engine (mariana+):
/// `dst = exp(src - max_value)`, the running sum in the DVE accumulator, drained by 0x9b
/// into `reduce_res`.
#[pyfunction]
#[pyo3(
    name = "exponential",
    signature = (dst, src, max_value = None, reduce_res = None, reduce_cmd = None, reduce_init = None, name = None),
    text_signature = "(dst, src, max_value=0.0, reduce_res=None, reduce_cmd='idle', reduce_init=0.0, name=None)"
)]
#[allow(clippy::too_many_arguments)]
pub fn nki_exponential(
    py: Python<'_>,
    dst: &Tile,
    src: &Tile,
    max_value: Option<&Bound<'_, PyAny>>,
    reduce_res: Option<&Tile>,
    reduce_cmd: Option<&Bound<'_, PyAny>>,
    reduce_init: Option<&Bound<'_, PyAny>>,
    name: Option<&str>,
) -> PyResult<RunReport> {
    let _ = name;
    let s = same_core(py, dst, src, "src")?.clone();
    let m = operand(py, dst, max_value, "max_value")?.unwrap_or(Operand::Imm(0.0));
    let res = optional_tile(py, dst, reduce_res, "reduce_res")?;
    let cmd = self::reduce_cmd(reduce_cmd, ReduceCmd::Idle)?;
    // NKI's default reduce_init=0.0 is "not given" unless load_reduce reads it.
    let init = match operand(py, dst, reduce_init, "reduce_init")? {
        Some(Operand::Imm(v)) if v == 0.0 && cmd != ReduceCmd::LoadReduce => None,
        other => other,
    };
    let d = dst.tile.clone();
    on_core_steps(py, dst, move |c| {
        c.exponential(&d, &s, &m, cmd, res.as_ref(), init.as_ref())
    })
}
