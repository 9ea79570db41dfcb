"""A kernel is traced once per signature: its first run records what it did to the machine,
later calls with the same signature replay that record in Rust, without the kernel's Python
(docs/python.md, "Traced once per signature").

The signature is everything the kernel's Python could have decided on: the code, the
generation and run options, the grid, each NumPy argument's shape and dtype, the values of
the other arguments, and the values the kernel's code reads from its closure and its
module's globals. A run that read device data back (``Tile.numpy``) is never replayed."""

from __future__ import annotations

import dis
import enum
import pathlib
import types
import weakref
from typing import Any, Callable, Dict, List, Optional, Tuple

import numpy as np

from .. import _tpb
from .._errors import NotSupported
from . import _environ

# Recorded runs kept per kernel function (the oldest goes first).
MAX_RECORDED = 32


class _FnState:
    """Per kernel function: its recorded runs by signature (``table``), and its guards with
    the objects they came from (``guards``, see :func:`_cached_guards`)."""

    __slots__ = ("table", "guards")

    def __init__(self) -> None:
        self.table: Dict[Any, Any] = {}
        self.guards: Optional[Tuple[Any, ...]] = None


# One weak lookup per call finds both.
_states: "weakref.WeakKeyDictionary[Any, _FnState]" = weakref.WeakKeyDictionary()


def _state(fn: Any) -> _FnState:
    st = _states.get(fn)
    if st is None:
        st = _FnState()
        _states[fn] = st
    return st


def table(fn: Any) -> Dict[Any, Any]:
    """The recorded runs of kernel function ``fn`` by signature (tests and tools)."""
    return _state(fn).table


def forget(fn: Any) -> None:
    """Drops every recorded run of ``fn`` (tests and tools)."""
    _states.pop(fn, None)


# Per function: its code object and the global names that code (and the code nested in it)
# reads. Keyed by the function (an identity hash): a code object hashes and compares by
# its whole contents, tens of microseconds a lookup.
_names: "weakref.WeakKeyDictionary[Any, Tuple[Any, Tuple[str, ...]]]" = \
    weakref.WeakKeyDictionary()
_GLOBAL_OPS = frozenset({"LOAD_GLOBAL", "LOAD_NAME"})
# A value that cannot be part of a signature.
_UNKEYABLE = object()
# A signature whose run could not be recorded: run it eagerly every time.
_NOT_REPLAYABLE = object()


def enabled() -> bool:
    """Whether replay is on (``TPB_NKI_REPLAY=0`` turns it off for the process)."""
    return _environ.get("TPB_NKI_REPLAY") != "0"


class Recorded:
    """One recorded run: the native replay and how to rebuild the kernel's return value."""

    def __init__(self, replay: Any, template: Any, single: bool, code: Any) -> None:
        self.replay = replay
        self.code = code
        self.template = template
        self.single = single

    def rebuild(self, outs: List[Any]) -> Any:
        return _fill(self.template, outs)


class _Slot:
    """Where output ``k`` goes in the kernel's return value."""

    __slots__ = ("k",)

    def __init__(self, k: int) -> None:
        self.k = k


def _fill(template: Any, outs: List[Any]) -> Any:
    if isinstance(template, _Slot):
        return outs[template.k]
    if isinstance(template, (tuple, list)):
        return type(template)(_fill(t, outs) for t in template)
    return template


# A NumPy array the kernel's code reads as a constant (a global, a default, a keyword
# argument) is part of the signature by value up to this size; a larger one is not keyed.
MAX_CONSTANT_BYTES = 1 << 16


def _simple(v: Any) -> Any:
    """``v`` as part of a signature, or ``_UNKEYABLE``: values by value, functions, classes
    and modules by identity, containers element by element."""
    if v is None or isinstance(v, (bool, int, float, complex, str, bytes, range, slice,
                                   pathlib.PurePath)):
        return (type(v), v)
    if isinstance(v, np.ndarray):
        if v.nbytes > MAX_CONSTANT_BYTES:
            return _UNKEYABLE
        return ("ndarray", v.shape, v.dtype, v.tobytes())
    if isinstance(v, (tuple, list)):
        items = tuple(_simple(x) for x in v)
        return _UNKEYABLE if any(i is _UNKEYABLE for i in items) else (type(v), items)
    if isinstance(v, (types.FunctionType, types.BuiltinFunctionType, types.ModuleType, type,
                      enum.Enum, np.dtype, np.generic, types.MethodType)) \
            or type(v).__module__.startswith("tpb."):
        try:
            hash(v)
        except TypeError:
            return _UNKEYABLE
        return v
    return _UNKEYABLE


