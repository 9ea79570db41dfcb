#!/usr/bin/env python3
"""NumPy/ml_dtypes fixtures for the DVE/POOL families where dtype conversions meet the FP32 ALU
(issue 17): TensorTensor over mixed dtypes, Reciprocal over dtype pairs, TensorReduce,
ScalarTensorTensor (with its accumulator), TensorTensorScan and the cache ops 0x9a/0xe6 with
the 0x9b drain. Committed so the Rust tests (crates/tpb-sim/tests/dve_fixtures.rs) need no
Python.

Numerics restated (docs/reference/decisions.md §4, docs/reference/isa-dve-state.md):
* inputs convert to float32 (numpy / ml_dtypes ``astype``; integers exactly up to 2^24, RNE
  beyond);
* the ALU computes in IEEE float32 (numpy float32 ufuncs, no FMA); MAX/MIN are maxNum/minNum
  with -0 < +0 (§4.3); a NaN an ALU op produces is the canonical 0x7FC00000 (§4.4);
* outputs: floats by ``astype`` (RNE, ml_dtypes / numpy bits), integers round half to even,
  saturate, NaN -> 0 (§4.6);
* folds run left to right from the first element (TensorReduce, assumption reduce-geometry),
  STT adds each fp32 result into a lane accumulator seeded 0.0 (stt-accumulate), the scan is
  r[i] = op1(op0(a[i], r[i-1]), b[i]) from r[-1] = imm0 (scan-recurrence), the cache ops
  compute tmp = x op0 s, acc = op1(tmp, acc) from op1's identity (cache-reduce-model).

Every file is a sequence of little-endian u32 cases; each case starts with a header and its
element count(s), then raw (zero-extended) input and output bits. Layouts are in
``LAYOUTS`` below and in the Rust reader.
"""

import os
import sys

import ml_dtypes
import numpy as np

OUT = os.path.join(os.path.dirname(__file__), "..", "crates", "tpb-sim", "tests", "fixtures", "dve_state")
RNG = np.random.default_rng(1717)

# name, numpy dtype, wire code (docs/reference/isa.md DTYPE)
DTYPES = {
    "int8": (np.int8, 0x02), "uint8": (np.uint8, 0x03), "int16": (np.int16, 0x04),
    "uint16": (np.uint16, 0x05), "bfloat16": (ml_dtypes.bfloat16, 0x06), "fp16": (np.float16, 0x07),
    "int32": (np.int32, 0x08), "uint32": (np.uint32, 0x09), "fp32": (np.float32, 0x0A),
    "fp8_exp3": (ml_dtypes.float8_e3m4, 0x0D), "fp8_exp4": (ml_dtypes.float8_e4m3, 0x0E),
    "fp8_exp5": (ml_dtypes.float8_e5m2, 0x0F),
}
NAMES = list(DTYPES)
FLOATS = ["bfloat16", "fp16", "fp32", "fp8_exp3", "fp8_exp4", "fp8_exp5"]
UINT = {1: np.uint8, 2: np.uint16, 4: np.uint32}
# ALU op codes (docs/reference/isa.md ALU_OP).
OPS = {"add": 0x04, "subtract": 0x05, "mult": 0x06, "max": 0x08, "min": 0x09}
CANONICAL_NAN = np.uint32(0x7FC00000).view(np.float32)

LAYOUTS = {
    "tt_mixed": "[op, in0, in1, out, N] a[N] b[N] out[N]",
    "reciprocal": "[in, out, N] x[N] out[N]",
    "reduce": "[op, in, out, negated, P, L] x[P*L] out[P]",
    "stt": "[op0, op1, rev, in0, in1, out, P, L, s] a[P*L] b[P*L] out[P*L] acc[P]",
    "scan": "[op0, op1, rev, in0, in1, out, P, L, s] a[P*L] b[P*L] out[P*L]",
    "cache": "[op0, op1, in, out, P, L, s] x[P*L] fold[P*L] cumulative[P*L] acc[P]",
}


def t_of(name):
    return DTYPES[name][0]


def code(name):
    return DTYPES[name][1]


def size(name):
    return np.dtype(t_of(name)).itemsize


