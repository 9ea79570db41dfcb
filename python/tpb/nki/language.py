"""``tpb.nki.language`` (``nl``): tiles, dtypes, index expressions, loops and the
value-returning tile operations of NKI, inside a kernel run.

Each operation emits the instruction the compiler would emit for it on the run's core (see
:mod:`tpb.nki.isa`): ``nl.add(x, 2.0)`` is one TensorScalar, ``nl.zeros`` an allocation and
a fill; ``nl.load`` / ``nl.store`` are DMAMEMCPY requests on a DMA queue. Names whose
instruction tpb does not have yet raise :class:`tpb.NotSupported` ("not supported yet: ...
needs ..."); ``docs/nki-support.md`` lists
every name with its status.

Example::

    @tpb.nki.jit
    def ramp_plus_one():
        t = nl.ndarray((128, 64), nl.float32)
        nisa.iota(t, [[1, 64]], channel_multiplier=64)
        out = nl.ndarray((128, 64), nl.float32, buffer=nl.shared_hbm)
        nl.store(out, value=nl.add(t, 1.0))
        return out
"""

from __future__ import annotations

import contextlib
import operator
from typing import Any, Iterator, Optional, Sequence, Tuple

import ml_dtypes
import numpy as np

from .. import _tpb
from .._errors import UsageError
from . import _context
from . import isa as _isa
from ._mask import IndexExpr, Predicate, apply_mask, arange_axis, mask_box

# --- dtypes (nki-api §2.3) and the non-call names -----------------------------------------
from .dtypes import (bfloat16, bool_, float4_e2m1fn_x4, float8_e4m3, float8_e4m3fn,  # noqa: E402
                     float8_e4m3fn_x4, float8_e5m2, float8_e5m2_x4, float8_e8m0fnu, float16,
                     float32, fp32, int8, int16, int32, tfloat32, uint8, uint16, uint32)
from ._surface import NKIObject, nc, spmd_dim, tile_size  # noqa: E402
from .._tpb import Tile as tensor  # noqa: E402  (annotations: `x: nl.tensor`)

Tensor = tensor


# --- memory regions (nki-api §2.1) -------------------------------------------------------
class _Buffer:
    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"nl.{self.name}"


sbuf = _Buffer("sbuf")
psum = _Buffer("psum")
private_hbm = _Buffer("private_hbm")
hbm = private_hbm
shared_hbm = _Buffer("shared_hbm")


class par_dim(int):
    """``nl.par_dim(n)``: marks the partition dim in a shape (legacy). Dims before it are
    block dims: ``nl.ndarray((n, nl.par_dim(128), F))`` is ``n`` tiles of ``(128, F)``, each
    addressed as ``t[i]`` (or ``t[i, i_p, i_f]``)."""

    def __repr__(self) -> str:
        return f"par_dim({int(self)})"


def _refuse(name: str, form: Optional[str] = None) -> Exception:
    return _tpb._nki_refuse("language", name, form)


def _core() -> Any:
    return _context.current("nki.language").core


def _is_hbm(buffer: Any) -> bool:
    return buffer is private_hbm or buffer is shared_hbm or getattr(buffer, "name", buffer) in (
        "hbm", "private_hbm", "shared_hbm")


def _shape(shape: Any) -> Tuple[int, ...]:
    shape = tuple(shape) if isinstance(shape, (tuple, list)) else (shape,)
    return tuple(int(d) for d in shape)


def _blocks(shape: Any) -> int:
    """How many block dims come before an ``nl.par_dim`` in ``shape`` (0 without one)."""
    shape = tuple(shape) if isinstance(shape, (tuple, list)) else (shape,)
    marks = [k for k, d in enumerate(shape) if isinstance(d, par_dim)]
    if len(marks) > 1:
        raise UsageError(f"shape {shape}: more than one nl.par_dim")
    return marks[0] if marks else 0


# --- creation ----------------------------------------------------------------------------
def ndarray(shape: Any, dtype: Any, buffer: Any = sbuf, name: str = "", address: Any = None,
            **kwargs: Any) -> Any:
    """An uninitialised tensor (nki-api §2.1).

    Parameters:
        shape: dims, partition dim first for on-chip buffers (at most 128 partitions); a
            legacy ``nl.par_dim`` after block dims (``(n, nl.par_dim(128), F)``) makes ``n``
            tiles of ``(128, F)``, laid out one after another in each partition.
        dtype: an ``nl`` dtype.
        buffer: ``nl.sbuf`` (default), ``nl.psum``, or an HBM buffer.
        name: names the tile in capacity errors and profiles.
        address: ``(partition_offset, byte_offset)`` pins an on-chip tile there (NKI 0.3.0+).
            Pinned tiles may overlap each other (the kernel manages that space) but not a
            tile tpb placed; the allocator keeps clear of them.

    Semantics: allocates space in the buffer (a capacity error names the tile, its size and
    what is left); reading it before a write raises under the uninitialised-read sanitizer.
    A PSUM allocation larger than one 2 KiB bank starts on a bank boundary.

    Example::

        t = nl.ndarray((128, 512), nl.float32, buffer=nl.sbuf, name="scores")
    """
    blocks = _blocks(shape)
    dims = _shape(shape)
    if _is_hbm(buffer):
        if blocks or address is not None:
            raise UsageError(f"nl.ndarray: {'nl.par_dim' if blocks else 'address='} applies to "
                             "on-chip buffers only, not HBM")
        return _hbm_ndarray(dims, dtype, getattr(buffer, "name", buffer), name)
    core = _core()
    part_first = dims[blocks:blocks + 1] + dims[:blocks] + dims[blocks + 1:]
    space = getattr(buffer, "name", buffer)
    if address is not None:
        t = _tpb._ndarray_at(core, list(part_first), dtype, space, name, address)
    else:
        t = core.ndarray(list(part_first), dtype, buffer=space, name=name)
    return t._with_blocks(blocks) if blocks else t


