"""``tpb.nki.isa``: the NKI instruction calls (NKI 0.6.0 signatures, ``dst`` first).

Operators and comparisons are NumPy ufuncs (``numpy.multiply``, ``numpy.greater_equal``),
``nki.language`` operators (``nl.multiply``) or their names; scalar operands are Python
numbers (immediates) or ``(P, 1)`` tiles (one value per partition, read through a pointer).
Every tile argument may be a view (``t[:, nl.ds(i * 64, 64)]``, ``t[32:64]``). Every call
takes ``name=`` (labels the instruction in profiles, races and capacity errors) and
``engine=`` where NKI has it, and returns a :class:`tpb.RunReport` for the instructions it
ran. The legacy (``neuronxcc.nki``) forms run too: value-returning calls without ``dst``,
positional or keyword (``nisa.tensor_reduce(op=nl.add, data=x, axis=1)``), and ``mask=``
(an affine predicate over ``nl.arange`` indices, which shrinks the operands as the compiler
does). A bad argument raises :class:`tpb.UsageError` naming the parameter; a call whose
instruction tpb does not have yet raises :class:`tpb.NotSupported` naming it.

Each call is defined once, here: its signature, types and docstring, registered with its
Rust lowering (:mod:`tpb.nki._api`; docs/contributing.md, "Adding an NKI call").
"""

# mypy: disable-error-code="empty-body"
# (a lowered call's body is its docstring: the registry supplies the implementation)

from __future__ import annotations

import operator
from typing import Callable, Dict, List, Optional, Sequence, Tuple

import numpy as np

from .. import _tpb
from .._errors import UsageError
from . import _api, _context
from ._api import SUPPORTED, composed, legacy, lowered, not_supported, not_yet, partial, refused
from ._mask import IndexExpr, Predicate, apply_mask
from ._types import (
    ActOp,
    AluOp,
    Axes,
    CmpOp,
    DgeMode,
    DmaEngine,
    DType,
    EngineArg,
    Ints,
    Mask,
    Name,
    OobMode,
    Operand,
    Pattern,
    PerfMode,
    ReduceCmdArg,
    RunReport,
    Tile,
)
from . import constants
from .constants import (dge_mode, dma_engine, engine, gpsimd_engine, matmul_perf_mode,
                        nc_version, oob_mode, reduce_cmd, scalar_engine, tensor_engine,
                        unknown_engine, vector_engine)

_FP32_MIN = -3.4028234663852886e38

__all__ = [
    "constants",
    "dge_mode",
    "dma_engine",
    "engine",
    "gpsimd_engine",
    "matmul_perf_mode",
    "nc_version",
    "oob_mode",
    "reduce_cmd",
    "scalar_engine",
    "tensor_engine",
    "unknown_engine",
    "vector_engine",
]


# --- GpSimd -----------------------------------------------------------------------------------
@lowered(status=SUPPORTED)
def iota(dst: Tile, pattern: Pattern, offset: int = 0, channel_multiplier: int = 0,
         name: Name = None) -> RunReport:
    """GpSimd ``Iota``: ``dst[c, w, z, y, x] = offset + c·channel_multiplier + Σ index·step``
    in int32, cast to ``dst``'s dtype.

    Parameters:
        dst: SBUF tile (or view) to write, partition dim first.
        pattern: ``[[step, num], ...]`` outermost first (at most 4 pairs; the product of the
            nums is the elements per partition).
        offset: int32 start value.
        channel_multiplier: int32 added per partition.
        name: label for profiles and errors.

    Legacy form ``iota(expr, dtype, mask=None)`` returns a new tile holding an
    ``nl.arange`` expression.

    Example::

        ramp = nl.ndarray((128, 64), nl.float32)
        nisa.iota(ramp, [[1, 64]], offset=0, channel_multiplier=64)   # ramp[p, x] = 64p + x
    """


def _affine_form(expr: IndexExpr, what: str) -> Tuple[int, List[int], List[int]]:
    """``(constant, coefficients, sizes)`` of a placed ``nl.arange`` expression."""
    affine = getattr(expr, "__tpb_affine__", None)
    if affine is None:
        raise UsageError(f"nki.isa.{what}: place the nl.arange expression on the grid "
                         "(nl.arange(n)[:, None] for partitions, [None, :] for the free axis)",
                         call=f"nki.isa.{what}", parameter="expr")
    constant, coeffs, sizes = affine()
    return int(constant), [int(c) for c in coeffs], [int(n) for n in sizes]


@legacy(iota)
def _iota_legacy(expr: IndexExpr, dtype: DType, *, mask: Optional[Mask] = None) -> Tile:
    """``iota(expr, dtype)``: a new tile of the expression's grid shape holding its values
    (``nl.arange(64)[None, :]`` is a ``(1, 64)`` ramp, ``nl.arange(128)[:, None] * 64 +
    nl.arange(64)[None, :]`` a ``(128, 64)`` one)."""
    constant, coeffs, sizes = _affine_form(expr, "iota")
    if len(sizes) < 2:
        sizes, coeffs = sizes + [1], coeffs + [0]
    out = _context.current("nki.isa.iota").core.ndarray(list(sizes), dtype)
    (dst,) = apply_mask(mask, out)
    pattern = [[c, n] for c, n in zip(coeffs[1:], sizes[1:])]
    iota(dst, pattern, offset=constant, channel_multiplier=coeffs[0])
    return out


@lowered(status=partial(
    "cmp_op greater, greater_equal, equal, not_equal (AFFINE_SELECT_CMP); the legacy pred form "
    "takes one comparison of affine nl.arange expressions (not several joined with &)"))
def affine_select(dst: Tile, pattern: Pattern, channel_multiplier: int, on_true_tile: Tile,
                  on_false_value: float, cmp_op: CmpOp = np.equal, offset: int = 0,
                  name: Name = None) -> RunReport:
    """GpSimd ``AffineSelect``: keeps ``on_true_tile`` where
    ``cmp_op(offset + c·channel_multiplier + Σ index·step, 0)`` holds, else the FP32
    ``on_false_value`` (cast to ``dst``'s dtype).

    Parameters:
        dst: SBUF tile to write.
        pattern: ``[[step, num], ...]`` outermost first, as for :func:`iota`.
        channel_multiplier: int32 coefficient of the partition index.
        on_true_tile: SBUF tile with ``dst``'s partitions and element count.
        on_false_value: FP32 fill.
        cmp_op: ``nl.greater``, ``nl.greater_equal``, ``nl.equal`` (default) or
            ``nl.not_equal`` (``less`` forms raise: negate the coefficients).
        offset: int32 constant term.
        name: label for profiles and errors.

    Legacy form ``affine_select(pred, on_true_tile, on_false_value, mask=None,
    dtype=None)``: ``pred`` is one comparison of affine ``nl.arange`` expressions
    (``i_q >= i_k``), returning a new tile.

    Example (the causal mask of nki-library's attention kernels)::

        nisa.affine_select(masked, [[-1, 512]], 1, scores, -3.4028235e38,
                           cmp_op=nl.greater_equal)
    """


@legacy(affine_select)
def _affine_select_legacy(pred: Predicate, on_true_tile: Tile, on_false_value: float, *,
                          mask: Optional[Mask] = None, dtype: Optional[DType] = None) -> Tile:
    """``affine_select(pred, on_true_tile, on_false_value)``: a new tile of
    ``on_true_tile``'s shape keeping it where ``pred`` (one comparison of an affine
    ``nl.arange`` expression, ``i_q >= i_k``) holds, as the compiler lowers it: the
    expression's partition coefficient, free steps and constant become AffineSelect's
    channel multiplier, pattern and offset, compared with 0."""
    if len(pred.terms) != 1:
        raise _api.refuse("isa", "affine_select",
                          "a pred joined with & (NKI: one comparison; use two calls)")
    expr, op, k = pred.terms[0]
    constant, coeffs, _ = _affine_form(expr, "affine_select")
    shape = [int(d) for d in on_true_tile.shape]
    if len(coeffs) != len(shape):
        raise UsageError(f"nki.isa.affine_select: pred is over {len(coeffs)} axes, "
                         f"on_true_tile has {len(shape)}", call="nki.isa.affine_select",
                         parameter="pred")
    # value op k  <=>  sign·(value - k) > 0 (or >= 0): AFFINE_SELECT_CMP has GT and GE.
    sign, cmp = {"<": (-1, "greater"), "<=": (-1, "greater_equal"),
                 ">": (1, "greater"), ">=": (1, "greater_equal")}[op]
    pattern = [[sign * c, n] for c, n in zip(coeffs[1:], shape[1:])]
    out = on_true_tile.core.ndarray(shape, dtype if dtype is not None else on_true_tile.dtype)
    dst, src = apply_mask(mask, out, on_true_tile)
    affine_select(dst, pattern, sign * coeffs[0], src, on_false_value, cmp_op=cmp,
                  offset=sign * (constant - k))
    return out


