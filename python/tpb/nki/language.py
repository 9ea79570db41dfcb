"""``tpb.nki.language`` (``nl``): tiles, dtypes, index expressions, loops and the
value-returning tile operations of NKI, inside a kernel run.

Each operation emits the instruction the compiler would emit for it on the run's core (see
:mod:`tpb.nki.isa`): ``nl.add(x, 2.0)`` is one TensorScalar, ``nl.zeros`` an allocation and
a fill; ``nl.load`` / ``nl.store`` are DMAMEMCPY requests on a DMA queue. A bad argument
raises :class:`tpb.UsageError` naming the parameter; names whose instruction tpb does not
have yet raise :class:`tpb.NotSupported` ("not supported yet: ... needs ...");
``docs/nki-support.md`` lists every name with its status.

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
import math
import operator
from typing import (Annotated, Callable, Dict, Iterator, List, Optional, Sequence, Tuple,
                    Union)

import numpy as np

from .._errors import UsageError
from .. import _tpb
from .._tpb import Core
from . import _api, _context
from . import isa as _isa
from ._api import SUPPORTED, composed, constant, not_supported, not_yet, partial, refused
from ._mask import IndexExpr, apply_mask, arange_axis, mask_box
from ._types import AluOp, Axes, DType, Kind, Mask, Name, Tile

# --- dtypes (nki-api §2.3) and the non-call names -----------------------------------------
from .dtypes import (bfloat16, bool_, float4_e2m1fn_x4, float8_e4m3, float8_e4m3fn,  # noqa: E402
                     float8_e4m3fn_x4, float8_e5m2, float8_e5m2_x4, float8_e8m0fnu, float16,
                     float32, fp32, int8, int16, int32, tfloat32, uint8, uint16, uint32)
from ._surface import ModAlloc as _ModAlloc  # noqa: E402
from ._surface import NKIObject, nc, spmd_dim, tile_size  # noqa: E402
from .._tpb import Tile as tensor  # noqa: E402  (annotations: `x: nl.tensor`)

Tensor = tensor

TileOrNumber = Annotated[Union[Tile, float], Kind("tile_or_number")]
"""A tile, or a number for one side of a binary operation."""


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
Buffer = Union[_Buffer, str]
for _n in ("sbuf", "psum", "hbm", "private_hbm", "shared_hbm"):
    constant("language", _n)


class par_dim(int):
    """``nl.par_dim(n)``: marks the partition dim in a shape (legacy). Dims before it are
    block dims: ``nl.ndarray((n, nl.par_dim(128), F))`` is ``n`` tiles of ``(128, F)``, each
    addressed as ``t[i]`` (or ``t[i, i_p, i_f]``)."""

    def __repr__(self) -> str:
        return f"par_dim({int(self)})"


constant("language", "par_dim")
constant("language", "tile_size")
constant("language", "NKIObject")
constant("language", "nc")
constant("language", "spmd_dim")


def _refuse(name: str, form: Optional[str] = None) -> Exception:
    return _api.refuse("language", name, form)


def _core() -> Core:
    return _context.current("nki.language").core


def _buffer_name(buffer: Buffer, what: str) -> str:
    name = buffer.name if isinstance(buffer, (_Buffer, _ModAlloc)) else buffer
    if name == "hbm":
        name = "private_hbm"
    if name not in ("sbuf", "psum", "private_hbm", "shared_hbm"):
        raise UsageError(f"nl.{what}: buffer={buffer!r}: expected nl.sbuf, nl.psum, nl.hbm, "
                         "nl.private_hbm or nl.shared_hbm", parameter="buffer")
    return name


def _shape(shape: object, what: str) -> Tuple[int, ...]:
    """A shape as a tuple of ints: each dim an int (or ``nl.par_dim``), not a float, a
    string or a bool (no silent conversion)."""
    dims = shape if isinstance(shape, (tuple, list)) else (shape,)
    out = []
    for k, d in enumerate(dims):
        if isinstance(d, (bool, np.bool_)):
            raise UsageError(f"nl.{what}: shape[{k}] is {d!r}; a dim is an int",
                             parameter="shape")
        try:
            v = operator.index(d)  # type: ignore[arg-type]
        except TypeError:
            raise UsageError(f"nl.{what}: shape[{k}] is {d!r} ({type(d).__name__}); a dim is "
                             "an int", parameter="shape") from None
        if v < 1:
            raise UsageError(f"nl.{what}: shape[{k}] is {v}; a dim is at least 1",
                             parameter="shape")
        out.append(v)
    return tuple(out)


def _blocks(shape: object) -> int:
    """How many block dims come before an ``nl.par_dim`` in ``shape`` (0 without one)."""
    dims = shape if isinstance(shape, (tuple, list)) else (shape,)
    marks = [k for k, d in enumerate(dims) if isinstance(d, par_dim)]
    if len(marks) > 1:
        raise UsageError(f"shape {tuple(dims)}: more than one nl.par_dim", parameter="shape")
    return marks[0] if marks else 0


# --- creation ----------------------------------------------------------------------------
@composed("language")
def ndarray(shape: Sequence[int], dtype: DType, buffer: Optional[Buffer] = sbuf,
            name: str = "", address: Optional[Tuple[int, int]] = None) -> Tile:
    """An uninitialised tensor (nki-api §2.1).

    Parameters:
        shape: dims, partition dim first for on-chip buffers (at most 128 partitions); a
            legacy ``nl.par_dim`` after block dims (``(n, nl.par_dim(128), F)``) makes ``n``
            tiles of ``(128, F)``, laid out one after another in each partition.
        dtype: an ``nl`` dtype.
        buffer: ``nl.sbuf`` (default; legacy kernels' ``None`` too), ``nl.psum``, or an HBM
            buffer.
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
    dims = _shape(shape, "ndarray")
    space = _buffer_name(buffer if buffer is not None else sbuf, "ndarray")
    if space.endswith("hbm"):
        if blocks or address is not None:
            raise UsageError(f"nl.ndarray: {'nl.par_dim' if blocks else 'address='} applies to "
                             "on-chip buffers only, not HBM",
                             parameter="shape" if blocks else "address")
        return _hbm_ndarray(dims, dtype, space, name)
    core = _core()
    mods: Tuple[int, ...] = ()
    if isinstance(buffer, _ModAlloc) and blocks:
        if len(buffer.counts) != blocks or any(c < 1 for c in buffer.counts):
            raise UsageError(f"nl.ndarray: {buffer!r} for {blocks} block dim(s): one count "
                             "(at least 1) per block dim", parameter="buffer")
        mods = tuple(d if d < m else m for d, m in zip(dims[:blocks], buffer.counts))
        if mods == tuple(dims[:blocks]):
            mods = ()                        # every block has its own storage: a plain tile
    physical = tuple(mods) + dims[blocks:] if mods else dims
    part_first = physical[blocks:blocks + 1] + physical[:blocks] + physical[blocks + 1:]
    if address is not None:
        t = _tpb._ndarray_at(core, list(part_first), dtype, space, name, address)
    else:
        t = core.ndarray(list(part_first), dtype, buffer=space, name=name)
    t = t._with_blocks(blocks) if blocks else t
    return ModAllocTensor(t, mods, dims) if mods else t  # type: ignore[return-value]


_MATMUL_GROUPS_END = _api.internal_lowering("matmul_groups_end", [("view", "tile")])


class ModAllocTensor:
    """A tensor placed with ``mod_alloc`` tile counts: subscripting block ``i`` of a block
    dim reads physical block ``i % count``. Only subscripts are defined (a slice across
    blocks, or the tensor used whole, raises :class:`tpb.NotSupported`).

    Each physical block remembers the block index that used it last. A subscript of another
    block index (or of a block no index used yet) gives a *fresh* view: the first legacy
    ``t[i] += nisa.nc_matmul(...)`` through it starts block ``i``'s accumulation group
    (overwrites) although the storage holds another block's sums, and so does the first
    ``nisa.nc_matmul(t[i], ...)`` with ``accumulate=None``; later ones accumulate
    (assumption ``mod-alloc-block-groups``)."""

    def __init__(self, physical: Tile, mods: Tuple[int, ...], shape: Tuple[int, ...]) -> None:
        self._physical = physical
        self._mods = mods
        self.shape = shape
        self.dtype = physical.dtype
        self.buffer = physical.buffer
        # physical block indices -> the block indices that used that storage last
        self._user: Dict[Tuple[object, ...], Tuple[int, ...]] = {}

    def _use(self, key: object) -> Tuple[Tuple[object, ...], bool]:
        """The physical subscript of ``key``, and whether its block changes hands (the
        storage was last used by another block index, or by none)."""
        keys = key if isinstance(key, tuple) else (key,)
        out: List[object] = []
        logical: List[int] = []
        for k, item in enumerate(keys):
            if k < len(self._mods):
                if isinstance(item, bool) or not isinstance(item, (int, np.integer)):
                    raise _refuse("ndarray", f"a mod_alloc tensor's block dim {k} subscripted "
                                             f"with {item!r} (tpb maps integer block indices)")
                n = self.shape[k]
                i = int(item) + n if int(item) < 0 else int(item)
                if not 0 <= i < n:
                    raise UsageError(f"block index {item} out of range for block dim {k} of "
                                     f"size {n}", parameter="key")
                logical.append(i)
                item = i % self._mods[k]
            out.append(item)
        physical = tuple(out)
        block, who = physical[:len(self._mods)], tuple(logical)
        moved = self._user.get(block) != who
        self._user[block] = who
        return physical, moved

    def __getitem__(self, key: object) -> Tile:
        physical, moved = self._use(key)
        view = self._physical[physical]
        if moved:
            self._hand_over(view)
            _context.mark_fresh(view.core, view)
        return view

    def __setitem__(self, key: object, value: object) -> None:
        # An assignment writes the block through this index: it is not fresh afterwards.
        physical, moved = self._use(key)
        if moved:
            self._hand_over(self._physical[physical])
        self._physical[physical] = value

    def _hand_over(self, view: Tile) -> None:
        """The block's storage now serves another block index: no matmul group opened
        through the previous index continues into it (``nc_matmul(t[i], ...)`` with
        ``accumulate=None`` overwrites first)."""
        if self.buffer == "psum":
            _MATMUL_GROUPS_END(_context.origin(), view)

    def __getattr__(self, attr: str) -> object:
        raise _refuse("ndarray", f"a mod_alloc tensor used whole (.{attr}); subscript a block")

    def __repr__(self) -> str:
        return f"<mod_alloc tensor {self.shape}, blocks modulo {self._mods}>"


def _hbm_ndarray(shape: Tuple[int, ...], dtype: DType, buffer: str, name: str) -> Tile:
    """An HBM tensor. In an SPMD run every instance's n-th ``shared_hbm`` allocation is the
    same tensor (the kernel's shared output), as NKI shares it across the grid."""
    ctx = _context.current("nki.language.ndarray")
    if buffer != "shared_hbm":
        return ctx.core.ndarray(list(shape), dtype, buffer="hbm", name=name)
    return ctx.shared_hbm(shape, dtype,
                          lambda: ctx.core.ndarray(list(shape), dtype, buffer="hbm", name=name))


def _fill(t: Tile, value: object, what: str) -> Tile:
    if t.buffer == "hbm":
        raise _refuse(what, "an HBM tensor (engines cannot write HBM: fill an SBUF tile and "
                            "nl.store it)")
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.number)):
        raise UsageError(f"nl.{what}: fill_value {value!r}: expected a number",
                         parameter="fill_value")
    v: float
    if np.dtype(t.dtype).kind in "iub":
        f = float(value)
        if not math.isfinite(f) or f != math.floor(f):
            raise UsageError(f"nl.{what}: fill_value {value!r} is not an integer, and the "
                             f"tile is {t.dtype}", parameter="fill_value")
        v = int(value)
    else:
        v = float(value)
    _isa.memset(t, v)
    return t


