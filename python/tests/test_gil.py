"""The GIL is released while the simulator runs (issue: long runs must not block Python)."""

from __future__ import annotations

import threading
import time

import numpy as np

import tpb


def _program(free: int) -> tpb.Instruction:
    text = (
        f"ts_arith in_dtype=fp32 out_dtype=fp32 op0=mult imm0=1.5 op1=bypass "
        f"src=sbuf[p0..128]+0x0:[[1,{free}],[1,1],[1,1]] "
        f"dst=sbuf[p0..128]+{free * 4:#x}:[[1,{free}],[1,1],[1,1]]"
    )
    return tpb.decode(tpb.asm(text))[0]


def test_other_python_threads_run_while_a_program_runs():
    free = 8192
    m = tpb.Machine()
    m.write("sbuf[p0..128]+0x0", np.ones((128, free), np.float32))
    inst = _program(free)
    t0 = time.perf_counter()
    m.step(inst)
    one = time.perf_counter() - t0
    reps = max(4, int(0.4 / max(one, 1e-6)))  # a run of about 0.4 s
    program = [inst] * reps

    done = threading.Event()
    worker = threading.Thread(target=lambda: (m.run(program), done.set()))
    ticks = 0
    started = time.perf_counter()
    worker.start()
    while not done.is_set():
        ticks += 1
        time.sleep(0)  # also lets the worker take the GIL to start and to return
    worker.join()
    elapsed = time.perf_counter() - started
    # With the GIL held for the whole run the main thread gets a tick or two (before the
    # worker enters run() and after it returns); with it released it loops for the whole run
    # (hundreds of ticks even on a heavily loaded machine).
    assert elapsed > 0.05
    assert ticks > 50, f"main thread advanced only {ticks} times in {elapsed:.2f} s"