# --- Vector engine (and the engine= calls) ------------------------------------------------
@lowered(status=SUPPORTED)
def tensor_scalar(dst: Tile, data: Tile, op0: AluOp, operand0: Optional[Operand],
                  reverse0: bool = False, op1: Optional[AluOp] = None,
                  operand1: Optional[Operand] = None, reverse1: bool = False,
                  engine: EngineArg = engine.unknown, name: Name = None) -> RunReport:
    """Vector ``TensorScalar``: ``dst = (data op0 operand0) op1 operand1`` element-wise;
    arithmetic ops compute in FP32 (operands FP32), bitvec ops on integer bits.

    Parameters:
        dst: tile to write.
        data: input tile, same partitions and element count as ``dst``.
        op0, op1: ALU operators (``nl.multiply``, ``numpy.add``, ``"bitwise_and"``, ...);
            ``op1=None`` for one op (then ``operand1`` must be ``None``).
        operand0, operand1: a number or a ``(P, 1)`` tile (``None`` for a unary op0 such as
            ``nl.abs``).
        reverse0, reverse1: swap the operand order of that stage.
        engine: ``engine.vector`` / ``unknown`` (TensorScalar runs on the Vector engine).
        name: label for profiles and errors.

    Legacy form ``tensor_scalar(data, op0, operand0, ..., dtype=None, mask=None)`` returns
    a new tile.

    Example::

        nisa.tensor_scalar(out, x, nl.multiply, 0.5, op1=nl.add, operand1=1.0)
    """


@legacy(tensor_scalar, like="data")
def _tensor_scalar_legacy(data: Tile, op0: AluOp, operand0: Optional[Operand],
                          reverse0: bool = False, op1: Optional[AluOp] = None,
                          operand1: Optional[Operand] = None, reverse1: bool = False, *,
                          dtype: Optional[DType] = None, mask: Optional[Mask] = None,
                          engine: EngineArg = engine.unknown) -> Tile:
    """``tensor_scalar(data, op0, operand0, ...)`` returning a new tile like ``data``."""


@lowered(status=partial("reduce_cmd=idle (tpb's default: NKI 0.6.0's is reset_reduce, whose "
                        "accumulator read-out is not public)"))
def range_select(dst: Tile, on_true_tile: Tile, comp_op0: CmpOp, comp_op1: CmpOp,
                 bound0: Operand, bound1: Operand, reduce_cmd: ReduceCmdArg = reduce_cmd.idle,
                 reduce_res: Optional[Tile] = None, reduce_op: AluOp = np.maximum,
                 range_start: float = 0, on_false_value: float = _FP32_MIN,
                 name: Name = None) -> RunReport:
    """Vector ``RangeSelect`` (cayman and later): keeps element ``k`` where
    ``comp_op0(range_start + k, bound0)`` and ``comp_op1(range_start + k, bound1)`` hold
    (FP32), else ``on_false_value``.

    Parameters:
        dst: tile to write.
        on_true_tile: input tile.
        comp_op0, comp_op1: ``nl.equal``, ``nl.less``, ``nl.less_equal``, ``nl.greater``,
            ``nl.greater_equal``.
        bound0, bound1: numbers or ``(P, 1)`` FP32 tiles.
        reduce_cmd: only ``idle`` runs (the running max's read-out is not public); NKI's
            default is ``reset_reduce``, tpb's ``idle``.
        reduce_res: must be ``None`` (see ``reduce_cmd``).
        reduce_op: ``nl.maximum`` (the only reduction NKI allows).
        range_start: FP32 index of the first element.
        on_false_value: FP32 fill (NKI requires FP32_MIN).
        name: label for profiles and errors.

    Example::

        nisa.range_select(out, scores, nl.greater_equal, nl.less, lo, hi)
    """


@legacy(range_select, like="on_true_tile")
def _range_select_legacy(*, on_true_tile: Tile, comp_op0: CmpOp, comp_op1: CmpOp,
                         bound0: Operand, bound1: Operand,
                         reduce_cmd: ReduceCmdArg = reduce_cmd.idle,
                         reduce_res: Optional[Tile] = None, reduce_op: AluOp = np.amax,
                         range_start: float = 0, on_false_value: float = _FP32_MIN,
                         mask: Optional[Mask] = None, dtype: Optional[DType] = None) -> Tile:
    """``range_select(on_true_tile=..., ...)`` returning a new tile."""


@lowered(status=SUPPORTED)
def select(dst: Tile, predicate: Operand, on_true_tile: Tile, on_false_value: Operand,
           reverse_pred: bool = False, name: Name = None) -> RunReport:
    """Vector ``TensorScalarSelect`` (tpb's name; no NKI call emits it directly):
    ``dst = predicate ? on_true_tile : on_false_value`` with one predicate per partition.

    Parameters:
        dst: tile to write (same dtype as ``on_true_tile``: a copy, no cast).
        predicate: a ``(P, 1)`` integer tile of the data's width, or 0/1.
        on_true_tile: input tile.
        on_false_value: a number (in the data's dtype) or a ``(P, 1)`` tile.
        reverse_pred: select where the predicate is 0.
        name: label for profiles and errors.

    Example::

        nisa.select(out, keep, scores, 0.0)
    """


_GEN_VERSION = {"sunda": nc_version.gen2, "cayman": nc_version.gen3, "mariana": nc_version.gen4}


@composed("isa")
def get_nc_version() -> nc_version:
    """The NeuronCore version of the kernel run's generation.

    Example::

        if nisa.get_nc_version() >= nisa.nc_version.gen3: ...
    """
    gen = _context.current("nki.isa.get_nc_version").core.gen
    if gen not in _GEN_VERSION:
        raise _api.refuse("isa", "get_nc_version", f"generation {gen}")
    return _GEN_VERSION[gen]


@lowered(status=SUPPORTED)
def tensor_tensor(dst: Tile, data1: Tile, data2: Tile, op: AluOp,
                  engine: EngineArg = engine.unknown, name: Name = None) -> RunReport:
    """``TensorTensor``: ``dst = data1 op data2`` element-wise (FP32 arithmetic; bitvec ops
    on integer bits; int32/uint32 operands on the GpSimd integer band unless
    ``engine=engine.vector``).

    Parameters:
        dst: tile to write; data1, data2: tiles with dst's partitions and element count
            (not both in PSUM).
        op: an ALU operator (``nl.add``, ``nl.maximum``, ``np.bitwise_and``, ...).
        engine: ``engine.vector``, ``engine.gpsimd`` or ``unknown`` (the queue it runs on).
        name: label for profiles and errors.

    Legacy form ``tensor_tensor(data1, data2, op, dtype=None, mask=None)`` returns a new
    tile (default dtype: the wider input's).

    Example::

        nisa.tensor_tensor(c, a, b, nl.add)
    """


def _wider(a: Dict[str, object]) -> Tuple[Sequence[int], object]:
    """The legacy tensor_tensor result: data1's shape, the wider input dtype (data1's on a
    tie)."""
    d1, d2 = a["data1"], a["data2"]
    assert isinstance(d1, Tile) and isinstance(d2, Tile)
    t1, t2 = np.dtype(d1.dtype), np.dtype(d2.dtype)
    return tuple(d1.shape), t2 if t2.itemsize > t1.itemsize else t1


@legacy(tensor_tensor, result=_wider)
def _tensor_tensor_legacy(data1: Tile, data2: Tile, op: AluOp, *,
                          dtype: Optional[DType] = None, mask: Optional[Mask] = None,
                          engine: EngineArg = engine.unknown) -> Tile:
    """``tensor_tensor(data1, data2, op)`` returning a new tile."""


@lowered(status=SUPPORTED)
def tensor_copy(dst: Tile, src: Tile, engine: EngineArg = engine.unknown,
                name: Name = None) -> RunReport:
    """``Copy`` (bit-exact when the dtypes are equal) or ``Cast`` through FP32, on Vector or
    GpSimd; with ``engine=engine.scalar`` ScalarE's copy, which NKI documents as always going
    through FP32: one ``Activate`` of the exact ``copy`` function (``fma(x, 1, 0)`` in FP32,
    assumption ``act-rounding``: an int32 beyond 2**24 rounds, -0.0 becomes +0.0), refused on
    sunda, where NKI documents it as unsupported.

    Parameters:
        dst: tile to write.
        src: tile with dst's partitions and element count.
        engine: ``engine.vector``, ``engine.gpsimd`` (SBUF only), ``engine.scalar`` or
            ``unknown``.
        name: label for profiles and errors.

    Legacy form ``tensor_copy(src, dtype=None, mask=None)`` returns a new tile.

    Example::

        nisa.tensor_copy(sb_tile, psum_tile)
    """


