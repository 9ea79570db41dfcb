#!/usr/bin/env python3
"""The acceptance kernels of examples/kernels/ through tpb.nki.simulate_kernel, beside the
same kernels executed eagerly in NumPy, in-process, ratios from one run (issue 21 item 4).

    pip install numpy ml_dtypes && maturin develop --release   # the tpb module
    python3 tools/bench_nki_kernels_vs_numpy.py [--reps 5] [--only WORD] [--profile NAME]

A benchmark, not a test: it prints times and ratios and checks only that both sides computed
the same values (to a tolerance: tpb's transcendental functions are labelled approximate).

* tpb: ``tpb.nki.simulate_kernel(kernel, *args)`` on one thread (RAYON_NUM_THREADS=1 is set
  before tpb is imported, and NumPy's BLAS gets one thread), two ways: ``replay=False`` (the kernel's Python runs: every nl/nisa
  call emits, validates and runs its instruction, with the synchronisation the compiler would
  emit — what the first call of a signature costs) and the default (later calls of the same
  signature replay the recorded run in Rust, docs/python.md "Traced once per signature").
* NumPy (eager): the *same kernel function* (its code object) with ``nl`` and ``nisa``
  rebound to a minimal NumPy implementation below (``np_nl``, ``np_nisa``): each call is one
  or a few NumPy calls on arrays, as a NumPy-based kernel simulator executes a kernel
  eagerly, minus that simulator's own bookkeeping (so the harder baseline). HBM tensors are
  arrays wrapped so that subscripts can be stored into. It uses NumPy's own matmul (BLAS)
  (in float32, as PSUM accumulates: NumPy has no BLAS for bfloat16) and exp; for the
  kernels in SAME_BITS a second NumPy baseline computes tpb's bits (matmul
  in tpb's fused multiply-add order, exp in float64), and the table says whether its output
  equals tpb's bit for bit.

Five more sections, so that one run prints every figure of issue 30 (items 1 to 5):

* calls: the per-call overhead of a ``tpb.nki.isa`` call above the same instruction stepped
  on a machine (one element, and each case of tools/bench_kernels_vs_numpy.py that has an
  NKI call, at 128 x 512, with its ratio against NumPy (a)), a 128 x 128 x 512
  ``nc_matmul`` against ``numpy.matmul`` on one BLAS thread, and an activation exp against
  ``numpy.exp``;

* the same kernels at the shapes and dtypes of the public tutorials they restate
  (TUTORIAL_SHAPES; best of two rounds of one call each: the large matmul takes seconds);

* the fixed cost per kernel: ``simulate_kernel`` of a kernel that loads one element and
  stores it (two DMA instructions), and of one with no instruction, beside the same kernels
  eagerly in NumPy (target: at most 100 us);
* two kernels in two Python threads: the wall time of 2n runs on one thread against n runs
  on each of two threads at once (tpb releases the GIL while it simulates; target 1.7x on
  two cores). Wall time, so the machine must be otherwise idle: the load average is
  printed beside it.

* pytest: ``pytest -n 2`` against ``pytest -n 0`` over the kernel tests: a generated module
  that runs python/tests/test_example_kernels.py's kernel test --sweep-cases times per kernel
  (fresh random inputs each time, as a sweep of a test suite does), and one that runs it a
  fifth as many times; wall time of each whole ``python -m pytest`` run in a subprocess
  (start-up and collection included, as a user sees it), and the ratio of the differences
  between the two sizes (start-up and collection cancelled; target: the same 1.7 x as two
  threads).

* bounds: what this machine allows the targets, measured beside them: NumPy's fp32 loop
  against a plain copy of the same tile, NumPy's own memory-bound loop on two threads
  against one, and per kernel the time 1.5x NumPy asks of a replay beside the per-kernel
  floor.

A kernel tpb cannot run yet (an instruction it does not have) is listed with the reason.
Times are the best of --reps rounds of on-CPU time of this thread, the rounds of the sides
of a ratio interleaved (so that a slow spell of the machine falls on both); ratio = NumPy
time / tpb time (above 1: tpb is faster). ``--profile NAME`` prints where tpb's time goes in traced
runs of one kernel (cProfile of the Python side; the Rust side shows as the ``_tpb`` calls).

To add a kernel: put it in examples/kernels/, list its inputs in KERNELS below, and give
``np_nl`` / ``np_nisa`` any call it uses that they lack.
"""

import argparse
import importlib.util
import os
import pathlib
import sys
import threading
import time
import types

os.environ.setdefault("RAYON_NUM_THREADS", "1")
# NumPy's BLAS on one thread too: its idle worker threads otherwise spin against the timed
# thread and the matmul baseline swings 50-fold between runs.
for _blas in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_blas, "1")

import ml_dtypes  # noqa: E402
import numpy as np  # noqa: E402
import tpb  # noqa: E402
import tpb.nki as nki  # noqa: E402
import tpb.nki.isa as nisa  # noqa: E402
import tpb.nki.language as nl  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[1] / "examples" / "kernels"
rng = np.random.default_rng(21)


