"""Kernel runner: ``jit``, ``simulate_kernel``, ``profile_kernel`` and the SPMD grid."""

from __future__ import annotations

import functools
import inspect
import itertools
import os
import warnings
from typing import Any, Callable, List, Optional, Tuple

import numpy as np

from .. import _tpb
from .._errors import UnwrittenOutputError, UsageError
from . import _context, _replay
from ._surface import default_gen, platform_gen


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


# NKI compile and launch options (nki-api §1, §4.1): accepted on every entry point, recorded
# on the kernel, never passed to the kernel function. `platform_target` picks the generation.
_NKI_OPTIONS = frozenset({
    "mode", "platform_target", "debug_kernel", "show_compiler_tb", "additional_compile_opt",
    "save_neff_name", "save_trace_name", "artifacts_dir", "experimental_flags",
    "enable_out_of_bound_check", "warmup", "iters", "working_directory", "overwrite",
    "profile_nth", "kernel_return", "compiler_args",
})


def _split_options(kwargs: dict) -> Tuple[dict, dict]:
    """(NKI compile/launch options, the rest) of a keyword dict."""
    if not kwargs:
        return {}, kwargs
    nki = {k: v for k, v in kwargs.items() if k in _NKI_OPTIONS}
    return nki, {k: v for k, v in kwargs.items() if k not in _NKI_OPTIONS}


def jit(fn: Optional[Callable[..., Any]] = None, **kwargs: Any) -> Any:
    """Decorates a kernel written against ``tpb.nki.language`` and ``tpb.nki.isa``.

    Parameters:
        fn: the kernel function.
        kwargs: run options applied to every call (``gen=``, ``uninitialized_reads=``), and
            NKI's compile options (``mode=``, ``platform_target=``, ``debug_kernel=``,
            ``additional_compile_opt=``, ...), which are accepted and not passed to the kernel;
            ``platform_target="trn2"`` selects the generation as ``gen=`` does.

    Semantics: calling the kernel with NumPy arrays runs it (:func:`simulate_kernel`) and
    returns its outputs (HBM tensors, as NKI requires: an SBUF or PSUM tile returned raises
    :class:`tpb.UsageError`) as NumPy arrays; ``kernel[g](...)`` runs an SPMD grid. The
    generation defaults to ``NEURON_PLATFORM_TARGET_OVERRIDE`` (``trn1``/``inf2``/``gen2``,
    ``trn2``/``gen3``, ``trn3``/``gen4``) or cayman.

    Example::

        @tpb.nki.jit
        def k():
            t = nl.ndarray((4, 8), nl.float32)
            nisa.iota(t, [[1, 8]], channel_multiplier=8)
            out = nl.ndarray((4, 8), nl.float32, buffer=nl.shared_hbm)
            nl.store(out, value=t)
            return out
        out = k()
    """
    if fn is None:
        return lambda f: jit(f, **kwargs)
    if isinstance(fn, Kernel):
        return Kernel(fn.fn, fn.grid, **{**fn.options, **kwargs}) if kwargs else fn
    return Kernel(fn, (), **kwargs)


def simulate(kernel: Any) -> Callable[..., Any]:
    """``nki.simulate(kernel)``: the callable that runs ``kernel`` on tpb and returns its
    outputs as NumPy arrays (NKI 0.6.0's CPU simulation entry point).

    Example::

        out = nki.simulate(tensor_add_kernel)(a, b)
    """
    k = kernel if isinstance(kernel, Kernel) else Kernel(kernel)

    def run(*args: Any, **kwargs: Any) -> Any:
        return simulate_kernel(k, *args, **kwargs)

    functools.update_wrapper(run, k.fn)
    return run


class LatencyResult:
    """``benchmark_result.nc_latency``: tpb's estimated kernel time (the profile's
    ``estimated_time_us``) for every percentile — a simulation has no run-to-run spread."""

    def __init__(self, estimated_us: float) -> None:
        self.estimated_us = estimated_us

    def get_latency_percentile(self, percentile: int) -> float:
        """The estimated time in µs (the same for every percentile)."""
        return self.estimated_us


