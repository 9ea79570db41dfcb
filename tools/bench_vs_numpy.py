#!/usr/bin/env python3
"""tpb against the NumPy/ml_dtypes path a Python simulator takes, side by side in one run.

    pip install numpy ml_dtypes
    python3 tools/bench_vs_numpy.py [--reps 3] [--k 16] [--only WORD] [--tpb PATH]

A benchmark, not a test: it prints figures and ratios and checks nothing but that tpb's
output matches NumPy's (NaN payloads aside) so that both did the same work.

For each case (128 partitions × 16384 elements, every dtype pair of interest):

* tpb: the whole process, `tpb run PROGRAM`, with the fixed cost (start-up, reading the
  input .npy, writing nothing) cancelled out: a program with K copies of the instruction
  minus the same program with one copy, divided by K − 1. It runs with `--threads 1` and
  with every core (`--threads 0`).
* NumPy: what a Python simulator does for the same instruction, on views of a byte-array
  SBUF: decode the input to float32 (`astype`, no copy for fp32), compute in float32 into a
  preallocated buffer with `out=`, and encode by assigning into the destination view (numpy
  casts through ml_dtypes, round to nearest even, as tpb does).

Both are timed as wall clock and as CPU time (tpb: the child's user + system time; NumPy:
this thread's time), best of --reps. The machine this was written on has 2 cores shared with
other jobs, so the CPU-time ratio ("1t cpu" tpb over NumPy) is the steadier figure; the
wall-clock ratio with every core is what a user sees on an idle machine.
"""

import argparse
import os

# One NumPy thread, like tpb's 1-thread column (and on a busy machine OpenBLAS's spinning
# threads make numpy.matmul 50x slower, not faster).
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
import resource
import subprocess
import sys
import tempfile
import time

import ml_dtypes
import numpy as np

P = 128
F = 16384
W = 8  # PtrMulti slices
REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

DT = {
    "fp32": (np.float32, "fp32"),
    "bf16": (ml_dtypes.bfloat16, "bf16"),
    "fp16": (np.float16, "fp16"),
    "fp8": (ml_dtypes.float8_e4m3, "fp8_exp4"),
}


def tpb_binary(path):
    if path:
        return os.path.abspath(path)
    subprocess.run(
        ["cargo", "build", "--release", "-q", "-p", "tpb"], cwd=REPO, check=True
    )
    return os.path.join(REPO, "target", "release", "tpb")


def data(dtype, seed=1):
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal((P, F)) * 8).astype(np.float32)
    return x.astype(dtype)


def save_bits(path, arr):
    """Saves an array as its bit view (the form `tpb run` reads with the region's dtype)."""
    size = arr.dtype.itemsize
    np.save(path, arr.view({1: np.uint8, 2: np.uint16, 4: np.uint32}[size]))


class Sbuf:
    """A Python simulator's SBUF: bytes per partition, operands as dtype views."""

    def __init__(self):
        self.mem = np.zeros((P, 224 * 1024), np.uint8)

    def view(self, off, dtype, n):
        size = np.dtype(dtype).itemsize
        return self.mem[:, off : off + n * size].view(dtype)


# ---- the cases: (program text for tpb, numpy function, output region) ---------------------

OFF_D = 0x10000  # the output's byte offset in each partition


def operand(din):
    """The input of an elementwise case: its data, the .in binding and the SBUF holding it."""
    tin, nin = DT[din]
    x = data(tin)
    sb = Sbuf()
    sb.view(0, tin, F)[...] = x
    return tin, nin, sb, ("x.npy", x, f"sbuf[p0..128]+0x0:{nin}:128x{F}")