def f32(*shape):
    return rng.standard_normal(shape).astype(np.float32)


def f16(*shape):
    return rng.standard_normal(shape).astype(np.float16)


def bf16(*shape):
    return rng.standard_normal(shape).astype(ml_dtypes.bfloat16)


# The kernels whose NumPy baseline is also run computing tpb's bits (they call nl.matmul or
# nl.exp, whose NumPy results differ from tpb's defined ones).
SAME_BITS = ("matmul_tiled", "causal_attention", "softmax")

# name -> (inputs, grid): the shapes of python/tests/test_example_kernels.py, or larger.
KERNELS = {
    "tensor_add": (lambda: (f32(256, 1024), f32(256, 1024)), (2, 2)),
    "scale_bias": (lambda: (f32(128, 512), f32(128, 1)), ()),
    "softmax": (lambda: (f32(128, 512),), ()),
    "rmsnorm": (lambda: (f32(256, 512), f32(512)), ()),
    "layernorm": (lambda: (f32(128, 512), f32(128, 512), f32(128, 512)), ()),
    "matmul_tiled": (lambda: (f32(256, 128), f32(256, 512)), ()),
    "transpose2d": (lambda: (f32(128, 128),), ()),
    "average_pool2d": (lambda: (f32(16, 8, 8),), ()),
    "causal_attention": (lambda: (f32(64, 128), f32(64, 128), f32(128, 64)), ()),
    "cumsum": (lambda: (f32(128, 64),), ()),
}

# The same kernels at the shapes and dtypes of the public tutorials they restate
# (nki-samples: tensor_addition's SPMD test; rmsnorm's kernel script, as its torch test's
# 250-row tail needs masks our restatement does not have; softmax's torch test;
# average_pool2d's and matrix_multiplication's tests): label -> (kernel, inputs, grid).
# Not here: transpose2d (the tutorial's kernel transposes inside the free dimensions with a
# shape argument, ours the whole tile) and layernorm (the tutorial's 4096 x 8192 needs row
# tiling and column tiles our one-tile restatement does not have).
TUTORIAL_SHAPES = {
    "tensor_add fp16 (spmd)": ("tensor_add", lambda: (f16(256, 1024), f16(256, 1024)), (2, 2)),
    "rmsnorm 128 x 512": ("rmsnorm", lambda: (f32(128, 512), f32(512)), ()),
    "softmax 2 x 5": ("softmax", lambda: (np.array([[1, 2, 3, 4, 5], [5, 4, 3, 2, 1]],
                                                   np.float32),), ()),
    "average_pool2d fp16": ("average_pool2d",
                            lambda: (np.arange(72, dtype=np.float16).reshape(2, 6, 6),), ()),
    "matmul_tiled bf16 large": ("matmul_tiled", lambda: (bf16(1024, 4096), bf16(1024, 2048)),
                                ()),
}


# --- NumPy eager implementation of the nl / nisa calls the kernels use -------------------


class Hbm:
    """An HBM tensor: an array whose subscripts are references a store can write through."""

    def __init__(self, a):
        self.a = a
        self.shape, self.dtype = a.shape, a.dtype

    def __getitem__(self, key):
        return Ref(self.a, key)

    def reshape(self, shape):
        return Hbm(self.a.reshape(shape))


class Ref:
    def __init__(self, a, key):
        self.a, self.key = a, key


def _array(x):
    if isinstance(x, Hbm):
        return x.a
    if isinstance(x, Ref):
        return x.a[x.key]
    return x


class _Position:
    grid = ()
    at = ()
    # The shared HBM outputs of an SPMD run (every instance gets the same tensors, in the
    # order it allocates them), and how many this instance has allocated so far.
    shared: list = []
    allocated = 0


np_nl = types.SimpleNamespace(
    float32=np.float32,
    sbuf="sbuf",
    psum="psum",
    shared_hbm="shared_hbm",
    add=np.add,
    subtract=np.subtract,
    multiply=np.multiply,
    maximum=np.maximum,
    greater_equal=np.greater_equal,
    exp=np.exp,
    square=np.square,
    arange=np.arange,
    affine_range=range,
    sequential_range=range,
    static_range=range,
    broadcast_to=np.broadcast_to,
    program_id=lambda axis=0: _Position.at[axis],
    load=lambda x, **kw: np.array(_array(x)),
    reciprocal=lambda x, **kw: np.reciprocal(x),
    rsqrt=lambda x, **kw: np.reciprocal(np.sqrt(x)),
    max=lambda x, axis, keepdims=False, **kw: np.max(x, axis=axis, keepdims=keepdims),
    sum=lambda x, axis, keepdims=False, **kw: np.sum(x, axis=axis, keepdims=keepdims),
    mean=lambda x, axis, keepdims=False, **kw: np.mean(x, axis=axis, keepdims=keepdims),
    transpose=lambda x, **kw: np.ascontiguousarray(x.T),
    copy=lambda x, dtype=None, **kw: np.array(x, dtype=dtype or x.dtype),
    zeros=lambda shape, dtype, buffer=None, **kw: np.zeros(shape, dtype),
    ones=lambda shape, dtype, buffer=None, **kw: np.ones(shape, dtype),
)


