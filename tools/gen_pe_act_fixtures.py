#!/usr/bin/env python3
"""NumPy/ml_dtypes fixtures for the PE and ACT instructions (issue 18), committed so the Rust
tests (crates/tpb-sim/tests/pe_act.rs) need no Python.

Matmul (docs/reference/pe-act.md "Numerics", assumption pe-summation-order): the stationary
W (K x M) and moving X (K x N) decode to float32 (ml_dtypes; fp8_exp3 = float8_e3m4,
fp8_exp4 = float8_e4m3, fp8_exp5 = float8_e5m2, assumption 15); with fp32_mode low both are
first rounded to tf32 (10-bit significand, nearest even; assumption pe-fp32-modes); then
psum[m][j] = sum_k W[k][m] * X[k][j] with each product a float32 multiply and the products
added in float32 sequentially over k from the k = 0 product — exact per our order, not the
hardware's bits.

``matmul_<case>.u32``: a header [K, M, N, w_dtype, x_dtype, fp32_mode] (wire codes), then
K*M raw W bits, K*N raw X bits (zero-extended), then M*N expected PSUM float32 bits.

Activate (assumption act-rounding): t = float32(x * 2 - 0.5) (the fma's one rounding; the
scale is a power of two so the product is exact), y = f(t). Hardwired functions (identity,
relu, lrelu/prelu with slope 0.25, square, sign, abs, is_finite) are float32 operations and
bit-exact; table functions are their mathematical definitions in float64 (Python's math
module), rounded once to float32 — the tests accept 1 ulp (libm and the C library may differ
in the last bit of the float64 value, which can move a rounding).

``act_<func>.u32``: N float32 input bits then N expected output bits.

Written with numpy 2.4.6 and ml_dtypes 0.7.0:

    python3 tools/gen_pe_act_fixtures.py
"""

import math
import os

import ml_dtypes
import numpy as np

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "crates", "tpb-sim",
                   "tests", "fixtures", "pe_act")
RNG = np.random.default_rng(18)
F32 = np.float32

# name, numpy type, wire code (tpb_isa::Dtype)
DTYPES = {
    "fp8_exp3": (ml_dtypes.float8_e3m4, 0x0D),
    "fp8_exp4": (ml_dtypes.float8_e4m3, 0x0E),
    "fp8_exp5": (ml_dtypes.float8_e5m2, 0x0F),
    "bfloat16": (ml_dtypes.bfloat16, 0x06),
    "fp16": (np.float16, 0x07),
    "fp32": (np.float32, 0x0A),
}
MODES = {"none": 0, "low": 1, "high": 2, "low_high": 3}
UINT = {1: np.uint8, 2: np.uint16, 4: np.uint32}


def write(name, arr):
    arr = np.ascontiguousarray(arr, dtype=np.uint32)
    with open(os.path.join(OUT, name), "wb") as f:
        f.write(arr.astype("<u4").tobytes())
    print(f"{name:28} {arr.size} words")


def values(t, shape):
    """Random values of type t with a spread of magnitudes and signs, a few zeros and -0."""
    x = RNG.standard_normal(shape) * np.exp2(RNG.integers(-3, 3, shape))
    v = x.astype(np.float32).astype(t)
    flat = v.reshape(-1)
    flat[::37] = 0
    flat[5::41] = -0.0
    return v


def tf32(x):
    b = x.view(np.uint32).astype(np.uint64)
    lsb = (b >> 13) & 1
    r = ((b + 0x0FFF + lsb) & ~np.uint64(0x1FFF)) & 0xFFFFFFFF
    out = r.astype(np.uint32).view(np.float32)
    return np.where(np.isfinite(x), out, x)


def our_order(w, x):
    acc = w[0][:, None] * x[0][None, :]
    for k in range(1, w.shape[0]):
        acc = (acc + w[k][:, None] * x[k][None, :]).astype(F32)
    return acc.astype(F32)


def matmul_case(name, wd, xd, mode, k=32, m=16, n=40):
    wt, wcode = DTYPES[wd]
    xt, xcode = DTYPES[xd]
    w, x = values(wt, (k, m)), values(xt, (k, n))
    wf, xf = w.astype(F32), x.astype(F32)
    if mode == "low":
        wf, xf = tf32(wf), tf32(xf)
    psum = our_order(wf, xf)
    raw = lambda a: a.view(UINT[a.dtype.itemsize]).astype(np.uint32).reshape(-1)
    header = np.array([k, m, n, wcode, xcode, MODES[mode]], np.uint32)
    write(f"matmul_{name}.u32", np.concatenate([header, raw(w), raw(x), raw(psum)]))