@legacy(tensor_copy, like="src")
def _tensor_copy_legacy(src: Tile, *, mask: Optional[Mask] = None,
                        dtype: Optional[DType] = None,
                        engine: EngineArg = engine.unknown) -> Tile:
    """``tensor_copy(src)`` returning a new tile."""


@legacy(tensor_copy)
def _tensor_copy_dst_dtype(dst: Tile, src: Tile, *, dtype: Optional[DType] = None,
                           mask: Optional[Mask] = None, engine: EngineArg = engine.unknown,
                           name: Name = None) -> RunReport:
    """The transitional keyword form ``tensor_copy(dst=, src=, dtype=)`` (nki-samples'
    matrix-multiplication tutorials): ``dtype`` must be ``dst``'s (the copy writes dst's
    dtype)."""
    _same_dtype("tensor_copy", dtype, dst)
    dst, src = apply_mask(mask, dst, src)
    return tensor_copy(dst, src, engine=engine, name=name)


@lowered(status=SUPPORTED)
def memset(dst: Tile, value: float, engine: EngineArg = engine.unknown,
           name: Name = None) -> RunReport:
    """``Memset``: fills ``dst`` with the compile-time ``value`` converted to its dtype.

    Parameters:
        dst: tile to fill.
        value: a number (an int in the dtype's range for integer dtypes; a finite float
            stays finite in the tile's dtype).
        engine: ``engine.vector``, ``engine.gpsimd`` or ``unknown``.
        name: label for profiles and errors.

    Legacy form ``memset(shape, value, dtype, mask=None, engine=...)`` returns a new tile.

    Example::

        nisa.memset(acc, 0.0)
    """


@legacy(memset)
def _memset_legacy(shape: Sequence[int], value: float, dtype: DType, *,
                   mask: Optional[Mask] = None, engine: EngineArg = engine.unknown) -> Tile:
    """``memset(shape, value, dtype)``: a new SBUF tile filled with ``value``."""
    out = _context.current("nki.isa.memset").core.ndarray(list(shape), dtype)
    (dst,) = apply_mask(mask, out)
    memset(dst, value, engine=engine)
    return out


@lowered(status=SUPPORTED)
def reciprocal(dst: Tile, data: Tile, name: Name = None) -> RunReport:
    """Vector ``Reciprocal``: ``dst = 1 / data`` in FP32.

    Parameters:
        dst: tile to write; data: tile with dst's partitions and element count.
        name: label for profiles and errors.

    Legacy form ``reciprocal(data, dtype=None, mask=None)`` returns a new tile.

    Example::

        nisa.reciprocal(inv, sums)
    """


@legacy(reciprocal, like="data")
def _reciprocal_legacy(data: Tile, *, dtype: Optional[DType] = None,
                       mask: Optional[Mask] = None) -> Tile:
    """``reciprocal(data)`` returning a new tile."""


@lowered(status=SUPPORTED)
def tensor_reduce(dst: Tile, op: AluOp, data: Tile, axis: Axes, negate: bool = False,
                  keepdims: bool = False, name: Name = None) -> RunReport:
    """``TensorReduce``: reduces the trailing free axes ``axis`` of ``data`` with ``op``.

    Parameters:
        dst: tile with the reduced shape (keepdims or not).
        op: ``nl.add``, ``nl.maximum``, ``nl.minimum``, ``nl.multiply``, bitwise ops...
        data: input tile.
        axis: an int or a list of trailing free axes (never 0).
        negate: multiply arithmetic results by -1.
        keepdims: dst keeps the reduced axes with size 1.
        name: label for profiles and errors.

    Legacy form ``tensor_reduce(op, data, axis, mask=None, dtype=None, negate=False,
    keepdims=False)`` returns a new tile.

    Example::

        nisa.tensor_reduce(row_max, nl.maximum, scores, axis=1, keepdims=True)
    """


def _reduced(a: Dict[str, object]) -> Tuple[Sequence[int], object]:
    """The legacy tensor_reduce result: data's shape without (or with size-1) ``axis``."""
    data, axis = a["data"], a["axis"]
    assert isinstance(data, Tile)
    nd = len(data.shape)
    items = list(axis) if isinstance(axis, (list, tuple)) else [axis]
    axes = {operator.index(x) % nd for x in items}  # type: ignore[arg-type]
    if a.get("keepdims"):
        shape = [1 if k in axes else d for k, d in enumerate(data.shape)]
    else:
        shape = [d for k, d in enumerate(data.shape) if k not in axes]
        if len(shape) < 2:
            shape.append(1)
    return shape, data.dtype


@legacy(tensor_reduce, result=_reduced)
def _tensor_reduce_legacy(op: AluOp, data: Tile, axis: Axes, *, mask: Optional[Mask] = None,
                          dtype: Optional[DType] = None, negate: bool = False,
                          keepdims: bool = False) -> Tile:
    """``tensor_reduce(op, data, axis)`` returning a new tile."""


_BN_STATUS = partial(
    "the published definition computed in fp32 by a sequence of Vector instructions tpb "
    "chose (the BatchNormStats encoding and summation order are not public): approximate "
    "(assumption bn-stats-lowering)")


@lowered(status=_BN_STATUS)
def bn_stats(dst: Tile, data: Tile, name: Name = None) -> RunReport:
    """BatchNorm statistics per partition: ``dst = (count, mean, variance * count)`` of the
    even-indexed elements of ``data``, then the same three of its odd-indexed elements.

    Parameters:
        dst: ``(P, 6)`` tile; data: tile with ``P`` partitions and at most
            ``nl.tile_size.bn_stats_fmax`` (512) elements per partition (C order).
        name: label for profiles and errors.

    Semantics: fp32 math, as NKI documents. tpb computes the definition with Vector
    instructions (per half: Memset of the count, TensorReduce of the sum, TensorScalar by
    ``1/count``, TensorScalar subtracting the mean, TensorTensor squaring, TensorReduce of
    the squares) and labels them ``approximate`` (the hardware's order is not public; a
    profile lists them, ``strict_exact=True`` raises :class:`tpb.Fault`). A half with no
    element gives ``(0, 0, 0)``.

    Legacy form ``bn_stats(data, mask=None, dtype=None)`` returns a new ``(P, 6)`` tile (in
    ``data``'s dtype by default); ``mask=`` applies to ``data``'s elements.

    Example::

        nisa.bn_stats(stats[:, 0:6], x[:, 0:512])
        nisa.bn_stats(stats[:, 6:12], x[:, 512:1024])
        nisa.bn_aggr(mean_var, stats)          # mean_var[:, 0] mean, [:, 1] variance
    """


@lowered(status=_BN_STATUS)
def bn_aggr(dst: Tile, data: Tile, name: Name = None) -> RunReport:
    """Aggregates :func:`bn_stats` results per partition: ``data`` holds
    ``(count, mean, variance * count)`` triples side by side; ``dst = (mean, variance)`` of
    all the elements they describe.

    Parameters:
        dst: ``(P, 2)`` tile; data: tile whose free size is a multiple of 3.
        name: label for profiles and errors.

    Semantics: fp32, ``N = sum(count)``, ``mean = sum(count * mean_i) / N``, ``variance =
    (sum(variance_i * count) + sum(count * (mean_i - mean) ** 2)) / N``, lowered to Vector
    TensorReduce, TensorTensor, Reciprocal and TensorScalar instructions labelled
    ``approximate`` (as :func:`bn_stats`).

    Legacy form ``bn_aggr(data, mask=None, dtype=None)`` returns a new ``(P, 2)`` tile.

    Example::

        nisa.bn_aggr(mean_var, stats)
    """


def _bn_legacy(current: Callable[..., object], width: int, data: Tile,
               mask: Optional[Mask], dtype: Optional[DType]) -> Tile:
    """A legacy bn_stats / bn_aggr: a new ``(P, width)`` SBUF tile; ``mask=`` is in data's
    coordinates (it shrinks data's elements, and the result's partitions with them)."""
    out = data.core.ndarray([int(data.shape[0]), width],
                            dtype if dtype is not None else data.dtype, buffer="sbuf")
    src, dst = apply_mask(mask, data, out, marks_dst=False)
    if dst is not out:
        out._mark_masked_out()
    current(dst, src)
    return out


@legacy(bn_stats)
def _bn_stats_legacy(data: Tile, *, mask: Optional[Mask] = None,
                     dtype: Optional[DType] = None) -> Tile:
    """``bn_stats(data)`` returning a new ``(P, 6)`` tile."""
    return _bn_legacy(bn_stats, 6, data, mask, dtype)


@legacy(bn_aggr)
def _bn_aggr_legacy(data: Tile, *, mask: Optional[Mask] = None,
                    dtype: Optional[DType] = None) -> Tile:
    """``bn_aggr(data)`` returning a new ``(P, 2)`` tile."""
    return _bn_legacy(bn_aggr, 2, data, mask, dtype)