def _ndarray(shape, dtype, buffer="sbuf", **kw):
    if buffer != "shared_hbm":
        return np.empty(shape, dtype)
    i = _Position.allocated
    _Position.allocated += 1
    if i == len(_Position.shared):
        _Position.shared.append(Hbm(np.empty(shape, dtype)))
    return _Position.shared[i]


def _store(dst, value, **kw):
    if isinstance(dst, Hbm):
        dst.a[...] = value
    else:
        dst.a[dst.key] = value


def _matmul(x, y, transpose_x=False, **kw):
    # In float32, as PSUM accumulates (and NumPy has no BLAS path for bfloat16: ml_dtypes'
    # matmul loop would take minutes at the tutorial's shape).
    x, y = np.asarray(x, np.float32), np.asarray(y, np.float32)
    return np.matmul(x.T if transpose_x else x, y)


np_nl.ndarray = _ndarray
np_nl.store = _store
np_nl.matmul = _matmul


def _tensor_scalar(dst, data, op0, operand0, reverse0=False, op1=None, operand1=None,
                   reverse1=False, **kw):
    r = op0(operand0, data) if reverse0 else op0(data, operand0)
    if op1 is not None:
        r = op1(operand1, r) if reverse1 else op1(r, operand1)
    dst[...] = r


def _affine_select(dst, pattern, channel_multiplier, on_true_tile, on_false_value,
                   cmp_op=np.greater_equal, offset=0, **kw):
    (step, num), = pattern
    p = np.arange(dst.shape[0])[:, None]
    k = np.arange(num)[None, :]
    keep = cmp_op(offset + p * channel_multiplier + k * step, 0)
    dst[...] = np.where(keep, on_true_tile, np.float32(on_false_value))


def _tensor_tensor_scan(dst, data0, data1, initial, op0, op1, **kw):
    acc = np.full(dst.shape[0], initial, np.float32)
    for k in range(dst.shape[1]):
        acc = op1(op0(data0[:, k], acc), data1[:, k])
        dst[:, k] = acc


np_nisa = types.SimpleNamespace(
    tensor_scalar=_tensor_scalar,
    affine_select=_affine_select,
    tensor_tensor_scan=_tensor_tensor_scan,
)


def _fma32(a, b, c):
    """fp32(a * b + c) rounded once, as the PE's fused multiply-add (elementwise): the product
    is exact in float64 (24 + 24 bits), the sum is rounded to odd at 53 bits (TwoSum gives its
    error; an inexact sum with an even last bit moves one ulp toward the exact value), and
    rounding that to fp32 is the single rounding (53 >= 24 + 2)."""
    p = a.astype(np.float64) * b.astype(np.float64)
    c = c.astype(np.float64)
    s = p + c
    bb = s - p
    err = (p - (s - bb)) + (c - bb)
    even = (s.view(np.uint64) & 1) == 0
    fix = (err != 0) & even
    s = np.where(fix, np.nextafter(s, np.where(err > 0, np.inf, -np.inf)), s)
    return s.astype(np.float32)


def _matmul_same_bits(x, y, transpose_x=False, **kw):
    """tpb's matmul order (docs/numerics: each output starts from its k = 0 product and adds
    the exact products k = 1, 2, ... one fused multiply-add at a time), in NumPy."""
    a = (x if transpose_x else x.T).astype(np.float32)  # K x M
    y = y.astype(np.float32)
    acc = (a[0][:, None] * y[0][None, :]).astype(np.float32)
    for k in range(1, a.shape[0]):
        acc = _fma32(a[k][:, None], y[k][None, :], acc)
    return acc


# The same NumPy kernel with the results tpb defines bit for bit: matmul in tpb's order and
# exp evaluated in float64 then rounded (the baseline "computing the same bits").
np_nl_same_bits = types.SimpleNamespace(**vars(np_nl))
np_nl_same_bits.matmul = _matmul_same_bits
np_nl_same_bits.exp = lambda x, **kw: np.exp(x.astype(np.float64)).astype(np.float32)


def numpy_kernel(kernel, same_bits=False):
    """The kernel's function with nl / nisa rebound to the NumPy implementation."""
    fn = getattr(kernel, "fn", kernel)
    g = dict(fn.__globals__)
    g.update(nl=np_nl_same_bits if same_bits else np_nl, nisa=np_nisa)
    return types.FunctionType(fn.__code__, g, fn.__name__, fn.__defaults__, fn.__closure__)


def run_numpy(fn, grid, args):
    wrapped = [Hbm(a) for a in args]
    positions = np.ndindex(*grid) if grid else [()]
    out = None
    _Position.shared = []
    for at in positions:
        _Position.grid, _Position.at, _Position.allocated = grid, at, 0
        out = fn(*wrapped)
    return _array(out)