def ptr_multi(din, dout):
    tin, nin, sb, x_in = operand(din)
    tout, nout = DT[dout]
    s = F // W
    scales = (np.arange(P * W, dtype=np.float32).reshape(P, W) % 7 - 3) * 0.37
    off_d = OFF_D
    off_s = 0x30000
    inputs = [x_in, ("s.npy", scales, f"sbuf[p0..128]+{off_s:#x}:fp32:128x{W}")]
    setup = f"imm_ld_arith src=sbuf[p0..128]+{off_s:#x}:[[1,{W}]] dtype=fp32\n"
    pat = f"[[1,{s}],[1,1],[1,1],[{s},{W}]]"
    inst = (f"ptr_multi_arith src=sbuf[p0..128]+0x0:{pat} in={nin} out={nout} op=mult "
            f"op_dim=xyz dst=sbuf[p0..128]+{off_d:#x}:{pat}\n")
    tmp = np.empty((P, F), np.float32)

    def numpy_path():
        src = sb.view(0, tin, F)
        xf = src.astype(np.float32, copy=False)
        np.multiply(xf.reshape(P, W, s), scales[:, :, None], out=tmp.reshape(P, W, s))
        sb.view(off_d, tout, F)[...] = tmp

    return inputs, setup, inst, numpy_path, (sb, off_d, tout, nout)


def tensor_scalar(din, dout):
    tin, nin, sb, x_in = operand(din)
    tout, nout = DT[dout]
    off_d = OFF_D
    inputs = [x_in]
    inst = (f"ts_arith src=sbuf[p0..128]+0x0:[[1,{F}]] in={nin} out={nout} op0=mult "
            f"imm0=1.5 op1=add imm1=0.25 dst=sbuf[p0..128]+{off_d:#x}:[[1,{F}]]\n")
    tmp = np.empty((P, F), np.float32)

    def numpy_path():
        xf = sb.view(0, tin, F).astype(np.float32, copy=False)
        np.multiply(xf, np.float32(1.5), out=tmp)
        np.add(tmp, np.float32(0.25), out=tmp)
        sb.view(off_d, tout, F)[...] = tmp

    return inputs, "", inst, numpy_path, (sb, off_d, tout, nout)


def affine_select(din, dout):
    tin, nin, sb, x_in = operand(din)
    tout, nout = DT[dout]
    off_d = OFF_D
    fill = np.float32(-3.4028235e38)
    inputs = [x_in]
    setup = ""
    inst = (f"affine_select dtypes={nin}->{nout} cmp=ge fill_reg=7 pattern=0:[[-1,{F}]] "
            f"multiplier=1 src=sbuf[p0..128]+0x0:[[1,{F}]] dst=sbuf[p0..128]+{off_d:#x}:[[1,{F}]]\n")

    def numpy_path():
        # The causal mask: keep where p - k >= 0 (the ramp base + k·step + p·multiplier).
        ramp = np.arange(P, dtype=np.int32)[:, None] - np.arange(F, dtype=np.int32)[None, :]
        xf = sb.view(0, tin, F).astype(np.float32, copy=False)
        sb.view(off_d, tout, F)[...] = np.where(ramp >= 0, xf, fill)

    return inputs, ".reg 7 = -3.4028235e38\n" + setup, inst, numpy_path, (sb, off_d, tout, nout)


def iota(_din, dout):
    tout, nout = DT[dout]
    off_d = 0x0
    inst = (f"iota src=0:[[1,{F}]] multiplier={F} out={nout} "
            f"dst=sbuf[p0..128]+{off_d:#x}:[[1,{F}]]\n")
    sb = Sbuf()

    def numpy_path():
        ramp = (np.arange(P, dtype=np.int32)[:, None] * F
                + np.arange(F, dtype=np.int32)[None, :])
        sb.view(off_d, tout, F)[...] = ramp.astype(np.float32)

    return [], "", inst, numpy_path, (sb, off_d, tout, nout)


# Issue 17a kernels.
OFF_B = 0x20000  # a second input's byte offset