def sigmoid(t):
    return 1.0 / (1.0 + math.exp(-t)) if t > -700 else 0.0


def softplus(t):
    return t + math.log1p(math.exp(-t)) if t > 30 else math.log1p(math.exp(t))


EXACT = {
    "identity": lambda t: t,
    "relu": lambda t: np.where((t > 0) | np.isnan(t), t, F32(0)),
    "lrelu": lambda t: np.where(t < 0, t * F32(0.25), t),
    "prelu": lambda t: np.where(t < 0, t * F32(0.25), t),
    "square": lambda t: t * t,
    "sign": lambda t: np.where(t > 0, F32(1), np.where(t < 0, F32(-1), t)),
    "abs": np.abs,
    "is_finite": lambda t: np.isfinite(t).astype(F32),
}
TABLE = {
    "exp": math.exp,
    "tanh": math.tanh,
    "sigmoid": sigmoid,
    "softplus": softplus,
    "ln": math.log,
    "sqrt": math.sqrt,
    "rsqrt": lambda t: 1.0 / math.sqrt(t),
    "sin": math.sin,
    "arctan": math.atan,
    "erf": math.erf,
    "gelu": lambda t: 0.5 * t * (1.0 + math.erf(t / math.sqrt(2.0))),
    "gelu_apprx_tanh": lambda t: 0.5 * t * (1.0 + math.tanh(
        math.sqrt(2.0 / math.pi) * (t + 0.044715 * t * t * t))),
    "silu": lambda t: t * sigmoid(t),
    "mish": lambda t: t * math.tanh(softplus(t)),
    "reciprocal": lambda t: 1.0 / t,
}
# Inputs inside each function's documented valid range (pe-act.md "Numerics").
POSITIVE = {"ln", "sqrt", "rsqrt"}
RANGE = {"sin": math.pi, "arctan": math.pi / 2}


def act_inputs(func):
    x = (RNG.standard_normal(256) * 3).astype(F32)
    if func in EXACT:
        x[:6] = [np.inf, -np.inf, np.nan, 0.0, -0.0, 1e-40]
        return x
    t = x * F32(2) - F32(0.5)
    if func in POSITIVE:
        t = np.abs(t) + F32(1e-3)
    if func in RANGE:
        t = np.clip(t, -RANGE[func], RANGE[func]).astype(F32)
    if func == "exp":
        t = np.clip(t, -80, 80).astype(F32)
    if func == "reciprocal":
        t = np.where(np.abs(t) < 1e-3, F32(1e-3), t).astype(F32)
    # x such that float32(x * 2 - 0.5) is t exactly: (t + 0.5) / 2 may round, so recompute t.
    return ((t.astype(np.float64) + 0.5) / 2).astype(F32)


def act_case(func):
    x = act_inputs(func)
    t = (x.astype(np.float64) * 2 - 0.5).astype(F32)
    if func in EXACT:
        with np.errstate(all="ignore"):
            y = np.asarray(EXACT[func](t), dtype=F32)
    else:
        y = np.array([TABLE[func](float(v)) for v in t], np.float64).astype(F32)
    write(f"act_{func}.u32", np.concatenate([x.view(np.uint32), y.view(np.uint32)]))


def main():
    os.makedirs(OUT, exist_ok=True)
    for d in ["fp8_exp3", "fp8_exp4", "fp8_exp5", "bfloat16", "fp16"]:
        matmul_case(d, d, d, "none")
    for mode in ["low", "high", "low_high"]:
        matmul_case(f"fp32_{mode}", "fp32", "fp32", mode)
    # Stationary and moving may differ unless one is fp32 (isa-facts-pe-act-dma §1.7).
    matmul_case("bfloat16_fp8_exp4", "bfloat16", "fp8_exp4", "none")
    # Every output element from the blocked kernel's 4 x 32 blocks and its edges.
    matmul_case("bfloat16_128x64x48", "bfloat16", "bfloat16", "none", k=128, m=64, n=48)
    for func in list(EXACT) + list(TABLE):
        act_case(func)


if __name__ == "__main__":
    main()