# --- timing -----------------------------------------------------------------------------


# Steps of a 128 x 512 tile one machine runs in the calls section (its element budget is
# 2^32 elements per run; the cost of a new machine is spread over this many).
STEPS_PER_MACHINE = 20_000

# The least on-CPU time of a batch of calls between two clock reads: reading the thread's
# CPU clock costs about 0.6 µs of CPU time itself, which read once per call would add
# several percent to a kernel of a few microseconds (on both sides of a ratio).
BATCH_S = 1e-3


def best_time(fn, reps, min_s):
    """Best per-call on-CPU seconds of `fn` over `reps` rounds of at least `min_s` each,
    the clock read once per batch of calls (`BATCH_S`)."""
    return best_times([fn], reps, min_s)[0]


def best_times(fns, reps, min_s):
    """`best_time` of each of `fns`, their rounds interleaved (a round of each in turn, `reps`
    times): a slow spell of the machine then falls on every side of a ratio alike, instead
    of on whichever side was being timed."""
    batches = []
    for fn in fns:
        fn()
        batch = 1
        while True:
            t0 = time.thread_time()
            for _ in range(batch):
                fn()
            if time.thread_time() - t0 >= min(BATCH_S, min_s):
                break
            batch *= 2
        batches.append(batch)
    best = [float("inf")] * len(fns)
    for _ in range(reps):
        for i, (fn, batch) in enumerate(zip(fns, batches)):
            t0 = time.thread_time()
            k = 0
            while True:
                for _ in range(batch):
                    fn()
                k += batch
                if time.thread_time() - t0 >= min_s:
                    break
            best[i] = min(best[i], (time.thread_time() - t0) / k)
    return best


def wall_time(fn, n):
    """Wall seconds of `n` calls of `fn` on this thread."""
    t0 = time.perf_counter()
    for _ in range(n):
        fn()
    return time.perf_counter() - t0


def thread_scaling(fn, n, reps):
    """(one thread, two threads) wall seconds per call: 2n calls on this thread against n
    calls on each of two threads started together; best of `reps` each, the two measured
    alternately (this VM's speed drifts by up to 1.5x over seconds: measured one after the
    other, the two sides would see different machines)."""
    fn()

    def two():
        threads = [threading.Thread(target=wall_time, args=(fn, n)) for _ in range(2)]
        t0 = time.perf_counter()
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        return time.perf_counter() - t0

    one = both = float("inf")
    for _ in range(reps):
        one = min(one, wall_time(fn, 2 * n))
        both = min(both, two())
    return one / (2 * n), both / (2 * n)


def load_average():
    try:
        return "load average %.2f %.2f %.2f" % os.getloadavg()
    except OSError:
        return "load average unknown"