def raw_values(name, n, bound=None):
    """n random raw bit patterns of `name` whose value is not NaN (and |x| <= bound)."""
    t = np.dtype(t_of(name))
    if bound is not None and np.issubdtype(t, np.integer):
        lo = 0 if np.iinfo(t).min == 0 else -int(bound)
        v = RNG.integers(lo, int(bound) + 1, n)
        return (v.astype(np.int64) & ((1 << (8 * size(name))) - 1)).astype(np.uint32)
    out = []
    while len(out) < n:
        r = RNG.integers(0, 1 << (8 * size(name)), 4 * n, dtype=np.uint64).astype(np.uint32)
        f = to_f32(r, name)
        ok = ~np.isnan(f)
        if bound is not None:
            ok &= np.abs(f) <= bound
        out.extend(r[ok].tolist())
    return np.array(out[:n], dtype=np.uint32)


def to_f32(raw, name):
    return raw.astype(UINT[size(name)]).view(t_of(name)).astype(np.float32)


def from_f32(x, name):
    t = t_of(name)
    if np.issubdtype(np.dtype(t), np.integer):
        info = np.iinfo(t)
        r = np.rint(x.astype(np.float64))
        r = np.where(np.isnan(r), 0, r)
        r = np.clip(r, info.min, info.max)
        return (r.astype(np.int64) & ((1 << (8 * size(name))) - 1)).astype(np.uint32)
    return np.asarray(x, dtype=np.float32).astype(t).view(UINT[size(name)]).astype(np.uint32)


def alu(op, a, b):
    """One FP32 ALU op elementwise (decisions §4.1-§4.4)."""
    a = np.asarray(a, dtype=np.float32)
    b = np.asarray(b, dtype=np.float32)
    if op in ("max", "min"):
        f = np.fmax if op == "max" else np.fmin
        r = f(a, b)
        # -0 < +0: with equal zeros of different signs max takes +0, min -0.
        both_zero = (a == 0) & (b == 0)
        neg = np.signbit(a) | np.signbit(b) if op == "min" else np.signbit(a) & np.signbit(b)
        r = np.where(both_zero, np.where(neg, np.float32(-0.0), np.float32(0.0)), r)
    else:
        r = {"add": np.add, "subtract": np.subtract, "mult": np.multiply}[op](a, b)
    r = np.asarray(r, dtype=np.float32)
    return np.where(np.isnan(r), CANONICAL_NAN, r).astype(np.float32)


def stage(op, data, other, reversed_):
    return alu(op, other, data) if reversed_ else alu(op, data, other)


def words(*xs):
    return [np.asarray(x, dtype=np.uint32).ravel() for x in xs]


def tt_mixed():
    parts = []
    triples = [(a, b, o) for a in NAMES for b in NAMES for o in NAMES]
    picks = RNG.choice(len(triples), 60, replace=False)
    chosen = [triples[i] for i in picks] + [
        ("bfloat16", "fp8_exp4", "fp16"), ("fp8_exp5", "fp8_exp3", "bfloat16"),
        ("int16", "fp16", "int8"), ("uint8", "bfloat16", "uint32"), ("fp32", "int32", "fp8_exp5"),
    ]
    for (a, b, o) in chosen:
        for op in OPS:
            n = 48
            ra, rb = raw_values(a, n), raw_values(b, n)
            r = alu(op, to_f32(ra, a), to_f32(rb, b))
            parts += words([OPS[op], code(a), code(b), code(o), n], ra, rb, from_f32(r, o))
    return parts


def reciprocal():
    parts = []
    for i in NAMES:
        for o in NAMES:
            n = 64
            x = raw_values(i, n)
            r = (np.float32(1.0) / to_f32(x, i)).astype(np.float32)
            r = np.where(np.isnan(r), CANONICAL_NAN, r)
            parts += words([code(i), code(o), n], x, from_f32(r, o))
    return parts


def fold(op, xs):
    acc = xs[:, 0].astype(np.float32)
    for k in range(1, xs.shape[1]):
        acc = alu(op, acc, xs[:, k])
    return acc