@lowered(status=SUPPORTED)
def tensor_copy_predicated(dst: Tile, src: Operand, predicate: Tile,
                           reverse_pred: bool = False, name: Name = None) -> RunReport:
    """Vector ``CopyPredicated``: ``dst = src`` where ``predicate`` is nonzero (or zero with
    ``reverse_pred``); other elements of ``dst`` keep their values.

    Parameters:
        dst: tile to merge into; src: tile or number of dst's dtype; predicate: a uint8 /
            uint16 / uint32 tile.
        reverse_pred: select where the predicate is zero.
        name: label for profiles and errors.

    Legacy form ``tensor_copy_predicated(*, src, dst, predicate, reverse_pred=False,
    mask=None, dtype=None)`` (keywords; writes ``dst``).

    Example::

        nisa.tensor_copy_predicated(out, fill, keep)
    """


@legacy(tensor_copy_predicated)
def _tensor_copy_predicated_legacy(*, src: Operand, dst: Tile, predicate: Tile,
                                   reverse_pred: bool = False, mask: Optional[Mask] = None,
                                   dtype: Optional[DType] = None) -> RunReport:
    """The legacy keyword form: ``dtype`` must be ``dst``'s (a predicated copy does not
    convert)."""
    _same_dtype("tensor_copy_predicated", dtype, dst)
    if isinstance(src, Tile):
        dst, src, predicate = apply_mask(mask, dst, src, predicate)
    else:
        dst, predicate = apply_mask(mask, dst, predicate)
    return tensor_copy_predicated(dst, src, predicate, reverse_pred=reverse_pred)


def _same_dtype(call: str, dtype: Optional[DType], t: Tile) -> None:
    if dtype is not None and np.dtype(dtype) != np.dtype(t.dtype):
        raise UsageError(f"nki.isa.{call}: dtype={dtype} differs from dst's {t.dtype}: the "
                         "call writes dst's dtype and never converts", call=f"nki.isa.{call}",
                         parameter="dtype")


@lowered(status=partial(
    "engine.vector on whole 32×32 SBUF tiles (StreamTranspose); engine.tensor up to 128 × "
    "128 into PSUM: fp32 bit-accurate on cayman/mariana, other dtypes need an fp32 dst (the "
    "16/8-bit PSUM transpose layout is not public)"))
def nc_transpose(dst: Tile, data: Tile, engine: EngineArg = engine.unknown,
                 name: Name = None) -> RunReport:
    """Partition ↔ free transpose: ``dst[i, j] = data[j, i]`` (free dims flattened).

    Parameters:
        dst: tile of the transposed shape ``[M, K]``.
        data: ``[K, M]`` tile.
        engine: ``engine.vector`` (StreamTranspose on whole ``[32, 32]`` tiles, SBUF),
            ``engine.tensor`` (the PE: data in SBUF, dst in PSUM, K, M ≤ 128) or
            ``engine.unknown`` (the Vector engine for a ``[32, 32]`` tile unless it goes from
            SBUF to PSUM, else the PE).
        name: label for profiles and errors.

    Semantics: on the PE, a LoadWeights of ``data`` and a Matmul against a ``K × K``
    identity (built once per core in SBUF). fp32 on cayman/mariana is the bit-accurate
    transpose (NaN, Inf and -0.0 kept); other dtypes, and sunda, multiply by the identity
    into an **fp32** ``dst``: finite non-zero values are exact, a zero may lose its sign and
    NaN/Inf spread along the row, and the report says exact-per-our-order (the 16/8-bit
    PSUM transpose layout is not public).

    Legacy form ``nc_transpose(data, mask=None, dtype=None, engine=...)`` returns a new tile
    (as :func:`tpb.nki.language.transpose` on the PE; a ``[32, 32]`` SBUF copy with
    ``engine.vector``).

    Example::

        t = nl.ndarray((128, 96), nl.float32, buffer=nl.psum)
        nisa.nc_transpose(t, x, engine=nisa.engine.tensor)     # x is (96, 128) in SBUF
    """


def _free(x: Tile) -> int:
    n = 1
    for d in x.shape[1:]:
        n *= int(d)
    return n


def _in_sbuf(x: Tile) -> Tile:
    """``x`` itself when it is in SBUF, else an SBUF copy (the PE reads SBUF only)."""
    if x.buffer == "sbuf":
        return x
    out = x.core.ndarray(list(x.shape), x.dtype)
    tensor_copy(out, x)
    return out


def transposed(x: Tile, dtype: Optional[DType] = None) -> Tile:
    """``x.T`` through the PE, as ``nl.transpose`` lowers it: an fp32 PSUM tile, or an SBUF
    copy in ``dtype`` when that is not fp32."""
    if _free(x) > 128 or int(x.shape[0]) > 128:
        raise UsageError(f"nl.transpose: x is {int(x.shape[0])} × {_free(x)}; the PE transposes "
                         "at most 128 × 128 (the result has one partition per column of x)",
                         parameter="x")
    src = _in_sbuf(x)
    shape = [_free(src), int(src.shape[0])]
    want = np.dtype(dtype) if dtype is not None else np.dtype(x.dtype)
    out = x.core.ndarray(shape, np.float32, buffer="psum")
    nc_transpose(out, src, engine=engine.tensor)
    if want == np.float32:
        return out
    res = x.core.ndarray(shape, want)
    tensor_copy(res, out)
    return res


@legacy(nc_transpose)
def _nc_transpose_legacy(data: Tile, *, mask: Optional[Mask] = None,
                         dtype: Optional[DType] = None,
                         engine: EngineArg = engine.unknown) -> Tile:
    """``nc_transpose(data)``: a new tile holding ``data.T``."""
    if mask is not None:
        raise _api.refuse("isa", "nc_transpose", "mask= in the legacy form")
    if getattr(engine, "name", engine) == "vector":
        out = data.core.ndarray([_free(data), int(data.shape[0])],
                                dtype if dtype is not None else data.dtype)
        nc_transpose(out, data, engine=engine)
        return out
    return transposed(data, dtype)


@lowered(status=partial(
    "LoadMaskSelect then StreamShuffle, by tpb's assumed permutation source (the most recent "
    "LoadMaskSelect table, isa-facts-dve-pool Q20); a mask entry reading past src's "
    "partitions into dst is refused"))
def nc_stream_shuffle(dst: Tile, src: Tile, shuffle_mask: Ints, name: Name = None) -> RunReport:
    """Vector ``StreamShuffle``: inside each 32-partition quadrant, output partition ``i``
    takes input partition ``shuffle_mask[i]``; 255 leaves output partition ``i`` unchanged.
    A pure move (raw bits): ``dst`` and ``src`` have one dtype and the same elements per
    partition; in place (``dst is src``) is allowed. tpb emits ``LoadMaskSelect`` (0x69)
    with the mask, then ``StreamShuffle`` (0x6a) (docs/reference/nki-calls.md).

    Parameters:
        dst: tile to write; src: tile to read (may be ``dst``).
        shuffle_mask: 32 ints, each 0..31 (a partition of the same quadrant) or 255.
        name: label for profiles and errors.

    Legacy form ``nc_stream_shuffle(src, dst, shuffle_mask, dtype=None, mask=None)`` (NKI
    0.1: src first): a call that passes ``dtype`` or ``mask`` is read in that order;
    ``dtype`` must then equal the tiles' dtype (a shuffle never converts).

    The active partitions ``A = ceil(max(src_P, dst_P) / 32) * 32`` decide where the tiles
    may start: A ∈ {96, 128} at partition 0, A = 64 at 0 or 64, A = 32 at a multiple of 32.
    A mask entry that would copy a partition past ``src``'s end into ``dst`` is refused.

    Example (reverse 32 partitions)::

        nisa.nc_stream_shuffle(out, src, list(range(31, -1, -1)))
        # out[i] == src[31 - i]
    """


@legacy(nc_stream_shuffle)
def _nc_stream_shuffle_legacy(src: Tile, dst: Tile, shuffle_mask: Ints, *,
                              dtype: Optional[DType] = None,
                              mask: Optional[Mask] = None) -> RunReport:
    """NKI 0.1's ``nc_stream_shuffle(src, dst, shuffle_mask)``."""
    _same_dtype("nc_stream_shuffle", dtype, dst)
    dst, src = apply_mask(mask, dst, src)
    return nc_stream_shuffle(dst, src, shuffle_mask)