@composed("language", partial("on-chip tiles (an allocation and a Memset); an HBM tensor is "
                              "filled by a store"))
def zeros(shape: Sequence[int], dtype: DType, buffer: Optional[Buffer] = sbuf,
          name: str = "", *, lazy_initialization: bool = False) -> Tile:
    """A zero-filled tensor.

    Parameters: as :func:`ndarray`; ``lazy_initialization`` (legacy) lets the compiler defer
    the fill: tpb fills at once, which no later read can tell apart.

    Semantics: an allocation and a Memset.

    Example::

        acc = nl.zeros((128, 1), nl.float32)
    """
    return _fill(ndarray(shape, dtype, buffer, name), 0, "zeros")


@composed("language", partial("as zeros"))
def ones(shape: Sequence[int], dtype: DType, buffer: Optional[Buffer] = sbuf,
         name: str = "", *, lazy_initialization: bool = False) -> Tile:
    """A one-filled tensor (as :func:`zeros`, ``lazy_initialization`` too).

    Example::

        w = nl.ones((128, 64), nl.float32)
    """
    return _fill(ndarray(shape, dtype, buffer, name), 1, "ones")


@composed("language", partial("as zeros"))
def full(shape: Sequence[int], fill_value: float, dtype: DType,
         buffer: Optional[Buffer] = sbuf, name: str = "", *,
         lazy_initialization: bool = False) -> Tile:
    """A tensor filled with ``fill_value`` (an allocation and a Memset); an integer dtype
    takes a whole number it holds (not nan or inf). ``lazy_initialization`` (legacy) lets
    the compiler defer the fill; tpb fills at once, which no later read can tell apart.

    Example::

        t = nl.full((128, 64), 7, nl.int32)
    """
    return _fill(ndarray(shape, dtype, buffer, name), fill_value, "full")