def _hbm_ndarray(shape: Tuple[int, ...], dtype: Any, buffer: str, name: str) -> Any:
    """An HBM tensor. In an SPMD run every instance's n-th ``shared_hbm`` allocation is the
    same tensor (the kernel's shared output), as NKI shares it across the grid."""
    ctx = _context.current("nki.language.ndarray")
    if buffer != "shared_hbm":
        return ctx.core.ndarray(list(shape), dtype, buffer="hbm", name=name)
    return ctx.shared_hbm(shape, dtype, lambda: ctx.core.ndarray(list(shape), dtype, buffer="hbm", name=name))


# --- data movement (nki-api §2.7) ---------------------------------------------------------
def load(src: Any, dtype: Any = None, *, mask: Any = None, name: Optional[str] = None,
         **kwargs: Any) -> Any:
    """``nl.load(src, dtype=None, mask=None)``: a new SBUF tile holding ``src`` (an HBM
    tensor or a view of one: slices, ``nl.ds``, ``nl.arange`` index expressions, ``.ap()``
    patterns), its first dim the partitions.

    Parameters:
        src: an HBM tensor or view (at most 128 in its first dim). A view whose index
            expressions leave the tensor (a ragged last tile) needs a ``mask`` that brings it
            back in bounds.
        dtype: the tile's dtype (default: src's; a different one converts through FP32,
            round to nearest even, as ``nisa.dma_copy`` does).
        mask: an affine predicate over the view's ``nl.arange`` indices: the tile keeps the
            view's shape and only the box is loaded (the other elements are don't-care).
        name: label for profiles and errors.

    Semantics: one DMAMEMCPY (0xB8) issued on SP (POOL on sunda) whose transfer runs on that
    engine's DMA queue (a copy that does not fit one request is split into several); an
    instruction that reads the tile waits for the DMA's data-landed semaphore, not for the
    request's issue.

    Example::

        t = nl.load(a[i * 128 + i_p, i_f], mask=(i * 128 + i_p < n_rows))
    """
    t = ndarray(tuple(src.shape), dtype or src.dtype, buffer=sbuf, name=name or "")
    dst, src = apply_mask(mask, t, src)
    _isa.dma_copy(dst, src, name=name)
    return t


def store(dst: Any, value: Any, *, mask: Any = None, name: Optional[str] = None,
          **kwargs: Any) -> None:
    """``nl.store(dst, value, mask=None)``: writes the SBUF tile ``value`` to the HBM tensor
    (or view) ``dst``.

    Parameters:
        dst: an HBM tensor or view with value's element count (an on-chip ``dst`` is refused,
            as NKI refuses it: copy on chip with ``nl.copy`` / ``nisa.tensor_copy``). A
            transposed placement (``out[i_f, i_p]``) writes the tile transposed.
        value: an SBUF tile (a PSUM tile is refused: copy it to SBUF first).
        mask: an affine predicate over the views' ``nl.arange`` indices (stores the box only).
        name: label for profiles and errors.

    Semantics: one DMAMEMCPY (0xB8) on SP's DMA queue (POOL's on sunda), issued once the
    instructions that wrote ``value`` have completed.

    Example::

        nl.store(out[i * 128 + i_p, i_f], value=t, mask=(i * 128 + i_p < n_rows))
    """
    if getattr(dst, "buffer", None) in ("sbuf", "psum"):
        raise UsageError(f"nl.store: dst is an {dst.buffer.upper()} tile; nl.store writes HBM "
                         "(copy on chip with nl.copy or nisa.tensor_copy)")
    dst, value = apply_mask(mask, dst, value)
    _isa.dma_copy(dst, value, name=name)


def _fill(t: Any, value: Any, what: str) -> Any:
    if t.buffer == "hbm":
        raise _refuse(what, "an HBM tensor (engines cannot write HBM: fill an SBUF tile and "
                            "nl.store it)")
    v = value
    if np.dtype(t.dtype).kind in "iub":
        if float(value) != int(value):
            raise UsageError(f"nl.{what}: fill value {value!r} is not an integer for {t.dtype}")
        v = int(value)
    else:
        v = float(value)
    _isa.memset(t, v)
    return t


def zeros(shape: Any, dtype: Any, buffer: Any = sbuf, name: str = "", **kwargs: Any) -> Any:
    """A zero-filled tensor.

    Parameters: as :func:`ndarray`.

    Semantics: an allocation and a Memset.

    Example::

        acc = nl.zeros((128, 1), nl.float32)
    """
    return _fill(ndarray(shape, dtype, buffer, name), 0, "zeros")


def ones(shape: Any, dtype: Any, buffer: Any = sbuf, name: str = "", **kwargs: Any) -> Any:
    """A one-filled tensor (as :func:`zeros`).

    Example::

        w = nl.ones((128, 64), nl.float32)
    """
    return _fill(ndarray(shape, dtype, buffer, name), 1, "ones")


def full(shape: Any, fill_value: Any, dtype: Any, buffer: Any = sbuf, name: str = "",
         **kwargs: Any) -> Any:
    """A tensor filled with ``fill_value`` (an allocation and a Memset).

    Example::

        t = nl.full((128, 64), 7, nl.int32)
    """
    return _fill(ndarray(shape, dtype, buffer, name), fill_value, "full")