# Issue 17b: the vector engine's per-partition state (accumulator, match keys, index flops).
@lowered(status=SUPPORTED)
def scalar_tensor_tensor(dst: Tile, data: Tile, op0: AluOp, operand0: Operand, op1: AluOp,
                         operand1: Tile, reverse0: bool = False, reverse1: bool = False,
                         name: Name = None) -> RunReport:
    """Vector ``ScalarTensorTensor`` (0x9d; 0x9e when both ops are bitvec):
    ``dst = (data op0 operand0) op1 operand1`` per element in FP32, converted to ``dst``'s
    dtype.

    Parameters:
        dst: tile to write; data: tile with dst's partitions and element count.
        op0, op1: ALU operators (``nl.multiply``, ``np.add``, ...).
        operand0: an FP32 immediate or a ``(P, 1)`` tile (one scalar per partition).
        operand1: tile of ``data``'s element count (not both it and ``data`` in PSUM).
        reverse0, reverse1: swap the operands of stage 0 / stage 1.
        name: label for profiles and errors.

    Legacy form ``scalar_tensor_tensor(*, data, op0, operand0, op1, operand1, ...,
    dtype=None, mask=None)`` returns a new tile.

    Example (``out = 0.5 * a + b``)::

        nisa.scalar_tensor_tensor(out, a, nl.multiply, 0.5, nl.add, b)
    """


@legacy(scalar_tensor_tensor, like="data")
def _scalar_tensor_tensor_legacy(*, data: Tile, op0: AluOp, operand0: Operand, op1: AluOp,
                                 operand1: Tile, reverse0: bool = False,
                                 reverse1: bool = False, dtype: Optional[DType] = None,
                                 mask: Optional[Mask] = None) -> Tile:
    """``scalar_tensor_tensor(data=..., ...)`` returning a new tile."""


@lowered(status=SUPPORTED)
def tensor_tensor_scan(dst: Tile, data0: Tile, data1: Tile, initial: Operand, op0: AluOp,
                       op1: AluOp, reverse0: bool = False, reverse1: bool = False,
                       name: Name = None) -> RunReport:
    """Vector ``TensorTensorScan`` (0xe5): per partition
    ``r[i] = op1(op0(data0[i], r[i-1]), data1[i])`` in FP32 from ``r[-1] = initial``, and
    ``dst[i] = r[i]``.

    Parameters:
        dst: tile to write; data0, data1: tiles of dst's element count.
        initial: an FP32 immediate or a ``(P, 1)`` tile.
        op0, op1: arithmetic operators.
        reverse0, reverse1: swap the operands of ``op0`` / ``op1``.
        name: label for profiles and errors.

    Legacy form ``tensor_tensor_scan(data0, data1, initial, op0, op1, reverse0=False,
    reverse1=False, dtype=None, mask=None)`` returns a new tile.

    Example (the running ``r = decay * r + x`` along the free axis)::

        nisa.tensor_tensor_scan(out, decay, x, 0.0, nl.multiply, nl.add)
    """


@legacy(tensor_tensor_scan, like="data0")
def _tensor_tensor_scan_legacy(data0: Tile, data1: Tile, initial: Operand, op0: AluOp,
                               op1: AluOp, reverse0: bool = False, reverse1: bool = False, *,
                               dtype: Optional[DType] = None,
                               mask: Optional[Mask] = None) -> Tile:
    """``tensor_tensor_scan(data0, data1, initial, op0, op1)`` returning a new tile."""


@lowered(status=partial("reduce_op maximum, reverse_pred=False (its encoding is not public)"))
def select_reduce(dst: Tile, predicate: Tile, on_true: Tile, on_false: Operand,
                  reduce_res: Optional[Tile] = None, reduce_cmd: ReduceCmdArg = reduce_cmd.idle,
                  reduce_op: AluOp = np.maximum, reverse_pred: bool = False,
                  name: Name = None) -> RunReport:
    """Vector ``SelectReduce`` (0xea), then ``DveReadAccumulator`` (0x9b) with ``reduce_res``:
    ``dst = where(predicate != 0, on_true, on_false)``; the maximum of the selected values
    goes to the per-partition accumulator (``reset_reduce`` starts it at -inf, ``reduce``
    continues it, ``idle`` leaves it) and, with ``reduce_res``, into that ``(P, 1)`` tile.

    Parameters:
        dst: tile to write; predicate: an int8/uint8/int16/uint16 tile.
        on_true: tile (not int32/uint32); on_false: an FP32 immediate or a ``(P, 1)`` tile.
        reduce_res: optional ``(P, 1)`` tile for the running maximum.
        reduce_cmd: a :class:`reduce_cmd` member or its name (default ``idle``).
        reduce_op: must be ``nl.maximum`` (the default).
        reverse_pred: ``True`` raises :class:`tpb.NotSupported` (no known encoding).
        name: label for profiles and errors.

    Example::

        nisa.select_reduce(out, keep, scores, -1e30, reduce_res=row_max,
                           reduce_cmd=nisa.reduce_cmd.reset_reduce)
    """


@legacy(select_reduce)
def _select_reduce_legacy(*, dst: Tile, predicate: Tile, on_true: Tile, on_false: Operand,
                          reduce_res: Optional[Tile] = None,
                          reduce_cmd: ReduceCmdArg = reduce_cmd.idle,
                          reduce_op: AluOp = np.amax, reverse_pred: bool = False,
                          mask: Optional[Mask] = None,
                          dtype: Optional[DType] = None) -> RunReport:
    """The legacy keyword form (writes ``dst``; ``dtype`` must be ``dst``'s)."""
    _same_dtype("select_reduce", dtype, dst)
    dst, predicate, on_true = apply_mask(mask, dst, predicate, on_true)
    return select_reduce(dst, predicate, on_true, on_false, reduce_res, reduce_cmd, reduce_op,
                         reverse_pred)


@lowered(status=partial("reverse0=False (the ISA requires no reversal)"))
def tensor_scalar_reduce(dst: Tile, data: Tile, op0: AluOp, operand0: Operand,
                         reduce_op: AluOp, reduce_res: Optional[Tile] = None,
                         reverse0: bool = False,
                         reduce_cmd: ReduceCmdArg = reduce_cmd.reset_reduce,
                         reduce_init: Optional[Operand] = None, reduce_res_negate: bool = False,
                         name: Name = None) -> RunReport:
    """Vector ``TensorScalarCacheReduce`` (0x9a), then ``DveReadAccumulator`` (0x9b) with
    ``reduce_res``: ``dst = data op0 operand0`` in FP32, and ``reduce_op`` folds those values
    along the free axes into the per-partition accumulator.

    Parameters:
        dst: tile to write; data: tile with dst's partitions and element count.
        op0: ALU operator; operand0: an FP32 immediate or a ``(P, 1)`` tile.
        reduce_op: ``nl.add``, ``nl.subtract``, ``nl.multiply``, ``nl.maximum`` or
            ``nl.minimum``.
        reduce_res: optional ``(P, 1)`` tile for the result.
        reverse0: ``True`` raises :class:`tpb.NotSupported` (the ISA requires no reversal).
        reduce_cmd: ``reset_reduce`` (default) seeds the op's identity, ``reduce`` continues,
            ``load_reduce`` seeds ``reduce_init``.
        reduce_init: the seed for ``load_reduce``.
        reduce_res_negate: negate the value written to ``reduce_res``.
        name: label for profiles and errors.

    Legacy form ``tensor_scalar_reduce(*, data, op0, operand0, reduce_op, reduce_res, ...,
    dtype=None, mask=None)`` returns a new tile.

    Example (``row_sum = sum(2 * x)`` per partition)::

        nisa.tensor_scalar_reduce(out, x, nl.multiply, 2.0, nl.add, reduce_res=row_sum)
    """


@legacy(tensor_scalar_reduce, like="data")
def _tensor_scalar_reduce_legacy(*, data: Tile, op0: AluOp, operand0: Operand,
                                 reduce_op: AluOp, reduce_res: Optional[Tile],
                                 reverse0: bool = False, dtype: Optional[DType] = None,
                                 mask: Optional[Mask] = None) -> Tile:
    """``tensor_scalar_reduce(data=..., ...)`` returning a new tile."""


@lowered(status=SUPPORTED)
def tensor_scalar_cumulative(dst: Tile, src: Tile, op0: AluOp, op1: AluOp, imm0: Operand,
                             imm1: Optional[Operand] = None,
                             reduce_cmd: ReduceCmdArg = reduce_cmd.reset_reduce,
                             name: Name = None) -> RunReport:
    """Vector ``TensorScalarCacheCumulative`` (0xe6): a running scan along each partition's
    free elements in FP32, ``reg = op1(op0(src[i], imm0), reg); dst[i] = reg``, kept in the
    vector engine's per-partition accumulator.

    Parameters:
        dst: tile to write, same partitions and element count as ``src``.
        src: input tile (bf16, fp16, fp32, fp8, int8/16, uint8/16; no 32-bit integers).
        op0: arithmetic operator applied with ``imm0`` (``nl.multiply``, ``nl.add``, ...).
        op1: the running operator: ``nl.add``, ``nl.subtract``, ``nl.multiply``,
            ``nl.maximum`` or ``nl.minimum``.
        imm0: an FP32 number or a ``(P, 1)`` float32 tile.
        imm1: the seed for ``load_reduce`` (required then, refused otherwise).
        reduce_cmd: ``reset_reduce`` (default) seeds op1's identity (0 for add/subtract, 1 for
            multiply, -inf for maximum, +inf for minimum), ``load_reduce`` seeds ``imm1``,
            ``reduce`` continues what the accumulator holds.
        name: label for profiles and errors.

    Example (cumulative sum along the free axis)::

        nisa.tensor_scalar_cumulative(out, x, nl.multiply, nl.add, 1.0)
        # out == numpy.cumsum(x, axis=1) computed in float32
    """