@composed("language", partial("as zeros"))
def zeros_like(x: Tile, dtype: Optional[DType] = None, buffer: Optional[Buffer] = None,
               name: str = "") -> Tile:
    """Zeros with ``x``'s shape (and dtype unless given).

    Example::

        z = nl.zeros_like(t)
    """
    return zeros(tuple(x.shape), dtype if dtype is not None else x.dtype,
                 buffer if buffer is not None else sbuf, name)


@composed("language")
def empty_like(x: Tile, dtype: Optional[DType] = None, buffer: Optional[Buffer] = None,
               name: str = "") -> Tile:
    """An uninitialised tensor with ``x``'s shape, dtype and buffer unless given.

    Example::

        y = nl.empty_like(x)
    """
    return ndarray(tuple(x.shape), dtype if dtype is not None else x.dtype,
                   buffer if buffer is not None else x.buffer, name)


@composed("language")
def shared_constant(constant: object, dtype: Optional[DType] = None) -> Tile:
    """A constant HBM tensor holding ``constant`` (a NumPy array, or the path of a ``.npy``
    file), as NKI embeds it in the kernel binary (nki-api §2: shared_constant).

    Parameters:
        constant: an array of a dtype tpb stores, or a ``.npy`` path (read without pickle).
        dtype: the tensor's dtype; the array is converted to it (NumPy's conversion) when
            given, else it keeps its own.

    Semantics: no instruction: the bytes are in HBM before the kernel's first instruction,
    as a constant in the binary is. Read it with ``nl.load`` / ``nisa.dma_copy``.

    Example::

        iota = nl.shared_constant(np.arange(128, dtype=np.int32).reshape(128, 1))
        t = nl.load(iota)
    """
    ctx = _context.current("nki.language.shared_constant")
    if isinstance(constant, (str, bytes)) or hasattr(constant, "__fspath__"):
        try:
            constant = np.load(constant, allow_pickle=False)  # type: ignore[arg-type]
        except (OSError, ValueError) as e:
            raise UsageError(f"nl.shared_constant: constant {constant!r}: cannot read a .npy "
                             f"array from it ({e})", parameter="constant") from None
    if not isinstance(constant, np.ndarray):
        raise UsageError(f"nl.shared_constant: constant: expected a NumPy array or a .npy "
                         f"path, got {type(constant).__name__}", parameter="constant")
    if dtype is not None:
        constant = constant.astype(dtype)
    if constant.ndim == 0:
        constant = constant.reshape(1)
    t: Tile = ctx.core.from_numpy(np.ascontiguousarray(constant), buffer="hbm")
    return t


@composed("language")
def shared_identity_matrix(n: int, dtype: DType = uint8, dst: Optional[Tile] = None) -> Tile:
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


_RNG = not_supported("the random number generators' state is not public")
rand = refused("language", "rand", _RNG)
random_seed = refused("language", "random_seed", _RNG)


# --- indexing and loops ------------------------------------------------------------------
def _int(v: object, what: str, parameter: str) -> int:
    if isinstance(v, (bool, np.bool_)):
        raise UsageError(f"nl.{what}: {parameter}={v!r}: expected an int", parameter=parameter)
    try:
        return operator.index(v)  # type: ignore[arg-type]
    except TypeError:
        raise UsageError(f"nl.{what}: {parameter}={v!r}: expected an int, not "
                         f"{type(v).__name__}", parameter=parameter) from None


@composed("language")
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
        start, stop = 0, _int(args[0], "arange", "stop")
    elif len(args) == 2:
        start, stop = _int(args[0], "arange", "start"), _int(args[1], "arange", "stop")
    else:
        raise UsageError("nl.arange(stop) or nl.arange(start, stop)")
    return IndexExpr.range(start, stop - start, 1)


class _Grid(tuple):  # type: ignore[type-arg]
    @property
    def p(self) -> IndexExpr:
        return self[0]  # type: ignore[no-any-return]

    @property
    def x(self) -> IndexExpr:
        return self[-1]  # type: ignore[no-any-return]

    @property
    def y(self) -> IndexExpr:
        return self[1]  # type: ignore[no-any-return]


class _MGrid:
    """``nl.mgrid[0:128, 0:512]``: one index expression per axis of a dense grid
    (``i_p, i_f = ...`` or ``.p`` / ``.x``)."""

    def __getitem__(self, key: object) -> _Grid:
        keys = key if isinstance(key, tuple) else (key,)
        ranges = []
        for k in keys:
            if not isinstance(k, slice) or k.stop is None:
                raise UsageError(f"nl.mgrid[{key!r}]: each axis is start:stop[:step]")
            start = _int(k.start or 0, "mgrid", "start")
            stop = _int(k.stop, "mgrid", "stop")
            step = _int(k.step or 1, "mgrid", "step")
            ranges.append((start, step, len(range(start, stop, step))))
        sizes = [n for _, _, n in ranges]
        return _Grid(arange_axis(start, n, step, axis, sizes)
                     for axis, (start, step, n) in enumerate(ranges))


mgrid = _MGrid()
constant("language", "mgrid")


@composed("language")
def ds(start: int, size: int) -> IndexExpr:
    """``nl.ds(start, size)``: the subscript ``start:start+size``.

    Example::

        t[:, nl.ds(i * 64, 64)]
    """
    return IndexExpr.range(_int(start, "ds", "start"), _int(size, "ds", "size"), 1)