def zeros_like(x: Any, dtype: Any = None, buffer: Any = None, name: str = "") -> Any:
    """Zeros with ``x``'s shape (and dtype unless given).

    Example::

        z = nl.zeros_like(t)
    """
    return zeros(tuple(x.shape), dtype or x.dtype, buffer or sbuf, name)


def empty_like(x: Any, dtype: Any = None, buffer: Any = None, name: str = "") -> Any:
    """An uninitialised tensor with ``x``'s shape, dtype and buffer unless given.

    Example::

        y = nl.empty_like(x)
    """
    return ndarray(tuple(x.shape), dtype or x.dtype, buffer or getattr(x, "buffer", "sbuf"), name)


# --- indexing and loops ------------------------------------------------------------------
def arange(*args: int) -> IndexExpr:
    """``nl.arange(stop)`` / ``nl.arange(start, stop)``: an index vector. Unplaced it
    subscripts one dim as a range; ``[:, None]`` places it on the partition axis of an index
    grid, ``[None, :]`` on the free axis (``[None, :, None]`` on the middle of three). Placed
    expressions are affine: ``i * 128 + i_p``, ``2 * i_f + 1``, ``i_f1 * F2 + i_f2``; a
    subscript ``t[i_f, i_p]`` places the tensor's dims transposed.

    Example::

        i_p, i_f = nl.arange(128)[:, None], nl.arange(512)[None, :]
        t[i_p, i_f]
    """
    if len(args) == 1:
        start, stop = 0, args[0]
    elif len(args) == 2:
        start, stop = args
    else:
        raise UsageError("nl.arange(stop) or nl.arange(start, stop)")
    return IndexExpr.range(int(start), int(stop) - int(start), 1)


class _Grid(tuple):
    @property
    def p(self) -> IndexExpr:
        return self[0]

    @property
    def x(self) -> IndexExpr:
        return self[-1]

    @property
    def y(self) -> IndexExpr:
        return self[1]


class _MGrid:
    """``nl.mgrid[0:128, 0:512]``: one index expression per axis of a dense grid
    (``i_p, i_f = ...`` or ``.p`` / ``.x``)."""

    def __getitem__(self, key: Any) -> _Grid:
        key = key if isinstance(key, tuple) else (key,)
        ranges = []
        for k in key:
            if not isinstance(k, slice) or k.stop is None:
                raise UsageError(f"nl.mgrid[{key!r}]: each axis is start:stop[:step]")
            start, step = int(k.start or 0), int(k.step or 1)
            ranges.append((start, step, len(range(start, int(k.stop), step))))
        sizes = [n for _, _, n in ranges]
        return _Grid(arange_axis(start, n, step, axis, sizes)
                     for axis, (start, step, n) in enumerate(ranges))


mgrid = _MGrid()


def ds(start: int, size: int) -> IndexExpr:
    """``nl.ds(start, size)``: the subscript ``start:start+size``.

    Example::

        t[:, nl.ds(i * 64, 64)]
    """
    return IndexExpr.range(int(start), int(size), 1)


def _range(what: str, args: Tuple[Any, ...], kwargs: dict) -> range:
    # NKI 0.6.0: `affine_range(start, stop=None, step=1)` (range(start) when stop is None),
    # plus the legacy loop `directives=` (nki.compiler.no_reorder(), multi_buffer(n)).
    kwargs = dict(kwargs)
    kwargs.pop("directives", None)
    names = ("start", "stop", "step")
    unknown = sorted(set(kwargs) - set(names))
    if unknown:
        raise UsageError(f"nl.{what}: unexpected keyword {unknown[0]!r} "
                         "(takes start, stop, step, directives)")
    if len(args) > 3:
        raise UsageError(f"nl.{what}: at most 3 positional arguments (start, stop, step)")
    given = dict(zip(names, args))
    for k, v in kwargs.items():
        if k in given:
            raise UsageError(f"nl.{what}: {k} given twice")
        given[k] = v
    if given.get("start") is None:
        raise UsageError(f"nl.{what}: start (or stop) is required")
    bounds = []
    for k in names:
        v = given.get(k, (0, None, 1)[names.index(k)])
        if v is None:
            continue
        if isinstance(v, bool) or not hasattr(v, "__index__"):
            raise UsageError(f"nl.{what}: {k} must be an int, not {v!r}")
        bounds.append(operator.index(v))
    if len(bounds) == 3 and bounds[2] == 0:
        raise UsageError(f"nl.{what}: step must not be zero")
    return range(bounds[0]) if given.get("stop") is None else range(*bounds)


def affine_range(*args: int, **kwargs: Any) -> range:
    """A loop with no carried dependency (NKI 0.6.0: an alias of ``range``, unrolled):
    ``(stop)``, ``(start, stop[, step])`` or the keywords ``start=``, ``stop=``, ``step=``;
    ``directives=`` is accepted.

    Example::

        for i in nl.affine_range(4): ...
        for i in nl.affine_range(0, stop=8, step=2): ...
    """
    return _range("affine_range", args, kwargs)


def sequential_range(*args: int, **kwargs: Any) -> range:
    """A loop with carried dependencies (an alias of ``range``, unrolled); arguments as
    :func:`affine_range`.

    Example::

        for i in nl.sequential_range(start=1, stop=4): ...
    """
    return _range("sequential_range", args, kwargs)


