#!/usr/bin/env python3
"""tpb's elementwise kernels beside two NumPy baselines, in-process, ratios from one run.

    pip install numpy ml_dtypes && maturin develop --release   # the tpb module
    python3 tools/bench_kernels_vs_numpy.py [--reps 7] [--only WORD] [--sizes 512,16384]
    TPB_SIMD=avx2 python3 tools/bench_kernels_vs_numpy.py       # force a SIMD level
    python3 tools/bench_kernels_vs_numpy.py --default-threads   # tpb on every core, wall clock

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
With --default-threads tpb runs on every core (it splits instructions of at least 256 Ki
elements), NumPy still on one, and every time is wall clock.

To add a case: write a class like `TensorScalar` below (its tpb instruction text, its NumPy
body on (a) tiles and (b) views, and optionally its nki call) and list it in CASES.
"""

import argparse
import os
import sys
import time

# --default-threads: tpb splits large instructions over every core, as it does by default;
# the times are then wall-clock (on-CPU time of this thread would miss the other threads).
DEFAULT_THREADS = "--default-threads" in sys.argv
if not DEFAULT_THREADS:
    os.environ.setdefault("RAYON_NUM_THREADS", "1")
CLOCK = time.perf_counter if DEFAULT_THREADS else time.thread_time

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


# ---- issue 17: the DVE/POOL instructions --------------------------------------------------

OFF_B = 0x20000  # a second input's byte offset
OFF_P = 0x30000  # a predicate's (uint8) or the match values' byte offset
DT.update({"uint8": np.dtype(np.uint8), "uint32": np.dtype(np.uint32)})
TPB_NAME.update({"uint8": "uint8", "uint32": "uint32"})


class Multi:
    """A case with more inputs than `Operands.x`, or an output of another shape.

    Subclasses set `extra` ([(offset, dtype name, array)], written to both SBUFs and the
    machine), `out_f` / `out_p` (the output's elements per partition and partitions) and
    `body(ins, out)`, where `ins` is [x] + the extra inputs (tile arrays or SBUF views).
    """

    out_f = None
    out_p = P
    nki = None

    def init(self, din, dout, f, extra=()):
        self.o = Operands(din, dout, f)
        self.extra = list(extra)
        of = self.out_f or f
        self.o.tile_out = np.zeros((self.out_p, of), DT[dout])
        self.o.region = lambda off, name: (
            f"sbuf[p0..{self.out_p}]+{off:#x}:{TPB_NAME[name]}:{self.out_p}x{of}")
        view = self.o.view
        self.o.view = lambda off, name: (
            self.o.sbuf[: self.out_p, off : off + of * DT[name].itemsize].view(DT[name])
            if off == OFF_OUT else view(off, name))
        for off, name, a in self.extra:
            self.o.sbuf[:, off : off + a.shape[1] * DT[name].itemsize].view(DT[name])[...] = a

    def setup(self, m):
        for off, _name, a in self.extra:
            m.write(f"sbuf[p0..128]+{off:#x}", a)

    def ins_views(self):
        v = [self.o.view(0, self.o.din)]
        for off, name, a in self.extra:
            v.append(self.o.sbuf[:, off : off + a.shape[1] * DT[name].itemsize].view(DT[name]))
        return v

    def tiles(self):
        self.body([self.o.x] + [a for _, _, a in self.extra], self.o.tile_out)

    def views(self):
        self.body(self.ins_views(), self.o.view(OFF_OUT, self.o.dout))

    def tile(self, core, a):
        return core.from_numpy(a)


def pat(off, f, parts="p0..128"):
    return f"sbuf[{parts}]+{off:#x}:[[1,{f}]]"