def _range(what: str, start: int, stop: Optional[int], step: int) -> range:
    a = _int(start, what, "start")
    if stop is None:
        return range(a)
    s = _int(step, what, "step")
    if s == 0:
        raise UsageError(f"nl.{what}: step must not be zero", parameter="step")
    return range(a, _int(stop, what, "stop"), s)


@composed("language")
def affine_range(start: int, stop: Optional[int] = None, step: int = 1, *,
                 directives: object = None) -> range:
    """A loop with no carried dependency (NKI 0.6.0: an alias of ``range``, unrolled):
    ``(stop)``, ``(start, stop[, step])`` or the keywords ``start=``, ``stop=``, ``step=``;
    the legacy loop ``directives=`` (``nki.compiler.no_reorder()``, ``multi_buffer(n)``) is
    accepted and changes nothing.

    Example::

        for i in nl.affine_range(4): ...
        for i in nl.affine_range(0, stop=8, step=2): ...
    """
    return _range("affine_range", start, stop, step)


@composed("language")
def sequential_range(start: int, stop: Optional[int] = None, step: int = 1, *,
                     directives: object = None) -> range:
    """A loop with carried dependencies (an alias of ``range``, unrolled).

    Example::

        for i in nl.sequential_range(4): ...
    """
    return _range("sequential_range", start, stop, step)


@composed("language")
def static_range(start: int, stop: Optional[int] = None, step: int = 1, *,
                 directives: object = None) -> range:
    """A fully unrolled loop (an alias of ``range``).

    Example::

        for i in nl.static_range(4): ...
    """
    return _range("static_range", start, stop, step)


_LOOPS = not_supported("on-device loops over registers are not modelled")
dynamic_range = refused("language", "dynamic_range", _LOOPS)
fori_loop = refused("language", "fori_loop", _LOOPS)
while_loop = refused("language", "while_loop", _LOOPS)


@contextlib.contextmanager
def _no_reorder() -> Iterator[None]:
    yield


@composed("language")
def no_reorder() -> contextlib.AbstractContextManager[None]:
    """Keeps program order inside the block (tpb emits in program order anyway).

    Example::

        with nl.no_reorder(): ...
    """
    return _no_reorder()


@composed("language")
def program_id(axis: int = 0) -> int:
    """This instance's index along SPMD grid axis ``axis`` (``kernel[g0, g1](...)``).

    Example::

        i = nl.program_id(0)
    """
    ctx = _context.current("nki.language.program_id")
    if not ctx.grid:
        return 0
    if not 0 <= axis < len(ctx.grid):
        raise UsageError(f"nl.program_id({axis}): the grid has {len(ctx.grid)} axes",
                         parameter="axis")
    return ctx.position[axis]


@composed("language")
def num_programs(axes: Union[int, Sequence[int]] = 0) -> int:
    """Instances along grid axis ``axes`` (or the product over a tuple of axes); 1 without a
    grid.

    Example::

        n = nl.num_programs(0)
    """
    ctx = _context.current("nki.language.num_programs")
    if not ctx.grid:
        return 1
    n = 1
    for a in (axes if isinstance(axes, (tuple, list)) else (axes,)):
        if not 0 <= a < len(ctx.grid):
            raise UsageError(f"nl.num_programs({axes!r}): the grid has {len(ctx.grid)} axes",
                             parameter="axes")
        n *= ctx.grid[a]
    return n


@composed("language")
def program_ndim() -> int:
    """The number of grid axes (0 without a grid).

    Example::

        nd = nl.program_ndim()
    """
    return len(_context.current("nki.language.program_ndim").grid)


@composed("language")
def device_print(print_prefix: str, tensor: Tile) -> None:
    """Prints a tile's current values (simulation only).

    Example::

        nl.device_print("t=", t)
    """
    _context.flush(tensor.core)
    print(print_prefix, tensor.numpy())


# --- data movement (nki-api §2.7) ---------------------------------------------------------
@composed("language")
def load(src: Tile, dtype: Optional[DType] = None, *, mask: Optional[Mask] = None,
         name: Name = None) -> Tile:
    """``nl.load(src, dtype=None, mask=None)``: a new SBUF tile holding ``src`` (an HBM
    tensor or a view of one: slices, ``nl.ds``, ``nl.arange`` index expressions), its first
    dim the partitions.

    Parameters:
        src: an HBM tensor or view (at most 128 in its first dim). A view whose index
            expressions leave the tensor (a ragged last tile) needs a ``mask`` that brings it
            back in bounds.
        dtype: the tile's dtype (default: src's; a different one converts through FP32,
            round to nearest even, as ``nisa.dma_copy`` does).
        mask: an affine predicate over the view's ``nl.arange`` indices: the tile keeps the
            view's shape and only the box is loaded (the other elements are don't-care).
        name: label for profiles and errors.

    Semantics: one DMAMEMCPY (0xB8) issued on SP or ACT, the kernel's requests taking them
    in turn (POOL on sunda), whose transfer runs on that engine's DMA queue (a copy that does
    not fit one request is split into several); an instruction that reads the tile waits for
    the DMA's data-landed semaphore, not for the request's issue.

    Example::

        t = nl.load(a[i * 128 + i_p, i_f], mask=(i * 128 + i_p < n_rows))
    """
    t = ndarray(tuple(src.shape), dtype if dtype is not None else src.dtype, buffer=sbuf,
                name=name or "")
    dst, src = apply_mask(mask, t, src)
    _isa.dma_copy(dst, src, name=name)
    return t


@composed("language", partial("from SBUF tiles into HBM (a PSUM value is copied to SBUF "
                              "first, as the legacy compiler does; an SBUF or PSUM dst is "
                              "refused, as NKI refuses it)"))