def static_range(*args: int, **kwargs: Any) -> range:
    """A fully unrolled loop (an alias of ``range``); arguments as :func:`affine_range`.

    Example::

        for i in nl.static_range(4): ...
    """
    return _range("static_range", args, kwargs)


@contextlib.contextmanager
def no_reorder() -> Iterator[None]:
    """Keeps program order inside the block (tpb emits in program order anyway).

    Example::

        with nl.no_reorder(): ...
    """
    yield


def program_id(axis: int = 0) -> int:
    """This instance's index along SPMD grid axis ``axis`` (``kernel[g0, g1](...)``).

    Example::

        i = nl.program_id(0)
    """
    ctx = _context.current("nki.language.program_id")
    if not ctx.grid:
        return 0
    if not 0 <= axis < len(ctx.grid):
        raise UsageError(f"program_id({axis}): the grid has {len(ctx.grid)} axes")
    return ctx.position[axis]


def num_programs(axes: Any = 0) -> int:
    """Instances along grid axis ``axes`` (or the product over a tuple of axes); 1 without a
    grid.

    Example::

        n = nl.num_programs(0)
    """
    ctx = _context.current("nki.language.num_programs")
    if not ctx.grid:
        return 1
    axes_t = axes if isinstance(axes, (tuple, list)) else (axes,)
    n = 1
    for a in axes_t:
        n *= ctx.grid[a]
    return n


def program_ndim() -> int:
    """The number of grid axes (0 without a grid).

    Example::

        nd = nl.program_ndim()
    """
    return len(_context.current("nki.language.program_ndim").grid)


def device_print(prefix: str, x: Any) -> None:
    """Prints a tile's current values (simulation only).

    Example::

        nl.device_print("t=", t)
    """
    _context.flush(x.core)
    print(prefix, x.numpy())


# --- element-wise --------------------------------------------------------------------------
def _new_like(x: Any, dtype: Any) -> Any:
    return ndarray(tuple(x.shape), dtype or x.dtype, buffer=sbuf)


def _is_tile(x: Any) -> bool:
    return isinstance(x, _tpb.Tile)


def _scalar_operand(y: Any) -> bool:
    return not _is_tile(y) or (len(y.shape) == 2 and y.shape[1] == 1)


_COMMUTATIVE = {"add", "multiply", "maximum", "minimum", "equal", "not_equal",
                "bitwise_and", "bitwise_or", "bitwise_xor"}


def _binary(name: str, x: Any, y: Any, dtype: Any, mask: Any) -> Any:
    if _is_tile(x) and _is_tile(y) and tuple(x.shape) == tuple(y.shape):
        out = _new_like(x, dtype)
        _isa.tensor_tensor(out, x, y, name, mask=mask)
        return out
    if _is_tile(x) and _scalar_operand(y):
        out = _new_like(x, dtype)
        _isa.tensor_scalar(out, x, name, y, mask=mask)
        return out
    if _is_tile(y) and _scalar_operand(x):
        out = _new_like(y, dtype)
        _isa.tensor_scalar(out, y, name, x, reverse0=name not in _COMMUTATIVE, mask=mask)
        return out
    raise _refuse(name, f"shapes {getattr(x, 'shape', x)} and {getattr(y, 'shape', y)}: NKI 0.6.0 binary ops do not broadcast")


def _binary_fn(name: str) -> Any:
    def f(x: Any, y: Any, dtype: Any = None, *, mask: Any = None, **kwargs: Any) -> Any:
        return _binary(name, x, y, dtype, mask)

    f.__name__ = f.__qualname__ = name
    f.__tpb_op__ = name  # type: ignore[attr-defined]
    f.__doc__ = (
        f"``nl.{name}(x, y, dtype=None)``: element-wise ``{name}`` of two tiles, or of a tile\n"
        "and a scalar (a number or a ``(P, 1)`` tile), returned as a new SBUF tile.\n\n"
        "Parameters:\n"
        "    x, y: tiles or numbers (at least one a tile).\n"
        "    dtype: the result's dtype (default: the tile's).\n"
        "    mask: legacy affine predicate.\n\n"
        "Semantics: two tiles of one shape: one TensorTensor; a tile and a number or a (P, 1)\n"
        "tile: one TensorScalar (FP32 arithmetic for float ops, integer bits for bitwise ops).\n\n"
        f"Example::\n\n    y = nl.{name}(x, 2.0)\n"
    )
    return f


add = _binary_fn("add")
subtract = _binary_fn("subtract")
multiply = _binary_fn("multiply")
maximum = _binary_fn("maximum")
minimum = _binary_fn("minimum")
equal = _binary_fn("equal")
not_equal = _binary_fn("not_equal")
greater = _binary_fn("greater")
greater_equal = _binary_fn("greater_equal")
less = _binary_fn("less")
less_equal = _binary_fn("less_equal")
bitwise_and = _binary_fn("bitwise_and")
bitwise_or = _binary_fn("bitwise_or")
bitwise_xor = _binary_fn("bitwise_xor")
left_shift = _binary_fn("left_shift")
right_shift = _binary_fn("right_shift")


def abs(x: Any, dtype: Any = None, *, mask: Any = None, **kwargs: Any) -> Any:  # noqa: A001
    """``|x|`` element-wise, as a new SBUF tile (one TensorScalar, op ``abs``).

    Parameters:
        x: a tile.
        dtype: the result's dtype (default: x's).

    Example::

        y = nl.abs(x)
    """
    out = _new_like(x, dtype)
    _isa.tensor_scalar(out, x, "abs", 0.0, mask=mask)
    return out


