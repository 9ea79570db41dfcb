"""The kernel being run: its core, its SPMD position, and the call-site labels.

A kernel run (``simulate_kernel``, a ``@jit`` kernel called with NumPy arrays) sets the
current context for the thread; ``nl`` and ``nisa`` calls find the core here and label the
instructions they emit with the kernel source line that made them.
"""

from __future__ import annotations

import os
import sys
import threading
from types import CodeType, FrameType
from typing import Any, Callable, Dict, List, Optional, Tuple

import numpy as np

from .. import _tpb
from .._errors import UsageError

_PKG_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_local = threading.local()


class KernelContext:
    """One SPMD instance of a kernel run."""

    def __init__(self, core: Any, grid: Tuple[int, ...], position: Tuple[int, ...],
                 shared: Optional[List[Any]] = None) -> None:
        self.core = core
        self.grid = grid
        self.position = position
        # The grid's shared_hbm tensors, in allocation order (shared by every instance).
        self.shared = shared if shared is not None else []
        self._next_shared = 0

    def shared_hbm(self, shape: Tuple[int, ...], dtype: Any, make: Callable[[], Any]) -> Any:
        """This instance's next ``shared_hbm`` allocation: the grid's tensor of that rank in
        allocation order, made by the first instance that asks."""
        k = self._next_shared
        self._next_shared += 1
        if k == len(self.shared):
            self.shared.append(make())
        t = self.shared[k]
        if tuple(t.shape) != tuple(shape) or np.dtype(t.dtype) != np.dtype(dtype):
            raise UsageError(
                f"shared_hbm tensor #{k}: {tuple(shape)} {np.dtype(dtype)} in grid instance "
                f"{self.position}, but {tuple(t.shape)} {t.dtype} in an earlier one (every "
                "instance allocates the shared outputs alike)"
            )
        return t


def current(what: str) -> KernelContext:
    ctx: Optional[KernelContext] = getattr(_local, "ctx", None)
    if ctx is None:
        raise UsageError(
            f"{what} can only be called inside a kernel run "
            "(tpb.nki.simulate_kernel, tpb.nki.profile_kernel or a @tpb.nki.jit kernel "
            "called with NumPy arrays)"
        )
    return ctx


def maybe_current() -> Optional[KernelContext]:
    return getattr(_local, "ctx", None)


def enter(ctx: Optional[KernelContext]) -> Optional[KernelContext]:
    old = getattr(_local, "ctx", None)
    _local.ctx = ctx
    return old


_IN_PKG: Dict[str, bool] = {}  # co_filename -> whether it is a file of the tpb package
# (id(code), instruction offset) -> (code, "file:line"): the offset is read without
# computing the line (a line-table walk), the code object is kept so its id stays its own.
_ORIGINS: Dict[Tuple[int, int], Tuple[CodeType, str]] = {}


def _in_pkg(filename: str) -> bool:
    hit = _IN_PKG.get(filename)
    if hit is None:
        # abspath is slow (a getcwd per call): once per file, not once per nki call.
        hit = _IN_PKG[filename] = os.path.abspath(filename).startswith(_PKG_DIR)
    return hit


def origin() -> Optional[str]:
    """``file:line`` of the first caller outside the tpb package (the kernel source)."""
    f: Optional[FrameType] = sys._getframe(1)
    in_pkg = _IN_PKG
    while f is not None:
        name = f.f_code.co_filename
        hit = in_pkg.get(name)
        if hit is None:
            hit = _in_pkg(name)
        if not hit:
            break
        f = f.f_back
    if f is None:
        return None
    code = f.f_code
    key = (id(code), f.f_lasti)
    entry = _ORIGINS.get(key)
    if entry is None or entry[0] is not code:
        if len(_ORIGINS) > 65536:  # bounded: kernels generated on the fly
            _ORIGINS.clear()
        entry = _ORIGINS[key] = (code, f"{code.co_filename}:{f.f_lineno}")
    return entry[1]


# Per core: a value-returning matmul not emitted yet (``language.matmul``), so that
# ``acc += nl.matmul(...)`` becomes one Matmul accumulating into ``acc``, as NKI lowers it.
_pending: Dict[int, Tuple[Any, Any, Callable[..., None]]] = {}


def pending_matmuls() -> Dict[int, Tuple[Any, Any, Callable[..., None]]]:
    """The pending emissions, by core (the dict itself: empty when nothing is pending)."""
    return _pending


def defer(core: Any, result: Any, emit: Callable[..., None]) -> None:
    """Holds ``emit`` (which writes ``result``, or adds into the tile it is given) until the
    core's next call: every call flushes it first (:func:`label`), so program order holds."""
    flush(core)
    _pending[id(core)] = (core, result, emit)


def take(core: Any, result: Any) -> Optional[Callable[..., None]]:
    """The pending emission whose result is ``result`` (removed), or ``None``."""
    entry = _pending.get(id(core))
    if entry is None or entry[1] is not result:
        return None
    del _pending[id(core)]
    return entry[2]


def flush(core: Any) -> None:
    """Emits the core's pending matmul into its own result, if there is one."""
    entry = _pending.pop(id(core), None)
    if entry is not None:
        entry[2](None)


# Per core: the views mod_alloc subscripts just gave for blocks whose storage another block
# index used last (or none yet), newest last. The first legacy ``+=`` of a matmul into one
# starts the block's accumulation group (assumption ``mod-alloc-block-groups``). A few are
# kept (the right-hand side of ``t[i] += ...`` may subscript other blocks before the ``+=``).
_fresh: Dict[int, List[Any]] = {}
_FRESH_KEPT = 16


def mark_fresh(core: Any, view: Any) -> None:
    """Records ``view`` as a block view of the core that nothing has gone through yet."""
    views = _fresh.setdefault(id(core), [])
    views.append(view)
    if len(views) > _FRESH_KEPT:
        del views[0]


def take_fresh(core: Any, view: Any) -> bool:
    """Whether ``view`` (the object itself) is a fresh block view of the core; it stops
    being fresh."""
    views = _fresh.get(id(core))
    if views:
        for k, v in enumerate(views):
            if v is view:
                del views[k]
                return True
    return False


def discard(core: Any) -> None:
    """Drops the core's pending matmul and fresh block view (the end of a kernel run)."""
    _pending.pop(id(core), None)
    _fresh.pop(id(core), None)