class TensorTensor(Multi):
    """TensorTensor MULT of two tiles."""

    name = "TensorTensor"

    def __init__(self, din, dout, f):
        self.init(din, dout, f, [(OFF_B, din, data(DT[din], f, seed=2))])
        self.text = (
            f"tt_arith in0_in1_dtype={TPB_NAME[din]}->{TPB_NAME[din]} "
            f"out_dtype={TPB_NAME[dout]} op=mult src0_mem_pattern={pat(0, f)} "
            f"src1_mem_pattern={pat(OFF_B, f)} dst={pat(OFF_OUT, f)}")
        self.tmp = np.empty((P, f), F32)

    def body(self, ins, out):
        x, y = ins
        tmp = out if out.dtype == F32 and out.flags.c_contiguous else self.tmp
        np.multiply(as_f32(x), as_f32(y), out=tmp)
        store(out, tmp)

    def nki(self):
        core = nki.Core()
        a, b = core.from_numpy(self.o.x), core.from_numpy(self.extra[0][2])
        dst = core.ndarray((P, self.o.f), DT[self.o.dout])
        return lambda: nki.isa.tensor_tensor(dst, a, b, np.multiply)


class Cast(Multi):
    """Copy (same dtype) or Cast through FP32."""

    name = "Cast"

    def __init__(self, din, dout, f):
        self.init(din, dout, f)
        mn = "copy" if din == dout else "cast"
        self.text = (f"{mn} src={pat(0, f)} in={TPB_NAME[din]} out={TPB_NAME[dout]} op=bypass "
                     f"dst={pat(OFF_OUT, f)}")

    def body(self, ins, out):
        out[...] = ins[0]

    def nki(self):
        core = nki.Core()
        src = core.from_numpy(self.o.x)
        dst = core.ndarray((P, self.o.f), DT[self.o.dout])
        return lambda: nki.isa.tensor_copy(dst, src)


class Reciprocal(Multi):
    """Reciprocal: 1 / x in FP32."""

    name = "Reciprocal"

    def __init__(self, din, dout, f):
        self.init(din, dout, f)
        self.text = (f"reciprocal src={pat(0, f)} in={TPB_NAME[din]} out={TPB_NAME[dout]} "
                     f"op=bypass dst={pat(OFF_OUT, f)}")
        self.tmp = np.empty((P, f), F32)

    def body(self, ins, out):
        tmp = out if out.dtype == F32 and out.flags.c_contiguous else self.tmp
        np.reciprocal(as_f32(ins[0]), out=tmp)
        store(out, tmp)

    def nki(self):
        core = nki.Core()
        src = core.from_numpy(self.o.x)
        dst = core.ndarray((P, self.o.f), DT[self.o.dout])
        return lambda: nki.isa.reciprocal(dst, src)


class Memset(Multi):
    """Memset 1.5 (its bits in the output dtype)."""

    name = "Memset"

    def __init__(self, _din, dout, f):
        self.init("-", dout, f)
        bits = np.array([1.5], F32).astype(DT[dout]).view(
            {1: np.uint8, 2: np.uint16, 4: np.uint32}[DT[dout].itemsize])[0]
        self.text = (f"memset dst_element_count={f} dtype={TPB_NAME[dout]} "
                     f"set_value={int(bits):#x} dst={pat(OFF_OUT, f)}")
        self.value = DT[dout].type(1.5)

    def tiles(self):
        self.o.tile_out.fill(self.value)

    def views(self):
        self.o.view(OFF_OUT, self.o.dout).fill(self.value)

    def nki(self):
        core = nki.Core()
        dst = core.ndarray((P, self.o.f), DT[self.o.dout])
        return lambda: nki.isa.memset(dst, 1.5)


class TensorReduce(Multi):
    """TensorReduce MAX along the free axis: one element per partition."""

    name = "TensorReduce"
    out_f = 1

    def __init__(self, din, dout, f):
        self.init(din, dout, f)
        self.text = (f"tensor_reduce_arith src={pat(0, f)} in={TPB_NAME[din]} "
                     f"out={TPB_NAME[dout]} op=max op_dim=x dst={pat(OFF_OUT, 1)}")
        self.tmp = np.empty((P, 1), F32)

    def body(self, ins, out):
        np.max(as_f32(ins[0]), axis=1, keepdims=True, out=self.tmp)
        out[...] = self.tmp

    def nki(self):
        core = nki.Core()
        src = core.from_numpy(self.o.x)
        dst = core.ndarray((P, 1), DT[self.o.dout])
        return lambda: nki.isa.tensor_reduce(dst, np.maximum, src, axis=1, keepdims=True)