abs.__tpb_op__ = "abs"  # type: ignore[attr-defined]


def negative(x: Any, dtype: Any = None, *, mask: Any = None, **kwargs: Any) -> Any:
    """``-x`` element-wise, as a new SBUF tile (one TensorScalar multiplying by -1.0).

    Parameters:
        x: a tile.
        dtype: the result's dtype (default: x's).

    Example::

        y = nl.negative(x)
    """
    out = _new_like(x, dtype)
    _isa.tensor_scalar(out, x, "multiply", -1.0, mask=mask)
    return out


def copy(x: Any, dtype: Any = None, *, mask: Any = None, **kwargs: Any) -> Any:
    """A copy of an SBUF/PSUM tile as a new SBUF tile (Vector ``tensor_copy``: bit-exact when
    the dtypes are equal, else through FP32).

    Parameters:
        x: a tile; dtype: the result's dtype (default: x's).

    Example::

        sb = nl.copy(psum_tile, dtype=nl.bfloat16)
    """
    out = _new_like(x, dtype)
    _isa.tensor_copy(out, x, mask=mask)
    return out


def broadcast_to(x: Any, shape: Any, dtype: Any = None) -> Any:
    """``x`` broadcast to ``shape`` (same rank; size-1 dims repeat) as a new SBUF tile: one
    ``tensor_copy`` from a zero-step view for the free dims; a single partition is copied to
    all partitions by one DMA with a partition step of 0 (engines cannot do that).

    Parameters:
        x: a tile; shape: the target shape; dtype: the result's dtype (default: x's).

    Example::

        g = nl.broadcast_to(gamma_row, (1, 512))
    """
    shape = tuple(int(d) for d in shape)
    if len(shape) != len(x.shape):
        raise UsageError(f"nl.broadcast_to: shape {shape} must have x's rank {len(x.shape)}")
    if tuple(x.shape) == shape:
        return x
    if shape[0] != x.shape[0]:
        if x.shape[0] != 1:
            raise UsageError(f"nl.broadcast_to: partition dim {x.shape[0]} cannot broadcast to {shape[0]}")
        # Engines read a partition into itself only: one DMA with a partition step of 0
        # copies the single partition to all of them (after the free dims are broadcast).
        row = broadcast_to(x, (1,) + shape[1:], dtype)
        out = ndarray(shape, dtype or x.dtype)
        _context.label(out.core)
        _tpb._kernel_broadcast_partitions(out, row)
        return out
    v = x
    for d in range(1, len(shape)):
        if x.shape[d] != shape[d]:
            v = v.broadcast(d, shape[d])
    out = ndarray(shape, dtype or x.dtype)
    _isa.tensor_copy(out, v)
    return out


def reciprocal(x: Any, dtype: Any = None, *, mask: Any = None, **kwargs: Any) -> Any:
    """``1 / x`` element-wise in FP32 (Vector ``Reciprocal``), as a new SBUF tile.

    Parameters:
        x: a tile; dtype: the result's dtype (default: x's).

    Example::

        inv = nl.reciprocal(sums)
    """
    out = _new_like(x, dtype)
    _isa.reciprocal(out, x, mask=mask)
    return out


def divide(x: Any, y: Any, dtype: Any = None, *, mask: Any = None, **kwargs: Any) -> Any:
    """``x / y`` element-wise, as a new SBUF tile (``x / y`` on tiles is this call).

    Parameters:
        x, y: tiles (of one shape, or a ``(P, 1)`` tile beside a ``(P, F)`` one) or numbers
            (at least one a tile).
        dtype: the result's dtype (default: the tile's).

    Semantics: DIVIDE is not a hardware instruction for NKI (nki-api §2.8, nki-semantics §3:
    "multiply by reciprocal"), so tpb lowers it that way (assumption ``divide-lowering``):
    ``tile / number`` is one TensorScalar multiplying by the FP32 ``1 / number``;
    ``x / tile`` is a Vector ``Reciprocal`` of the divisor into FP32, then (unless ``x`` is
    1) a TensorScalar or TensorTensor multiply. Results can differ from IEEE ``x / y`` in
    the last bit, as the hardware's do.

    Example::

        mean = nl.divide(row_sum, 512.0)     # = row_sum / 512.0
        inv = 1.0 / row_sum                  # one Reciprocal
    """
    if _is_tile(y):
        inv = ndarray(tuple(y.shape), float32, buffer=sbuf)
        _isa.reciprocal(inv, y, mask=mask)
        if not _is_tile(x) and float(x) == 1.0:
            return inv if dtype is None or np.dtype(dtype) == float32 else copy(inv, dtype)
        if _is_tile(x):
            return _binary("multiply", x, inv, dtype or x.dtype, mask)
        return _binary("multiply", inv, x, dtype or y.dtype, mask)
    if not _is_tile(x):
        raise UsageError("nl.divide: at least one of x and y must be a tile")
    if isinstance(y, bool) or not isinstance(y, (int, float, np.integer, np.floating)):
        raise UsageError(f"nl.divide: y must be a tile or a number, not {type(y).__name__}")
    return _binary("multiply", x, float(np.float32(1.0) / np.float32(y)), dtype, mask)


def _axes(x: Any, axis: Any) -> list:
    axes = list(axis) if isinstance(axis, (list, tuple)) else [axis]
    nd = len(x.shape)
    return sorted(a + nd if a < 0 else a for a in axes)