def store(dst: Tile, value: Tile, *, mask: Optional[Mask] = None, name: Name = None) -> None:
    """``nl.store(dst, value, mask=None)``: writes the SBUF tile ``value`` to the HBM tensor
    (or view) ``dst``.

    Parameters:
        dst: an HBM tensor or view with value's element count (an on-chip ``dst`` is refused,
            as NKI refuses it: copy on chip with ``nl.copy`` / ``nisa.tensor_copy``). A
            transposed placement (``out[i_f, i_p]``) writes the tile transposed.
        value: an SBUF tile. A PSUM tile is first copied to a new SBUF tile of its dtype
            (Vector ``tensor_copy``), as the legacy (``neuronxcc``) compiler does; NKI
            0.3.0+ refuses a PSUM value, tpb runs both dialects (nki-api §4.4).
        mask: an affine predicate over the views' ``nl.arange`` indices (stores the box only).
        name: label for profiles and errors.

    Semantics: one DMAMEMCPY (0xB8) issued on SP or ACT in turn with the kernel's other
    requests (POOL on sunda), once the instructions that wrote ``value`` have completed.

    Example::

        nl.store(out[i * 128 + i_p, i_f], value=t, mask=(i * 128 + i_p < n_rows))
    """
    if dst.buffer in ("sbuf", "psum"):
        raise UsageError(f"nl.store: dst is an {dst.buffer.upper()} tile; nl.store writes HBM "
                         "(copy on chip with nl.copy or nisa.tensor_copy)", parameter="dst")
    if value.buffer == "psum":
        value = copy(value)  # the legacy compiler's extra copy (DMA does not read PSUM)
    dst, value = apply_mask(mask, dst, value)
    _isa.dma_copy(dst, value, name=name)


@composed("language", partial(
    "2-D sources, as an element-strided DMAMEMCPY (the same tile; DMA_TRANSPOSE (0xBD), whose "
    "tile order is not public, is not used, so a profile prices the strided copy); mask= is "
    "refused"))
def load_transpose2d(src: Tile, dtype: Optional[DType] = None, *, mask: Optional[Mask] = None,
                     name: Name = None) -> Tile:
    """``nl.load_transpose2d(src, dtype=None)``: the 2-D HBM tensor or view ``src`` ``[F, P]``
    loaded transposed, as a new SBUF tile ``[P, F]`` (``tile[p, f] = src[f, p]``).

    Parameters:
        src: a 2-D HBM tensor or view, at most 128 in its last dim (the tile's partitions).
        dtype: the tile's dtype (default: src's; converted as :func:`load` converts).
        mask: refused (tpb has not placed a mask in the transposed coordinates).
        name: label for profiles and errors.

    Semantics: :func:`load` of the transposed view (a DMAMEMCPY whose source steps run
    across ``src``'s rows): the tile NKI's DMA transpose produces, at a strided copy's cost.

    Example::

        kT = nl.load_transpose2d(k[i * 128:(i + 1) * 128, 0:64])   # (64, 128) tile
    """
    if mask is not None:
        raise _refuse("load_transpose2d", "mask= (place the mask on a load of the view)")
    if len(src.shape) != 2:
        raise UsageError(f"nl.load_transpose2d: src has shape {tuple(src.shape)}; a 2-D "
                         "tensor or view is transposed", parameter="src")
    f, p = (int(d) for d in src.shape)
    return load(src[arange(f)[None, :], arange(p)[:, None]], dtype, name=name)


@composed("language")
def copy(x: Tile, dtype: Optional[DType] = None, *, mask: Optional[Mask] = None) -> Tile:
    """A copy of an SBUF/PSUM tile as a new SBUF tile (Vector ``tensor_copy``: bit-exact when
    the dtypes are equal, else through FP32).

    Parameters:
        x: a tile; dtype: the result's dtype (default: x's).

    Example::

        sb = nl.copy(psum_tile, dtype=nl.bfloat16)
    """
    out = _new_like(x, dtype)
    dst, src = apply_mask(mask, out, x)
    _isa.tensor_copy(dst, src)
    return out


@composed("language")
def broadcast_to(x: Tile, shape: Sequence[int], dtype: Optional[DType] = None) -> Tile:
    """``x`` broadcast to ``shape`` (same rank; size-1 dims repeat) as a new SBUF tile: one
    ``tensor_copy`` from a zero-step view for the free dims; a single partition is copied to
    all partitions by one DMA with a partition step of 0 (engines cannot do that).

    Parameters:
        x: a tile; shape: the target shape; dtype: the result's dtype (default: x's).

    Example::

        g = nl.broadcast_to(gamma_row, (1, 512))
    """
    dims = _shape(shape, "broadcast_to")
    if len(dims) != len(x.shape):
        raise UsageError(f"nl.broadcast_to: shape {dims} must have x's rank {len(x.shape)}",
                         parameter="shape")
    if tuple(x.shape) == dims:
        return x
    if dims[0] != x.shape[0]:
        if x.shape[0] != 1:
            raise UsageError(f"nl.broadcast_to: partition dim {x.shape[0]} cannot broadcast "
                             f"to {dims[0]}", parameter="shape")
        # Engines read a partition into itself only: one DMA with a partition step of 0
        # copies the single partition to all of them (after the free dims are broadcast).
        row = broadcast_to(x, (1,) + dims[1:], dtype)
        out = ndarray(dims, dtype if dtype is not None else x.dtype)
        _isa.broadcast_partitions(out, row)
        return out
    v = x
    for d in range(1, len(dims)):
        if x.shape[d] != dims[d]:
            if x.shape[d] != 1:
                raise UsageError(f"nl.broadcast_to: dim {d} of size {x.shape[d]} cannot "
                                 f"broadcast to {dims[d]}", parameter="shape")
            v = v.broadcast(d, dims[d])
    out = ndarray(dims, dtype if dtype is not None else x.dtype)
    _isa.tensor_copy(out, v)
    return out


expand_dims = refused("language", "expand_dims", not_supported(
    "views that add a dim to an on-chip tile"))
gather_flattened = refused("language", "gather_flattened", not_supported(
    "no gather instruction in tpb"))


# --- element-wise --------------------------------------------------------------------------
def _new_like(x: Tile, dtype: Optional[DType]) -> Tile:
    """A new SBUF tile of ``x``'s shape (and dtype, unless given): what ``ndarray`` makes of
    a plain shape, without re-checking a shape a tile already has (a tile with block dims
    takes ``ndarray`` whole)."""
    shape = x.shape
    dt = dtype if dtype is not None else x.dtype
    for d in shape:
        if type(d) is not int:  # an nl.par_dim: block dims
            return ndarray(tuple(shape), dt, buffer=sbuf)
    return _core().ndarray(list(shape), dt, buffer="sbuf", name="")


def _is_tile(x: object) -> bool:
    return isinstance(x, Tile)