class CrossLaneReduce(Multi):
    """CrossLaneReduce MAX over the 128 partitions: one row into partition 0."""

    name = "CrossLaneReduce"
    out_p = 1

    def __init__(self, din, dout, f):
        self.init(din, dout, f)
        self.text = (f"cross_lane_reduce_arith src={pat(0, f)} in={TPB_NAME[din]} "
                     f"out={TPB_NAME[dout]} reduce_op=max reduce_axis=partitions scale=1.0 "
                     f"dst={pat(OFF_OUT, f, 'p0')}")
        self.tmp = np.empty((1, f), F32)

    def body(self, ins, out):
        np.max(as_f32(ins[0]), axis=0, keepdims=True, out=self.tmp)
        out[...] = self.tmp


class CopyPredicated(Multi):
    """CopyPredicated: x where a uint8 predicate (every third element) is nonzero."""

    name = "CopyPredicated"

    def __init__(self, din, dout, f):
        pred = (np.arange(P * f).reshape(P, f) % 3 == 0).astype(np.uint8)
        self.init(din, dout, f, [(OFF_P, "uint8", pred)])
        self.text = (f"copy_predicated in0_in1_dtype=uint8->{TPB_NAME[din]} "
                     f"out_dtype={TPB_NAME[dout]} op=bypass src0_mem_pattern={pat(OFF_P, f)} "
                     f"src1_mem_pattern={pat(0, f)} dst={pat(OFF_OUT, f)}")
        self.mask = np.empty((P, f), bool)

    def body(self, ins, out):
        x, pred = ins
        np.not_equal(pred, 0, out=self.mask)
        np.copyto(out, x, where=self.mask)

    def nki(self):
        core = nki.Core()
        src, pred = core.from_numpy(self.o.x), core.from_numpy(self.extra[0][2])
        dst = core.ndarray((P, self.o.f), DT[self.o.dout])
        return lambda: nki.isa.tensor_copy_predicated(dst, src, pred)


class ScalarTensorTensor(Multi):
    """ScalarTensorTensor: (x MULT 1.5) ADD y."""

    name = "ScalarTensorTensor"

    def __init__(self, din, dout, f):
        self.init(din, dout, f, [(OFF_B, din, data(DT[din], f, seed=2))])
        n = TPB_NAME[din]
        self.text = (f"stt_arith src0_mem_pattern={pat(0, f)} src1_mem_pattern={pat(OFF_B, f)} "
                     f"op0=mult op1=add dtypes={n}->{n} out={TPB_NAME[dout]} imm0_dtype=fp32 "
                     f"imm0=1.5 dst={pat(OFF_OUT, f)}")
        self.tmp = np.empty((P, f), F32)

    def body(self, ins, out):
        x, y = ins
        tmp = out if out.dtype == F32 and out.flags.c_contiguous else self.tmp
        np.multiply(as_f32(x), F32(1.5), out=tmp)
        np.add(tmp, as_f32(y), out=tmp)
        store(out, tmp)

    def nki(self):
        core = nki.Core()
        a, b = core.from_numpy(self.o.x), core.from_numpy(self.extra[0][2])
        dst = core.ndarray((P, self.o.f), DT[self.o.dout])
        return lambda: nki.isa.scalar_tensor_tensor(dst, a, np.multiply, 1.5, np.add, b)