def tensor_tensor(din, dout):
    tin, nin, sb, x_in = operand(din)
    tout, nout = DT[dout]
    y = data(tin, seed=2)
    sb.view(OFF_B, tin, F)[...] = y
    inputs = [x_in, ("y.npy", y, f"sbuf[p0..128]+{OFF_B:#x}:{nin}:128x{F}")]
    inst = (f"tt_arith in0_in1_dtype={nin}->{nin} out_dtype={nout} op=mult "
            f"src0_mem_pattern=sbuf[p0..128]+0x0:[[1,{F}]] "
            f"src1_mem_pattern=sbuf[p0..128]+{OFF_B:#x}:[[1,{F}]] "
            f"dst=sbuf[p0..128]+{OFF_D:#x}:[[1,{F}]]\n")
    tmp = np.empty((P, F), np.float32)
    tmp2 = np.empty((P, F), np.float32)

    def numpy_path():
        tmp[...] = sb.view(0, tin, F)
        tmp2[...] = sb.view(OFF_B, tin, F)
        np.multiply(tmp, tmp2, out=tmp)
        sb.view(OFF_D, tout, F)[...] = tmp

    return inputs, "", inst, numpy_path, (sb, OFF_D, tout, nout)


def cast(din, dout):
    tin, nin, sb, x_in = operand(din)
    tout, nout = DT[dout]
    mnemonic = "copy" if din == dout else "cast"
    inst = (f"{mnemonic} src=sbuf[p0..128]+0x0:[[1,{F}]] in={nin} out={nout} op=bypass "
            f"dst=sbuf[p0..128]+{OFF_D:#x}:[[1,{F}]]\n")

    def numpy_path():
        # numpy casts through float32 for ml_dtypes pairs (RNE), as Cast does.
        sb.view(OFF_D, tout, F)[...] = sb.view(0, tin, F).astype(np.float32, copy=False)

    return [x_in], "", inst, numpy_path, (sb, OFF_D, tout, nout)


CASES = [
    ("PtrMulti", ptr_multi, "bf16", "bf16"),
    ("PtrMulti", ptr_multi, "fp32", "fp32"),
    ("PtrMulti", ptr_multi, "fp16", "fp16"),
    ("PtrMulti", ptr_multi, "fp8", "fp8"),
    ("PtrMulti", ptr_multi, "fp32", "bf16"),
    ("PtrMulti", ptr_multi, "bf16", "fp32"),
    ("PtrMulti", ptr_multi, "fp32", "fp8"),
    ("PtrMulti", ptr_multi, "fp8", "bf16"),
    ("TensorScalar", tensor_scalar, "bf16", "bf16"),
    ("TensorScalar", tensor_scalar, "fp32", "fp32"),
    ("TensorScalar", tensor_scalar, "fp16", "fp16"),
    ("TensorScalar", tensor_scalar, "fp8", "fp8"),
    ("AffineSelect", affine_select, "fp32", "bf16"),
    ("AffineSelect", affine_select, "bf16", "bf16"),
    ("AffineSelect", affine_select, "fp8", "fp8"),
    ("Iota", iota, "-", "fp32"),
    ("Iota", iota, "-", "bf16"),
    ("Iota", iota, "-", "fp8"),
    # Issue 17a.
    ("TensorTensor", tensor_tensor, "bf16", "bf16"),
    ("TensorTensor", tensor_tensor, "fp32", "fp32"),
    ("TensorTensor", tensor_tensor, "fp32", "bf16"),
    ("Cast", cast, "fp32", "bf16"),
    ("Cast", cast, "bf16", "fp32"),
    ("Cast", cast, "fp32", "fp8"),
    ("Copy", cast, "bf16", "bf16"),
]


# ---- issue 17b: the STT family and the cache op (the DVE per-lane state) -------------------

def _second(din, seed=2, off=0x20000):
    """A second input (src1) of the same dtype, at `off` in each partition."""
    tin, nin = DT[din]
    y = data(tin, seed)
    return y, ("y.npy", y, f"sbuf[p0..128]+{off:#x}:{nin}:128x{F}")


def scalar_tensor_tensor(din, dout):
    tin, nin, sb, x_in = operand(din)
    tout, nout = DT[dout]
    y, y_in = _second(din)
    sb.view(0x20000, tin, F)[...] = y
    inst = (f"stt_arith src0_mem_pattern=sbuf[p0..128]+0x0:[[1,{F}]] "
            f"src1_mem_pattern=sbuf[p0..128]+0x20000:[[1,{F}]] op0=mult op1=add "
            f"dtypes={nin}->{nin} out={nout} imm0_dtype=fp32 imm0=1.5 "
            f"dst=sbuf[p0..128]+{OFF_D:#x}:[[1,{F}]]\n")
    tmp = np.empty((P, F), np.float32)

    def numpy_path():
        xf = sb.view(0, tin, F).astype(np.float32, copy=False)
        yf = sb.view(0x20000, tin, F).astype(np.float32, copy=False)
        np.multiply(xf, np.float32(1.5), out=tmp)
        np.add(tmp, yf, out=tmp)
        sb.view(OFF_D, tout, F)[...] = tmp

    return [x_in, y_in], "", inst, numpy_path, (sb, OFF_D, tout, nout)


