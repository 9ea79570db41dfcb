#!/usr/bin/env python3
"""tpb's elementwise kernels beside two NumPy baselines, in-process, ratios from one run.

    pip install numpy ml_dtypes && maturin develop --release   # the tpb module
    python3 tools/bench_kernels_vs_numpy.py [--reps 7] [--only WORD] [--sizes 512,16384]
    TPB_SIMD=avx2 python3 tools/bench_kernels_vs_numpy.py       # force a SIMD level

A benchmark, not a test: it prints times and ratios, and checks only that tpb's output bits
equal NumPy's (so that both did the same work). For every case (instruction, input and output
dtype) and tile size (128 partitions x F elements, F = 512 in cache and 16384):

* tpb: `tpb.Machine.step(instruction)` on one thread (RAYON_NUM_THREADS=1 is set before tpb
  is imported), the instruction decoded once beforehand; the time includes the Python call.
* NumPy (a): ufuncs on tile arrays, as a NumPy kernel simulator keeps them: one contiguous
  (128, F) array per tile, FP32 math into preallocated buffers with `out=`, casts through
  ml_dtypes (round to nearest even, as tpb).
* NumPy (b): the same work on views of a byte-array SBUF (one uint8 row per partition, an
  operand is `row[off:off + F * size].view(dtype)`).
* nki (F = 512 only): the same call through `tpb.nki.isa` from Python (PtrMulti has no NKI
  call).

Times are the best of --reps rounds of on-CPU time of this thread (`time.thread_time`; the
machine this was written on has 2 cores shared with other jobs, so wall clock is noisier),
each round at least --min-ms long. "ratio" is NumPy time / tpb time: above 1, tpb is faster.

To add a case: write a class like `TensorScalar` below (its tpb instruction text, its NumPy
body on (a) tiles and (b) views, and optionally its nki call) and list it in CASES.
"""

import argparse
import os
import sys
import time

os.environ.setdefault("RAYON_NUM_THREADS", "1")

import ml_dtypes  # noqa: E402
import numpy as np  # noqa: E402
import tpb  # noqa: E402
import tpb.nki as nki  # noqa: E402

P = 128
SBUF_ROW = 224 * 1024
OFF_OUT = 0x10000  # the output's byte offset in each partition
OFF_SCALARS = 0x30000  # PtrMulti's preloaded scalars
W = 8  # PtrMulti slices

DT = {
    "fp32": np.dtype(np.float32),
    "bf16": np.dtype(ml_dtypes.bfloat16),
    "fp16": np.dtype(np.float16),
    "fp8": np.dtype(ml_dtypes.float8_e4m3),
}
TPB_NAME = {"fp32": "fp32", "bf16": "bf16", "fp16": "fp16", "fp8": "fp8_exp4"}
F32 = np.float32


def data(dtype, f, seed=1):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal((P, f)) * 8).astype(np.float32).astype(dtype)


class Operands:
    """A case's operands three ways: tile arrays (a), views of a byte SBUF (b), tpb."""

    def __init__(self, din, dout, f):
        self.din, self.dout, self.f = din, dout, f
        self.x = data(DT[din], f) if din != "-" else None
        self.sbuf = np.zeros((P, SBUF_ROW), np.uint8)
        self.tile_out = np.zeros((P, f), DT[dout])
        if self.x is not None:
            self.view(0, din)[...] = self.x

    def view(self, off, name):
        size = DT[name].itemsize
        return self.sbuf[:, off : off + self.f * size].view(DT[name])

    def region(self, off, name):
        return f"sbuf[p0..128]+{off:#x}:{TPB_NAME[name]}:128x{self.f}"


def as_f32(a):
    return a if a.dtype == F32 else a.astype(F32)


def store(dst, tmp):
    """tmp (FP32) into dst: a no-op when tmp is dst, else a cast by assignment."""
    if dst is not tmp:
        dst[...] = tmp


class TensorScalar:
    """TensorScalar MULT by 1.5 then ADD 0.25 (immediates)."""

    name = "TensorScalar"

    def __init__(self, din, dout, f):
        self.o = o = Operands(din, dout, f)
        self.text = (
            f"ts_arith src=sbuf[p0..128]+0x0:[[1,{f}]] in={TPB_NAME[din]} out={TPB_NAME[dout]} "
            f"op0=mult imm0=1.5 op1=add imm1=0.25 dst=sbuf[p0..128]+{OFF_OUT:#x}:[[1,{f}]]"
        )
        self.tmp = np.empty((P, f), F32)

    def setup(self, m):
        pass

    def body(self, x, out):
        tmp = out if out.dtype == F32 and out.flags.c_contiguous else self.tmp
        np.multiply(as_f32(x), F32(1.5), out=tmp)
        np.add(tmp, F32(0.25), out=tmp)
        store(out, tmp)

    def tiles(self):
        self.body(self.o.x, self.o.tile_out)

    def views(self):
        self.body(self.o.view(0, self.o.din), self.o.view(OFF_OUT, self.o.dout))

    def nki(self):
        core = nki.Core()
        src = core.from_numpy(self.o.x)
        dst = core.ndarray((P, self.o.f), DT[self.o.dout])
        return lambda: nki.isa.tensor_scalar(
            dst, src, np.multiply, 1.5, op1=np.add, operand1=0.25
        )