def calls(reps, min_s):
    """Issue 30 items 2 and 3 at the level of one call: the per-call overhead (a
    ``tpb.nki.isa`` call against the same instruction stepped on a machine), every
    ``tools/bench_kernels_vs_numpy.py`` case that has an NKI call at 128 x 512 against NumPy
    (a) (ufuncs on tile arrays, casts through ml_dtypes), and a 128 x 128 x 512 matmul against
    ``numpy.matmul`` on one BLAS thread."""
    spec = importlib.util.spec_from_file_location(
        "bench_kernels_vs_numpy", pathlib.Path(__file__).with_name("bench_kernels_vs_numpy.py"))
    bk = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bk)
    print(f"Calls (on-CPU us per call, best of {reps}; {load_average()}):")
    # One element: the whole fixed cost of a call (python/bench/overhead.py's measurement).
    spec = importlib.util.spec_from_file_location(
        "overhead", pathlib.Path(__file__).parents[1] / "python" / "bench" / "overhead.py")
    overhead = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(overhead)
    t_call, t_step, t_uf = overhead.one_element_costs(lambda fns: best_times(fns, reps, min_s))
    print(f"  one-element tensor_scalar: call {t_call * 1e6:.2f}, the instruction stepped "
          f"{t_step * 1e6:.2f}, NumPy ufunc {t_uf * 1e6:.2f}; above the step "
          f"{(t_call - t_step) * 1e6:.2f} (target <= 3 us above the data)")
    hdr = (f"  {'call, 128 x 512':<34} {'nki us':>8} {'step us':>8} {'above':>7} "
           f"{'numpy us':>9} {'ratio':>6}")
    print(hdr)
    print("  " + "-" * (len(hdr) - 2))
    for cls, din, dout in bk.CASES:
        c = cls(din, dout, 512)
        if c.nki is None:
            continue
        def machine(c=c):
            mm = tpb.Machine()
            if c.o.x is not None:
                mm.write("sbuf[p0..128]+0x0", c.o.x)
            c.setup(mm)
            return mm

        inst = tpb.decode(tpb.asm(c.text))[0]
        # A new machine every STEPS_PER_MACHINE steps: one machine's run has an element
        # budget (Config::max_run_elements) that many timed steps of a tile would pass.
        held = [machine(), 0]

        def step(inst=inst, held=held, machine=machine):
            if held[1] == STEPS_PER_MACHINE:
                held[0], held[1] = machine(), 0
            held[1] += 1
            held[0].step(inst)

        try:
            t_n, t_s, t_a = best_times([c.nki(), step, c.tiles], reps, min_s)
        except tpb.Error as e:
            print(f"  {cls.name + ' ' + din + '->' + dout:<34} not run: {str(e)[:60]}")
            continue
        print(f"  {cls.name + ' ' + din + '->' + dout:<34} {t_n * 1e6:>8.1f} {t_s * 1e6:>8.1f} "
              f"{(t_n - t_s) * 1e6:>7.1f} {t_a * 1e6:>9.1f} {t_a / t_n:>6.2f}")
        sys.stdout.flush()
    # Matmul 128 x 128 x 512: nki.isa.nc_matmul (LoadWeights + Matmul) against numpy.matmul.
    for dt, name in ((np.float32, "fp32"), (ml_dtypes.bfloat16, "bf16")):
        w = rng.standard_normal((128, 128)).astype(dt)
        x = rng.standard_normal((128, 512)).astype(dt)
        core = nki.Core()
        st, mv = core.from_numpy(w), core.from_numpy(x)
        ps = core.ndarray((128, 512), np.float32, buffer="psum")
        wf, xf = w.astype(np.float32), x.astype(np.float32)
        t_mm, t_np = best_times([lambda: nki.isa.nc_matmul(ps, st, mv, accumulate=False),
                                 lambda: np.matmul(wf.T, xf)], reps, min_s)
        print(f"  matmul 128 x 128 x 512 {name}: nc_matmul {t_mm * 1e6:.1f} us, numpy.matmul "
              f"float32 (one BLAS thread) {t_np * 1e6:.1f} us: ratio {t_np / t_mm:.2f} "
              f"(target >= 0.5)")
    # Activation exp 128 x 512 (one ACT instruction) against numpy.exp in the tile's dtype
    # (bf16 through float32, as ml_dtypes has no exp of its own).
    for dt, name in ((np.float32, "fp32"), (ml_dtypes.bfloat16, "bf16")):
        x = rng.standard_normal((128, 512)).astype(dt)
        core = nki.Core()
        tx, out = core.from_numpy(x), core.ndarray((128, 512), dt)
        np_exp = ((lambda: np.exp(x)) if dt is np.float32
                  else (lambda: np.exp(x.astype(np.float32)).astype(dt)))
        t_act, t_np = best_times([lambda: nisa.activation(out, np.exp, tx), np_exp], reps,
                                 min_s)
        print(f"  activation exp 128 x 512 {name}: {t_act * 1e6:.1f} us, numpy.exp "
              f"{t_np * 1e6:.1f} us: ratio {t_np / t_act:.2f}")
    print()


# The fixed-cost kernels: one element in and out, and no instruction at all.
def fixed_copy1(a):
    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    t = nl.load(a)
    nl.store(out, value=t)
    return out


def fixed_noop(a):
    return None


FIXED = {
    "one element in and out": fixed_copy1,
    "no instruction": fixed_noop,
}


def fixed_costs(reps, min_s):
    print(f"Fixed cost per kernel (target <= 100 us for one element in and out; {load_average()}):")
    hdr = (f"{'kernel':<26} {'instr':>6} {'traced us':>10} {'replay us':>10} {'numpy us':>10} "
           f"{'ratio':>7}")
    print(hdr)
    print("-" * len(hdr))
    one = np.ones((1, 1), np.float32)
    for label, fn in FIXED.items():
        core = nki.Core()
        nki.simulate_kernel(fn, one, core=core)
        n_inst = len(core.bundles()) // 64
        np_fn = numpy_kernel(fn)
        t_eager, t_tpb, t_np = best_times(
            [lambda: nki.simulate_kernel(fn, one, replay=False),
             lambda: nki.simulate_kernel(fn, one),
             lambda: run_numpy(np_fn, (), (one,))], reps, min_s)
        print(f"{label:<26} {n_inst:>6} {t_eager * 1e6:>10.1f} {t_tpb * 1e6:>10.1f} "
              f"{t_np * 1e6:>10.1f} {t_np / t_tpb:>7.2f}")
    first_calls(reps, min_s)
    print()