@lowered(status=SUPPORTED)
def max8(dst: Tile, src: Tile, name: Name = None) -> RunReport:
    """Vector ``Max8`` (0x6c): the 8 largest values of each partition of ``src`` (FP32
    compare, NaN below every number), in descending order, into ``dst`` ``(P, 8)``.

    Parameters:
        dst: ``(P, 8)`` tile; src: tile with 8..16384 elements per partition.
        name: label for profiles and errors.

    Legacy form ``max8(*, src, mask=None, dtype=None)`` returns a new ``(P, 8)`` tile.

    Example::

        nisa.max8(top, scores)   # top[p] == sorted(scores[p])[::-1][:8]
    """


def _p8(param: str, default: Optional[DType] = None) -> Callable[[Dict[str, object]], Tuple[Sequence[int], object]]:
    def result(a: Dict[str, object]) -> Tuple[Sequence[int], object]:
        t = a[param]
        assert isinstance(t, Tile)
        return (int(t.shape[0]), 8), default if default is not None else t.dtype

    return result


@legacy(max8, result=_p8("src"))
def _max8_legacy(*, src: Tile, mask: Optional[Mask] = None,
                 dtype: Optional[DType] = None) -> Tile:
    """``max8(src=...)`` returning a new ``(P, 8)`` tile."""


@lowered(status=SUPPORTED)
def nc_find_index8(dst: Tile, data: Tile, vals: Tile, name: Name = None) -> RunReport:
    """Vector ``MatchValueLoad`` (0x6d) then ``FindIndex8`` (0x6e): for each of the 8
    ``vals`` of a partition, the index of its first occurrence in ``data`` (exact FP32
    equality) into ``dst[p, i]``; a value that does not occur gives all ones.

    Parameters:
        dst: ``(P, 8)`` uint16 or uint32 tile; data: 8..16384 elements per partition;
            vals: ``(P, 8)`` tile.
        name: label for profiles and errors.

    Legacy form ``nc_find_index8(*, data, vals, mask=None, dtype=None)`` returns a new
    ``(P, 8)`` tile (uint32 by default).

    Example (the arg-top-8)::

        nisa.max8(top, x)
        nisa.nc_find_index8(idx, x, top)
    """


@legacy(nc_find_index8, result=_p8("data", np.uint32))
def _nc_find_index8_legacy(*, data: Tile, vals: Tile, mask: Optional[Mask] = None,
                           dtype: Optional[DType] = None) -> Tile:
    """``nc_find_index8(data=..., vals=...)`` returning a new ``(P, 8)`` tile."""


@lowered(status=SUPPORTED)
def nc_match_replace8(dst: Tile, data: Tile, vals: Tile, imm: float,
                      dst_idx: Optional[Tile] = None, name: Name = None) -> RunReport:
    """Vector ``MatchValueLoad`` (0x6d), ``MatchReplace8`` (0x6f) and, with ``dst_idx``,
    ``DveReadIndices`` (0xe9): ``dst`` = ``data`` with the first occurrence of each of the 8
    ``vals`` replaced by the FP32 ``imm``.

    Parameters:
        dst: tile to write; data: tile of dst's shape; vals: ``(P, 8)`` tile.
        imm: FP32 replacement value.
        dst_idx: optional ``(P, 8)`` uint16/uint32 tile for the matched positions (all ones
            for a value that does not occur).
        name: label for profiles and errors.

    Legacy form ``nc_match_replace8(*, data, vals, imm, dst_idx=None, mask=None,
    dtype=None)`` returns a new tile.

    Example (remove the current top 8 before the next ``max8``)::

        nisa.nc_match_replace8(x, x, top, -np.inf)
    """


@legacy(nc_match_replace8, like="data")
def _nc_match_replace8_legacy(*, data: Tile, vals: Tile, imm: float,
                              dst_idx: Optional[Tile] = None, mask: Optional[Mask] = None,
                              dtype: Optional[DType] = None) -> Tile:
    """``nc_match_replace8(data=..., ...)`` returning a new tile."""


# --- Tensor engine ------------------------------------------------------------------------
@lowered(status=partial(
    "fp32 PSUM dst on sunda/cayman/mariana, exact per tpb's summation order; "
    "tile_position/tile_size, perf_mode double_row, fp8/16-bit is_transpose and a bf16 dst "
    "are refused (encodings or layouts not public)"))
def nc_matmul(dst: Tile, stationary: Tile, moving: Tile, is_stationary_onezero: bool = False,
              is_moving_onezero: bool = False, is_transpose: bool = False,
              accumulate: Optional[bool] = None, tile_position: Ints = (),
              tile_size: Ints = (), perf_mode: Optional[PerfMode] = matmul_perf_mode.none,
              name: Name = None) -> RunReport:
    """Tensor engine: ``dst = stationary.T @ moving`` into PSUM, as one ``LoadWeights``
    (0x01) then one ``Matmul`` (0x02) on the PE queue.

    Parameters:
        dst: fp32 PSUM tile ``[M, N]`` inside one 2 KiB bank (N ≤ 512).
        stationary: SBUF tile ``[K, M]`` (K, M ≤ 128), loaded into the array.
        moving: SBUF tile ``[K, N]`` streamed through it; fp8 (e4m3/e5m2), bf16, fp16 or
            fp32 (fp32 only with fp32).
        is_stationary_onezero, is_moving_onezero: speed hints (no effect on the result).
        is_transpose: the bit-accurate PE transpose (NC-v3+): ``moving`` is the ``K × K``
            identity and ``dst`` gets ``stationary``'s fp32 bits transposed (on sunda the
            flag only affects profiling: an ordinary matmul).
        accumulate: ``False`` overwrites ``dst``; ``True`` adds to it (PSUM accumulation in
            fp32); ``None`` (default, NKI's rule) overwrites the first time a matmul writes
            this PSUM view of this tensor and adds after that, until another instruction
            writes those bytes or the tile is freed (a tensor placed at the same bytes as
            another starts its own group).
        tile_position, tile_size: must be empty (the row/column tiling encoding is not
            public; raises :class:`tpb.NotSupported`).
        perf_mode: ``matmul_perf_mode.none`` (double_row's layout is not public).
        name: label for profiles and errors.

    Semantics: exact per tpb's documented order, not the hardware's bits (the PE's
    summation order is not public; tpb follows the fact sheet's recommendation): the
    products are exact and are added sequentially over ``k = 0..K-1`` in fp32 with one
    round-to-nearest-even per step (``acc = fp32(acc + w[k] * x[k])``, a fused
    multiply-add, from the ``k = 0`` product rounded once), and accumulation adds that sum to
    the old PSUM value in fp32. The report labels the Matmul
    ``exact-per-our-order``; ``tpb.nki.Core(strict_exact=True)`` and
    ``simulate_kernel(..., strict_exact=True)`` raise :class:`tpb.Fault` instead.

    Legacy form ``nc_matmul(stationary, moving, ...)`` returns a new fp32 PSUM tile, and
    ``psum += nisa.nc_matmul(a, b)`` accumulates into ``psum`` as NKI lowers it.

    Example (accumulate over K tiles)::

        acc = nl.ndarray((128, 512), nl.float32, buffer=nl.psum)
        for k in nl.affine_range(4):
            nisa.nc_matmul(acc, lhsT[k], rhs[k])     # k = 0 overwrites, then adds
    """


_NC_MATMUL_CHECK = _api.internal_lowering(
    "nc_matmul_check", [("dst", "tile"), ("stationary", "tile"), ("moving", "tile")])


def deferred_matmul(stationary: Tile, moving: Tile, what: str) -> Tile:
    """A new fp32 PSUM tile for ``stationary.T @ moving`` whose Matmul is emitted just before
    the core's next call, so that ``acc += <it>`` is one Matmul accumulating into ``acc`` (as
    the NKI compiler lowers ``psum += nl.matmul(...)``). Its errors belong to this line."""
    core = stationary.core
    origin = _context.origin()
    out = core.ndarray([_free(stationary), _free(moving)], np.float32, buffer="psum",
                       name=f"{what} at {origin}" if origin else what)
    _NC_MATMUL_CHECK(origin, out, stationary, moving)
    lower = nc_matmul.__nki_call__.lowering  # type: ignore[attr-defined]

    def emit(acc: Optional[Tile], start: bool = False) -> None:
        # Into its own result: overwrite. ``acc += it``: accumulate, unless ``start`` (the
        # first ``+=`` into a fresh mod_alloc block, assumption mod-alloc-block-groups).
        lower(origin, out if acc is None else acc, stationary, moving, False, False, False,
              acc is not None and not start, (), (), None, None)

    _context.defer(core, out, emit)
    return out


