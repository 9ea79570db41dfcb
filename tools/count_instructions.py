#!/usr/bin/env python3
"""Instructions executed per tpb instruction, under callgrind: a load-independent speed figure.

    pip install numpy ml_dtypes          # and valgrind on PATH
    python3 tools/count_instructions.py --tpb target/release/tpb [--only WORD] [--simd avx2]

A benchmark, not a test. The 2-core machine this project is built on is shared, so wall and
even CPU times swing by tens of percent between runs; the number of instructions the CPU
retires does not. This runs the cases of `tools/bench_vs_numpy.py` (the same programs,
128 partitions x 16384 elements) through `tpb run --serial` under `valgrind --tool=callgrind`
twice, with one and with two copies of the instruction, and prints the difference: the
x86 instructions one instruction costs, start-up and input files cancelled out. Compare two
builds (say, before and after a change of build profile) with `--tpb` on each.

Valgrind runs AVX2 code but not AVX-512, so the figures are for the `avx2` level
(`TPB_SIMD`, docs/benchmarks.md); `--simd baseline` counts the SSE2 code.
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_vs_numpy as b  # noqa: E402  (the case definitions)

# The representative cases of docs/benchmarks.md: element-wise casts, TensorScalar,
# AffineSelect, Iota, TensorTensor, Matmul, Activate, Exponential, DMA.
DEFAULT = [
    "PtrMulti bf16->bf16", "PtrMulti fp32->fp32", "PtrMulti fp16->fp16", "PtrMulti fp8->fp8",
    "PtrMulti fp32->bf16", "PtrMulti bf16->fp32", "PtrMulti fp32->fp8", "PtrMulti fp8->bf16",
    "TensorScalar bf16->bf16", "TensorScalar fp32->fp32", "TensorScalar fp16->fp16",
    "TensorScalar fp8->fp8", "AffineSelect fp32->bf16", "Iota -->bf16", "Iota -->fp8",
    "TensorTensor bf16->bf16", "Cast fp32->bf16", "Cast fp32->fp8",
    "Matmul 128x128x512 fp32->fp32", "Matmul 128x128x512 bf16->fp32",
    "Activate exp fp32->fp32", "Activate exp bf16->bf16", "Activate identity fp32->fp32",
    "Exponential fp32->fp32", "DMAMEMCPY 128x512 fp32->fp32",
]


def instructions(tpb, prog, workdir, simd):
    """Instructions callgrind counted for `tpb run --serial prog`."""
    out = os.path.join(workdir, "cg.out")
    env = dict(os.environ, TPB_SIMD=simd)
    subprocess.run(
        ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}",
         tpb, "run", prog, "--serial", "--threads", "1"],
        check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=workdir, env=env,
    )
    with open(out) as f:
        text = f.read()
    os.remove(out)
    return int(re.search(r"^(?:summary|totals): (\d+)", text, re.M).group(1))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tpb", required=True, help="the tpb binary to measure")
    ap.add_argument("--only", default="", help="the cases whose name contains this")
    ap.add_argument("--simd", default="avx2", help="TPB_SIMD level (valgrind has no AVX-512)")
    a = ap.parse_args()
    tpb = os.path.abspath(a.tpb)
    print(f"{'case':<32} {'instructions':>14} {'per element':>12}")
    for kind, make, din, dout in b.CASES:
        name = f"{kind} {din}->{dout}"
        if (a.only and a.only not in name) or (not a.only and name not in DEFAULT):
            continue
        made = make(din, dout)
        inputs, setup, inst = made[:3]
        opts = made[5] if len(made) > 5 else {}
        with tempfile.TemporaryDirectory() as wd:
            head = f".gen {opts.get('gen', 'cayman')}\n"
            for fname, arr, region in inputs:
                b.save_bits(os.path.join(wd, fname), arr)
                head += f".in {fname} @ {region}\n"
            counts = []
            for k in (1, 2):
                path = os.path.join(wd, f"p{k}.tpb")
                with open(path, "w") as f:
                    f.write(head + setup + inst * k)
                counts.append(instructions(tpb, path, wd, a.simd))
        per = counts[1] - counts[0]
        elems = opts.get("elems", b.P * b.F)
        print(f"{name:<32} {per:>14,} {per / elems:>12.3f}")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
