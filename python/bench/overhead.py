"""Python-layer benchmark (not a test): per-call overhead and large-tile throughput.

Prints figures measured in one run, each beside a reference measured in the same run:

* one-element ``tpb.nki.isa.tensor_scalar`` and ``Machine.step`` against one NumPy ufunc
  call on a one-element array (goal: <= 5 us per call);
* ``tensor_scalar`` on a 128 x 512 fp32 tile against the same instruction stepped on a
  machine (the data) and against NumPy (issue 30 item 2: overhead <= 3 us above the data);
* large tiles: ``Machine.step`` called from Python once per instruction against the same
  instructions run by one ``Machine.run`` call (the Rust loop, no Python per instruction;
  goal: Python within 10 % of it).

Times are process CPU time (``time.process_time``), so other processes on a loaded machine
disturb the figures less than wall time would; each figure is the best of several repeats.

Usage: python python/bench/overhead.py [--quick]
"""

from __future__ import annotations

import sys
import time

import ml_dtypes
import numpy as np

import tpb
import tpb.nki as nki


def best_per_call(fn, calls: int, repeats: int = 5) -> float:
    """Best-of-`repeats` seconds per call of `fn` over `calls` calls."""
    best = float("inf")
    for _ in range(repeats):
        t0 = time.process_time()
        for _ in range(calls):
            fn()
        best = min(best, (time.process_time() - t0) / calls)
    return best


def one_element_costs(per_calls):
    """(``tpb.nki.isa.tensor_scalar`` call, the same instruction by ``Machine.step``, NumPy's
    ufunc) seconds per call on one fp32 element, timed together by ``per_calls(fns)`` (one
    time per function, in order; it may interleave their rounds): the whole fixed cost of a
    call (also printed by tools/bench_nki_kernels_vs_numpy.py's calls section)."""
    core = nki.Core(gen="cayman")
    a = core.from_numpy(np.array([[1.5]], dtype=np.float32))
    b = core.ndarray((1, 1), np.float32)
    x, y = np.array([1.5], dtype=np.float32), np.empty(1, dtype=np.float32)
    m = tpb.Machine(gen="cayman")
    m.write("sbuf[p0..1]+0x0", np.array([[1.5]], dtype=np.float32))
    one = tpb.decode(
        tpb.asm(
            "ts_arith in_dtype=fp32 out_dtype=fp32 op0=mult imm0=2.0 op1=bypass "
            "src=sbuf[p0..1]+0x0:[[1,1],[1,1],[1,1]] dst=sbuf[p0..1]+0x40:[[1,1],[1,1],[1,1]]"
        )
    )[0]
    t_nki, t_step, t_np = per_calls([
        lambda: nki.isa.tensor_scalar(b, a, np.multiply, 2.0),
        lambda: m.step(one),
        lambda: np.multiply(x, 2.0, out=y),
    ])
    return t_nki, t_step, t_np


def main() -> None:
    quick = "--quick" in sys.argv
    calls = 2_000 if quick else 20_000

    # One-element calls.
    t_nki, t_step, t_np = one_element_costs(lambda fns: [best_per_call(f, calls) for f in fns])
    core = nki.Core(gen="cayman")

    print("per-call overhead (one element)")
    print(f"  numpy ufunc                   {t_np * 1e6:8.2f} us")
    print(f"  tpb.nki.isa.tensor_scalar     {t_nki * 1e6:8.2f} us   ({t_nki / t_np:5.1f}x numpy)  goal <= 5 us")
    print(f"  tpb.Machine.step              {t_step * 1e6:8.2f} us   ({t_step / t_np:5.1f}x numpy)  goal <= 5 us")

    # A 128 x 512 fp32 tile (issue 30 item 2): the call against the same instruction stepped
    # on a machine (the data), and against NumPy.
    tile_calls = calls // 10
    data = np.random.default_rng(2).standard_normal((128, 512)).astype(np.float32)
    a2 = core.from_numpy(data)
    b2 = core.ndarray((128, 512), np.float32)
    x2, y2 = data.copy(), np.empty_like(data)
    t_nki2 = best_per_call(lambda: nki.isa.tensor_scalar(b2, a2, np.multiply, 2.0), tile_calls)
    t_np2 = best_per_call(lambda: np.multiply(x2, 2.0, out=y2), tile_calls)
    m2 = tpb.Machine(gen="cayman")
    m2.write("sbuf[p0..128]+0x0", data)
    tile_inst = tpb.decode(
        tpb.asm(
            "ts_arith in_dtype=fp32 out_dtype=fp32 op0=mult imm0=2.0 op1=bypass "
            "src=sbuf[p0..128]+0x0:[[1,512],[1,1],[1,1]] "
            "dst=sbuf[p0..128]+0x800:[[1,512],[1,1],[1,1]]"
        )
    )[0]
    t_step2 = best_per_call(lambda: m2.step(tile_inst), tile_calls)
    print("one call on a 128 x 512 fp32 tile")
    print(f"  numpy multiply                {t_np2 * 1e6:8.2f} us")
    print(f"  tpb.Machine.step (the data)   {t_step2 * 1e6:8.2f} us   ({t_np2 / t_step2:5.2f}x numpy speed)")
    print(f"  tpb.nki.isa.tensor_scalar     {t_nki2 * 1e6:8.2f} us   ({t_np2 / t_nki2:5.2f}x numpy speed)")
    print(f"  overhead above the data       {(t_nki2 - t_step2) * 1e6:8.2f} us   goal <= 3 us")

    # Large tiles: K steps from Python vs one run() of the same K instructions.
    free = 4096 if quick else 16384
    k = 4 if quick else 8
    print(f"large tiles (128 x {free}, {k} instructions; best of 5)")
    for label, dt, tpb_name in (
        ("fp32 -> fp32 mult", np.float32, "fp32"),
        ("bf16 -> bf16 mult", ml_dtypes.bfloat16, "bfloat16"),
    ):
        m = tpb.Machine(gen="cayman")
        src = np.random.default_rng(1).standard_normal((128, free)).astype(dt)
        m.write("sbuf[p0..128]+0x0", src)
        row = free * np.dtype(dt).itemsize
        text = (
            f"ts_arith in_dtype={tpb_name} out_dtype={tpb_name} op0=mult imm0=1.5 "
            f"op1=bypass src=sbuf[p0..128]+0x0:[[1,{free}],[1,1],[1,1]] "
            f"dst=sbuf[p0..128]+{row:#x}:[[1,{free}],[1,1],[1,1]]"
        )
        inst = tpb.decode(tpb.asm(text))[0]
        program = [inst] * k
        t_run = min(_timed(lambda: m.run(program)) for _ in range(5))
        t_steps = min(_timed(lambda: [m.step(inst) for _ in range(k)]) for _ in range(5))
        elems = 128 * free * k
        print(
            f"  {label:18s} run(): {elems / t_run / 1e9:6.2f} G elem/s   "
            f"step() x{k}: {elems / t_steps / 1e9:6.2f} G elem/s   "
            f"python/rust time {t_steps / t_run:5.3f} (goal <= 1.10)"
        )


def _timed(fn) -> float:
    t0 = time.process_time()
    fn()
    return time.process_time() - t0


if __name__ == "__main__":
    main()