def _reduce(op: str, x: Any, axis: Any, dtype: Any, keepdims: bool, negate: bool = False,
            mask: Any = None) -> Any:
    axes = _axes(x, axis)
    shape = [d if k not in axes else 1 for k, d in enumerate(x.shape)]
    kept = [k for k in range(len(shape)) if k not in axes]
    if not keepdims:
        shape = [shape[k] for k in kept]
        if len(shape) < 2:
            shape.append(1)
    out = ndarray(tuple(shape), dtype or x.dtype)
    if mask is None:
        _reduce_into(op, out, x, axes, negate)
        return out
    # The mask bounds the input's axes; the result keeps the box of the kept ones.
    box = mask_box(mask, tuple(x.shape))
    src = x[tuple(slice(*box.get(a, (0, n))) for a, n in enumerate(x.shape))]
    out_axes = range(len(x.shape)) if keepdims else kept
    key = [slice(*box.get(a, (0, n))) if a not in axes else slice(None) for a, n in
           zip(out_axes, x.shape if keepdims else [x.shape[k] for k in kept])]
    dst = out[tuple(key)]
    if tuple(dst.shape) != tuple(out.shape):
        out._mark_masked_out()
    _reduce_into(op, dst, src, axes, negate)
    return out


def _reduce_into(op: str, out: Any, x: Any, axes: list, negate: bool) -> None:
    nd = len(x.shape)
    trailing = list(range(nd - len(axes), nd))
    if axes != trailing and axes[0] >= 1:
        # TensorReduce reduces the innermost dims: as the compiler does, copy the view with
        # the reduced axes moved last into a contiguous tile first.
        keep = [a for a in range(1, nd) if a not in axes]
        moved = x.permute(keep + axes)
        x = ndarray(tuple(moved.shape), x.dtype)
        _isa.tensor_copy(x, moved)
    _isa.tensor_reduce(out, op, x, trailing if len(trailing) > 1 else trailing[0], negate,
                       False)


def _reduction(op: str, name: str) -> Any:
    def f(x: Any, axis: Any, dtype: Any = None, keepdims: bool = False, *, mask: Any = None,
          **kwargs: Any) -> Any:
        return _reduce(op, x, axis, dtype, keepdims, mask=mask)

    f.__name__ = f.__qualname__ = name
    f.__doc__ = (
        f"``nl.{name}(x, axis, dtype=None, keepdims=False)``: reduces the trailing free axes\n"
        f"``axis`` of ``x`` with ``{op}`` (one TensorReduce), as a new SBUF tile.\n\n"
        "Parameters:\n"
        "    x: a tile; axis: an int or a list of trailing free axes (never 0).\n"
        "    dtype: the result's dtype (default: x's); keepdims: keep reduced axes as size 1.\n\n"
        f"Example::\n\n    m = nl.{name}(t, axis=1, keepdims=True)\n"
    )
    return f


sum = _reduction("add", "sum")  # noqa: A001
max = _reduction("maximum", "max")  # noqa: A001
min = _reduction("minimum", "min")  # noqa: A001
prod = _reduction("multiply", "prod")


def mean(x: Any, axis: Any, dtype: Any = None, keepdims: bool = False, *, mask: Any = None,
         **kwargs: Any) -> Any:
    """``nl.mean(x, axis, dtype=None, keepdims=False)``: the FP32 sum over ``axis`` (one
    TensorReduce into an FP32 tile) times ``1/n`` (one TensorScalar into ``dtype``).

    Parameters:
        x: a tile; axis: trailing free axes; dtype: result dtype (default: x's);
        keepdims: keep reduced axes as size 1.

    Example::

        mu = nl.mean(t, axis=1, keepdims=True)
    """
    n = 1
    for a in _axes(x, axis):
        n *= x.shape[a]
    s = _reduce("add", x, axis, float32, keepdims, mask=mask)
    out = _new_like(s, dtype or x.dtype)
    _isa.tensor_scalar(out, s, "multiply", 1.0 / n)
    return out


# --- matmul and transpose on the Tensor engine (nki-api §2.10) -----------------------------
def _in_sbuf(x: Any) -> Any:
    """``x`` itself when it is in SBUF, else a copy there (the PE reads SBUF only)."""
    return x if x.buffer == "sbuf" else copy(x)


def _free(x: Any) -> int:
    n = 1
    for d in x.shape[1:]:
        n *= int(d)
    return n


def transpose(x: Any, dtype: Any = None, *, mask: Any = None, **kwargs: Any) -> Any:
    """``x.T`` for a 2-D tile of at most 128 × 128 (free dims flattened), through the
    Tensor engine as NKI lowers it: a LoadWeights of ``x`` and a Matmul against an identity
    (:func:`tpb.nki.isa.nc_transpose` with ``engine.tensor``), into a new PSUM tile.

    Parameters:
        x: a tile ``[P, F]`` (a PSUM tile is first copied to SBUF: the PE reads SBUF only).
        dtype: the result's dtype (default: x's).

    Semantics: fp32 on cayman/mariana is the bit-accurate transpose into an fp32 PSUM tile.
    Other dtypes (and sunda) multiply by the identity into fp32 PSUM, exact for finite
    non-zero values (a zero may lose its sign; NaN/Inf spread along the row, as on NC-v2),
    then one ``tensor_copy`` gives the result in ``dtype`` (exact: the values are ``x``'s)
    as an SBUF tile: a PSUM write needs a 4-byte dtype, and the PE's own 16/8-bit transpose
    layout in PSUM is not public.

    Example::

        tT = nl.transpose(t)          # t (64, 128) in SBUF -> tT (128, 64) in PSUM
        out = nl.copy(tT)
    """
    if mask is not None:
        raise _refuse("transpose", "mask=")
    src = _in_sbuf(x)
    shape = (_free(src), int(src.shape[0]))
    want = np.dtype(dtype) if dtype is not None else np.dtype(x.dtype)
    out = ndarray(shape, float32, buffer=psum)
    _isa.nc_transpose(out, src, engine=_isa.engine.tensor)
    if want == float32:
        return out
    res = ndarray(shape, want, buffer=sbuf)
    _isa.tensor_copy(res, out)
    return res


