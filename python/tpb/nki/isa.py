"""``tpb.nki.isa``: the NKI instruction calls (NKI 0.6.0 signatures, ``dst`` first).

Operators and comparisons are NumPy ufuncs (``numpy.multiply``, ``numpy.greater_equal``),
``nki.language`` operators (``nl.multiply``) or their names; scalar operands are Python
numbers (immediates) or ``(P, 1)`` tiles (one value per partition, read through a pointer).
Every tile argument may be a view (``t[:, nl.ds(i * 64, 64)]``, ``t[32:64]``). Every call
takes ``name=`` (labels the instruction in profiles, races and capacity errors),
``engine=`` where NKI has it, and the legacy ``mask=`` (an affine predicate over
``nl.arange`` indices, which shrinks the operands as the compiler does). Each call returns
a :class:`tpb.RunReport` for the instruction it ran. Calls whose instruction tpb does not
have yet raise :class:`tpb.NotSupported` naming it ("not supported yet: ... needs ...").
"""

from __future__ import annotations

import operator
from typing import Any, Optional

from .. import _tpb
from . import _context, constants
from ._mask import apply_mask
from .constants import (dge_mode, dma_engine, engine, gpsimd_engine, matmul_perf_mode,
                        nc_version, oob_mode, reduce_cmd, scalar_engine, tensor_engine,
                        unknown_engine, vector_engine)
from .._errors import UsageError


__all__ = [
    "activation",
    "activation_reduce",
    "constants",
    "dge_mode",
    "dma_copy",
    "dma_engine",
    "affine_select",
    "engine",
    "exponential",
    "get_nc_version",
    "iota",
    "matmul_perf_mode",
    "max8",
    "memset",
    "nc_find_index8",
    "nc_match_replace8",
    "nc_matmul",
    "nc_stream_shuffle",
    "nc_transpose",
    "nc_version",
    "oob_mode",
    "range_select",
    "reciprocal",
    "reduce_cmd",
    "scalar_tensor_tensor",
    "select",
    "select_reduce",
    "tensor_copy",
    "tensor_copy_predicated",
    "tensor_reduce",
    "tensor_scalar",
    "tensor_scalar_cumulative",
    "tensor_scalar_reduce",
    "tensor_tensor",
    "tensor_tensor_scan",
    "tensor_engine",
    "vector_engine",
    "scalar_engine",
    "gpsimd_engine",
    "unknown_engine",
]


_GEN_VERSION = {"sunda": nc_version.gen2, "cayman": nc_version.gen3, "mariana": nc_version.gen4}


def get_nc_version() -> nc_version:
    """The NeuronCore version of the kernel run's generation.

    Example::

        if nisa.get_nc_version() >= nisa.nc_version.gen3: ...
    """
    ctx = _context.current("nki.isa.get_nc_version")
    gen = ctx.core.gen
    if gen not in _GEN_VERSION:
        raise _tpb._nki_refuse("isa", "get_nc_version", f"generation {gen}")
    return _GEN_VERSION[gen]


def _op_name(op: Any) -> Any:
    return getattr(op, "__tpb_op__", op)


def _prepare(dst: Any, name: Optional[str], eng: Any) -> None:
    _context.label(dst.core, name, eng)


def iota(dst: Any, pattern: Any, offset: int = 0, channel_multiplier: int = 0, *,
         name: Optional[str] = None, mask: Any = None) -> Any:
    """GpSimd ``Iota``: ``dst[c, w, z, y, x] = offset + c·channel_multiplier + Σ index·step``
    in int32, cast to ``dst``'s dtype.

    Parameters:
        dst: SBUF tile (or view) to write, partition dim first.
        pattern: ``[[step, num], ...]`` outermost first (at most 4 pairs; the product of the
            nums is the elements per partition).
        offset: int32 start value.
        channel_multiplier: int32 added per partition.
        name: label for profiles and errors.
        mask: legacy affine predicate; shrinks ``dst``.

    Example::

        ramp = nl.ndarray((128, 64), nl.float32)
        nisa.iota(ramp, [[1, 64]], offset=0, channel_multiplier=64)   # ramp[p, x] = 64p + x
    """
    (dst,) = apply_mask(mask, dst)
    _prepare(dst, name, None)
    return _tpb.iota(dst, pattern, offset, channel_multiplier)