class PtrMulti:
    """TensorScalarPtrMultiArith MULT by a preloaded scalar per W = 8 slice."""

    name = "PtrMulti"

    def __init__(self, din, dout, f):
        self.o = o = Operands(din, dout, f)
        s = f // W
        self.scales = ((np.arange(P * W, dtype=F32).reshape(P, W) % 7 - 3) * 0.37).astype(F32)
        pat = f"[[1,{s}],[1,1],[1,1],[{s},{W}]]"
        self.text = (
            f"ptr_multi_arith src=sbuf[p0..128]+0x0:{pat} in={TPB_NAME[din]} "
            f"out={TPB_NAME[dout]} op=mult op_dim=xyz dst=sbuf[p0..128]+{OFF_OUT:#x}:{pat}"
        )
        self.tmp = np.empty((P, W, s), F32)

    def setup(self, m):
        m.write(f"sbuf[p0..128]+{OFF_SCALARS:#x}", self.scales)
        m.step(f"imm_ld_arith src=sbuf[p0..128]+{OFF_SCALARS:#x}:[[1,{W}]] dtype=fp32")

    def body(self, x, out):
        s = self.o.f // W
        x3, out3 = as_f32(x).reshape(P, W, s), out.reshape(P, W, s)
        tmp = out3 if out.dtype == F32 else self.tmp
        np.multiply(x3, self.scales[:, :, None], out=tmp)
        store(out3, tmp)

    def tiles(self):
        self.body(self.o.x, self.o.tile_out)

    def views(self):
        self.body(self.o.view(0, self.o.din), self.o.view(OFF_OUT, self.o.dout))

    nki = None


class AffineSelect:
    """AffineSelect with the causal mask p - k >= 0, fill -3.4e38 (from a register)."""

    name = "AffineSelect"
    FILL = F32(-3.4028235e38)

    def __init__(self, din, dout, f):
        self.o = o = Operands(din, dout, f)
        self.text = (
            f"affine_select dtypes={TPB_NAME[din]}->{TPB_NAME[dout]} cmp=ge fill_reg=7 "
            f"pattern=0:[[-1,{f}]] multiplier=1 src=sbuf[p0..128]+0x0:[[1,{f}]] "
            f"dst=sbuf[p0..128]+{OFF_OUT:#x}:[[1,{f}]]"
        )
        self.p = np.arange(P, dtype=np.int32)[:, None]
        self.k = np.arange(f, dtype=np.int32)[None, :]
        self.ramp = np.empty((P, f), np.int32)
        self.mask = np.empty((P, f), bool)

    def setup(self, m):
        m.set_register(7, float(self.FILL))

    def body(self, x, out):
        np.subtract(self.p, self.k, out=self.ramp)
        np.greater_equal(self.ramp, 0, out=self.mask)
        if x.dtype == out.dtype:
            out[...] = np.where(self.mask, x, x.dtype.type(self.FILL))
        else:
            out[...] = np.where(self.mask, as_f32(x), self.FILL)

    def tiles(self):
        self.body(self.o.x, self.o.tile_out)

    def views(self):
        self.body(self.o.view(0, self.o.din), self.o.view(OFF_OUT, self.o.dout))

    def nki(self):
        core = nki.Core()
        src = core.from_numpy(self.o.x)
        dst = core.ndarray((P, self.o.f), DT[self.o.dout])
        f = self.o.f
        return lambda: nki.isa.affine_select(
            dst, [[-1, f]], 1, src, float(self.FILL), cmp_op=np.greater_equal
        )


class Iota:
    """Iota: the ramp p * F + k, converted through FP32."""

    name = "Iota"

    def __init__(self, _din, dout, f):
        self.o = o = Operands("-", dout, f)
        self.text = (
            f"iota src=0:[[1,{f}]] multiplier={f} out={TPB_NAME[dout]} "
            f"dst=sbuf[p0..128]+{OFF_OUT:#x}:[[1,{f}]]"
        )
        self.p = (np.arange(P, dtype=np.int32) * f)[:, None]
        self.k = np.arange(f, dtype=np.int32)[None, :]
        self.ramp = np.empty((P, f), np.int32)
        self.tmp = np.empty((P, f), F32)

    def setup(self, m):
        pass

    def body(self, out):
        np.add(self.p, self.k, out=self.ramp)
        tmp = out if out.dtype == F32 and out.flags.c_contiguous else self.tmp
        tmp[...] = self.ramp
        store(out, tmp)

    def tiles(self):
        self.body(self.o.tile_out)

    def views(self):
        self.body(self.o.view(OFF_OUT, self.o.dout))

    def nki(self):
        core = nki.Core()
        dst = core.ndarray((P, self.o.f), DT[self.o.dout])
        f = self.o.f
        return lambda: nki.isa.iota(dst, [[1, f]], 0, f)