class BenchmarkResult:
    """``kernel.benchmark_result``: ``nc_latency`` and the tpb ``profile`` it comes from."""

    def __init__(self, profile: Any) -> None:
        self.profile = profile
        self.nc_latency = LatencyResult(float(profile.estimated_time_us))


class _Launcher:
    """A kernel under a legacy launcher (``baremetal``, ``benchmark``, ``profile``)."""

    def __init__(self, kernel: Any, profiled: bool, options: dict) -> None:
        self.kernel = kernel if isinstance(kernel, Kernel) else Kernel(kernel)
        self.profiled = profiled
        self.options = options
        self.benchmark_result: Optional[BenchmarkResult] = None
        self.profile: Any = None
        functools.update_wrapper(self, self.kernel.fn)

    def __getitem__(self, grid: Any) -> "_Launcher":
        return _Launcher(self.kernel[grid], self.profiled, self.options)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if not self.profiled:
            return simulate_kernel(self.kernel, *args, **{**self.options, **kwargs})
        out, prof = profile_kernel(self.kernel, *args, **{**self.options, **kwargs})
        self.profile = prof
        self.benchmark_result = BenchmarkResult(prof)
        return out


def _launcher(kernel: Any, profiled: bool, kwargs: dict) -> Any:
    if kernel is None:
        return lambda k: _Launcher(k, profiled, kwargs)
    return _Launcher(kernel, profiled, kwargs)


def baremetal(kernel: Any = None, **kwargs: Any) -> Any:
    """Legacy ``nki.baremetal``: NumPy in, NumPy out — on tpb, the same as
    :func:`simulate_kernel` (no device; ``save_neff_name=``, ``artifacts_dir=`` and the other
    compile options are accepted and write nothing).

    Example::

        out = nki.baremetal(kernel)(a, b)
    """
    return _launcher(kernel, False, kwargs)


def benchmark(kernel: Any = None, **kwargs: Any) -> Any:
    """Legacy ``nki.benchmark``: runs the kernel with :func:`profile_kernel` and sets
    ``kernel.benchmark_result.nc_latency.get_latency_percentile(p)`` to tpb's estimated
    time in µs (a model, not a measurement; ``warmup=``/``iters=`` are accepted).

    Example::

        bench = nki.benchmark(warmup=5, iters=10)(kernel)
        bench(a, b)
        print(bench.benchmark_result.nc_latency.get_latency_percentile(50))
    """
    return _launcher(kernel, True, kwargs)


def profile(kernel: Any = None, **kwargs: Any) -> Any:
    """Legacy ``nki.profile``: runs the kernel with :func:`profile_kernel`; the tpb profile
    is ``kernel.profile`` (``working_directory=`` and the NEFF/NTFF names are accepted and
    write nothing — use ``profile_kernel(..., timeline=...)`` for a timeline file).

    Example::

        prof_kernel = nki.profile(working_directory="/tmp/p")(kernel)
        prof_kernel(a)
        print(prof_kernel.profile.estimated_time_us)
    """
    return _launcher(kernel, True, kwargs)


def _outputs(result: Any, unwritten: str = "raise", position: Optional[int] = None) -> Any:
    if isinstance(result, _tpb.Tile):
        if result.buffer != "hbm":
            raise UsageError(
                f"the kernel returned an {result.buffer.upper()} tile {tuple(result.shape)}: a "
                "kernel's outputs are HBM tensors, as NKI requires (allocate "
                "nl.ndarray(shape, dtype, buffer=nl.shared_hbm) and nl.store the tile into it)")
        _check_written(result, unwritten, position)
        return result.numpy()
    if isinstance(result, (tuple, list)):
        return type(result)(_outputs(r, unwritten, i) for i, r in enumerate(result))
    return result


def _check_written(out: Any, unwritten: str, position: Optional[int]) -> None:
    _report_unwritten(out._first_unwritten(), tuple(out.shape), out.dtype, unwritten, position)