@legacy(nc_matmul)
def _nc_matmul_legacy(stationary: Tile, moving: Tile, *, is_stationary_onezero: bool = False,
                      is_moving_onezero: bool = False, is_transpose: bool = False,
                      tile_position: Ints = (), tile_size: Ints = (),
                      mask: Optional[Mask] = None) -> Tile:
    """``nc_matmul(stationary, moving)``: a new fp32 PSUM tile; ``psum += it`` accumulates."""
    if mask is not None:
        raise _api.refuse("isa", "nc_matmul", "mask= (operand masks are not lowered)")
    if tile_position or tile_size or is_transpose:
        out = stationary.core.ndarray([_free(stationary), _free(moving)], np.float32,
                                      buffer="psum")
        nc_matmul(out, stationary, moving, is_stationary_onezero, is_moving_onezero,
                  is_transpose, False, tile_position, tile_size)
        return out
    return deferred_matmul(stationary, moving, "nisa.nc_matmul")


# --- Scalar engine (ACT) and DVE Exponential ------------------------------------------------
@lowered(status=partial(
    "reduce_cmd idle, reset, reduce, reset_reduce (load_reduce has no NKI value argument); "
    "op prelu refused (its slope operand is not an activation argument); table functions "
    "approximate"))
def activation(dst: Tile, op: ActOp, data: Tile, bias: Optional[Operand] = None,
               scale: Operand = 1.0, reduce_op: Optional[AluOp] = None,
               reduce_res: Optional[Tile] = None, reduce_cmd: ReduceCmdArg = reduce_cmd.idle,
               engine: EngineArg = engine.unknown, name: Name = None) -> RunReport:
    """Scalar-engine ``Activate`` (0x21): ``dst = op(data * scale + bias)`` per element in
    FP32 (one fused multiply-add, then the function), converted to ``dst``'s dtype; then,
    with ``reduce_res``, ``ActivationReadAccumulator`` (0x24).

    Parameters:
        dst: tile to write (SBUF or PSUM).
        op: the function: ``nl.exp``, ``nl.tanh``, ``nl.sigmoid``, ``nl.relu``, ``nl.gelu``,
            ``nl.silu``, ``nl.copy``, ``numpy.exp``, ``numpy.sqrt``, ... or a name
            (``"gelu_apprx_tanh"``).
        data: input tile with ``dst``'s partitions and element count.
        bias: ``None``, a number, or a ``(P, 1)`` tile of any dtype (one value per partition).
        scale: a number (default 1.0) or a ``(P, 1)`` float32 tile.
        reduce_op: ``None`` or ``nl.add`` (the accumulator adds).
        reduce_res: optional ``(P, 1)`` tile that receives the per-partition accumulator.
        reduce_cmd: what happens to the accumulator (one FP32 per partition):
            ``idle`` (default) leaves it, ``reset`` zeroes it, ``reduce`` adds each row sum of
            the outputs, ``reset_reduce`` zeroes then adds.
        engine: ``engine.scalar`` or ``unknown`` (Neuron 2.33's parameter).
        name: label for profiles and errors.

    Semantics: copy, identity, relu, square, sign and abs are exact. The other functions
    (exp, tanh, sigmoid, gelu, silu, erf, log, sqrt, rsqrt, sin, ...) come from tables the
    hardware does not publish: tpb computes their definition in float64 (libm) and rounds
    once to FP32, and labels the instruction ``approximate`` in the returned
    :class:`tpb.RunReport` and in :func:`tpb.nki.profile_kernel`'s profile; a run with
    ``strict_exact=True`` raises :class:`tpb.Fault` instead.

    Legacy form ``activation(op, data, bias=None, scale=1.0, ..., mask=None, dtype=None)``
    returns a new tile.

    Example (softmax numerator and its row sums)::

        nisa.activation(e, nl.exp, x, bias=neg_max, reduce_res=row_sum,
                        reduce_cmd=nisa.reduce_cmd.reset_reduce)
    """


@legacy(activation, like="data")
def _activation_legacy(op: ActOp, data: Tile, *, bias: Optional[Operand] = None,
                       scale: Operand = 1.0, reduce_op: Optional[AluOp] = None,
                       reduce_res: Optional[Tile] = None,
                       reduce_cmd: ReduceCmdArg = reduce_cmd.idle,
                       mask: Optional[Mask] = None, dtype: Optional[DType] = None) -> Tile:
    """``activation(op, data, ...)`` returning a new tile."""


@lowered(status=partial("reduce_op add; table functions approximate"))
def activation_reduce(dst: Tile, op: ActOp, data: Tile, reduce_op: Optional[AluOp],
                      reduce_res: Tile, bias: Optional[Operand] = None, scale: Operand = 1.0,
                      name: Name = None) -> RunReport:
    """:func:`activation` with ``reduce_cmd=reset_reduce``: ``dst = op(data * scale + bias)``
    and ``reduce_res[p] = sum(dst row p)`` (summed in FP32 before the cast to ``dst``'s
    dtype), as one ``Activate`` and one ``ActivationReadAccumulator``.

    Parameters:
        dst: tile to write.
        op: the function (see :func:`activation`).
        data: input tile.
        reduce_op: ``nl.add``.
        reduce_res: the ``(P, 1)`` tile for the row sums.
        bias, scale: as :func:`activation`.
        name: label for profiles and errors.

    Legacy form ``activation_reduce(op, data, *, reduce_op, reduce_res, bias=None,
    scale=1.0, mask=None, dtype=None)`` returns a new tile.

    Example::

        nisa.activation_reduce(e, nl.exp, x, nl.add, row_sum, bias=neg_max)
    """


@legacy(activation_reduce, like="data")
def _activation_reduce_legacy(op: ActOp, data: Tile, *, reduce_op: Optional[AluOp],
                              reduce_res: Tile, bias: Optional[Operand] = None,
                              scale: Operand = 1.0, mask: Optional[Mask] = None,
                              dtype: Optional[DType] = None) -> Tile:
    """``activation_reduce(op, data, reduce_op=..., reduce_res=...)`` returning a new tile."""


@lowered(status=partial(
    "mariana and later (the firmware does not wire it before v4); reduce_cmd idle, reduce, "
    "reset_reduce, load_reduce (reset alone is outside the ISA's accumulator contract); "
    "approximate"))
def exponential(dst: Tile, src: Tile, max_value: Operand = 0.0,
                reduce_res: Optional[Tile] = None, reduce_cmd: ReduceCmdArg = reduce_cmd.idle,
                reduce_init: Operand = 0.0, name: Name = None) -> RunReport:
    """Vector-engine ``Exponential`` (0x30; NeuronCore-v4, tpb ``mariana``, and later):
    ``dst = exp(src - max_value)`` per element in FP32, converted to ``dst``'s dtype.

    Parameters:
        dst: tile to write; src: tile with ``dst``'s partitions and element count.
        max_value: a number or a ``(P, 1)`` float32 tile subtracted first.
        reduce_res: optional ``(P, 1)`` tile for the running sum (a DveReadAccumulator
            0x9b after the Exponential).
        reduce_cmd: the Vector accumulator: ``idle`` (default) leaves it,
            ``reset_reduce`` sums this call's FP32 outputs per partition from 0, ``reduce``
            adds them to it, ``load_reduce`` starts from ``reduce_init``.
        reduce_init: a number or a ``(P, 1)`` float32 tile (``load_reduce`` only).
        name: label for profiles and errors.

    Semantics: approximate as the ACT table functions are (see :func:`activation`);
    ``sunda`` and ``cayman`` raise :class:`tpb.NotSupported` (the firmware does not wire
    the opcode before v4; use ``activation(op=nl.exp)``).

    Example (softmax numerator and row sums on the Vector engine)::

        nisa.exponential(e, scores, max_value=row_max, reduce_res=row_sum,
                         reduce_cmd=nisa.reduce_cmd.reset_reduce)
    """


# --- DMA ------------------------------------------------------------------------------------
@lowered(status=partial("direct copies between HBM and SBUF tiles (DMAMEMCPY 0xB8); indirect "
                        "copies are refused"))
