"""Kernel runner: ``jit``, ``simulate_kernel``, ``profile_kernel`` and the SPMD grid."""

from __future__ import annotations

import functools
import inspect
import itertools
import os
from typing import Any, Callable, List, Optional, Tuple

import numpy as np

from .. import _tpb
from .._errors import UsageError
from . import _context


class Kernel:
    """A kernel (``@tpb.nki.jit``): call it with NumPy arrays to run it, or index it with a
    grid (``kernel[2, 3](...)``) to run one SPMD instance per grid point."""

    def __init__(self, fn: Callable[..., Any], grid: Tuple[int, ...] = (), **options: Any) -> None:
        self.fn = fn
        self.grid = grid
        self.options = options
        functools.update_wrapper(self, fn)

    def __getitem__(self, grid: Any) -> "Kernel":
        g = grid if isinstance(grid, tuple) else (grid,)
        if not g or any(not isinstance(d, int) or d < 1 for d in g):
            raise UsageError(f"kernel[{grid!r}]: a grid is one or more positive ints")
        return Kernel(self.fn, tuple(g), **self.options)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if _context.maybe_current() is not None:
            # A sub-kernel called from a kernel: runs inline.
            return self.fn(*args, **kwargs)
        opts = {**self.options, **kwargs}
        return simulate_kernel(self, *args, **opts)

    def __repr__(self) -> str:
        return f"<tpb.nki.Kernel {getattr(self.fn, '__name__', '?')} grid={self.grid}>"


def jit(fn: Optional[Callable[..., Any]] = None, **kwargs: Any) -> Any:
    """Decorates a kernel written against ``tpb.nki.language`` and ``tpb.nki.isa``.

    Parameters:
        fn: the kernel function.
        kwargs: run options applied to every call (``gen=``, ``uninitialized_reads=``).

    Semantics: calling the kernel with NumPy arrays runs it (:func:`simulate_kernel`) and
    returns its outputs as NumPy arrays; ``kernel[g](...)`` runs an SPMD grid.

    Example::

        @tpb.nki.jit
        def k():
            t = nl.ndarray((4, 8), nl.float32)
            nisa.iota(t, [[1, 8]], channel_multiplier=8)
            return t
        out = k()
    """
    if fn is None:
        return lambda f: jit(f, **kwargs)
    if isinstance(fn, Kernel):
        return fn
    return Kernel(fn, (), **kwargs)


def _outputs(result: Any) -> Any:
    if isinstance(result, _tpb.Tile):
        return result.numpy()
    if isinstance(result, (tuple, list)):
        return type(result)(_outputs(r) for r in result)
    return result


def _run(kernel: Any, arrays: Tuple[Any, ...], gen: Optional[str], uninitialized_reads: str,
         kwargs: dict) -> Tuple[Any, Any]:
    if uninitialized_reads not in ("raise", "warn"):
        raise UsageError(f'uninitialized_reads={uninitialized_reads!r}: "raise" or "warn"',
                         parameter="uninitialized_reads")
    out_of_bounds = kwargs.pop("out_of_bounds", "raise")
    if out_of_bounds not in ("raise", "warn"):
        raise UsageError(f'out_of_bounds={out_of_bounds!r}: "raise" or "warn"',
                         parameter="out_of_bounds")
    k = kernel if isinstance(kernel, Kernel) else Kernel(kernel)
    if not callable(k.fn):
        raise UsageError(f"kernel: {k.fn!r} is not a function", parameter="kernel")
    if inspect.isgeneratorfunction(k.fn) or inspect.iscoroutinefunction(k.fn) \
            or inspect.isasyncgenfunction(k.fn):
        raise UsageError(f"kernel {getattr(k.fn, '__name__', k.fn)!r} is a generator or async "
                         "function: an NKI kernel is a plain function that runs its calls and "
                         "returns its outputs", parameter="kernel")
    core = kwargs.pop("core", None)
    synchronize = kwargs.pop("synchronize", True)
    strict_exact = kwargs.pop("strict_exact", False)
    for opt, v in (("synchronize", synchronize), ("strict_exact", strict_exact)):
        if not isinstance(v, bool):
            raise UsageError(f"{opt}={v!r}: True or False", parameter=opt)
    if core is None:
        core = _tpb.Core(gen=gen or "cayman", strict=uninitialized_reads == "raise",
                         strict_exact=strict_exact)
    elif not isinstance(core, _tpb.Core):
        raise UsageError(f"core={core!r}: a tpb.nki.Core", parameter="core")
    elif gen is not None and gen != core.gen:
        raise UsageError(f"gen={gen!r} with core= (a {core.gen} core): the core's generation "
                         "is the run's; pass one of them", parameter="gen")
    elif strict_exact:
        raise UsageError("strict_exact=True with core=: make the core with "
                         "nki.Core(strict_exact=True)", parameter="strict_exact")
    _tpb._kernel_set_auto_sync(core, bool(synchronize))
    _tpb._kernel_set_clip_views(core, out_of_bounds == "warn")
    args = []
    for a in arrays:
        if isinstance(a, np.ndarray) or np.isscalar(a):
            args.append(_hbm_input(core, a))
        else:
            args.append(a)
    grid = k.grid
    results = []
    shared: list = []
    for pos in itertools.product(*(range(d) for d in grid)) if grid else [()]:
        old = _context.enter(_context.KernelContext(core, grid, tuple(pos), shared))
        try:
            result = k.fn(*args, **kwargs)
            if inspect.isgenerator(result) or inspect.isawaitable(result):
                raise UsageError(f"kernel {getattr(k.fn, '__name__', k.fn)!r} returned "
                                 f"{type(result).__name__}: an NKI kernel is a plain function",
                                 parameter="kernel")
            results.append(result)
            _context.flush(core)
        finally:
            _context.discard(core)
            _context.enter(old)
    out = results[-1] if results else None
    return core, _outputs(out)