def first_calls(reps, min_s, held=12):
    """scale_bias 128 x 512 where no recorded run or pooled machine serves it: a signature's
    first call of a kernel function made anew each time (as a test that loads the kernel's
    module does), and the kernel on `held` cores the caller keeps (machines not from the
    pool: their memory's first touches), beside a core dropped after each run."""
    x, bias = f32(128, 512), f32(128, 1)
    kernel = load("scale_bias")
    t_first, t_traced = best_times(
        [lambda: nki.simulate_kernel(load("scale_bias"), x, bias),
         lambda: nki.simulate_kernel(load("scale_bias"), x, bias, replay=False)], reps, min_s)

    def on_new_core(keep):
        core = nki.Core()
        t0 = time.perf_counter()
        nki.simulate_kernel(kernel, x, bias, core=core)
        took = time.perf_counter() - t0
        if keep is not None:
            keep.append(core)
        return took

    kept = []
    t_held = sorted(on_new_core(kept) for _ in range(held))[held // 2]
    del kept
    t_pooled = sorted(on_new_core(None) for _ in range(held))[held // 2]
    print(f"scale_bias 128 x 512, a kernel function made anew for each call (its module loaded "
          f"again): first call {t_first * 1e6:.0f} us, traced without recording "
          f"{t_traced * 1e6:.0f} us (on-CPU, best of {reps}); on {held} cores kept by the "
          f"caller {t_held * 1e6:.0f} us, on a core dropped after each run "
          f"{t_pooled * 1e6:.0f} us (wall, median)")


def threads(a):
    print(f"Two kernels in two Python threads (wall time; target >= 1.7x one thread; "
          f"{load_average()}):")
    hdr = f"{'kernel':<18} {'1 thread us':>12} {'2 threads us':>13} {'speed-up':>9}"
    print(hdr)
    print("-" * len(hdr))
    one = np.ones((1, 1), np.float32)
    cases = [("fixed_copy1", fixed_copy1, (), (one,))]
    for name, (make, grid) in KERNELS.items():
        if a.only and a.only not in name:
            continue
        kernel = load(name)
        cases.append((name, kernel[grid] if grid else kernel, grid, make()))
    for name, k, grid, args in cases:
        try:
            nki.simulate_kernel(k, *args)
        except tpb.NotSupported:
            continue
        per = best_time(lambda: nki.simulate_kernel(k, *args), 1, 0.02)
        n = max(2, int(a.min_ms / 1000 / per / 2))
        t1, t2 = thread_scaling(lambda: nki.simulate_kernel(k, *args), n, a.reps)
        print(f"{name:<18} {t1 * 1e6:>12.1f} {t2 * 1e6:>13.1f} {t1 / t2:>9.2f}")
        sys.stdout.flush()
    print(f"({load_average()} after)")
    print()


SWEEP_MODULE = """\
# Generated by tools/bench_nki_kernels_vs_numpy.py --section pytest.
import importlib.util

import pytest

_spec = importlib.util.spec_from_file_location("kernel_tests", {tests!r})
kernel_tests = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(kernel_tests)


@pytest.mark.parametrize("case", range({cases}))
@pytest.mark.parametrize("name", [n for n, c in kernel_tests.CASES.items() if not c[2]])
def test_sweep(name, case):
    kernel_tests.test_kernel_matches_numpy(name)
"""


def pytest_scaling(a):
    """Wall seconds of ``python -m pytest`` over the kernel tests run --sweep-cases times per
    kernel and a fifth as many, serially and on two pytest-xdist workers (best of at most
    three rounds, the four runs alternated): the whole run's ratio, and the ratio of the
    difference between the two sizes, in which start-up and collection cancel."""
    import importlib.util as iu
    import subprocess
    import tempfile

    tests = pathlib.Path(__file__).resolve().parents[1] / "python" / "tests" / \
        "test_example_kernels.py"
    print(f"pytest -n 2 against -n 0 over the kernel tests (wall time of the whole run; "
          f"target >= 1.7x; {load_average()}):")
    if iu.find_spec("pytest") is None or iu.find_spec("xdist") is None:
        print("  not measured: pytest and pytest-xdist are not installed (pip install -e .[test])")
        print()
        return
    sizes = (max(1, a.sweep_cases // 5), a.sweep_cases)
    with tempfile.TemporaryDirectory(prefix="tpb-sweep-") as d:
        modules = {}
        for n in sizes:
            modules[n] = pathlib.Path(d) / f"test_kernel_sweep_{n}.py"
            modules[n].write_text(SWEEP_MODULE.format(tests=str(tests), cases=n))

        def run(cases, workers):
            cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                   "-n", workers, str(modules[cases])]
            t0 = time.perf_counter()
            r = subprocess.run(cmd, cwd=d, capture_output=True, text=True)
            took = time.perf_counter() - t0
            if r.returncode != 0:
                tail = (r.stdout + r.stderr).strip().splitlines()[-1:]
                raise SystemExit(f"the sweep failed with -n {workers}: {tail}")
            return took, r.stdout.strip().splitlines()[-1].strip("= ")

        best = {}
        summary = {}
        for _ in range(max(1, min(a.reps, 3))):
            for n in sizes:
                for w in ("0", "2"):
                    t, summary[n] = run(n, w)
                    best[n, w] = min(best.get((n, w), float("inf")), t)
    small, large = sizes
    passed = {n: int(summary[n].split(" passed")[0].split()[-1]) for n in sizes}
    for n in sizes:
        print(f"  {summary[n]} ({n} runs of each kernel test): -n 0 {best[n, '0']:.2f} s, "
              f"-n 2 {best[n, '2']:.2f} s: {best[n, '0'] / best[n, '2']:.2f}x")
    serial = best[large, "0"] - best[small, "0"]
    two = best[large, "2"] - best[small, "2"]
    more = passed[large] - passed[small]
    print(f"  the {more} tests more, start-up and collection cancelled: serial "
          f"{serial / more * 1e3:.2f} ms a test, two workers {two / more * 1e3:.2f} ms: "
          f"{serial / two:.2f}x")
    print()


def bounds(a, reps, min_s):
    """What this machine allows the targets, measured in the same run: how close NumPy's own
    fp32 loops run to a plain copy of the same tile (a call that reads and writes the same
    bytes cannot be much faster than the copy), how NumPy's own memory-bound loop scales on
    two threads, and, per kernel, the replay time 1.5x NumPy asks for beside the per-kernel
    floor (a replay of one element in and out)."""
    print(f"Bounds: what the same machine allows (on-CPU us, best of {reps}; {load_average()}):")
    x, y = f32(128, 512), f32(128, 512)
    o = np.empty_like(x)
    t_copy = best_time(lambda: np.copyto(o, x), reps, min_s)
    t_mul = best_time(lambda: np.multiply(x, y, out=o), reps, min_s)
    print(f"  128 x 512 fp32: a copy of the tile {t_copy * 1e6:.1f}; NumPy's x * y -> out "
          f"{t_mul * 1e6:.1f} ({t_copy / t_mul:.2f} x the copy's speed, with half as much again "
          f"to read): a TensorTensor call at 1.5 x NumPy would have to read two tiles and write "
          f"one in {t_mul / 1.5 * 1e6:.1f} us, {t_mul / 1.5 / t_copy:.2f} x one copy's time")
    local = threading.local()

    def mul(shape):
        def run():
            b = getattr(local, "b", None)
            if b is None or b[0].shape != shape:
                b = local.b = (f32(*shape), f32(*shape), np.empty(shape, np.float32))
            np.multiply(b[0], b[1], out=b[2])
        return run

    for shape in ((128, 512), (1024, 1024)):
        fn = mul(shape)
        per = best_time(fn, 1, 0.02)
        n = max(2, int(a.min_ms / 1000 / per / 2))
        t1, t2 = thread_scaling(fn, n, reps)
        print(f"  NumPy's own x * y -> out on {shape[0]} x {shape[1]} fp32 (the GIL released), "
              f"two threads against one: {t1 / t2:.2f} x (the target for tpb's replays: 1.7 x)")
    one = np.ones((1, 1), np.float32)
    nki.simulate_kernel(fixed_copy1, one)
    floor = best_time(lambda: nki.simulate_kernel(fixed_copy1, one), reps, min_s)
    print(f"  per-kernel floor (a replay of one element in and out): {floor * 1e6:.1f} us")
    hdr = f"  {'kernel':<18} {'numpy us':>9} {'1.5x needs us':>14} {'floor share':>12}"
    print(hdr)
    print("  " + "-" * (len(hdr) - 2))
    for name, (make, grid) in KERNELS.items():
        if a.only and a.only not in name:
            continue
        np_fn = numpy_kernel(load(name))
        args = make()
        t_np = best_time(lambda: run_numpy(np_fn, grid, args), reps, min_s)
        need = t_np / 1.5
        print(f"  {name:<18} {t_np * 1e6:>9.1f} {need * 1e6:>14.1f} {floor / need:>11.0%}")
        sys.stdout.flush()
    print()


def load(name):
    spec = importlib.util.spec_from_file_location(f"kernel_{name}", ROOT / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return getattr(mod, name)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--reps", type=int, default=5, help="rounds, best kept")
    ap.add_argument("--min-ms", type=float, default=50.0, help="least on-CPU ms per round")
    ap.add_argument("--only", default="", help="run the kernels whose name contains this")
    ap.add_argument("--profile", default="", help="cProfile tpb's traced runs of this kernel (replay=False)")
    ap.add_argument("--sweep-cases", type=int, default=100,
                    help="runs of each kernel test in the pytest section (and a fifth as many)")
    ap.add_argument("--section", default="all", choices=["all", "calls", "fixed", "threads", "kernels", "tutorial",
                             "pytest", "bounds"],
                    help="run one section only")
    a = ap.parse_args()
    min_s = a.min_ms / 1000
    if a.profile:
        import cProfile
        import pstats

        make, grid = KERNELS[a.profile]
        kernel = load(a.profile)
        k = kernel[grid] if grid else kernel
        args = make()
        prof = cProfile.Profile()
        prof.enable()
        for _ in range(50):
            nki.simulate_kernel(k, *args, replay=False)
        prof.disable()
        pstats.Stats(prof).sort_stats("tottime").print_stats(25)
        return
    if a.section in ("all", "calls"):
        calls(a.reps, min_s)
    if a.section in ("all", "fixed"):
        fixed_costs(a.reps, min_s)
    if a.section in ("all", "threads"):
        threads(a)
    if a.section in ("all", "kernels"):
        kernel_table(a, [(name, name, make, grid) for name, (make, grid) in KERNELS.items()],
                     "NKI kernels", a.reps, min_s)
        print()
    if a.section in ("all", "tutorial"):
        kernel_table(a, [(label, name, make, grid)
                         for label, (name, make, grid) in TUTORIAL_SHAPES.items()],
                     "At the public tutorials' shapes (best of 2 rounds of one call each)",
                     2, 0.0)
        print()
    if a.section in ("all", "pytest"):
        pytest_scaling(a)
    if a.section in ("all", "bounds"):
        bounds(a, a.reps, min_s)


def kernel_table(a, rows, title, reps, min_s):
    """One table of kernels (label, kernel, inputs, grid): traced, replayed and NumPy times
    and their ratios."""
    print(f"{title}: tpb.nki.simulate_kernel vs the same kernel eagerly in NumPy "
          f"{np.__version__}; one thread; best of {reps} rounds, on-CPU time; "
          f"ratio = NumPy time / tpb time (traced: replay=False, the kernel's Python runs; "
          f"replay: the default for a repeated signature); {load_average()}")
    hdr = (f"{'kernel':<24} {'shapes':<34} {'instr':>6} {'traced us':>10} {'replay us':>10} "
           f"{'numpy us':>10} {'traced':>7} {'replay':>7}")
    print(hdr)
    print("-" * len(hdr))
    same_bits_rows = []
    for label, name, make, grid in rows:
        if a.only and a.only not in label:
            continue
        kernel = load(name)
        args = make()
        short = {np.dtype(np.float16): " f16", np.dtype(ml_dtypes.bfloat16): " bf16"}
        shapes = " ".join("x".join(map(str, x.shape)) + short.get(x.dtype, "") for x in args)
        if grid:
            shapes += f" grid {'x'.join(map(str, grid))}"
        k = kernel[grid] if grid else kernel
        try:
            got = nki.simulate_kernel(k, *args)
        except tpb.Error as e:
            print(f"{label:<24} {shapes:<34} not run: {str(e).splitlines()[0][:90]}")
            continue
        core = nki.Core()
        nki.simulate_kernel(k, *args, core=core)
        n_inst = len(core.bundles()) // 64
        fn = numpy_kernel(kernel)
        want = run_numpy(fn, grid, args)
        replayed = nki.simulate_kernel(k, *args)
        tol = 1e-4 if np.asarray(got).dtype == np.float32 else 2e-2
        close = np.allclose(np.asarray(got, np.float32), np.asarray(want, np.float32),
                            rtol=tol, atol=tol)
        same = np.array_equal(np.asarray(replayed), np.asarray(got))
        t_eager, t_tpb, t_np = best_times(
            [lambda: nki.simulate_kernel(k, *args, replay=False),
             lambda: nki.simulate_kernel(k, *args),
             lambda: run_numpy(fn, grid, args)], reps, min_s)
        print(f"{label:<24} {shapes:<34} {n_inst:>6} {t_eager * 1e6:>10.1f} {t_tpb * 1e6:>10.1f} "
              f"{t_np * 1e6:>10.1f} {t_np / t_eager:>7.2f} {t_np / t_tpb:>7.2f}"
              + ("" if close else "   (outputs differ!)")
              + ("" if same else "   (replay differs from the traced run!)"))
        if name in SAME_BITS and label == name:
            fn_sb = numpy_kernel(kernel, same_bits=True)
            want_sb = run_numpy(fn_sb, grid, args)
            bits = np.array_equal(np.asarray(got).view(np.uint32),
                                  np.asarray(want_sb).view(np.uint32))
            t_sb = best_time(lambda: run_numpy(fn_sb, grid, args), 1, 0)
            same_bits_rows.append((name, t_eager, t_tpb, t_sb, bits))
        sys.stdout.flush()
    print_same_bits(same_bits_rows)


def print_same_bits(rows):
    if not rows:
        return
    print()
    print("Against NumPy computing tpb's bits (matmul in tpb's fused multiply-add order, exp in "
          "float64; one run each):")
    hdr = (f"{'kernel':<18} {'traced us':>10} {'replay us':>10} {'same-bits us':>13} "
           f"{'traced':>7} {'replay':>7}  bits")
    print(hdr)
    print("-" * len(hdr))
    for name, t_eager, t_tpb, t_sb, bits in rows:
        print(f"{name:<18} {t_eager * 1e6:>10.1f} {t_tpb * 1e6:>10.1f} {t_sb * 1e6:>13.1f} "
              f"{t_sb / t_eager:>7.2f} {t_sb / t_tpb:>7.2f}  "
              + ("equal" if bits else "differ (the kernel also uses calls the baseline "
                 "computes with NumPy's own order)"))


if __name__ == "__main__":
    main()