def _report_unwritten(first: Optional[int], shape: Tuple[int, ...], dtype: Any, unwritten: str,
                      position: Optional[int]) -> None:
    """Elements of an output the kernel never wrote would come back as 0.0: an error
    (``uninitialized_reads="raise"``, the default) or a warning naming the first one."""
    if first is None:
        return
    index = tuple(int(i) for i in np.unravel_index(first, shape)) if shape else ()
    which = "the kernel's output" if position is None else f"output {position}"
    msg = (f"{which} {shape} {dtype}: element {list(index)} (the first in C order) was "
           "never written by the kernel and would read back as 0.0; write every element, or "
           'pass uninitialized_reads="warn" to accept that')
    if unwritten == "raise":
        raise UnwrittenOutputError(msg, output=position, index=index)
    warnings.warn(msg, RuntimeWarning, stacklevel=5)


def _same_gen(gen: str) -> str:
    """``gen`` as the tpb generation name a core reports (``trn2`` is ``cayman``)."""
    try:
        return platform_gen(gen)
    except UsageError:
        return gen


# tpb's run options beside the kernel's keyword arguments, with their defaults.
_RUN_OPTIONS = {"out_of_bounds": "raise", "core": None, "synchronize": True,
                "strict_exact": False, "replay": True}
_RUN_DEFAULTS = tuple(_RUN_OPTIONS.values())


def _run_options(kwargs: dict) -> Tuple[Any, ...]:
    """The run options in ``_RUN_OPTIONS`` order, taken out of ``kwargs``."""
    if not kwargs:
        return _RUN_DEFAULTS
    return tuple(kwargs.pop(k, d) for k, d in _RUN_OPTIONS.items())


def _run(kernel: Any, arrays: Tuple[Any, ...], gen: Optional[str], uninitialized_reads: str,
         kwargs: dict, replayable: bool = False) -> Tuple[Any, Any]:
    nki_options, kwargs = _split_options(kwargs)
    gen_asked = gen
    if gen is None:
        target = nki_options.get("platform_target")
        gen = platform_gen(target) if target is not None else default_gen()
    if uninitialized_reads not in ("raise", "warn"):
        raise UsageError(f'uninitialized_reads={uninitialized_reads!r}: "raise" or "warn"',
                         parameter="uninitialized_reads")
    out_of_bounds, core, synchronize, strict_exact, replay = _run_options(kwargs)
    if out_of_bounds not in ("raise", "warn"):
        raise UsageError(f'out_of_bounds={out_of_bounds!r}: "raise" or "warn"',
                         parameter="out_of_bounds")
    # The replay lookup comes before the checks only a traced run needs.
    fn, grid = (kernel.fn, kernel.grid) if isinstance(kernel, Kernel) else (kernel, ())
    if synchronize is not True or strict_exact is not False or replay is not True:
        for opt, v in (("synchronize", synchronize), ("strict_exact", strict_exact),
                       ("replay", replay)):
            if v is not True and v is not False:
                raise UsageError(f"{opt}={v!r}: True or False", parameter=opt)
    table = key = None
    if replayable and replay and core is None and _replay.enabled():
        settings = (gen, uninitialized_reads, out_of_bounds, synchronize, strict_exact, grid)
        table, key, entry = _replay.lookup(fn, settings, arrays, kwargs)
        if entry is not None:
            recorded = _replay.replayable(entry)
            if recorded is not None:
                return None, _replayed(recorded, arrays, uninitialized_reads)
            table = None  # recorded before as not replayable: run it eagerly
    k = kernel if isinstance(kernel, Kernel) else Kernel(kernel)
    if not callable(k.fn):
        raise UsageError(f"kernel: {k.fn!r} is not a function", parameter="kernel")
    if inspect.isgeneratorfunction(k.fn) or inspect.iscoroutinefunction(k.fn) \
            or inspect.isasyncgenfunction(k.fn):
        raise UsageError(f"kernel {getattr(k.fn, '__name__', k.fn)!r} is a generator or async "
                         "function: an NKI kernel is a plain function that runs its calls and "
                         "returns its outputs", parameter="kernel")
    if core is None:
        core = _tpb.Core(gen=gen or "cayman", strict=uninitialized_reads == "raise",
                         strict_exact=strict_exact)
    elif not isinstance(core, _tpb.Core):
        raise UsageError(f"core={core!r}: a tpb.nki.Core", parameter="core")
    elif gen_asked is not None and _same_gen(gen_asked) != core.gen:
        raise UsageError(f"gen={gen_asked!r} with core= (a {core.gen} core): the core's "
                         "generation is the run's; pass one of them", parameter="gen")
    elif strict_exact:
        raise UsageError("strict_exact=True with core=: make the core with "
                         "nki.Core(strict_exact=True)", parameter="strict_exact")
    _tpb._kernel_set_auto_sync(core, bool(synchronize))
    _tpb._kernel_set_clip_views(core, out_of_bounds == "warn")
    args = [_kernel_argument(core, a) for a in arrays]
    out = None
    shared: list = []
    for pos in itertools.product(*(range(d) for d in grid)) if grid else [()]:
        old = _context.enter(_context.KernelContext(core, grid, tuple(pos), shared))
        try:
            # Only the last instance's return value is the kernel's output: an earlier
            # instance's tiles are released as soon as the next one starts.
            out = None
            out = k.fn(*args, **kwargs)
            if inspect.isgenerator(out) or inspect.isawaitable(out):
                raise UsageError(f"kernel {getattr(k.fn, '__name__', k.fn)!r} returned "
                                 f"{type(out).__name__}: an NKI kernel is a plain function",
                                 parameter="kernel")
            _context.flush(core)
        finally:
            _context.discard(core)
            _context.enter(old)
    recorded = _replay.record(k.fn, core, arrays, args, out) if table is not None else None
    _write_back(core, arrays, args)
    outputs = _outputs(out, uninitialized_reads)
    if recorded is not None and table is not None:
        _replay.store(table, key, recorded)
    return core, outputs


