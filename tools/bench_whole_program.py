#!/usr/bin/env python3
"""Whole-program cost of `tpb run` (issue 11 target 3): wall time, CPU time and peak memory.

Generates a program of N one-element instructions (default 1,000,000) as text and as a
binary of 64-byte bundles, then runs `tpb run` on each, with `--serial` (one in-order
stream) and in the default multi-engine mode, and prints for each run the wall-clock
seconds, the CPU seconds (user + system, from the child's rusage), the peak resident set
and the peak per instruction, beside the same for an empty program (start-up cost).

    cargo build --release -p tpb
    python3 tools/bench_whole_program.py            # 1,000,000 instructions
    python3 tools/bench_whole_program.py --n 100000 --repeat 3

Goal: <= 1 s per run of the 1,000,000-instruction program, and peak memory proportional to
the program. It is a benchmark, not a test: the figures depend on the machine's load.

The program: an Iota (POOL) fills 1024 fp32 slots of partition 0 and bumps semaphore 0; then
one-element TensorScalar instructions (DVE), the first waiting for the semaphore, each read
one slot and write another. No read is uninitialised and no two engines race, so every run
exits 0 and reports nothing per instruction.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time

TIME = "/usr/bin/time"  # GNU time: wall, CPU and peak RSS of one process
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def program_lines(n: int):
    yield ".gen cayman\n"
    yield ("iota src=0:[[1,1024]] out=fp32 dst=sbuf[p0..1]+0x0:[[1,1024]] "
           "update_mode=sem_inc_complete update_idx=0\n")
    for i in range(n - 1):
        src = (i % 1024) * 4
        dst = 0x1000 + (i % 1024) * 4
        wait = " wait_mode=sem_ge_imm wait_idx=0 semaphore_value=1" if i == 0 else ""
        yield (f"ts_arith src=sbuf[p0..1]+{src:#x}:[[1,1]] in=fp32 out=fp32 op0=mult "
               f"imm0=0.5 dst=sbuf[p0..1]+{dst:#x}:[[1,1]]{wait}\n")


def measure(cmd: list[str]) -> tuple[float, float, int]:
    """(wall s, CPU s, peak RSS bytes) of one run of `cmd`, through GNU time.

    Not this process's own rusage of its child: on Linux a child's peak RSS starts from its
    parent's when it execs, and this script's can be larger than tpb's.
    """
    with tempfile.NamedTemporaryFile("r", suffix=".time") as t:
        proc = subprocess.run(
            [TIME, "-f", "%e %U %S %M", "-o", t.name, *cmd],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        if proc.returncode != 0:
            err = proc.stderr.decode(errors="replace").strip()
            sys.exit(f"{' '.join(cmd)} exited {proc.returncode}: {err}")
        wall, user, sys_s, kib = t.read().split()[-4:]
    return float(wall), float(user) + float(sys_s), int(kib) * 1024


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=1_000_000, help="instructions (default 1e6)")
    ap.add_argument("--repeat", type=int, default=1, help="runs of each case (best kept)")
    ap.add_argument("--tpb", default=os.path.join(ROOT, "target", "release", "tpb"))
    args = ap.parse_args()
    if not os.path.exists(TIME):
        sys.exit(f"{TIME} (GNU time) is needed to measure peak memory")
    if not os.path.exists(args.tpb):
        sys.exit(f"{args.tpb} not found: run `cargo build --release -p tpb` first")

    with tempfile.TemporaryDirectory() as tmp:
        text = os.path.join(tmp, "program.tpb")
        binary = os.path.join(tmp, "program.bin")
        empty = os.path.join(tmp, "empty.tpb")
        with open(text, "w") as f:
            f.writelines(program_lines(args.n))
        with open(empty, "w") as f:
            f.write(".gen cayman\n")
        wall, cpu, rss = measure([args.tpb, "asm", text, "-o", binary])
        print(f"{args.n} instructions; text {os.path.getsize(text) / 1e6:.1f} MB, "
              f"binary {os.path.getsize(binary) / 1e6:.1f} MB")
        print(f"tpb asm      wall {wall:6.2f} s  CPU {cpu:6.2f} s  peak {rss / 1e6:7.1f} MB  "
              f"({args.n / cpu / 1e6:.2f} M lines/s of CPU)")
        out = os.path.join(tmp, "out")
        base = measure([args.tpb, "run", empty, "--out-dir", out])
        print(f"start-up     wall {base[0]:6.2f} s  CPU {base[1]:6.2f} s  "
              f"peak {base[2] / 1e6:7.1f} MB  (empty program)")
        print(f"{'case':<22} {'wall s':>7} {'CPU s':>7} {'peak MB':>8} {'B/inst':>7}  goal <= 1 s")
        for name, path in (("binary", binary), ("text", text)):
            for mode in (["--serial"], []):
                cmd = [args.tpb, "run", path, "--out-dir", out, *mode]
                best = min((measure(cmd) for _ in range(args.repeat)), key=lambda r: r[1])
                wall, cpu, rss = best
                per = (rss - base[2]) / args.n
                label = f"{name} {'--serial' if mode else 'engines'}"
                print(f"{label:<22} {wall:7.2f} {cpu:7.2f} {rss / 1e6:8.1f} {per:7.0f}  "
                      f"{'met' if wall <= 1.0 else 'not met'} (wall), "
                      f"{'met' if cpu <= 1.0 else 'not met'} (CPU)")


if __name__ == "__main__":
    main()
