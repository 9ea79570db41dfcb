#!/usr/bin/env python3
"""NumPy/ml_dtypes fixtures for the PE and ACT instructions (issue 18), committed so the Rust
tests (crates/tpb-sim/tests/pe_act.rs) need no Python.

Matmul (docs/reference/pe-act.md "Numerics", assumption pe-summation-order): the stationary
W (K x M) and moving X (K x N) decode to float32 (ml_dtypes; fp8_exp3 = float8_e3m4,
fp8_exp4 = float8_e4m3, fp8_exp5 = float8_e5m2, assumption 15); with fp32_mode low both are
first rounded to tf32 (10-bit significand, nearest even; assumption pe-fp32-modes); then
psum[m][j] = sum_k W[k][m] * X[k][j] with exact products (isa-facts-pe-act-dma §8 item 7) added
in float32 sequentially over k: the k = 0 product rounded once, then each step
acc = float32(acc + W[k][m] * X[k][j]) rounded once, a float32 fused multiply-add (`fma32`
below, checked against exact rational arithmetic) — exact per our order, not the hardware's
bits. Products of bf16, fp16, fp8 and tf32 inputs are exact in float32 anyway; only full fp32
inputs see the difference.

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
from fractions import Fraction

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


def fma32(a, b, c):
    """float32(a * b + c) with one rounding (a float32 fused multiply-add), elementwise. The
    product is exact in float64 (24 + 24 bits); TwoSum gives the float64 sum s and its error e
    exactly (s + e == a*b + c); s then rounds to float32 correctly unless s is a float32
    rounding midpoint, where the sign of e decides (2^128 stands in for an infinite
    neighbour, so the overflow threshold is a midpoint too)."""
    a64, b64, c64 = (np.asarray(v, F32).astype(np.float64) for v in (a, b, c))
    p = a64 * b64
    s = p + c64
    bp = s - c64
    e = (p - bp) + (c64 - (s - bp))
    with np.errstate(over="ignore", invalid="ignore"):
        r = s.astype(F32)
        up = s > r.astype(np.float64)
        n = np.where(up, np.nextafter(r, F32(np.inf)), np.nextafter(r, F32(-np.inf)))
        finite = lambda v: np.where(np.isinf(v), np.copysign(2.0 ** 128, v),
                                    v.astype(np.float64))
        mid = (finite(r) + finite(n)) / 2
        tie = (s == mid) & (e != 0) & np.isfinite(s)
        toward_n = np.where(up, e > 0, e < 0)
        return np.where(tie & toward_n, n, r).astype(F32)


def exact_fma32(a, b, c):
    """float32(a * b + c) from exact rational arithmetic (round to nearest even), for finite
    float32 inputs: the check of fma32."""
    q = Fraction(float(a)) * Fraction(float(b)) + Fraction(float(c))
    if q == 0:
        return F32(0.0)
    mag = abs(q)
    exp = mag.numerator.bit_length() - mag.denominator.bit_length()
    if Fraction(2) ** exp > mag:
        exp -= 1
    quantum = Fraction(2) ** (max(exp, -126) - 23)
    units = mag / quantum
    whole = units.numerator // units.denominator
    rest = units - whole
    if rest > Fraction(1, 2) or (rest == Fraction(1, 2) and whole % 2 == 1):
        whole += 1
    value = whole * quantum
    if value >= Fraction(2) ** 128:
        return F32(math.copysign(math.inf, q))
    return F32(math.copysign(float(value), q))


def check_fma32():
    """fma32 against exact_fma32 on random operands that cancel, on float64-midpoint cases
    (where rounding the float64 sum again would be wrong) and at the overflow threshold."""
    rng = np.random.default_rng(25)
    sig = lambda k: (rng.integers(1 << 23, 1 << 24, k) * np.exp2(-23.0)).astype(F32)
    k = 4000
    a = sig(k) * np.exp2(rng.integers(-20, 20, k)).astype(F32)
    b = sig(k) * np.exp2(rng.integers(-20, 20, k)).astype(F32)
    c = -(a.astype(np.float64) * b).astype(F32) * sig(k).astype(F32)
    c[::3] = (sig(len(c[::3])) * np.exp2(rng.integers(-60, 60, len(c[::3])))).astype(F32)
    one_ulp = F32(2.0 ** -23)
    # (2^8 (1 + 2^-23)) (2^8 (1 - 2^-23)) + (2^40 + 2^17): the float64 sum is the float32
    # midpoint 2^40 + 2^17 + 2^16, the exact sum lies just below it.
    fixed = [(F32(256) * (1 + one_ulp), F32(256) * (1 - one_ulp), F32(2.0 ** 40 + 2.0 ** 17)),
             (F32(1), F32(1) + F32(2.0 ** -12), F32(-1)),
             (F32(2.0 ** 127) * (2 - 2 * one_ulp), F32(1) - one_ulp / 2, F32(2.0 ** 103)),
             (np.finfo(F32).max, F32(1), np.finfo(F32).max)]
    for fa, fb, fc in fixed:
        a, b, c = np.append(a, fa), np.append(b, fb), np.append(c, fc)
    got = fma32(a, b, c)
    for x, y, z, g in zip(a, b, c, got):
        want = exact_fma32(x, y, z)
        assert g.view(np.uint32) == want.view(np.uint32) or (g == 0 and want == 0), \
            (x, y, z, g, want)


def our_order(w, x):
    acc = (w[0][:, None] * x[0][None, :]).astype(F32)
    for k in range(1, w.shape[0]):
        acc = fma32(w[k][:, None], x[k][None, :], acc)
    return acc


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
    check_fma32()
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