def _scalar_operand(y: object) -> bool:
    return not isinstance(y, Tile) or (len(y.shape) == 2 and y.shape[1] == 1)


_COMMUTATIVE = {"add", "multiply", "maximum", "minimum", "equal", "not_equal",
                "bitwise_and", "bitwise_or", "bitwise_xor"}


def _binary(name: str, x: Union[Tile, float], y: Union[Tile, float], dtype: Optional[DType],
            mask: Optional[Mask]) -> Tile:
    if isinstance(x, Tile) and isinstance(y, Tile) and tuple(x.shape) == tuple(y.shape):
        out = _new_like(x, dtype)
        d, a, b = apply_mask(mask, out, x, y)
        _isa.tensor_tensor(d, a, b, name)
        return out
    if isinstance(x, Tile) and _scalar_operand(y):
        out = _new_like(x, dtype)
        d, a = apply_mask(mask, out, x)
        _isa.tensor_scalar(d, a, name, y)
        return out
    if isinstance(y, Tile) and _scalar_operand(x):
        out = _new_like(y, dtype)
        d, a = apply_mask(mask, out, y)
        _isa.tensor_scalar(d, a, name, x, reverse0=name not in _COMMUTATIVE)
        return out
    if not isinstance(x, Tile) and not isinstance(y, Tile):
        raise UsageError(f"nl.{name}: x and y are both numbers; at least one is a tile",
                         parameter="x")
    raise _refuse(name, f"shapes {getattr(x, 'shape', x)} and {getattr(y, 'shape', y)}: "
                        "NKI 0.6.0 binary ops do not broadcast")


def _binary_fn(name: str, status: _api.Status = SUPPORTED) -> Callable[..., Tile]:
    def f(x: TileOrNumber, y: TileOrNumber, dtype: Optional[DType] = None, *,
          mask: Optional[Mask] = None) -> Tile:
        return _binary(name, x, y, dtype, mask)

    f.__name__ = f.__qualname__ = name
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
    return composed("language", status)(f)


_INT = partial("integer tiles")
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
bitwise_and = _binary_fn("bitwise_and", _INT)
bitwise_or = _binary_fn("bitwise_or", _INT)
bitwise_xor = _binary_fn("bitwise_xor", _INT)
left_shift = _binary_fn("left_shift", _INT)
right_shift = _binary_fn("right_shift", _INT)


@composed("language")
def abs(x: Tile, dtype: Optional[DType] = None, *,  # noqa: A001
        mask: Optional[Mask] = None) -> Tile:
    """``|x|`` element-wise, as a new SBUF tile (one TensorScalar, op ``abs``).

    Parameters:
        x: a tile.
        dtype: the result's dtype (default: x's).

    Example::

        y = nl.abs(x)
    """
    out = _new_like(x, dtype)
    d, a = apply_mask(mask, out, x)
    _isa.tensor_scalar(d, a, "abs", 0.0)
    return out


@composed("language")
def negative(x: Tile, dtype: Optional[DType] = None, *, mask: Optional[Mask] = None) -> Tile:
    """``-x`` element-wise, as a new SBUF tile (one TensorScalar multiplying by -1.0).

    Parameters:
        x: a tile.
        dtype: the result's dtype (default: x's).

    Example::

        y = nl.negative(x)
    """
    out = _new_like(x, dtype)
    d, a = apply_mask(mask, out, x)
    _isa.tensor_scalar(d, a, "multiply", -1.0)
    return out


# Each activation-engine function is one Activate (0x21) with the function's id
# (docs/reference/pe-act.md).
_EXACT_ACT = {"relu", "square", "sign"}
_APPROX = partial("on ACT (Activate 0x21); approximate: the hardware evaluates it from "
                  "unpublished tables, tpb from its definition (docs/reference/pe-act.md)")


def _activation_fn(fname: str, formula: str) -> Callable[..., Tile]:
    def f(x: Tile, dtype: Optional[DType] = None, *, mask: Optional[Mask] = None) -> Tile:
        out = _new_like(x, dtype)
        d, a = apply_mask(mask, out, x)
        _isa.activation(d, fname, a)
        return out

    exact = fname in _EXACT_ACT
    f.__name__ = f.__qualname__ = fname
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
    status = SUPPORTED if exact else _APPROX
    if fname == "sin":
        status = partial("on ACT (Activate 0x21); approximate, and without the range reduction "
                         "NKI adds: inputs outside [-pi, pi] are counted in the report, where "
                         "the hardware table is invalid")
    return composed("language", status)(f)


exp = _activation_fn("exp", "e**x")
log = _activation_fn("log", "ln(x)")
sqrt = _activation_fn("sqrt", "sqrt(x)")
rsqrt = _activation_fn("rsqrt", "1 / sqrt(x)")


@composed("language")
def reciprocal(x: Tile, dtype: Optional[DType] = None, *, mask: Optional[Mask] = None) -> Tile:
    """``1 / x`` element-wise in FP32 (Vector ``Reciprocal``), as a new SBUF tile.

    Parameters:
        x: a tile; dtype: the result's dtype (default: x's).

    Example::

        inv = nl.reciprocal(sums)
    """
    out = _new_like(x, dtype)
    d, a = apply_mask(mask, out, x)
    _isa.reciprocal(d, a)
    return out


@composed("language", partial(
    "multiplied by the reciprocal, as NKI documents (assumption divide-lowering): results can "
    "differ from IEEE x / y in the last bit, as the hardware's do"))
def divide(x: TileOrNumber, y: TileOrNumber, dtype: Optional[DType] = None, *,
           mask: Optional[Mask] = None) -> Tile:
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
    if isinstance(y, Tile):
        inv = ndarray(tuple(y.shape), float32, buffer=sbuf)
        d, a = apply_mask(mask, inv, y)
        _isa.reciprocal(d, a)
        if not isinstance(x, Tile) and float(x) == 1.0:
            return inv if dtype is None or np.dtype(dtype) == float32 else copy(inv, dtype)
        if isinstance(x, Tile):
            return _binary("multiply", x, inv, dtype if dtype is not None else x.dtype, mask)
        return _binary("multiply", inv, x, dtype if dtype is not None else y.dtype, mask)
    if not isinstance(x, Tile):
        raise UsageError("nl.divide: at least one of x and y must be a tile", parameter="x")
    return _binary("multiply", x, float(np.float32(1.0) / np.float32(y)), dtype, mask)


