"""The kernel being run: its core, its SPMD position, and the call-site labels.

A kernel run (``simulate_kernel``, a ``@jit`` kernel called with NumPy arrays) sets the
current context for the thread; ``nl`` and ``nisa`` calls find the core here and label the
instructions they emit with the kernel source line that made them.
"""

from __future__ import annotations

import os
import sys
import threading
from typing import Any, Callable, Dict, Optional, Tuple

from .. import _tpb
from .._errors import UsageError

_PKG_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_local = threading.local()


class KernelContext:
    """One SPMD instance of a kernel run."""

    def __init__(self, core: Any, grid: Tuple[int, ...], position: Tuple[int, ...]) -> None:
        self.core = core
        self.grid = grid
        self.position = position


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


_IN_PKG: dict = {}  # co_filename -> whether it is a file of the tpb package


def _in_pkg(filename: str) -> bool:
    hit = _IN_PKG.get(filename)
    if hit is None:
        # abspath is slow (a getcwd per call): once per file, not once per nki call.
        hit = _IN_PKG[filename] = os.path.abspath(filename).startswith(_PKG_DIR)
    return hit


def origin() -> Optional[str]:
    """``file:line`` of the first caller outside the tpb package (the kernel source)."""
    f = sys._getframe(1)
    while f is not None and _in_pkg(f.f_code.co_filename):
        f = f.f_back
    if f is None:
        return None
    return f"{f.f_code.co_filename}:{f.f_lineno}"


# Per core: a value-returning matmul not emitted yet (``language.matmul``), so that
# ``acc += nl.matmul(...)`` becomes one Matmul accumulating into ``acc``, as NKI lowers it.
_pending: Dict[int, Tuple[Any, Any, Callable[[Any], None]]] = {}


def defer(core: Any, result: Any, emit: Callable[[Any], None]) -> None:
    """Holds ``emit`` (which writes ``result``, or adds into the tile it is given) until the
    core's next call: every call flushes it first (:func:`label`), so program order holds."""
    flush(core)
    _pending[id(core)] = (core, result, emit)


def take(core: Any, result: Any) -> Optional[Callable[[Any], None]]:
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


def discard(core: Any) -> None:
    """Drops the core's pending matmul (a kernel run that raised)."""
    _pending.pop(id(core), None)


def label(core: Any, name: Optional[str] = None, engine: Any = None) -> None:
    """Labels the next instructions of ``core`` with the caller's source line (after
    emitting a pending matmul, which keeps its own line)."""
    flush(core)
    eng = None if engine is None else getattr(engine, "value", engine)
    if eng is not None and not isinstance(eng, str):
        raise UsageError(f"engine={engine!r}: expected an nki.isa.engine member or a name")
    _tpb._kernel_set_call(core, origin(), name, eng)