def _replayed(entry: "_replay.Recorded", arrays: Tuple[Any, ...], unwritten: str) -> Any:
    """A kernel's outputs from a replay of its recorded run with these arrays."""
    # The replay reads each array in any layout (a 0-d one as its one element).
    outs, first, back = entry.replay.run([a for a in arrays if isinstance(a, np.ndarray)])
    if first is not None:
        for position, (o, f) in enumerate(zip(outs, first)):
            if f is not None:
                _report_unwritten(f, tuple(o.shape), o.dtype, unwritten,
                                  None if entry.single else position)
    if back is not None:
        nd = [(k, a) for k, a in enumerate(arrays) if isinstance(a, np.ndarray)]
        for (k, a), new in zip(nd, back):
            if new is not None:
                _write_into(k, a, new)
    return entry.rebuild(outs)


def _write_back(core: Any, arrays: Tuple[Any, ...], args: list) -> None:
    """The kernel's writes to an input tensor land in the caller's array, as NKI's simulator
    updates it (a kernel may take its output as an argument, ``cumsum(x, y)``). A read-only
    array the kernel wrote is an error: the write would otherwise be lost silently. An input
    nothing wrote after it was placed (no instruction, no host assignment) is not read back:
    the core knows, unless its machine was changed directly or its record was cut."""
    for k, (a, t) in enumerate(zip(arrays, args)):
        if not isinstance(a, np.ndarray) or t is a:
            continue
        if _tpb._kernel_wrote(core, t) is False:
            continue
        _write_into(k, a, t.numpy())


def _write_into(k: int, a: Any, new: Any) -> None:
    """Input ``k``'s array ``a`` gets the kernel's writes (``new``), if it wrote any."""
    new = new.reshape(a.shape)
    if new.tobytes() != np.ascontiguousarray(a).tobytes():
        if not a.flags.writeable:
            raise UsageError(f"argument {k}: the kernel wrote this input, but the NumPy array "
                             "is read-only, so its result cannot be returned in it (pass a "
                             "writeable array)", parameter=f"arrays[{k}]")
        a[...] = new