tanh = _activation_fn("tanh", "tanh(x)")
sigmoid = _activation_fn("sigmoid", "1 / (1 + e**-x)")
relu = _activation_fn("relu", "max(x, 0)")
gelu = _activation_fn("gelu", "x * Phi(x)")
silu = _activation_fn("silu", "x * sigmoid(x)")
erf = _activation_fn("erf", "erf(x)")
sin = _activation_fn("sin", "sin(x) (no range reduction: valid on [-pi, pi])")
cos = refused("language", "cos", not_supported(
    "no activation function id computes cos (the compiler's catalog, isa-facts-pe-act-dma §2.9)"))
arctan = _activation_fn("arctan", "arctan(x)")
softplus = _activation_fn("softplus", "ln(1 + e**x)")
mish = _activation_fn("mish", "x * tanh(softplus(x))")
gelu_apprx_tanh = _activation_fn(
    "gelu_apprx_tanh", "0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x**3)))")
gelu_apprx_sigmoid = _activation_fn("gelu_apprx_sigmoid", "x * sigmoid(1.702 x)")
gelu_dx = _activation_fn("gelu_dx", "d/dx gelu(x)")
gelu_apprx_sigmoid_dx = _activation_fn("gelu_apprx_sigmoid_dx", "d/dx gelu_apprx_sigmoid(x)")
silu_dx = _activation_fn("silu_dx", "d/dx silu(x)")
erf_dx = _activation_fn("erf_dx", "2/sqrt(pi) e**(-x**2)")
square = _activation_fn("square", "x * x")
sign = _activation_fn("sign", "sign(x)")
tan = refused("language", "tan", not_supported(
    "no activation function id computes tan (the compiler's catalog, isa-facts-pe-act-dma §2.9)"))


# --- reductions (nki-api §2.9) ----------------------------------------------------------------
def _axes(x: Tile, axis: Axes) -> List[int]:
    axes = list(axis) if isinstance(axis, (list, tuple)) else [axis]
    nd = len(x.shape)
    out = []
    for a in axes:
        v = _int(a, "reduction", "axis")
        if not -nd <= v < nd:
            raise UsageError(f"axis {v} is outside a {nd}-D tile", parameter="axis")
        out.append(v + nd if v < 0 else v)
    return sorted(out)


def _reduce(op: str, x: Tile, axis: Axes, dtype: Optional[DType], keepdims: bool,
            negate: bool = False, mask: Optional[Mask] = None) -> Tile:
    axes = _axes(x, axis)
    shape = [d if k not in axes else 1 for k, d in enumerate(x.shape)]
    kept = [k for k in range(len(shape)) if k not in axes]
    if not keepdims:
        shape = [shape[k] for k in kept]
        if len(shape) < 2:
            shape.append(1)
    out = ndarray(tuple(shape), dtype if dtype is not None else x.dtype)
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


def _reduce_into(op: str, out: Tile, x: Tile, axes: List[int], negate: bool) -> None:
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


def _reduction(op: str, name: str) -> Callable[..., Tile]:
    def f(x: Tile, axis: Axes, dtype: Optional[DType] = None, keepdims: bool = False, *,
          mask: Optional[Mask] = None) -> Tile:
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
    return composed("language")(f)


sum = _reduction("add", "sum")  # noqa: A001
max = _reduction("maximum", "max")  # noqa: A001
min = _reduction("minimum", "min")  # noqa: A001


@composed("language")
def mean(x: Tile, axis: Axes, dtype: Optional[DType] = None, keepdims: bool = False, *,
         mask: Optional[Mask] = None) -> Tile:
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
    out = _new_like(s, dtype if dtype is not None else x.dtype)
    _isa.tensor_scalar(out, s, "multiply", 1.0 / n)
    return out


prod = _reduction("multiply", "prod")


@composed("language", partial(
    "over the free axis of a 2-D tile: nisa.bn_stats per 512 elements, then nisa.bn_aggr "
    "(fp32; approximate as they are, assumption bn-stats-lowering); other axes are refused"))
def var(x: Tile, axis: Axes, dtype: Optional[DType] = None, keepdims: bool = False, *,
        mask: Optional[Mask] = None) -> Tile:
    """``nl.var(x, axis, dtype=None)``: the (population) variance of each partition of a
    2-D tile over its free axis, as a new ``(P, 1)`` SBUF tile.

    Parameters:
        x: a 2-D tile; axis: 1 (or -1, ``[1]``); dtype: result dtype (default: x's);
        keepdims: accepted (the result is ``(P, 1)`` either way).

    Semantics: as the compiler can, one :func:`tpb.nki.isa.bn_stats` per 512 elements
    into an FP32 statistics tile, one :func:`tpb.nki.isa.bn_aggr`, and a copy of the
    variance into ``dtype``; approximate as those calls are.

    Example::

        v = nl.var(t, axis=1)
    """
    nd = len(x.shape)
    if nd != 2 or _axes(x, axis) != [1]:
        raise _refuse("var", f"axis={axis!r} of a {nd}-D tile (tpb computes the variance over "
                             "the free axis of a 2-D tile)")
    parts, free = int(x.shape[0]), int(x.shape[1])
    out = ndarray((parts, 1), dtype if dtype is not None else x.dtype)
    rows, cols = (0, parts), (0, free)
    if mask is not None:
        box = mask_box(mask, (parts, free))
        rows, cols = box.get(0, rows), box.get(1, cols)
    src = x[rows[0]:rows[1], cols[0]:cols[1]]
    dst = out[rows[0]:rows[1], 0:1]
    if tuple(dst.shape) != tuple(out.shape):
        out._mark_masked_out()
    n = cols[1] - cols[0]
    fmax = int(tile_size.bn_stats_fmax)
    chunks = (n + fmax - 1) // fmax
    stats = ndarray((parts, 6 * chunks), float32)[rows[0]:rows[1]]
    for j in range(chunks):
        _isa.bn_stats(stats[:, 6 * j:6 * j + 6], src[:, j * fmax:(j + 1) * fmax if j + 1 < chunks else n])
    mean_var = ndarray((parts, 2), float32)[rows[0]:rows[1]]
    _isa.bn_aggr(mean_var, stats)
    _isa.tensor_copy(dst, mean_var[:, 1:2])
    return out

all = refused("language", "all", not_yet(  # noqa: A001
    "a logical-and TensorReduce form in tpb.nki (issue 19 follow-up)"))