def dma_copy(dst: Tile, src: Tile, priority: Optional[int] = None,
             oob_mode: OobMode = oob_mode.error, dge_mode: DgeMode = dge_mode.unknown,
             engine: DmaEngine = engine.unknown, name: Name = None) -> RunReport:
    """``DMAMEMCPY`` (0xB8): ``dst = src`` element by element in C order between HBM and SBUF
    (a dtype change converts through fp32, round to nearest even).

    Parameters:
        dst, src: tiles of one core with equal element counts, in HBM
            (``Core.ndarray(shape, dtype, buffer="hbm")``) or SBUF (a PSUM source is refused).
        priority: 0..3, NeuronCore-v4+ only. oob_mode: ``error`` / ``skip``.
        dge_mode: ``unknown`` / ``swdge`` (issued on GpSimd) / ``hwdge`` (equal dtypes) / ``none``.
        engine: ``sync`` (SP), ``scalar`` (ACT), ``gpsimd`` (POOL) or ``unknown`` (the
            kernel's requests take SP and ACT in turn; POOL on sunda).
        name: label for profiles and errors.

    Semantics: the data moves at once; the request is recorded on its issuing engine's
    queue (``Core.disasm`` writes ``.engine`` lines) and its transfer on that engine's DMA
    queue, which bumps the queue's semaphore when the data has landed: what the emitted
    waits of the data's readers wait for.

    Legacy form ``dma_copy(*, dst, src, mask=None, dst_rmw_op=None, oob_mode=...,
    dge_mode=...)``.

    Example::

        >>> import numpy as np, tpb.nki as nki
        >>> core = nki.Core(gen="cayman")
        >>> x = core.from_numpy(np.arange(8, dtype=np.float32).reshape(2, 4))
        >>> h = core.ndarray((2, 4), np.float32, buffer="hbm")
        >>> _ = nki.isa.dma_copy(h, x, engine="scalar")
        >>> y = core.ndarray((2, 4), np.float32)
        >>> _ = nki.isa.dma_copy(y, h)
        >>> y.numpy()[1]
        array([4., 5., 6., 7.], dtype=float32)
    """


@legacy(dma_copy)
def _dma_copy_legacy(*, dst: Tile, src: Tile, mask: Optional[Mask] = None,
                     dst_rmw_op: Optional[AluOp] = None, oob_mode: OobMode = oob_mode.error,
                     dge_mode: DgeMode = dge_mode.unknown) -> RunReport:
    """The legacy keyword form; ``dst_rmw_op`` is refused (NKI 0.3.0 moved it to
    ``dma_compute``)."""
    if dst_rmw_op is not None:
        raise _api.refuse("isa", "dma_copy", "dst_rmw_op= (a read-modify-write DMA)")
    dst, src = apply_mask(mask, dst, src)
    return dma_copy(dst, src, oob_mode=oob_mode, dge_mode=dge_mode)


_BROADCAST_PARTITIONS = _api.internal_lowering(
    "broadcast_partitions", [("dst", "tile"), ("src", "tile")])


def broadcast_partitions(dst: Tile, src: Tile) -> RunReport:
    """``dst[p, ...] = src[0, ...]`` for every partition: one DMA whose source has a
    partition step of 0 (``nl.broadcast_to`` over partitions; engines cannot read one
    partition into many)."""
    if _context.pending_matmuls():
        _context.flush(dst.core)
    return _BROADCAST_PARTITIONS(_context.origin(), dst, src)


# --- names tpb refuses (docs/nki-support.md says why) -----------------------------------------
_RNG = not_supported("the random number generators' state is not public")
_LNC = not_supported("one NeuronCore is modelled (no LNC2)")
_REGS = not_supported("virtual registers and on-device control flow are not modelled")
_NO_INST = not_supported("no instruction for it in tpb")
_MX = not_supported("NC-v4 MX formats are not modelled")

_DMA_TRANSPOSE_AXES = {2: (1, 0), 3: (2, 1, 0), 4: (3, 1, 2, 0)}
_DMA_TRANSPOSE_ON_CHIP = _api.internal_lowering(
    "dma_transpose_on_chip", [("dst", "tile"), ("src", "tile"), ("axes", "ints")])


@composed("isa", partial(
    "direct transposes of an HBM or SBUF source, as an element-strided DMAMEMCPY (the "
    "documented result; DMA_TRANSPOSE (0xBD), whose tile order is not public, is not used, so "
    "a profile prices the strided copy); indirect (indices) forms are refused"))
def dma_transpose(dst: Tile, src: Tile, axes: Optional[Sequence[int]] = None,
                  priority: Optional[int] = None, dge_mode: DgeMode = dge_mode.unknown,
                  oob_mode: OobMode = oob_mode.error, name: Name = None) -> RunReport:
    """``dst = src`` with its axes permuted by ``axes`` (NKI: ``(1, 0)``, ``(2, 1, 0)`` or
    ``(3, 1, 2, 0)``, the default for the source's rank): ``dst[i_axes[0], ...] =
    src[i_0, ...]`` — ``dst.shape`` is ``src.shape`` permuted, and the dtypes are equal.

    Parameters:
        dst: an SBUF tile or view shaped like the permuted source.
        src: an HBM tensor or an SBUF tile, or a view of one (``.ap()`` patterns included),
            of dst's dtype.
        axes: the permutation (default: NKI's for the rank); priority, dge_mode, oob_mode:
            accepted as :func:`dma_copy` takes them (priority only with an HBM source).
        name: label for profiles and errors.

    Semantics: one :func:`dma_copy` from the source's permuted access pattern (its storage
    steps in ``axes`` order; for an SBUF source the partition step may come after element
    steps, over tpb's on-chip DMA address map): the tile DMA_TRANSPOSE produces, at a
    strided copy's cost.

    Example::

        nisa.dma_transpose(dst=kT, src=k[0:16, 0:128])     # kT: (128, 16) in SBUF
    """
    shape = tuple(int(d) for d in src.shape)
    perm = tuple(axes) if axes is not None else _DMA_TRANSPOSE_AXES.get(len(shape))
    if perm is None or sorted(perm) != list(range(len(shape))):
        raise UsageError(f"nki.isa.dma_transpose: axes={axes!r} for a {len(shape)}-D source: "
                         "a permutation of its dims (NKI: (1, 0), (2, 1, 0), (3, 1, 2, 0))",
                         parameter="axes")
    if src.buffer == "psum":
        raise _api.refuse("isa", "dma_transpose", "a PSUM source (NKI: src in HBM or SBUF)")
    if np.dtype(src.dtype) != np.dtype(dst.dtype):
        raise UsageError(f"nki.isa.dma_transpose: src is {src.dtype} and dst {dst.dtype}: a "
                         "DMA transpose does not convert", parameter="dst")
    want = tuple(shape[a] for a in perm)
    if tuple(int(d) for d in dst.shape) != want:
        raise UsageError(f"nki.isa.dma_transpose: dst has shape {tuple(dst.shape)}; the "
                         f"source {shape} permuted by {perm} is {want}", parameter="dst")
    if src.buffer != "hbm":
        if priority is not None:
            raise _api.refuse("isa", "dma_transpose", "priority= with an SBUF source")
        if _context.pending_matmuls():
            _context.flush(dst.core)
        return _DMA_TRANSPOSE_ON_CHIP(_context.origin(), dst, src, list(perm))
    item = np.dtype(src.dtype).itemsize
    # Storage steps of the source's dims (dim 0's from the offset of its second index).
    steps = [(src[1:2].offset - src.offset) // item if shape[0] > 1 else 0] + \
        [int(t) for t in src.strides]
    pattern = [[steps[a], shape[a]] for a in perm]
    return dma_copy(dst, src.ap(pattern), priority=priority, dge_mode=dge_mode,
                    oob_mode=oob_mode, name=name)
dma_compute = refused("isa", "dma_compute", not_yet(
    "a tpb.nki call over DMAMEMCPY's compute_op (which runs; issue 19 follow-up)"))
tensor_partition_reduce = refused("isa", "tensor_partition_reduce", not_supported(
    "no cross-partition reduce instruction in tpb"))
activate2 = refused("isa", "activate2", not_supported("NC-v4 only; no maverick Activate2 facts"))
nc_matmul_mx = refused("isa", "nc_matmul_mx", _MX)
quantize_mx = refused("isa", "quantize_mx", _MX)
rng = refused("isa", "rng", _RNG)
rand2 = refused("isa", "rand2", _RNG)
set_rng_seed = refused("isa", "set_rng_seed", _RNG)
rand_set_state = refused("isa", "rand_set_state", _RNG)
rand_get_state = refused("isa", "rand_get_state", _RNG)
dropout = refused("isa", "dropout", _RNG)
local_gather = refused("isa", "local_gather", not_supported("no gather instruction in tpb"))
nc_n_gather = refused("isa", "nc_n_gather", not_supported("no gather instruction in tpb"))
sequence_bounds = refused("isa", "sequence_bounds", _NO_INST)
nonzero_with_count = refused("isa", "nonzero_with_count", _NO_INST)
topk = refused("isa", "topk", _NO_INST)
core_barrier = refused("isa", "core_barrier", _LNC)
sendrecv = refused("isa", "sendrecv", _LNC)
register_alloc = refused("isa", "register_alloc", _REGS)
register_move = refused("isa", "register_move", _REGS)
register_load = refused("isa", "register_load", _REGS)
register_store = refused("isa", "register_store", _REGS)

__all__ += [c.name for c in _api.calls("isa")]