def matmul(x: Any, y: Any, transpose_x: bool = False, *, mask: Any = None,
           **kwargs: Any) -> Any:
    """``x @ y`` (or ``x.T @ y`` with ``transpose_x=True``) as a new fp32 **PSUM** tile, on
    the Tensor engine (:func:`tpb.nki.isa.nc_matmul`).

    Parameters:
        x: ``[K, M]`` with ``transpose_x=True`` (the stationary operand, M ≤ 128), else
            ``[M, K]`` (transposed first through the PE, as :func:`transpose`, then copied to
            SBUF in x's dtype).
        y: ``[K, N]`` (the moving operand, N ≤ 512); K ≤ 128. Tiles in PSUM are copied to
            SBUF first.
        transpose_x: whether ``x`` is already transposed (NKI: always pass ``True``).

    Semantics: the result tile is allocated at once (a PSUM capacity error names it
    ``nl.matmul``); its Matmul is emitted just before the next call, so that
    ``acc += nl.matmul(a, b, transpose_x=True)`` is one Matmul that accumulates into the
    PSUM tile ``acc`` (as the NKI compiler lowers it) instead of a Matmul and an add.
    Numbers: exact per tpb's documented summation order (see ``nc_matmul``).

    Example (K-tiled accumulation)::

        acc = nl.zeros((128, 512), nl.float32, buffer=nl.psum)
        for k in nl.affine_range(2):
            acc += nl.matmul(lhsT[k * 128:(k + 1) * 128], rhs[k * 128:(k + 1) * 128],
                             transpose_x=True)
    """
    if mask is not None:
        raise _refuse("matmul", "mask=")
    core = _core()
    stationary = _in_sbuf(x) if transpose_x else copy(transpose(x), dtype=x.dtype)
    moving = _in_sbuf(y)
    origin = _context.origin()
    out = core.ndarray([_free(stationary), _free(moving)], float32, buffer="psum",
                       name=f"nl.matmul at {origin}" if origin else "nl.matmul")
    _tpb._nc_matmul_check(out, stationary, moving)  # errors at this line, not at the flush

    def emit(acc: Any) -> None:
        _tpb._kernel_set_call(core, origin, None, None)
        if acc is None:
            _tpb.nc_matmul(out, stationary, moving, accumulate=False)
        else:
            _tpb.nc_matmul(acc, stationary, moving, accumulate=True)

    _context.defer(core, out, emit)
    return out


def _iadd(acc: Any, value: Any) -> None:
    """``acc += value`` (``Tile.__iadd__``): the pending ``nl.matmul`` whose result is
    ``value`` accumulates into ``acc`` (one Matmul); anything else is one element-wise add
    (``tensor_tensor`` for a tile of acc's shape, ``tensor_scalar`` for a number or a
    ``(P, 1)`` tile)."""
    emit = _context.take(acc.core, value)
    if emit is not None:
        emit(acc)
        return
    if _is_tile(value) and tuple(value.shape) == tuple(acc.shape):
        _isa.tensor_tensor(acc, acc, value, "add")
    elif _scalar_operand(value):
        _isa.tensor_scalar(acc, acc, "add", value)
    else:
        raise _refuse("add", f"acc += value of shape {getattr(value, 'shape', value)} into "
                             f"{tuple(acc.shape)}")


def shared_identity_matrix(n: int, dtype: Any = uint8, dst: Any = None) -> Any:
    """An ``n × n`` identity matrix in SBUF: a Memset of 1 and an ``affine_select`` keeping
    the diagonal (the nki-library ``cascaded_max`` recipe).

    Parameters:
        n: size (at most 128); dtype: element dtype; dst: an existing tile to fill.

    Example::

        ident = nl.shared_identity_matrix(128, dtype=nl.float32)
    """
    ones_t = full((n, n), 1, dtype)
    out = dst if dst is not None else ndarray((n, n), dtype)
    _isa.affine_select(out, [[1, n]], -1, ones_t, 0.0, cmp_op="equal")
    return out


# --- element-wise functions on the activation engine (issue 18) ---------------------------
# Each is one Activate (0x21) with the function's id (docs/reference/pe-act.md).
_EXACT_ACT = {"relu", "square", "sign"}


def _activation_fn(fname: str, formula: str) -> Any:
    def f(x: Any, dtype: Any = None, *, mask: Any = None, **kwargs: Any) -> Any:
        out = _new_like(x, dtype)
        _isa.activation(out, fname, x, mask=mask)
        return out

    exact = fname in _EXACT_ACT
    f.__name__ = f.__qualname__ = fname
    f.__tpb_op__ = fname  # type: ignore[attr-defined]
    f.__doc__ = (
        f"``nl.{fname}(x, dtype=None)``: ``{formula}`` element-wise, as a new SBUF tile (one\n"
        f"scalar-engine Activate with the ``{fname}`` function; also an ``op`` for\n"
        "``nisa.activation``).\n\n"
        "Parameters:\n"
        "    x: a tile (SBUF or PSUM).\n"
        "    dtype: the result's dtype (default: x's).\n"
        "    mask: legacy affine predicate.\n\n"
        + ("Semantics: computed in FP32 and exact (a hardwired function).\n\n" if exact else
           "Semantics: approximate: the hardware evaluates it from unpublished tables; tpb\n"
           "computes the definition in float64 and rounds once to FP32, and labels the\n"
           "instruction approximate (``strict_exact=True`` makes that an error).\n\n")
        + f"Example::\n\n    y = nl.{fname}(x)\n"
    )
    return f