def tensor_tensor_scan(din, dout):
    tin, nin, sb, x_in = operand(din)
    tout, nout = DT[dout]
    y, y_in = _second(din)
    sb.view(0x20000, tin, F)[...] = y
    inst = (f"tt_scan src0_mem_pattern=sbuf[p0..128]+0x0:[[1,{F}]] "
            f"src1_mem_pattern=sbuf[p0..128]+0x20000:[[1,{F}]] op0=max op1=add "
            f"dtypes={nin}->{nin} out={nout} imm0_dtype=fp32 imm0=0.0 "
            f"dst=sbuf[p0..128]+{OFF_D:#x}:[[1,{F}]]\n")
    tmp = np.empty((P, F), np.float32)

    def numpy_path():
        xf = sb.view(0, tin, F).astype(np.float32)
        yf = sb.view(0x20000, tin, F).astype(np.float32)
        r = np.zeros(P, np.float32)
        for i in range(F):  # r = max(x[i], r) + y[i]: a loop-carried recurrence
            np.maximum(xf[:, i], r, out=r)
            np.add(r, yf[:, i], out=r)
            tmp[:, i] = r
        sb.view(OFF_D, tout, F)[...] = tmp

    return [x_in, y_in], "", inst, numpy_path, (sb, OFF_D, tout, nout)


def cache_reduce(din, dout):
    tin, nin, sb, x_in = operand(din)
    tout, nout = DT[dout]
    inst = (f"ts_cache_reduce accumulator_cmd=zero_accumulate src=sbuf[p0..128]+0x0:[[1,{F}]] "
            f"in={nin} out={nout} op0=mult op1=add imm0=2.0 "
            f"dst=sbuf[p0..128]+{OFF_D:#x}:[[1,{F}]]\n")
    tmp = np.empty((P, F), np.float32)
    acc = np.empty(P, np.float32)

    def numpy_path():
        xf = sb.view(0, tin, F).astype(np.float32, copy=False)
        np.multiply(xf, np.float32(2.0), out=tmp)
        sb.view(OFF_D, tout, F)[...] = tmp
        # The sequential fp32 fold (pairwise np.add.reduce would differ in the last bits).
        acc[...] = np.add.accumulate(tmp, axis=1, dtype=np.float32)[:, -1]

    return [x_in], "", inst, numpy_path, (sb, OFF_D, tout, nout)


def select_reduce(din, dout):
    tin, nin, sb, x_in = operand(din)
    tout, nout = DT[dout]
    pred = (np.arange(P * F).reshape(P, F) % 3 == 0).astype(np.uint8)
    sb.view(0x30000, np.uint8, F)[...] = pred
    p_in = ("p.npy", pred, f"sbuf[p0..128]+0x30000:uint8:128x{F}")
    inst = (f"select_reduce src0_mem_pattern=sbuf[p0..128]+0x30000:[[1,{F}]] "
            f"src1_mem_pattern=sbuf[p0..128]+0x0:[[1,{F}]] op0=bypass op1=max reverse=first "
            f"dtypes=uint8->{nin} out={nout} imm0_dtype=fp32 imm0=-3.0e38 "
            f"accumulator_cmd=zero_accumulate dst=sbuf[p0..128]+{OFF_D:#x}:[[1,{F}]]\n")
    fill = np.float32(-3.0e38)

    def numpy_path():
        xf = sb.view(0, tin, F).astype(np.float32, copy=False)
        pr = sb.view(0x30000, np.uint8, F) != 0
        sel = np.where(pr, xf, fill)
        sb.view(OFF_D, tout, F)[...] = sel
        np.where(pr, xf, -np.inf).max(axis=1)

    return [x_in, p_in], "", inst, numpy_path, (sb, OFF_D, tout, nout)