class TensorTensorScan(Multi):
    """TensorTensorScan: r = max(x[k], r) + y[k] from r = 0 (NumPy: a loop over columns)."""

    name = "TensorTensorScan"

    def __init__(self, din, dout, f):
        self.init(din, dout, f, [(OFF_B, din, data(DT[din], f, seed=2))])
        n = TPB_NAME[din]
        self.text = (f"tt_scan src0_mem_pattern={pat(0, f)} src1_mem_pattern={pat(OFF_B, f)} "
                     f"op0=max op1=add dtypes={n}->{n} out={TPB_NAME[dout]} imm0_dtype=fp32 "
                     f"imm0=0.0 dst={pat(OFF_OUT, f)}")
        self.tmp = np.empty((P, f), F32)
        self.r = np.empty(P, F32)

    def body(self, ins, out):
        x, y = as_f32(ins[0]), as_f32(ins[1])
        r, tmp = self.r, self.tmp
        r.fill(0)
        for k in range(self.o.f):
            np.maximum(x[:, k], r, out=r)
            np.add(r, y[:, k], out=r)
            tmp[:, k] = r
        store(out, tmp)

    def nki(self):
        core = nki.Core()
        a, b = core.from_numpy(self.o.x), core.from_numpy(self.extra[0][2])
        dst = core.ndarray((P, self.o.f), DT[self.o.dout])
        return lambda: nki.isa.tensor_tensor_scan(dst, a, b, 0.0, np.maximum, np.add)


class CacheReduce(Multi):
    """TensorScalarCacheReduce: x MULT 2.0, and the sequential ADD fold of the results."""

    name = "TensorScalarCacheReduce"

    def __init__(self, din, dout, f):
        self.init(din, dout, f)
        self.text = (f"ts_cache_reduce accumulator_cmd=zero_accumulate src={pat(0, f)} "
                     f"in={TPB_NAME[din]} out={TPB_NAME[dout]} op0=mult op1=add imm0=2.0 "
                     f"dst={pat(OFF_OUT, f)}")
        self.tmp = np.empty((P, f), F32)
        self.run = np.empty((P, f), F32)

    def body(self, ins, out):
        np.multiply(as_f32(ins[0]), F32(2.0), out=self.tmp)
        store(out, self.tmp)
        # The sequential fold (np.add.reduce's pairwise sum would differ in the last bits).
        np.add.accumulate(self.tmp, axis=1, out=self.run)

    def nki(self):
        core = nki.Core()
        src = core.from_numpy(self.o.x)
        dst = core.ndarray((P, self.o.f), DT[self.o.dout])
        res = core.ndarray((P, 1), F32)
        return lambda: nki.isa.tensor_scalar_reduce(dst, src, np.multiply, 2.0, np.add,
                                                    reduce_res=res)


class SelectReduce(Multi):
    """SelectReduce: x where the predicate, else -3e38, and the running max of x there."""

    name = "SelectReduce"
    FILL = F32(-3.0e38)

    def __init__(self, din, dout, f):
        pred = (np.arange(P * f).reshape(P, f) % 3 == 0).astype(np.uint8)
        self.init(din, dout, f, [(OFF_P, "uint8", pred)])
        self.text = (f"select_reduce src0_mem_pattern={pat(OFF_P, f)} "
                     f"src1_mem_pattern={pat(0, f)} op0=bypass op1=max reverse=first "
                     f"dtypes=uint8->{TPB_NAME[din]} out={TPB_NAME[dout]} imm0_dtype=fp32 "
                     f"imm0=-3.0e38 accumulator_cmd=zero_accumulate dst={pat(OFF_OUT, f)}")
        self.mask = np.empty((P, f), bool)
        self.tmp = np.empty((P, f), F32)
        self.acc = np.empty((P, 1), F32)

    def body(self, ins, out):
        x, pred = ins
        np.not_equal(pred, 0, out=self.mask)
        self.tmp.fill(self.FILL)
        np.copyto(self.tmp, as_f32(x), where=self.mask)
        store(out, self.tmp)
        np.max(self.tmp, axis=1, keepdims=True, out=self.acc, where=self.mask,
               initial=-np.inf)

    def nki(self):
        core = nki.Core()
        src, pred = core.from_numpy(self.o.x), core.from_numpy(self.extra[0][2])
        dst = core.ndarray((P, self.o.f), DT[self.o.dout])
        res = core.ndarray((P, 1), F32)
        return lambda: nki.isa.select_reduce(dst, pred, src, -3.0e38, reduce_res=res,
                                             reduce_cmd="reset_reduce")