def _global_names(fn: Any) -> Tuple[str, ...]:
    code = fn.__code__
    known = _names.get(fn)
    if known is not None and known[0] is code:
        return known[1]
    found: List[str] = []
    stack = [code]
    while stack:
        c = stack.pop()
        found.extend(_code_global_names(c))
        stack.extend(x for x in c.co_consts if isinstance(x, types.CodeType))
    names = tuple(dict.fromkeys(found))
    _names[fn] = (code, names)
    return names


# The global names of a code object's own instructions, by its bytecode and names: what
# ``dis`` finds depends on nothing else, and a kernel whose module is loaded again (as a
# test does) has new code objects of the same contents (``dis`` was a third of its first
# call).
_CODE_NAMES: Dict[Tuple[bytes, Tuple[str, ...]], Tuple[str, ...]] = {}


def _code_global_names(c: Any) -> Tuple[str, ...]:
    # (co_names also holds attribute names: ``nl.load`` must not make a global ``load``
    # part of the signature.)
    key = (c.co_code, c.co_names)
    hit = _CODE_NAMES.get(key)
    if hit is None:
        if len(_CODE_NAMES) >= 4096:  # bounded: kernels generated on the fly
            _CODE_NAMES.clear()
        hit = _CODE_NAMES[key] = tuple(
            i.argval for i in dis.get_instructions(c) if i.opname in _GLOBAL_OPS)
    return hit


def _user_function(v: Any) -> bool:
    """A plain function of the user's (not of tpb, NumPy or the standard library): the
    kernel may call it, so what it reads is guarded too."""
    if not isinstance(v, types.FunctionType):
        return False
    mod = getattr(v, "__module__", None) or ""
    return not (mod == "tpb" or mod.startswith(("tpb.", "numpy", "ml_dtypes")))


# A function's guards are cached (``_FnState.guards``) with the objects they were computed
# from, and reused while each is still the same object and all are values an object's
# identity fixes (:func:`_fixed_by_identity`): recomputing them was a tenth of a small
# kernel's replay.
_MISSING = object()


def _fixed_by_identity(v: Any) -> bool:
    """Whether ``_simple(v)`` is the same for as long as ``v`` is the same object: an
    immutable value, a tuple of them, or an object keyed by itself (not a list or an
    array, which change in place)."""
    if v is None or isinstance(v, (bool, int, float, complex, str, bytes, range,
                                   pathlib.PurePath)):
        return True
    if isinstance(v, tuple):
        return all(_fixed_by_identity(x) for x in v)
    if isinstance(v, (list, np.ndarray, slice)):
        return False
    return _simple(v) is v


def _cell_value(cell: Any) -> Any:
    try:
        return cell.cell_contents
    except ValueError:  # an empty cell
        return _MISSING


def _cached_guards(fn: Any, c: Optional[Tuple[Any, ...]]) -> Any:
    """The guards cached for ``fn`` (``c``) if every object they came from is still in
    place."""
    if c is None:
        return None
    code, g, names, objs, cells, defaults, kwdefaults, guards = c
    if fn.__code__ is not code or fn.__globals__ is not g or fn.__defaults__ is not defaults \
            or fn.__kwdefaults__ is not kwdefaults:
        return None
    for name, o in zip(names, objs):
        if g.get(name, _MISSING) is not o:
            return None
    closure = fn.__closure__ or ()
    if len(closure) != len(cells):
        return None
    for cell, o in zip(closure, cells):
        if _cell_value(cell) is not o:
            return None
    return guards


def _guards(fn: Any, st: Optional[_FnState] = None, seen: Optional[set] = None) -> Any:
    """The values the kernel's code reads from its closure and its module's globals (and,
    the same way, those of the user's functions it names); cached in ``st``, the state of
    the kernel's own function (``None`` for a function it calls)."""
    if st is not None:
        hit = _cached_guards(fn, st.guards)
        if hit is not None:
            return hit
    seen = set() if seen is None else seen
    seen.add(fn)
    g = fn.__globals__
    vals: List[Any] = []
    names = _global_names(fn)
    # Cached only when nothing it read can change in place and no other function of the
    # user's was guarded (its globals are not watched here).
    cacheable = st is not None
    for name in names:
        if name not in g:
            continue
        gv = g[name]
        v = _simple(gv)
        if v is _UNKEYABLE:
            return _UNKEYABLE
        cacheable = cacheable and _fixed_by_identity(gv)
        vals.append((name, v))
        # A sub-kernel (``@nki.jit``) is guarded through its function.
        gf = getattr(gv, "fn", gv) if type(gv).__module__.startswith("tpb.") else gv
        if _user_function(gf) and gf not in seen:
            cacheable = False
            inner = _guards(gf, None, seen)
            if inner is _UNKEYABLE:
                return _UNKEYABLE
            vals.append(inner)
    cells = []
    for cell in fn.__closure__ or ():
        c = _cell_value(cell)
        cells.append(c)
        v = None if c is _MISSING else _simple(c)
        if v is _UNKEYABLE:
            return _UNKEYABLE
        cacheable = cacheable and (c is _MISSING or _fixed_by_identity(c))
        vals.append(v)
    for d in (fn.__defaults__ or ()):
        v = _simple(d)
        if v is _UNKEYABLE:
            return _UNKEYABLE
        vals.append(v)
    for name, d in sorted((fn.__kwdefaults__ or {}).items()):
        v = _simple(d)
        if v is _UNKEYABLE:
            return _UNKEYABLE
        vals.append((name, v))
    guards = tuple(vals)
    # (A keyword-only default lives in a dict, which can change in place.)
    if st is not None and cacheable and _fixed_by_identity(fn.__defaults__) \
            and not fn.__kwdefaults__:
        st.guards = (fn.__code__, g, names, tuple(g.get(n, _MISSING) for n in names),
                     tuple(cells), fn.__defaults__, fn.__kwdefaults__, guards)
    return guards