# --- matmul and transpose on the Tensor engine (nki-api §2.10) -----------------------------
@composed("language", partial(
    "on the PE into an fp32 PSUM tile; `acc += nl.matmul(...)` is one accumulating Matmul; "
    "transpose_x=False transposes x on the PE first; mask= is refused"))
def matmul(x: Tile, y: Tile, transpose_x: bool = False, *,
           mask: Optional[Mask] = None) -> Tile:
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
    Numbers: exact per tpb's documented summation order (exact products summed in fp32
    over the contraction, one rounding per step; see ``nc_matmul``).

    Example (K-tiled accumulation)::

        acc = nl.zeros((128, 512), nl.float32, buffer=nl.psum)
        for k in nl.affine_range(2):
            acc += nl.matmul(lhsT[k * 128:(k + 1) * 128], rhs[k * 128:(k + 1) * 128],
                             transpose_x=True)
    """
    if mask is not None:
        raise _refuse("matmul", "mask=")
    stationary = _isa._in_sbuf(x) if transpose_x else copy(transpose(x), dtype=x.dtype)
    return _isa.deferred_matmul(stationary, _isa._in_sbuf(y), "nl.matmul")


@composed("language", partial(
    "tiles up to 128 × 128 through the PE into PSUM (fp32 bit-accurate on cayman/mariana; "
    "other dtypes through an fp32 PSUM result and a copy); mask= is refused"))
def transpose(x: Tile, dtype: Optional[DType] = None, *, mask: Optional[Mask] = None) -> Tile:
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
    return _isa.transposed(x, dtype)


def _iadd(acc: Tile, value: object) -> None:
    """``acc += value`` (``Tile.__iadd__``): the pending ``nl.matmul`` whose result is
    ``value`` accumulates into ``acc`` (one Matmul); anything else is one element-wise add
    (``tensor_tensor`` for a tile of acc's shape, ``tensor_scalar`` for a number or a
    ``(P, 1)`` tile)."""
    emit = _context.take(acc.core, value)
    if emit is not None:
        # A mod_alloc block view nothing has written through yet starts its group
        # (assumption mod-alloc-block-groups); any other view accumulates.
        emit(acc, _context.take_fresh(acc.core, acc))
        return
    if isinstance(value, Tile) and tuple(value.shape) == tuple(acc.shape):
        _isa.tensor_tensor(acc, acc, value, "add")
    elif isinstance(value, (Tile, int, float, np.number)) and _scalar_operand(value):
        _isa.tensor_scalar(acc, acc, "add", value)  # type: ignore[arg-type]
    else:
        raise _refuse("add", f"acc += value of shape {getattr(value, 'shape', value)} into "
                             f"{tuple(acc.shape)}")


class LoopReduce:
    """The value of ``nl.loop_reduce(x, op, loop_indices)``: assigned into a destination
    (``acc[...] = nl.loop_reduce(x, np.add, [k])``) it runs ``acc = op(acc, x)`` there, the
    destination being the operation's other operand (legacy NKI's definition)."""

    __slots__ = ("x", "op", "mask")

    def __init__(self, x: Tile, op: AluOp, mask: Optional[Mask]) -> None:
        self.x, self.op, self.mask = x, op, mask

    def __tpb_assign__(self, target: Tile) -> None:
        dst, acc, x = apply_mask(self.mask, target, target, self.x)
        _isa.tensor_tensor(dst, acc, x, self.op)

    def __repr__(self) -> str:
        return ("<nl.loop_reduce result: assign it into its destination, dst[...] = "
                "nl.loop_reduce(...); tpb does not follow a rebound name>")


@composed("language", partial("assigned into its destination, dst[...] = "
                              "nl.loop_reduce(x, op, [k]) (dst = op(dst, x)); a result "
                              "rebound to a name is refused where it is used"))
def loop_reduce(x: Tile, op: AluOp, loop_indices: object, *, dtype: Optional[DType] = None,
                mask: Optional[Mask] = None) -> LoopReduce:
    """Legacy ``nl.loop_reduce(x, op, loop_indices, dtype=None, mask=None)``: reduces ``x``
    into a destination across loop iterations. The destination is also ``op``'s other
    operand: ``dst[...] = nl.loop_reduce(x, op, [k])`` is ``dst = op(dst, x)`` (one Vector
    ``tensor_tensor``); ``loop_indices`` only names the loops for the compiler.

    Parameters:
        x: a tile of the destination's shape; op: an ALU operator (``np.add``, ``np.maximum``);
        loop_indices: the loop indices (unused by tpb); dtype: accepted (the destination's
        dtype is written); mask: an affine predicate, as on any call.

    Example::

        acc = nl.zeros((128, 512), nl.float32)
        for k in nl.affine_range(4):
            acc[...] = nl.loop_reduce(partial_sum, np.add, [k])
    """
    return LoopReduce(x, op, mask)


where = refused("language", "where", not_yet(
    "a float-condition select: CopyPredicated takes integer predicates (issue 17a); tpb.nki "
    "lowering not written yet"))


@composed("language", partial(
    "the last free axis of a 2-D tile: TensorReduce -max, Activate exp with the row-sum "
    "accumulator, Reciprocal, TensorScalar multiply (tpb's lowering); approximate"))
def softmax(x: Tile, axis: Axes = -1, dtype: Optional[DType] = None, *,
            compute_dtype: Optional[DType] = None, mask: Optional[Mask] = None) -> Tile:
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
    d, a = apply_mask(mask, out, e)
    _isa.tensor_scalar(d, a, "multiply", inv)
    return out


rms_norm = refused("language", "rms_norm", not_supported(
    "NKI documents only x / RMS(x) * w: where epsilon enters, what n means beside axis and how "
    "w broadcasts are not public; write it with nl.square/nl.sum/nl.rsqrt"))
dropout = refused("language", "dropout", _RNG)

__all__ = sorted(
    [c.name for c in _api.calls("language")]
    + ["bool_", "int8", "int16", "int32", "uint8", "uint16", "uint32", "float16", "float32",
       "bfloat16", "float8_e4m3", "float8_e5m2", "float8_e4m3fn", "float4_e2m1fn_x4",
       "float8_e4m3fn_x4", "float8_e5m2_x4", "float8_e8m0fnu", "fp32", "tfloat32", "tensor",
       "Tensor"]
)