exp = _activation_fn("exp", "e**x")
log = _activation_fn("log", "ln(x)")
sqrt = _activation_fn("sqrt", "sqrt(x)")
rsqrt = _activation_fn("rsqrt", "1 / sqrt(x)")
tanh = _activation_fn("tanh", "tanh(x)")
sigmoid = _activation_fn("sigmoid", "1 / (1 + e**-x)")
relu = _activation_fn("relu", "max(x, 0)")
gelu = _activation_fn("gelu", "x * Phi(x)")
gelu_dx = _activation_fn("gelu_dx", "d/dx gelu(x)")
gelu_apprx_tanh = _activation_fn(
    "gelu_apprx_tanh", "0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x**3)))")
gelu_apprx_sigmoid = _activation_fn("gelu_apprx_sigmoid", "x * sigmoid(1.702 x)")
gelu_apprx_sigmoid_dx = _activation_fn("gelu_apprx_sigmoid_dx", "d/dx gelu_apprx_sigmoid(x)")
silu = _activation_fn("silu", "x * sigmoid(x)")
silu_dx = _activation_fn("silu_dx", "d/dx silu(x)")
erf = _activation_fn("erf", "erf(x)")
erf_dx = _activation_fn("erf_dx", "2/sqrt(pi) e**(-x**2)")
sin = _activation_fn("sin", "sin(x) (no range reduction: valid on [-pi, pi])")
arctan = _activation_fn("arctan", "arctan(x)")
softplus = _activation_fn("softplus", "ln(1 + e**x)")
mish = _activation_fn("mish", "x * tanh(softplus(x))")
square = _activation_fn("square", "x * x")
sign = _activation_fn("sign", "sign(x)")


def softmax(x: Any, axis: Any = -1, dtype: Any = None, *, compute_dtype: Any = None,
            mask: Any = None, **kwargs: Any) -> Any:
    """``nl.softmax(x, axis=-1, dtype=None)``: ``e**(x - max) / sum(e**(x - max))`` along the
    last free axis of a 2-D tile, as a new SBUF tile.

    Parameters:
        x: a 2-D tile ``(P, F)``.
        axis: the last free axis (``-1`` or ``1``); other axes raise :class:`tpb.NotSupported`.
        dtype: the result's dtype (default: x's). Intermediates are float32.

    Semantics: the lowering is tpb's (the compiler's is not public): one TensorReduce
    (``-max`` per partition, negated), one Activate ``exp`` with that bias whose accumulator
    sums each row (and an ActivationReadAccumulator), one Vector Reciprocal and one
    TensorScalar multiply. The exp is approximate (see :func:`exp`).

    Example::

        p = nl.softmax(scores, axis=1)
    """
    nd = len(x.shape)
    if nd != 2 or _axes(x, axis) != [1]:
        raise _refuse("softmax", f"axis={axis!r} of a {nd}-D tile (tpb lowers the last free "
                      "axis of a 2-D tile)")
    parts = x.shape[0]
    neg_max = ndarray((parts, 1), float32)
    _isa.tensor_reduce(neg_max, "maximum", x, 1, negate=True, keepdims=True)
    e = ndarray(tuple(x.shape), float32)
    row_sum = ndarray((parts, 1), float32)
    _isa.activation(e, "exp", x, bias=neg_max, reduce_op="add", reduce_res=row_sum,
                    reduce_cmd="reset_reduce")
    inv = ndarray((parts, 1), float32)
    _isa.reciprocal(inv, row_sum)
    out = _new_like(x, dtype)
    _isa.tensor_scalar(out, e, "multiply", inv, mask=mask)
    return out


def _refused(fname: str) -> Any:
    def call(*args: Any, **kwargs: Any) -> Any:
        raise _refuse(fname)

    row = [r for r in _tpb._nki_support() if r[0] == "language" and r[1] == fname][0]
    call.__name__ = call.__qualname__ = fname
    call.__tpb_op__ = fname  # type: ignore[attr-defined]
    call.__doc__ = (
        f"``nki.language.{fname}`` ({row[2]}: {row[3]}).\n\n"
        "Parameters: as NKI 0.6.0 documents them (docs/nki-support.md).\n\n"
        "Semantics: raises :class:`tpb.NotSupported` naming what is missing.\n\n"
        f"Example::\n\n    nl.{fname}(...)  # raises tpb.NotSupported\n"
    )
    return call


_DEFINED = {k for k in list(globals()) if not k.startswith("_")}
for _m, _n, _tag, _detail in _tpb._nki_support():
    if _m == "language" and _n not in _DEFINED:
        globals()[_n] = _refused(_n)

__all__ = sorted(
    k for k, v in list(globals().items())
    if not k.startswith("_") and k not in ("annotations", "contextlib", "np", "ml_dtypes",
                                           "Any", "Iterator", "Optional", "Sequence", "Tuple",
                                           "UsageError", "IndexExpr", "Predicate", "operator",
                                           "apply_mask")
)