def top8(x):
    """Each partition's 8 largest values, ascending as Max8 writes them (FP32; NKI's max8
    reverses them)."""
    f = x.shape[1]
    return np.sort(np.partition(x, f - 8, axis=1)[:, f - 8:], axis=1)


class Max8(Multi):
    """Max8: each partition's 8 largest values, descending."""

    name = "Max8"
    out_f = 8

    def __init__(self, din, dout, f):
        self.init(din, dout, f)
        self.text = (f"max8 src={pat(0, f)} in={TPB_NAME[din]} out={TPB_NAME[dout]} "
                     f"dst={pat(OFF_OUT, 8)}")

    def body(self, ins, out):
        out[...] = top8(as_f32(ins[0]))

    def nki(self):
        core = nki.Core()
        src = core.from_numpy(self.o.x)
        dst = core.ndarray((P, 8), DT[self.o.dout])
        return lambda: nki.isa.max8(dst, src)


class FindIndex8(Multi):
    """FindIndex8 (after MatchValueLoad of each partition's top 8): their first indices."""

    name = "FindIndex8"
    out_f = 8

    def __init__(self, din, dout, f):
        self.init(din, dout, f)
        self.vals = np.ascontiguousarray(top8(as_f32(self.o.x)))
        self.extra = [(OFF_P, "fp32", self.vals)]
        self.init(din, dout, f, self.extra)
        self.text = (f"find_index8 src={pat(0, f)} in={TPB_NAME[din]} out={TPB_NAME[dout]} "
                     f"dst={pat(OFF_OUT, 8)}")
        self.eq = np.empty((P, f), bool)

    def setup(self, m):
        super().setup(m)
        m.step(f"match_value_load src={pat(OFF_P, 8)} dtype=fp32")

    def body(self, ins, out):
        x, vals = as_f32(ins[0]), ins[1]
        for i in range(8):  # dst slot i holds the index of key slot 7 - i
            np.equal(x, vals[:, 7 - i : 8 - i], out=self.eq)
            out[:, i] = np.argmax(self.eq, axis=1)

    def nki(self):
        core = nki.Core()
        src, vals = core.from_numpy(self.o.x), core.from_numpy(self.vals)
        dst = core.ndarray((P, 8), DT[self.o.dout])
        return lambda: nki.isa.nc_find_index8(dst, src, vals)


class MatchReplace8(FindIndex8):
    """MatchReplace8 (after MatchValueLoad of the top 8): x with their first matches -inf."""

    name = "MatchReplace8"
    out_f = None

    def __init__(self, din, dout, f):
        super().__init__(din, dout, f)
        self.text = (f"match_replace8 src={pat(0, f)} in={TPB_NAME[din]} out={TPB_NAME[dout]} "
                     f"immediate=-inf dst={pat(OFF_OUT, f)}")
        self.rows = np.arange(P)

    def body(self, ins, out):
        x, vals = as_f32(ins[0]), ins[1]
        out[...] = x
        for i in range(8):
            np.equal(x, vals[:, i : i + 1], out=self.eq)
            out[self.rows, np.argmax(self.eq, axis=1)] = -np.inf

    def nki(self):
        core = nki.Core()
        src, vals = core.from_numpy(self.o.x), core.from_numpy(self.vals)
        dst = core.ndarray((P, self.o.f), DT[self.o.dout])
        return lambda: nki.isa.nc_match_replace8(dst, src, vals, -np.inf)