CASES += [
    ("ScalarTensorTensor", scalar_tensor_tensor, "fp32", "fp32"),
    ("ScalarTensorTensor", scalar_tensor_tensor, "bf16", "bf16"),
    ("TensorTensorScan", tensor_tensor_scan, "fp32", "fp32"),
    ("TensorScalarCacheReduce", cache_reduce, "fp32", "fp32"),
    ("TensorScalarCacheReduce", cache_reduce, "bf16", "bf16"),
    ("SelectReduce", select_reduce, "fp32", "fp32"),
]


# ---- issue 18: PE, ACT and DMA ---------------------------------------------------------------
# These cases return a sixth item, the options: "gen" (default cayman), "region" (the output
# region, default the 128 x F SBUF one), "elems" (the work one instruction does, for the G/s
# columns: multiply-adds for matmul), "ulps" (the largest difference in units in the last
# place accepted from NumPy, for the approximate functions) and "want" (the expected output
# when NumPy's own result is not it: numpy.matmul sums in BLAS's order, tpb in its documented
# sequential order, so the check compares tpb with that order computed here).

MM_K, MM_M, MM_N = 128, 128, 512


def matmul_in_our_order(w, x):
    """psum[m][j] = sum_k w[k][m] * x[k][j]: exact products added sequentially over k with one
    float32 rounding per step (assumption pe-summation-order), the first product the start
    value: gen_pe_act_fixtures' order, with its checked fused multiply-add."""
    from gen_pe_act_fixtures import our_order
    return our_order(w, x)


def matmul(din, _dout):
    """Matmul 128 x 128 x 512 into PSUM against numpy.matmul in float32 (BLAS)."""
    tin, nin = DT[din]
    rng = np.random.default_rng(3)
    w = rng.standard_normal((MM_K, MM_M), dtype=np.float32).astype(tin)
    x = rng.standard_normal((MM_K, MM_N), dtype=np.float32).astype(tin)
    sb = Sbuf()
    off_x = 0x1000
    sb.view(0, tin, MM_M)[...] = w
    sb.view(off_x, tin, MM_N)[...] = x
    psum = np.zeros((P, 4096), np.float32)
    inputs = [("w.npy", w, f"sbuf[p0..128]+0x0:{nin}:{MM_K}x{MM_M}"),
              ("x.npy", x, f"sbuf[p0..128]+{off_x:#x}:{nin}:{MM_K}x{MM_N}")]
    mode = " fp32_mode=low_high" if din == "fp32" else ""
    ctrl = f"ctrl=[num_active_rows:{MM_K},num_active_cols:{MM_M},row_grp:0xf,col_grp:0xf"
    setup = f"load_weights src=sbuf[p0]+0x0:[[1,{MM_M}]] in={nin}{mode} {ctrl}]\n"
    inst = (f"matmul src=sbuf[p0]+{off_x:#x}:[[1,{MM_N}]] in={nin}{mode} "
            f"{ctrl},psum_accumulate_flags:3] dst=psum[p0]+0x0:[[1,{MM_N}]]\n")
    tmp = np.empty((MM_M, MM_N), np.float32)

    def numpy_path():
        # Contiguous float32 tiles, as a NumPy simulator keeps them: a strided view of the
        # byte SBUF would send numpy.matmul past BLAS to its slow loop.
        wf = np.ascontiguousarray(sb.view(0, tin, MM_M), dtype=np.float32)
        xf = np.ascontiguousarray(sb.view(off_x, tin, MM_N), dtype=np.float32)
        np.matmul(wf.T, xf, out=tmp)
        psum[:, :MM_N] = tmp

    want = matmul_in_our_order(w.astype(np.float32), x.astype(np.float32))
    opts = {"region": f"psum[p0..128]+0x0:fp32:128x{MM_N}", "elems": MM_K * MM_M * MM_N,
            "want": want}
    return inputs, setup, inst, numpy_path, (sb, 0, np.float32, "fp32"), opts