CASES = [
    (TensorScalar, "fp32", "fp32"),
    (TensorScalar, "bf16", "bf16"),
    (TensorScalar, "fp16", "fp16"),
    (TensorScalar, "fp8", "fp8"),
    (TensorScalar, "fp32", "bf16"),
    (PtrMulti, "fp32", "fp32"),
    (PtrMulti, "bf16", "bf16"),
    (PtrMulti, "fp16", "fp16"),
    (PtrMulti, "fp8", "fp8"),
    (PtrMulti, "fp32", "fp8"),
    (PtrMulti, "bf16", "fp32"),
    (AffineSelect, "fp32", "fp32"),
    (AffineSelect, "fp32", "bf16"),
    (AffineSelect, "bf16", "bf16"),
    (AffineSelect, "fp8", "fp8"),
    (Iota, "-", "fp32"),
    (Iota, "-", "bf16"),
    (Iota, "-", "fp8"),
]


def best_time(fn, reps, min_s):
    """Best per-call on-CPU seconds of `fn` over `reps` rounds of at least `min_s` each."""
    fn()
    n = 1
    while True:  # calls per round
        t0 = time.thread_time()
        for _ in range(n):
            fn()
        if time.thread_time() - t0 >= min_s / 4 or n >= 1 << 16:
            break
        n *= 2
    best = float("inf")
    for _ in range(reps):
        t0 = time.thread_time()
        k = 0
        while True:
            for _ in range(n):
                fn()
            k += n
            if time.thread_time() - t0 >= min_s:
                break
        best = min(best, (time.thread_time() - t0) / k)
    return best


def bits(a):
    return a.view({1: np.uint8, 2: np.uint16, 4: np.uint32}[a.dtype.itemsize])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--reps", type=int, default=7, help="rounds, best kept")
    ap.add_argument("--min-ms", type=float, default=20.0, help="least on-CPU ms per round")
    ap.add_argument("--only", default="", help="run the cases whose name contains this")
    ap.add_argument("--sizes", default="512,16384", help="free sizes F (128 x F tiles)")
    a = ap.parse_args()
    sizes = [int(s) for s in a.sizes.split(",")]
    min_s = a.min_ms / 1000
    level = os.environ.get("TPB_SIMD", "best available")
    print(f"tpb kernels vs NumPy {np.__version__} / ml_dtypes {ml_dtypes.__version__}; "
          f"one thread; SIMD level {level}; best of {a.reps} rounds, on-CPU time; "
          f"ratio = NumPy time / tpb time")
    hdr = (f"{'case':<28} {'F':>6} {'tpb us':>9} {'np(a) us':>9} {'np(b) us':>9} "
           f"{'ratio a':>8} {'ratio b':>8} {'nki us':>8} {'nki/a':>6}")
    print(hdr)
    print("-" * len(hdr))
    for cls, din, dout in CASES:
        name = f"{cls.name} {din}->{dout}"
        if a.only and a.only not in name:
            continue
        for f in sizes:
            c = cls(din, dout, f)
            m = tpb.Machine()
            if c.o.x is not None:
                m.write("sbuf[p0..128]+0x0", c.o.x)
            c.setup(m)
            inst = tpb.decode(tpb.asm(c.text))[0]
            t_tpb = best_time(lambda: m.step(inst), a.reps, min_s)
            t_a = best_time(c.tiles, a.reps, min_s)
            t_b = best_time(c.views, a.reps, min_s)
            got = m.read(c.o.region(OFF_OUT, dout))
            same = np.array_equal(bits(got), bits(c.o.tile_out)) and np.array_equal(
                bits(got), bits(c.o.view(OFF_OUT, dout))
            )
            nki_cols = f"{'':>8} {'':>6}"
            if f == 512 and c.nki is not None:
                t_n = best_time(c.nki(), a.reps, min_s)
                nki_cols = f"{t_n * 1e6:>8.1f} {t_a / t_n:>6.2f}"
            print(f"{name:<28} {f:>6} {t_tpb * 1e6:>9.1f} {t_a * 1e6:>9.1f} {t_b * 1e6:>9.1f} "
                  f"{t_a / t_tpb:>8.2f} {t_b / t_tpb:>8.2f} {nki_cols}"
                  + ("" if same else "   (outputs differ!)"))
            sys.stdout.flush()


if __name__ == "__main__":
    main()