class StreamShuffle(Multi):
    """StreamShuffle (after LoadMaskSelect of a reversal): partition 32g + j of the output is
    partition 32g + 31 - j of the input, every quadrant."""

    name = "StreamShuffle"
    MASK = list(range(31, -1, -1))

    def __init__(self, din, dout, f):
        self.init(din, dout, f)
        self.text = (f"stream_shuffle src={pat(0, f)} in={TPB_NAME[din]} out={TPB_NAME[dout]} "
                     f"op=bypass dst={pat(OFF_OUT, f)}")
        # NumPy: fancy-index the partition axis.
        self.perm = np.array([g * 32 + m for g in range(P // 32) for m in self.MASK])

    def setup(self, m):
        super().setup(m)
        table = bytes(self.MASK).hex()
        m.step(f"load_mask_select immediate={table}")

    def body(self, ins, out):
        np.take(ins[0], self.perm, axis=0, out=out)

    def nki(self):
        core = nki.Core()
        src = core.from_numpy(self.o.x)
        dst = core.ndarray((P, self.o.f), DT[self.o.dout])
        return lambda: nki.isa.nc_stream_shuffle(dst, src, self.MASK)


CASES += [
    (TensorTensor, "fp32", "fp32"),
    (TensorTensor, "bf16", "bf16"),
    (TensorTensor, "fp32", "bf16"),
    (Cast, "fp32", "bf16"),
    (Cast, "bf16", "fp32"),
    (Cast, "fp32", "fp8"),
    (Cast, "bf16", "bf16"),
    (Reciprocal, "fp32", "fp32"),
    (Memset, "-", "fp32"),
    (Memset, "-", "bf16"),
    (TensorReduce, "fp32", "fp32"),
    (TensorReduce, "bf16", "bf16"),
    (CrossLaneReduce, "fp32", "fp32"),
    (CopyPredicated, "fp32", "fp32"),
    (CopyPredicated, "bf16", "bf16"),
    (ScalarTensorTensor, "fp32", "fp32"),
    (ScalarTensorTensor, "bf16", "bf16"),
    (TensorTensorScan, "fp32", "fp32"),
    (CacheReduce, "fp32", "fp32"),
    (CacheReduce, "bf16", "bf16"),
    (SelectReduce, "fp32", "fp32"),
    (Max8, "fp32", "fp32"),
    (FindIndex8, "fp32", "uint32"),
    (MatchReplace8, "fp32", "fp32"),
    (StreamShuffle, "fp32", "fp32"),
    (StreamShuffle, "bf16", "bf16"),
]


def best_time(fn, reps, min_s):
    """Best per-call on-CPU seconds of `fn` over `reps` rounds of at least `min_s` each."""
    fn()
    n = 1
    while True:  # calls per round
        t0 = CLOCK()
        for _ in range(n):
            fn()
        if CLOCK() - t0 >= min_s / 4 or n >= 1 << 16:
            break
        n *= 2
    best = float("inf")
    for _ in range(reps):
        t0 = CLOCK()
        k = 0
        while True:
            for _ in range(n):
                fn()
            k += n
            if CLOCK() - t0 >= min_s:
                break
        best = min(best, (CLOCK() - t0) / k)
    return best


def bits(a):
    return a.view({1: np.uint8, 2: np.uint16, 4: np.uint32}[a.dtype.itemsize])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--reps", type=int, default=7, help="rounds, best kept")
    ap.add_argument("--min-ms", type=float, default=20.0, help="least on-CPU ms per round")
    ap.add_argument("--only", default="", help="run the cases whose name contains this (or any of a comma-separated list)")
    ap.add_argument("--sizes", default="512,16384", help="free sizes F (128 x F tiles)")
    ap.add_argument("--default-threads", action="store_true",
                    help="tpb on every core (its default; NumPy stays on one), wall-clock times")
    a = ap.parse_args()
    sizes = [int(s) for s in a.sizes.split(",")]
    min_s = a.min_ms / 1000
    level = os.environ.get("TPB_SIMD", "best available")
    print(f"tpb kernels vs NumPy {np.__version__} / ml_dtypes {ml_dtypes.__version__}; "
          f"{'tpb on every core, wall-clock' if DEFAULT_THREADS else 'one thread, on-CPU'} "
          f"time; SIMD level {level}; best of {a.reps} rounds; "
          f"ratio = NumPy time / tpb time")
    hdr = (f"{'case':<28} {'F':>6} {'tpb us':>9} {'np(a) us':>9} {'np(b) us':>9} "
           f"{'ratio a':>8} {'ratio b':>8} {'nki us':>8} {'nki/a':>6}")
    print(hdr)
    print("-" * len(hdr))
    for cls, din, dout in CASES:
        name = f"{cls.name} {din}->{dout}"
        if a.only and not any(w in name for w in a.only.split(",")):
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