def _kernel_argument(core: Any, a: Any) -> Any:
    """A kernel argument as the kernel sees it: a NumPy array becomes an HBM tensor of its
    shape and dtype, written from the host before the kernel's first instruction; Python
    and NumPy scalars, tuples, configuration objects and tiles pass through unchanged (NKI
    treats them as compile-time values)."""
    if isinstance(a, np.ndarray):
        return core.from_numpy(_host_array(a), buffer="hbm")
    return a


def _host_array(a: Any) -> Any:
    """A NumPy kernel argument as its HBM tensor holds it: C order, at least one dim."""
    arr = np.ascontiguousarray(a)
    return arr.reshape(1) if arr.ndim == 0 else arr


def simulate_kernel(kernel: Any, *arrays: Any, gen: Optional[str] = None,
                    uninitialized_reads: str = "raise", **kwargs: Any) -> Any:
    """Runs a kernel and returns its outputs as NumPy arrays.

    Parameters:
        kernel: a ``@tpb.nki.jit`` kernel (optionally with a grid) or a plain function.
        arrays: the kernel's arguments (NumPy arrays become HBM tensors the kernel reads with
            ``nl.load``; the HBM tensors it returns come back as NumPy arrays).
        gen: the generation (``sunda``, ``cayman``, ``mariana``, ``maverick``); by default
            ``NEURON_PLATFORM_TARGET_OVERRIDE`` (``trn1``, ``trn2``, ``trn3``, ``gen2``...) or
            ``cayman``; with ``core=``, the core's (another one is an error).
        uninitialized_reads: ``"raise"`` (default: reading bytes never written raises
            :class:`tpb.Fault` of kind ``strict``, and an output element the kernel never
            wrote raises :class:`tpb.UnwrittenOutputError` naming the output and the first
            such index) or ``"warn"`` (a ``RuntimeWarning`` for the outputs; they read back
            as 0.0).
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
        replay: ``True`` (default) replays the recorded run of an earlier call with the same
            signature instead of running the kernel's Python again (docs/python.md, "Traced
            once per signature"); ``False`` runs the Python every time.
        kwargs: passed to the kernel.

    Semantics: every ``nl``/``nisa`` call emits, validates and runs its instruction at once
    (in program order) on one simulated NeuronCore, with the synchronisation the compiler
    would emit; a later call with the same signature replays that run on the new arguments
    (bit for bit what the eager run gives, without the kernel's Python); out-of-bounds subscripts raise :class:`tpb.OutOfBoundsError`, tiles that do
    not fit raise :class:`tpb.CapacityError`.

    Example::

        out = tpb.nki.simulate_kernel(my_kernel, a, b)
    """
    _, out = _run(kernel, arrays, gen, uninitialized_reads, kwargs, replayable=True)
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
    ``estimated_time_us``, ``roofline`` (the estimate beside the physical bound of the
    kernel's matmul flops and HBM bytes on the generation), ``instruction_counts``, ``approximate`` (the instructions whose
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


def _timeline_paths(timeline: Any) -> list:
    """The timeline paths, checked before the kernel runs (a bad one would otherwise throw
    the outputs and the profile away): each a str, bytes or path-like ending in ``.json`` or
    ``.svg`` whose folder exists."""
    if timeline is None:
        return []
    one = isinstance(timeline, (str, bytes)) or hasattr(timeline, "__fspath__")
    if not one and not isinstance(timeline, (list, tuple)):
        raise UsageError(f"timeline: a path or a list of paths, not {type(timeline).__name__}")
    paths = []
    for t in [timeline] if one else timeline:
        try:
            p = os.fsdecode(t)
        except TypeError:
            raise UsageError(f"timeline: {t!r} is not a path") from None
        if os.path.splitext(p)[1].lower() not in (".json", ".svg"):
            raise UsageError(f"timeline: {p!r} must end in .json (Chrome trace) or .svg")
        folder = os.path.dirname(os.path.abspath(p))
        if not os.path.isdir(folder):
            raise UsageError(f"timeline: the folder of {p!r} does not exist")
        paths.append(p)
    return paths