def _argument(a: Any) -> Any:
    """A positional argument in the signature: a NumPy array (an HBM tensor whose bytes the
    replay writes) by shape and dtype, anything else as :func:`_simple`."""
    if isinstance(a, np.ndarray):
        # dtype.num and .byteorder are C fields (dtype equality and .name are Python-slow);
        # every registered dtype (ml_dtypes' too) has its own number.
        return ("tensor", a.shape, a.dtype.num, a.dtype.byteorder)
    return _simple(a)


def lookup(fn: Callable[..., Any], settings: Tuple[Any, ...], arrays: Tuple[Any, ...],
           kwargs: dict) -> Tuple[Optional[Dict[Any, Any]], Any, Any]:
    """``(table, key, entry)`` of this call: the kernel's table of recorded runs, this call's
    signature and what the table holds for it (``None`` if nothing yet); ``(None, None,
    None)`` when the call cannot be keyed (a kernel that is not a plain function, an argument
    or a global it reads that has no value signature). The key, a tuple of every value in
    the signature, is hashed once."""
    if not isinstance(fn, types.FunctionType):
        return None, None, None
    args = tuple(map(_argument, arrays))
    kw = tuple((k, _simple(v)) for k, v in sorted(kwargs.items())) if kwargs else ()
    st = _state(fn)
    guards = _guards(fn, st)
    if guards is _UNKEYABLE:
        return None, None, None
    for a in args:
        if a is _UNKEYABLE:
            return None, None, None
    for _, v in kw:
        if v is _UNKEYABLE:
            return None, None, None
    table = st.table
    # The code by identity (the recorded run keeps it alive, so the id stays its own).
    key = (id(fn.__code__), settings, args, kw, guards)
    try:
        entry = table.get(key)
    except TypeError:  # an unhashable value inside a keyed container
        return None, None, None
    return table, key, entry


def replayable(entry: Any) -> Optional[Recorded]:
    """The recorded run in a table entry, or ``None`` (a signature recorded as not
    replayable)."""
    return entry if isinstance(entry, Recorded) else None


def record(fn: Any, core: Any, arrays: Tuple[Any, ...], args: List[Any], out: Any) -> Any:
    """The run just made, recorded for replay, or ``_NOT_REPLAYABLE``."""
    inputs = [t for a, t in zip(arrays, args) if isinstance(a, np.ndarray)]
    outputs: List[Any] = []
    template = _template(out, outputs)
    if _contains(template, _UNKEYABLE) or any(t.buffer != "hbm" for t in outputs):
        return _NOT_REPLAYABLE
    try:
        replay = _tpb._kernel_replay(core, inputs, outputs)
    except NotSupported:
        return _NOT_REPLAYABLE
    return Recorded(replay, template, isinstance(out, _tpb.Tile), fn.__code__)


def _template(r: Any, outputs: List[Any]) -> Any:
    """The kernel's return value ``r`` with each output tile replaced by its ``_Slot`` (the
    tile appended to ``outputs``). A plain function, not a closure that calls itself: that
    would be a reference cycle holding the tiles, and through them the core's machine, until
    the garbage collector's next full pass (every first call of a kernel then took a new
    machine's memory, tens of milliseconds)."""
    if isinstance(r, _tpb.Tile):
        outputs.append(r)
        return _Slot(len(outputs) - 1)
    if isinstance(r, (tuple, list)):
        return type(r)(_template(x, outputs) for x in r)
    return r if _simple(r) is not _UNKEYABLE else _UNKEYABLE


def _contains(template: Any, what: Any) -> bool:
    if template is what:
        return True
    if isinstance(template, (tuple, list)):
        return any(_contains(t, what) for t in template)
    return False


def store(table: Dict[Any, Any], key: Any, recorded: Any) -> None:
    if len(table) >= MAX_RECORDED:
        table.pop(next(iter(table)))
    table[key] = recorded