def reduce():
    parts = []
    for i in NAMES:
        for o in FLOATS:
            for op in ("add", "max", "min", "mult"):
                p, length = 4, int(RNG.integers(1, 40))
                bound = 2.0 if op == "mult" else None
                x = raw_values(i, p * length, bound).reshape(p, length)
                neg = int(RNG.integers(0, 2))
                acc = fold(op, to_f32(x, i))
                if neg:
                    acc = -acc
                parts += words([OPS[op], code(i), code(o), neg, p, length], x, from_f32(acc, o))
    return parts


def stt_like(scan):
    parts = []
    ops = list(OPS)
    for _ in range(120):
        a, b = RNG.choice(NAMES), RNG.choice(NAMES)
        o = RNG.choice(NAMES + ["fp32"] * 4)
        op0, op1 = RNG.choice(ops), RNG.choice(ops)
        rev = int(RNG.integers(0, 4))
        p, length = 3, int(RNG.integers(1, 33))
        bound = 4.0 if scan else None
        ra = raw_values(a, p * length, bound).reshape(p, length)
        rb = raw_values(b, p * length, bound).reshape(p, length)
        s = np.float32(RNG.standard_normal() * 2)
        fa, fb = to_f32(ra, a), to_f32(rb, b)
        res = np.zeros((p, length), dtype=np.float32)
        acc = np.zeros(p, dtype=np.float32)
        r = np.full(p, s, dtype=np.float32)
        for k in range(length):
            if scan:
                t = stage(op0, fa[:, k], r, rev & 1)
                r = stage(op1, t, fb[:, k], rev & 2)
                res[:, k] = r
            else:
                t = stage(op0, fa[:, k], np.full(p, s, dtype=np.float32), rev & 1)
                res[:, k] = stage(op1, t, fb[:, k], rev & 2)
                acc = alu("add", acc, res[:, k])
        head = [OPS[op0], OPS[op1], rev, code(a), code(b), code(o), p, length, s.view(np.uint32)]
        parts += words(head, ra, rb, from_f32(res, o))
        if not scan:
            parts += words(acc.view(np.uint32))
    return parts


def cache():
    parts = []
    identity = {"add": 0.0, "subtract": 0.0, "mult": 1.0, "max": -np.inf, "min": np.inf}
    ins = [n for n in NAMES if n not in ("int32", "uint32")]
    for _ in range(100):
        i = RNG.choice(ins)
        o = RNG.choice(NAMES + ["fp32"] * 4)
        op0 = RNG.choice(list(OPS))
        op1 = RNG.choice(list(OPS))
        p, length = 3, int(RNG.integers(1, 33))
        x = raw_values(i, p * length, 4.0).reshape(p, length)
        s = np.float32(RNG.standard_normal())
        fx = to_f32(x, i)
        tmp = np.zeros((p, length), dtype=np.float32)
        cum = np.zeros((p, length), dtype=np.float32)
        acc = np.full(p, identity[op1], dtype=np.float32)
        for k in range(length):
            tmp[:, k] = alu(op0, fx[:, k], s)
            acc = alu(op1, tmp[:, k], acc)  # NKI's order, op1(tmp, acc)
            cum[:, k] = acc
        head = [OPS[op0], OPS[op1], code(i), code(o), p, length, s.view(np.uint32)]
        parts += words(head, x, from_f32(tmp, o), from_f32(cum, o), acc.view(np.uint32))
    return parts


def main():
    os.makedirs(OUT, exist_ok=True)
    for name, make in [("tt_mixed", tt_mixed), ("reciprocal", reciprocal), ("reduce", reduce),
                       ("stt", lambda: stt_like(False)), ("scan", lambda: stt_like(True)),
                       ("cache", cache)]:
        np.concatenate(make()).astype("<u4").tofile(os.path.join(OUT, f"{name}.u32"))
    with open(os.path.join(OUT, "MANIFEST.txt"), "w") as fh:
        fh.write("# Generated by tools/gen_dve_state_fixtures.py; do not edit.\n")
        fh.write(f"# python {sys.version.split()[0]}, numpy {np.__version__}, "
                 f"ml_dtypes {ml_dtypes.__version__}\n")
        for name, layout in LAYOUTS.items():
            fh.write(f"# {name}.u32: cases of {layout}\n")


if __name__ == "__main__":
    with np.errstate(all="ignore"):
        main()