def affine_select(dst: Any, pattern: Any, channel_multiplier: int, on_true_tile: Any,
                  on_false_value: float, cmp_op: Any = None, offset: int = 0, *,
                  name: Optional[str] = None, mask: Any = None) -> Any:
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
        mask: legacy affine predicate; shrinks the tiles.

    Example (the causal mask of nki-library's attention kernels)::

        nisa.affine_select(masked, [[-1, 512]], 1, scores, -3.4028235e38,
                           cmp_op=nl.greater_equal)
    """
    dst, on_true_tile = apply_mask(mask, dst, on_true_tile)
    _prepare(dst, name, None)
    return _tpb.affine_select(dst, pattern, channel_multiplier, on_true_tile, on_false_value,
                              cmp_op=_op_name(cmp_op) if cmp_op is not None else None,
                              offset=offset)


def tensor_scalar(dst: Any = None, data: Any = None, op0: Any = None, operand0: Any = None,
                  reverse0: bool = False, op1: Any = None, operand1: Any = None,
                  reverse1: bool = False, engine: Any = None, *, name: Optional[str] = None,
                  mask: Any = None, dtype: Any = None) -> Any:
    """Vector ``TensorScalar``: ``dst = (data op0 operand0) op1 operand1`` element-wise;
    arithmetic ops compute in FP32 (operands FP32), bitvec ops on integer bits.

    Parameters:
        dst: tile to write (the legacy form without ``dst`` returns a new tile instead:
            ``tensor_scalar(data, op0, operand0, ..., dtype=None)``).
        data: input tile, same partitions and element count as ``dst``.
        op0, op1: ALU operators (``nl.multiply``, ``numpy.add``, ``"bitwise_and"``, ...);
            ``op1=None`` for one op (then ``operand1`` must be ``None``).
        operand0, operand1: a number or a ``(P, 1)`` tile.
        reverse0, reverse1: swap the operand order of that stage.
        engine: ``engine.vector`` / ``unknown`` (TensorScalar runs on the Vector engine).
        name: label for profiles and errors.
        mask: legacy affine predicate; shrinks the tiles.

    Example::

        nisa.tensor_scalar(out, x, nl.multiply, 0.5, op1=nl.add, operand1=1.0)
    """
    if data is not None and not _is_tile(data):
        # Legacy positional form tensor_scalar(data, op0, operand0, ...): shift.
        dst, data, op0, operand0 = None, dst, data, op0
    if dst is None:
        # Legacy value-returning form: a new SBUF tile like data (dtype= to cast).
        from . import language as nl

        out = nl.ndarray(tuple(data.shape), dtype or data.dtype, buffer=nl.sbuf)
        tensor_scalar(out, data, op0, operand0, reverse0, op1, operand1, reverse1, engine,
                      name=name, mask=mask)
        return out
    dst, data = apply_mask(mask, dst, data)
    _prepare(dst, name, engine)
    return _tpb.tensor_scalar(dst, data, _op_name(op0), operand0, reverse0,
                              _op_name(op1) if op1 is not None else None, operand1, reverse1)


def range_select(dst: Any, on_true_tile: Any, comp_op0: Any, comp_op1: Any, bound0: Any,
                 bound1: Any, reduce_cmd: Any = "idle", reduce_res: Any = None,
                 reduce_op: Any = None, range_start: float = 0.0,
                 on_false_value: float = -3.4028234663852886e38, *,
                 name: Optional[str] = None) -> Any:
    """Vector ``RangeSelect`` (cayman and later): keeps element ``k`` where
    ``comp_op0(range_start + k, bound0)`` and ``comp_op1(range_start + k, bound1)`` hold
    (FP32), else ``on_false_value``.

    Parameters:
        dst: tile to write.
        on_true_tile: input tile.
        comp_op0, comp_op1: ``nl.equal``, ``nl.less``, ``nl.less_equal``, ``nl.greater``,
            ``nl.greater_equal``.
        bound0, bound1: numbers or ``(P, 1)`` FP32 tiles.
        reduce_cmd: only ``"idle"`` (the running max's read-out is not public).
        reduce_res, reduce_op: must be ``None`` (see ``reduce_cmd``).
        range_start: FP32 index of the first element.
        on_false_value: FP32 fill (NKI requires FP32_MIN).
        name: label for profiles and errors.

    Example::

        nisa.range_select(out, scores, nl.greater_equal, nl.less, lo, hi)
    """
    if reduce_res is not None:
        raise _tpb._nki_refuse("isa", "range_select", "reduce_res")
    _prepare(dst, name, None)
    cmd = getattr(reduce_cmd, "name", reduce_cmd)
    return _tpb.range_select(dst, on_true_tile, _op_name(comp_op0), _op_name(comp_op1), bound0,
                             bound1, range_start, on_false_value, cmd)


def select(dst: Any, predicate: Any, on_true_tile: Any, on_false_value: Any,
           reverse_pred: bool = False, *, name: Optional[str] = None) -> Any:
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
    _prepare(dst, name, None)
    return _tpb.select(dst, predicate, on_true_tile, on_false_value, reverse_pred)


def _eng(e: Any) -> Any:
    return None if e is None else getattr(e, "value", e)


def tensor_tensor(dst: Any, data1: Any, data2: Any, op: Any, engine: Any = None, *,
                  name: Optional[str] = None, mask: Any = None) -> Any:
    """``TensorTensor``: ``dst = data1 op data2`` element-wise (FP32 arithmetic; bitvec ops
    on integer bits; int32/uint32 operands on the GpSimd integer band unless
    ``engine=engine.vector``).

    Parameters:
        dst: tile to write; data1, data2: tiles with dst's partitions and element count
            (not both in PSUM).
        op: an ALU operator (``nl.add``, ``nl.maximum``, ``np.bitwise_and``, ...).
        engine: ``engine.vector``, ``engine.gpsimd`` or ``unknown`` (the queue it runs on).
        name: label for profiles and errors.
        mask: legacy affine predicate; shrinks the tiles.

    Example::

        nisa.tensor_tensor(c, a, b, nl.add)
    """
    dst, data1, data2 = apply_mask(mask, dst, data1, data2)
    _prepare(dst, name, engine)
    return _tpb.tensor_tensor(dst, data1, data2, _op_name(op), _eng(engine), name)


def tensor_copy(dst: Any, src: Any = None, engine: Any = None, *, name: Optional[str] = None,
                mask: Any = None, dtype: Any = None) -> Any:
    """``Copy`` (bit-exact when the dtypes are equal) or ``Cast`` through FP32.

    Parameters:
        dst: tile to write (legacy ``tensor_copy(src, dtype=None)`` returns a new tile).
        src: tile with dst's partitions and element count.
        engine: ``engine.vector``, ``engine.gpsimd`` (SBUF only) or ``unknown``.
        name: label for profiles and errors.
        mask: legacy affine predicate.

    Example::

        nisa.tensor_copy(sb_tile, psum_tile)
    """
    if src is None:
        from . import language as nl

        out = nl.ndarray(tuple(dst.shape), dtype or dst.dtype, buffer=nl.sbuf)
        tensor_copy(out, dst, engine, name=name, mask=mask)
        return out
    dst, src = apply_mask(mask, dst, src)
    _prepare(dst, name, engine)
    return _tpb.tensor_copy(dst, src, _eng(engine), name)


def memset(dst: Any, value: Any, engine: Any = None, *, name: Optional[str] = None,
           mask: Any = None) -> Any:
    """``Memset``: fills ``dst`` with the compile-time ``value`` converted to its dtype.

    Parameters:
        dst: tile to fill.
        value: a number (an int for integer dtypes).
        engine: ``engine.vector``, ``engine.gpsimd`` or ``unknown``.
        name: label for profiles and errors.
        mask: legacy affine predicate.

    Example::

        nisa.memset(acc, 0.0)
    """
    (dst,) = apply_mask(mask, dst)
    _prepare(dst, name, engine)
    return _tpb.memset(dst, value, _eng(engine), name)


def reciprocal(dst: Any, data: Any, *, name: Optional[str] = None, mask: Any = None) -> Any:
    """Vector ``Reciprocal``: ``dst = 1 / data`` in FP32.

    Parameters:
        dst: tile to write; data: tile with dst's partitions and element count.
        name: label for profiles and errors.
        mask: legacy affine predicate.

    Example::

        nisa.reciprocal(inv, sums)
    """
    dst, data = apply_mask(mask, dst, data)
    _prepare(dst, name, None)
    return _tpb.reciprocal(dst, data, name)


def tensor_reduce(dst: Any, op: Any, data: Any, axis: Any, negate: bool = False,
                  keepdims: bool = False, *, name: Optional[str] = None) -> Any:
    """``TensorReduce``: reduces the trailing free axes ``axis`` of ``data`` with ``op``.

    Parameters:
        dst: tile with the reduced shape (keepdims or not).
        op: ``nl.add``, ``nl.maximum``, ``nl.minimum``, ``nl.multiply``, bitwise ops...
        data: input tile.
        axis: an int or a list of trailing free axes (never 0).
        negate: multiply arithmetic results by -1.
        keepdims: dst keeps the reduced axes with size 1.
        name: label for profiles and errors.

    Example::

        nisa.tensor_reduce(row_max, nl.maximum, scores, axis=1, keepdims=True)
    """
    _prepare(dst, name, None)
    return _tpb.tensor_reduce(dst, _op_name(op), data, axis, negate, keepdims, name)


def tensor_copy_predicated(dst: Any, src: Any, predicate: Any, reverse_pred: bool = False, *,
                           name: Optional[str] = None) -> Any:
    """Vector ``CopyPredicated``: ``dst = src`` where ``predicate`` is nonzero (or zero with
    ``reverse_pred``); other elements of ``dst`` keep their values.

    Parameters:
        dst: tile to merge into; src: tile or number of dst's dtype; predicate: a uint8 /
            uint16 / uint32 tile.
        reverse_pred: select where the predicate is zero.
        name: label for profiles and errors.

    Example::

        nisa.tensor_copy_predicated(out, fill, keep)
    """
    _prepare(dst, name, None)
    return _tpb.tensor_copy_predicated(dst, src, predicate, reverse_pred, name)


def nc_transpose(dst: Any, data: Any = None, engine: Any = None, *,
                 name: Optional[str] = None) -> Any:
    """Partition ↔ free transpose: ``dst[i, j] = data[j, i]`` (free dims flattened).

    Parameters:
        dst: tile of the transposed shape ``[M, K]`` (legacy ``nc_transpose(data)`` returns
            a new tile instead, as :func:`tpb.nki.language.transpose`).
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

    Example::

        t = nl.ndarray((128, 96), nl.float32, buffer=nl.psum)
        nisa.nc_transpose(t, x, engine=nisa.engine.tensor)     # x is (96, 128) in SBUF
    """
    if data is None:
        from . import language as nl

        return nl.transpose(dst)
    _prepare(dst, name, engine)
    return _tpb.nc_transpose(dst, data, _eng(engine), name)


def nc_matmul(dst: Any, stationary: Any = None, moving: Any = None,
              is_stationary_onezero: bool = False, is_moving_onezero: bool = False,
              is_transpose: bool = False, accumulate: Optional[bool] = None,
              tile_position: Any = (), tile_size: Any = (), perf_mode: Any = None, *,
              name: Optional[str] = None) -> Any:
    """Tensor engine: ``dst = stationary.T @ moving`` into PSUM, as one ``LoadWeights``
    (0x01) then one ``Matmul`` (0x02) on the PE queue.

    Parameters:
        dst: fp32 PSUM tile ``[M, N]`` inside one 2 KiB bank (N ≤ 512). The legacy form
            ``nc_matmul(stationary, moving)`` returns a new PSUM tile, and
            ``psum += nisa.nc_matmul(a, b)`` accumulates into ``psum`` as NKI lowers it.
        stationary: SBUF tile ``[K, M]`` (K, M ≤ 128), loaded into the array.
        moving: SBUF tile ``[K, N]`` streamed through it; fp8 (e4m3/e5m2), bf16, fp16 or
            fp32 (fp32 only with fp32).
        is_stationary_onezero, is_moving_onezero: speed hints (no effect on the result).
        is_transpose: the bit-accurate PE transpose (NC-v3+): ``moving`` is the ``K × K``
            identity and ``dst`` gets ``stationary``'s fp32 bits transposed (on sunda the
            flag only affects profiling: an ordinary matmul).
        accumulate: ``False`` overwrites ``dst``; ``True`` adds to it (PSUM accumulation in
            fp32); ``None`` (default, NKI's rule) overwrites the first time a matmul writes
            this PSUM view and adds after that, until another instruction writes those
            bytes or the tile is freed.
        tile_position, tile_size: must be empty (the row/column tiling encoding is not
            public; raises :class:`tpb.NotSupported`).
        perf_mode: ``None``, ``"none"`` or ``matmul_perf_mode.none`` (double_row's layout
            is not public).
        name: label for profiles and errors.

    Semantics: exact per tpb's documented order, not the hardware's bits (the PE's
    summation order is not public): each product is rounded once to fp32, the products are
    added sequentially over ``k = 0..K-1`` in fp32 (RNE, no FMA), and accumulation adds
    that sum to the old PSUM value in fp32. The report labels the Matmul
    ``exact-per-our-order``; ``tpb.nki.Core(strict_exact=True)`` and
    ``simulate_kernel(..., strict_exact=True)`` raise :class:`tpb.Fault` instead.

    Example (accumulate over K tiles)::

        acc = nl.ndarray((128, 512), nl.float32, buffer=nl.psum)
        for k in nl.affine_range(4):
            nisa.nc_matmul(acc, lhsT[k], rhs[k])     # k = 0 overwrites, then adds
    """
    if moving is None:
        from . import language as nl

        return nl.matmul(dst, stationary, transpose_x=True)
    _prepare(dst, name, None)
    return _tpb.nc_matmul(dst, stationary, moving, is_stationary_onezero, is_moving_onezero,
                          is_transpose, accumulate, tile_position, tile_size,
                          _eng(perf_mode), name)


def nc_stream_shuffle(dst: Any, src: Any, shuffle_mask: Any, name: Optional[str] = None,
                      *, dtype: Any = None, mask: Any = None) -> Any:
    """Vector ``StreamShuffle``: inside each 32-partition quadrant, output partition ``i``
    takes input partition ``shuffle_mask[i]``; 255 leaves output partition ``i`` unchanged.
    A pure move (raw bits): ``dst`` and ``src`` have one dtype and the same elements per
    partition; in place (``dst is src``) is allowed. tpb emits ``LoadMaskSelect`` (0x69)
    with the mask, then ``StreamShuffle`` (0x6a) (docs/reference/nki-calls.md).

    Parameters:
        dst: tile to write; src: tile to read (may be ``dst``).
        shuffle_mask: 32 ints, each 0..31 (a partition of the same quadrant) or 255.
        name: label for profiles and errors.
        dtype, mask: the legacy (NKI 0.1) keywords. A call that passes either is read in the
            legacy argument order ``nc_stream_shuffle(src, dst, shuffle_mask)``; ``dtype``
            must then equal the tiles' dtype (a shuffle never converts).

    The active partitions ``A = ceil(max(src_P, dst_P) / 32) * 32`` decide where the tiles
    may start: A ∈ {96, 128} at partition 0, A = 64 at 0 or 64, A = 32 at a multiple of 32.
    A mask entry that would copy a partition past ``src``'s end into ``dst`` is refused.

    Example (reverse 32 partitions)::

        nisa.nc_stream_shuffle(out, src, list(range(31, -1, -1)))
        # out[i] == src[31 - i]
    """
    if dtype is not None or mask is not None:
        # NKI 0.1: nc_stream_shuffle(src, dst, shuffle_mask, *, dtype=None, mask=None).
        dst, src = src, dst
        import numpy as np

        if dtype is not None and np.dtype(dtype) != np.dtype(dst.dtype):
            raise UsageError(
                f"nc_stream_shuffle: dtype={dtype} differs from dst's {dst.dtype}; a shuffle "
                "moves raw bits and never converts")
        dst, src = apply_mask(mask, dst, src)
    _prepare(dst, name, None)
    return _tpb.nc_stream_shuffle(dst, src, _shuffle_entries(shuffle_mask), name)


def _shuffle_entries(shuffle_mask: Any) -> list:
    """The mask's entries as ints, refusing what an int conversion would change (3.5, "3")
    or what no partition index can be, instead of truncating it."""
    try:
        entries = list(shuffle_mask)
    except TypeError:
        raise UsageError(
            f"nc_stream_shuffle: shuffle_mask must be a list of 32 ints, not "
            f"{type(shuffle_mask).__name__}") from None
    out = []
    for i, m in enumerate(entries):
        try:
            v = operator.index(m)
        except TypeError:
            raise UsageError(
                f"nc_stream_shuffle: shuffle_mask[{i}] is {m!r}; each entry is an int "
                "0..31 or 255") from None
        if not 0 <= v <= 255:
            raise UsageError(
                f"nc_stream_shuffle: shuffle_mask[{i}] is {v}; each entry is 0..31 or 255")
        out.append(v)
    return out


# Issue 17b: the vector engine's per-partition state (accumulator, match keys, index flops).
def scalar_tensor_tensor(dst: Any, data: Any, op0: Any, operand0: Any, op1: Any, operand1: Any,
                         reverse0: bool = False, reverse1: bool = False, *,
                         name: Optional[str] = None) -> Any:
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

    Example (``out = 0.5 * a + b``)::

        nisa.scalar_tensor_tensor(out, a, nl.multiply, 0.5, nl.add, b)
    """
    _prepare(dst, name, None)
    return _tpb.scalar_tensor_tensor(dst, data, _op_name(op0), operand0, _op_name(op1),
                                     operand1, reverse0, reverse1, name)


def tensor_tensor_scan(dst: Any, data0: Any, data1: Any, initial: Any, op0: Any, op1: Any,
                       reverse0: bool = False, reverse1: bool = False, *,
                       name: Optional[str] = None) -> Any:
    """Vector ``TensorTensorScan`` (0xe5): per partition
    ``r[i] = op1(op0(data0[i], r[i-1]), data1[i])`` in FP32 from ``r[-1] = initial``, and
    ``dst[i] = r[i]``.

    Parameters:
        dst: tile to write; data0, data1: tiles of dst's element count.
        initial: an FP32 immediate or a ``(P, 1)`` tile.
        op0, op1: arithmetic operators.
        reverse0, reverse1: swap the operands of ``op0`` / ``op1``.
        name: label for profiles and errors.

    Example (the running ``r = decay * r + x`` along the free axis)::

        nisa.tensor_tensor_scan(out, decay, x, 0.0, nl.multiply, nl.add)
    """
    _prepare(dst, name, None)
    return _tpb.tensor_tensor_scan(dst, data0, data1, initial, _op_name(op0), _op_name(op1),
                                   reverse0, reverse1, name)


def select_reduce(dst: Any, predicate: Any, on_true: Any, on_false: Any, reduce_res: Any = None,
                  reduce_cmd: Any = None, reduce_op: Any = None, reverse_pred: bool = False, *,
                  name: Optional[str] = None) -> Any:
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
    _prepare(dst, name, None)
    op = None if reduce_op is None else _op_name(reduce_op)
    return _tpb.select_reduce(dst, predicate, on_true, on_false, reduce_res, reduce_cmd, op,
                              reverse_pred, name)


def tensor_scalar_reduce(dst: Any, data: Any, op0: Any, operand0: Any, reduce_op: Any,
                         reduce_res: Any = None, reverse0: bool = False, reduce_cmd: Any = None,
                         reduce_init: Any = None, reduce_res_negate: bool = False, *,
                         name: Optional[str] = None) -> Any:
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

    Example (``row_sum = sum(2 * x)`` per partition)::

        nisa.tensor_scalar_reduce(out, x, nl.multiply, 2.0, nl.add, reduce_res=row_sum)
    """
    _prepare(dst, name, None)
    return _tpb.tensor_scalar_reduce(dst, data, _op_name(op0), operand0, _op_name(reduce_op),
                                     reduce_res, reverse0, reduce_cmd, reduce_init,
                                     reduce_res_negate, name)


def tensor_scalar_cumulative(dst: Any, src: Any, op0: Any, op1: Any, imm0: Any,
                             imm1: Any = None, reduce_cmd: Any = None,
                             name: Optional[str] = None) -> Any:
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
    _prepare(dst, name, None)
    return _tpb.tensor_scalar_cumulative(dst, src, _op_name(op0), _op_name(op1), imm0, imm1,
                                         reduce_cmd, name)


def max8(dst: Any, src: Any, *, name: Optional[str] = None) -> Any:
    """Vector ``Max8`` (0x6c): the 8 largest values of each partition of ``src`` (FP32
    compare, NaN below every number), in descending order, into ``dst`` ``(P, 8)``.

    Parameters:
        dst: ``(P, 8)`` tile; src: tile with 8..16384 elements per partition.
        name: label for profiles and errors.

    Example::

        nisa.max8(top, scores)   # top[p] == sorted(scores[p])[::-1][:8]
    """
    _prepare(dst, name, None)
    return _tpb.max8(dst, src, name)


def nc_find_index8(dst: Any, data: Any, vals: Any, *, name: Optional[str] = None) -> Any:
    """Vector ``MatchValueLoad`` (0x6d) then ``FindIndex8`` (0x6e): for each of the 8
    ``vals`` of a partition, the index of its first occurrence in ``data`` (exact FP32
    equality) into ``dst[p, i]``; a value that does not occur gives all ones.

    Parameters:
        dst: ``(P, 8)`` uint16 or uint32 tile; data: 8..16384 elements per partition;
            vals: ``(P, 8)`` tile.
        name: label for profiles and errors.

    Example (the arg-top-8)::

        nisa.max8(top, x)
        nisa.nc_find_index8(idx, x, top)
    """
    _prepare(dst, name, None)
    return _tpb.nc_find_index8(dst, data, vals, name)


def nc_match_replace8(dst: Any, data: Any, vals: Any, imm: float, dst_idx: Any = None, *,
                      name: Optional[str] = None) -> Any:
    """Vector ``MatchValueLoad`` (0x6d), ``MatchReplace8`` (0x6f) and, with ``dst_idx``,
    ``DveReadIndices`` (0xe9): ``dst`` = ``data`` with the first occurrence of each of the 8
    ``vals`` replaced by the FP32 ``imm``.

    Parameters:
        dst: tile to write; data: tile of dst's shape; vals: ``(P, 8)`` tile.
        imm: FP32 replacement value.
        dst_idx: optional ``(P, 8)`` uint16/uint32 tile for the matched positions (all ones
            for a value that does not occur).
        name: label for profiles and errors.

    Example (remove the current top 8 before the next ``max8``)::

        nisa.nc_match_replace8(x, x, top, -np.inf)
    """
    _prepare(dst, name, None)
    return _tpb.nc_match_replace8(dst, data, vals, imm, dst_idx, name)


def _is_tile(x: Any) -> bool:
    return isinstance(x, _tpb.Tile)


def _refused(fname: str) -> Any:
    def call(*args: Any, **kwargs: Any) -> Any:
        raise _tpb._nki_refuse("isa", fname)

    row = [r for r in _tpb._nki_support() if r[0] == "isa" and r[1] == fname][0]
    call.__name__ = fname
    call.__qualname__ = fname
    call.__doc__ = (
        f"``nki.isa.{fname}`` ({row[2]}: {row[3]}).\n\n"
        "Parameters: as NKI 0.6.0 documents them (docs/nki-support.md).\n\n"
        "Semantics: raises :class:`tpb.NotSupported` naming what is missing.\n\n"
        f"Example::\n\n    nisa.{fname}(...)  # raises tpb.NotSupported\n"
    )
    return call


_SUPPORTED_HERE = set(__all__)
for _m, _n, _tag, _detail in _tpb._nki_support():
    if _m == "isa" and _n not in _SUPPORTED_HERE:
        globals()[_n] = _refused(_n)
        __all__.append(_n)


def dma_copy(dst: Any, src: Any, priority: Optional[int] = None, oob_mode: Any = None,
             dge_mode: Any = None, engine: Any = None, *, name: Optional[str] = None) -> Any:
    """``DMAMEMCPY`` (0xB8): ``dst = src`` element by element in C order between HBM and SBUF
    (a dtype change converts through fp32, round to nearest even).

    Parameters:
        dst, src: tiles of one core with equal element counts, in HBM
            (``Core.ndarray(shape, dtype, buffer="hbm")``) or SBUF (a PSUM source is refused).
        priority: 0..3, NeuronCore-v4+ only. oob_mode: ``error`` / ``skip``.
        dge_mode: ``unknown`` / ``swdge`` (issued on GpSimd) / ``hwdge`` (equal dtypes) / ``none``.
        engine: ``sync`` (SP), ``scalar`` (ACT), ``gpsimd`` (POOL) or ``unknown``.
        name: label for profiles and errors.

    Example::

        nisa.dma_copy(h, x, engine=nisa.engine.scalar)
    """
    _prepare(dst, name, None)
    return _tpb.dma_copy(dst, src, priority, _eng(oob_mode), _eng(dge_mode), _eng(engine), name)


# Issue 18: the activation engine (ACT) and DVE Exponential.
def _legacy_out(data: Any, dtype: Any) -> Any:
    from . import language as nl

    return nl.ndarray(tuple(data.shape), dtype or data.dtype, buffer=nl.sbuf)


def activation(dst: Any, op: Any, data: Any = None, bias: Any = None, scale: Any = 1.0,
               reduce_op: Any = None, reduce_res: Any = None, reduce_cmd: Any = "idle", *,
               name: Optional[str] = None, engine: Any = None, mask: Any = None,
               dtype: Any = None) -> Any:
    """Scalar-engine ``Activate`` (0x21): ``dst = op(data * scale + bias)`` per element in
    FP32 (one fused multiply-add, then the function), converted to ``dst``'s dtype; then,
    with ``reduce_res``, ``ActivationReadAccumulator`` (0x24).

    Parameters:
        dst: tile to write (SBUF or PSUM). The legacy form without ``dst``,
            ``activation(op, data, bias=None, scale=1.0, ..., dtype=None)``, returns a new
            SBUF tile of ``data``'s shape instead.
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
        name: label for profiles and errors.
        engine: ``engine.scalar`` or ``unknown``.
        mask: legacy affine predicate; shrinks the tiles.

    Semantics: copy, identity, relu, square, sign and abs are exact. The other functions
    (exp, tanh, sigmoid, gelu, silu, erf, log, sqrt, rsqrt, sin, ...) come from tables the
    hardware does not publish: tpb computes their definition in float64 (libm) and rounds
    once to FP32, and labels the instruction ``approximate`` in the returned
    :class:`tpb.RunReport` and in :func:`tpb.nki.profile_kernel`'s profile; a run with
    ``strict_exact=True`` raises :class:`tpb.Fault` instead.

    Example (softmax numerator and its row sums)::

        nisa.activation(e, nl.exp, x, bias=neg_max, reduce_res=row_sum,
                        reduce_cmd=nisa.reduce_cmd.reset_reduce)
    """
    if not _is_tile(dst):
        # Legacy value-returning form activation(op, data, ...).
        op, data = dst, op
        out = _legacy_out(data, dtype)
        activation(out, op, data, bias, scale, reduce_op, reduce_res, reduce_cmd, name=name,
                   engine=engine, mask=mask)
        return out
    dst, data = apply_mask(mask, dst, data)
    _prepare(dst, name, engine)
    return _tpb.activation(dst, _op_name(op), data, bias, scale,
                           None if reduce_op is None else _op_name(reduce_op), reduce_res,
                           getattr(reduce_cmd, "name", reduce_cmd))


def activation_reduce(dst: Any, op: Any, data: Any = None, reduce_op: Any = None,
                      reduce_res: Any = None, bias: Any = None, scale: Any = 1.0, *,
                      name: Optional[str] = None, mask: Any = None, dtype: Any = None) -> Any:
    """:func:`activation` with ``reduce_cmd=reset_reduce``: ``dst = op(data * scale + bias)``
    and ``reduce_res[p] = sum(dst row p)`` (summed in FP32 before the cast to ``dst``'s
    dtype), as one ``Activate`` and one ``ActivationReadAccumulator``.

    Parameters:
        dst: tile to write (legacy form without ``dst`` returns a new SBUF tile).
        op: the function (see :func:`activation`).
        data: input tile.
        reduce_op: ``nl.add``.
        reduce_res: the ``(P, 1)`` tile for the row sums.
        bias, scale: as :func:`activation`.
        name: label for profiles and errors.
        mask: legacy affine predicate.

    Example::

        nisa.activation_reduce(e, nl.exp, x, nl.add, row_sum, bias=neg_max)
    """
    if not _is_tile(dst):
        op, data = dst, op
        out = _legacy_out(data, dtype)
        activation_reduce(out, op, data, reduce_op, reduce_res, bias, scale, name=name,
                          mask=mask)
        return out
    if reduce_res is None:
        raise UsageError("activation_reduce: reduce_res is required")
    dst, data = apply_mask(mask, dst, data)
    _prepare(dst, name, None)
    return _tpb.activation_reduce(dst, _op_name(op), data,
                                  "add" if reduce_op is None else _op_name(reduce_op),
                                  reduce_res, bias, scale)


def exponential(dst: Any, src: Any, max_value: Any = 0.0, reduce_res: Any = None,
                reduce_cmd: Any = "idle", reduce_init: Any = 0.0, *,
                name: Optional[str] = None) -> Any:
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
    _prepare(dst, name, None)
    return _tpb.exponential(dst, src, max_value, reduce_res,
                            getattr(reduce_cmd, "name", reduce_cmd), reduce_init)