def _hbm_input(core: Any, a: Any) -> Any:
    """A kernel argument: a NumPy array (or scalar) becomes an HBM tensor of its shape and
    dtype, written from the host before the kernel's first instruction."""
    arr = np.ascontiguousarray(np.asarray(a))
    if arr.ndim == 0:
        arr = arr.reshape(1)
    return core.from_numpy(arr, buffer="hbm")


def simulate_kernel(kernel: Any, *arrays: Any, gen: Optional[str] = None,
                    uninitialized_reads: str = "raise", **kwargs: Any) -> Any:
    """Runs a kernel and returns its outputs as NumPy arrays.

    Parameters:
        kernel: a ``@tpb.nki.jit`` kernel (optionally with a grid) or a plain function.
        arrays: the kernel's arguments (NumPy arrays become HBM tensors the kernel reads with
            ``nl.load``; the HBM tensors it returns come back as NumPy arrays).
        gen: the generation (``sunda``, ``cayman`` (the default), ``mariana``,
            ``maverick``); with ``core=``, the core's (another one is an error).
        uninitialized_reads: ``"raise"`` (default: reading bytes never written raises
            :class:`tpb.Fault` of kind ``strict``) or ``"warn"``.
        out_of_bounds: ``"raise"`` (default: a subscript past its tile raises
            :class:`tpb.OutOfBoundsError`) or ``"warn"`` (slices and ranges are clipped to the
            tile, as NumPy clips slices, with a ``UserWarning``).
        synchronize: ``True`` (default) emits the semaphore waits the kernel's footprints
            need; ``False`` emits none (a kernel that synchronises by hand, checked by
            :func:`profile_kernel`).
        strict_exact: ``True`` raises :class:`tpb.Fault` at the first result that is not
            exact (a matmul, exact only per tpb's summation order; an approximate function).
        core: a :class:`tpb.nki.Core` to run on (to read ``core.disasm()`` /
            ``core.bundles()`` afterwards: the emitted multi-engine program).
        kwargs: passed to the kernel.

    Semantics: every ``nl``/``nisa`` call emits, validates and runs its instruction at once
    (in program order) on one simulated NeuronCore, with the synchronisation the compiler
    would emit; out-of-bounds subscripts raise :class:`tpb.OutOfBoundsError`, tiles that do
    not fit raise :class:`tpb.CapacityError`.

    Example::

        out = tpb.nki.simulate_kernel(my_kernel, a, b)
    """
    _, out = _run(kernel, arrays, gen, uninitialized_reads, kwargs)
    return out


def profile_kernel(kernel: Any, *arrays: Any, gen: Optional[str] = None,
                   uninitialized_reads: str = "raise", timeline: Any = None,
                   **kwargs: Any) -> Tuple[Any, Any]:
    """Runs a kernel, then re-runs the program it emitted on the engine scheduler, and
    returns ``(outputs, profile)``.

    Parameters:
        kernel, arrays, gen, uninitialized_reads, kwargs: as :func:`simulate_kernel`.
        timeline: a path or list of paths ending in ``.json`` (Chrome trace, Perfetto) or
            ``.svg`` (Gantt chart) to write the timeline to.

    Semantics: the scheduled run must complete with no race and the same memory as the
    eager run; a race raises :class:`tpb.RaceError` and a deadlock :class:`tpb.DeadlockError`,
    naming both instructions and the kernel source lines that emitted them. The profile has
    ``engines`` (per-engine busy/waiting/idle cycles and utilisation), ``critical_path``,
    ``estimated_time_us``, ``instruction_counts``, ``approximate`` (the instructions whose
    results are approximate, with their source lines) and ``write_timeline(path)``.

    Example::

        out, prof = tpb.nki.profile_kernel(my_kernel, a, timeline="k.svg")
        print(prof.estimated_time_us, prof.engines)
    """
    paths = _timeline_paths(timeline)
    core, out = _run(kernel, arrays, gen, uninitialized_reads, kwargs)
    name = getattr(getattr(kernel, "fn", kernel), "__name__", "kernel")
    prof = _tpb._kernel_profile(core, name)
    for p in paths:
        prof.write_timeline(p)
    return out, prof


def _timeline_paths(timeline: Any) -> List[str]:
    """The timeline paths, checked before the kernel runs (a bad one must not throw the
    run away): each a str, bytes or path-like ending in ``.json`` or ``.svg``."""
    if timeline is None:
        return []
    items = [timeline] if isinstance(timeline, (str, bytes)) or hasattr(timeline, "__fspath__") \
        else timeline
    try:
        items = list(items)
    except TypeError:
        raise UsageError(f"timeline={timeline!r}: a path or a list of paths",
                         parameter="timeline") from None
    paths = []
    for p in items:
        try:
            path = os.fsdecode(p)
        except TypeError:
            raise UsageError(f"timeline: {p!r} is not a path", parameter="timeline") from None
        if not path.endswith((".json", ".svg")):
            raise UsageError(f"timeline: {path!r} must end in .json (Chrome trace) or .svg "
                             "(Gantt chart)", parameter="timeline")
        paths.append(path)
    return paths