def activate(func):
    def case(din, dout):
        tin, nin, sb, x_in = operand(din)
        tout, nout = DT[dout]
        x_scaled = 0.25 if func == "exp" else 1.0  # keep exp inside fp32's range
        inst = (f"activate src=sbuf[p0..128]+0x0:[[1,{F}]] in_bias_dtype={nin}->fp32 "
                f"out={nout} activation_func={func} scale_value={x_scaled} "
                f"bias_src_n=instruction bias=0.0 dst=sbuf[p0..128]+{OFF_D:#x}:[[1,{F}]]\n")
        tmp = np.empty((P, F), np.float32)

        def numpy_path():
            xf = sb.view(0, tin, F).astype(np.float32, copy=False)
            np.multiply(xf, np.float32(x_scaled), out=tmp)
            np.add(tmp, np.float32(0.0), out=tmp)
            if func == "exp":
                np.exp(tmp, out=tmp)
            sb.view(OFF_D, tout, F)[...] = tmp

        opts = {"ulps": 2 if func == "exp" else 0}
        return [x_in], "", inst, numpy_path, (sb, OFF_D, tout, nout), opts

    return case


def exponential(din, dout):
    tin, nin, sb, x_in = operand(din)
    tout, nout = DT[dout]
    inst = (f"exponential src=sbuf[p0..128]+0x0:[[1,{F}]] in={nin} out={nout} imm0=16.0 "
            f"op0=bypass op1=bypass dst=sbuf[p0..128]+{OFF_D:#x}:[[1,{F}]]\n")
    tmp = np.empty((P, F), np.float32)

    def numpy_path():
        xf = sb.view(0, tin, F).astype(np.float32, copy=False)
        np.subtract(xf, np.float32(16.0), out=tmp)
        np.exp(tmp, out=tmp)
        sb.view(OFF_D, tout, F)[...] = tmp

    return [x_in], "", inst, numpy_path, (sb, OFF_D, tout, nout), {"gen": "mariana", "ulps": 2}


def dma_memcpy(din, _dout):
    """DMAMEMCPY of a 128 x 512 tile from HBM into SBUF against a NumPy copy into a view."""
    tin, nin = DT[din]
    n = 512
    size = np.dtype(tin).itemsize
    x = data(tin)[:, :n].copy()
    hbm = x.copy()
    sb = Sbuf()
    row = n * size
    inputs = [("h.npy", x, f"hbm+0x0:{nin}:128x{n}")]
    inst = (f"dma_memcpy src=hbm+0x0:[[{row},128],[0,1]] src_elem_size={row} "
            f"dst=sbuf[p0]+{OFF_D:#x}:[[262144,128],[0,1]] dst_elem_size={row} "
            f"in_dtype={nin} out_dtype={nin}\n")

    def numpy_path():
        sb.view(OFF_D, tin, n)[...] = hbm

    opts = {"region": f"sbuf[p0..128]+{OFF_D:#x}:{nin}:128x{n}", "elems": P * n}
    return inputs, "", inst, numpy_path, (sb, OFF_D, tin, nin), opts


CASES += [
    ("Matmul 128x128x512", matmul, "fp32", "fp32"),
    ("Matmul 128x128x512", matmul, "bf16", "fp32"),
    ("Activate exp", activate("exp"), "fp32", "fp32"),
    ("Activate exp", activate("exp"), "bf16", "bf16"),
    ("Activate identity", activate("identity"), "fp32", "fp32"),
    ("Exponential", exponential, "fp32", "fp32"),
    ("DMAMEMCPY 128x512", dma_memcpy, "fp32", "fp32"),
]


def run_tpb(tpb, prog, threads, reps, out_region, workdir):
    """Best (wall, cpu) seconds of `tpb run prog`; the output region saved on the last run."""
    best_wall = best_cpu = float("inf")
    for r in range(reps):
        args = [tpb, "run", prog, "--threads", str(threads), "--out-dir", workdir]
        if r == reps - 1 and out_region:
            args += ["--out", f"{out_region}@result.npy"]
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        subprocess.run(args, check=True, stdout=subprocess.DEVNULL, cwd=workdir)
        wall = time.perf_counter() - t0
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        best_wall, best_cpu = min(best_wall, wall), min(best_cpu, cpu)
    return best_wall, best_cpu


def time_numpy(f, reps, k):
    best_wall = best_cpu = float("inf")
    f()
    for _ in range(reps):
        t0, c0 = time.perf_counter(), time.thread_time()
        for _ in range(k):
            f()
        best_wall = min(best_wall, (time.perf_counter() - t0) / k)
        best_cpu = min(best_cpu, (time.thread_time() - c0) / k)
    return best_wall, best_cpu


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--reps", type=int, default=5, help="repetitions, best kept")
    ap.add_argument("--k", type=int, default=16, help="instruction copies per program")
    ap.add_argument("--only", default="", help="run the cases whose name contains this")
    ap.add_argument("--tpb", default="", help="tpb binary (default: build target/release/tpb)")
    a = ap.parse_args()
    tpb = tpb_binary(a.tpb)
    print(f"tpb vs NumPy {np.__version__} / ml_dtypes {ml_dtypes.__version__}, "
          f"{P} x {F} elements per instruction, {os.cpu_count()} cores; "
          f"G elem/s (best of {a.reps}); ratio = tpb / NumPy")
    hdr = (f"{'case':<28} {'tpb 1t cpu':>10} {'numpy cpu':>10} {'ratio':>6} | "
           f"{'tpb 1t wall':>11} {'tpb all wall':>12} {'numpy wall':>10} {'ratio':>6}")
    print(hdr)
    print("-" * len(hdr))
    for kind, make, din, dout in CASES:
        name = f"{kind} {din}->{dout}"
        if a.only and a.only not in name:
            continue
        made = make(din, dout)
        inputs, setup, inst, numpy_path, (sb, off_d, tout, nout) = made[:5]
        opts = made[5] if len(made) > 5 else {}
        with tempfile.TemporaryDirectory() as wd:
            head = f".gen {opts.get('gen', 'cayman')}\n"
            for fname, arr, region in inputs:
                save_bits(os.path.join(wd, fname), arr)
                head += f".in {fname} @ {region}\n"
            progs = {}
            for k in (1, a.k):
                path = os.path.join(wd, f"p{k}.tpb")
                with open(path, "w") as f:
                    f.write(head + setup + inst * k)
                progs[k] = path
            region = opts.get("region", f"sbuf[p0..128]+{off_d:#x}:{nout}:128x{F}")
            res = {}
            for threads in (1, 0):
                w1, c1 = run_tpb(tpb, progs[1], threads, a.reps, None, wd)
                wk, ck = run_tpb(tpb, progs[a.k], threads, a.reps, region, wd)
                res[threads] = ((wk - w1) / (a.k - 1), (ck - c1) / (a.k - 1))
            nw, nc = time_numpy(numpy_path, a.reps, 4)
            got = np.load(os.path.join(wd, "result.npy"))
            want = opts["want"] if "want" in opts else sb.view(off_d, tout, got.shape[1])
            bits = {1: np.uint8, 2: np.uint16, 4: np.uint32}[np.dtype(want.dtype).itemsize]
            g, w = got.view(bits).astype(np.int64), want.view(bits).astype(np.int64)
            ulps = int(np.abs(g - w).max()) if g.shape == w.shape else -1
            same = 0 <= ulps <= opts.get("ulps", 0)
        elems = opts.get("elems", P * F)
        rate = lambda s: elems / s / 1e9 if s > 0 else float("inf")
        t1w, t1c = res[1]
        taw, _ = res[0]
        print(f"{name:<28} {rate(t1c):>10.3f} {rate(nc):>10.3f} {nc / t1c:>6.2f} | "
              f"{rate(t1w):>11.3f} {rate(taw):>12.3f} {rate(nw):>10.3f} {nw / taw:>6.2f}"
              + ("" if same else f"   (outputs differ! {ulps} ulp)")
              + (f"   (within {ulps} ulp)" if same and ulps else ""))
        sys.stdout.flush()


if __name__ == "__main__":
    main()
