#!/usr/bin/env python3
"""Generate the numerics oracle fixtures for crates/tpb-sim/tests/numerics.rs.

Last run with: Python 3, numpy 2.4.6, ml_dtypes 0.6.0 (recorded in MANIFEST.txt too).

    pip install numpy ml_dtypes
    python3 tools/gen_numerics_fixtures.py          # writes crates/tpb-sim/tests/fixtures/numerics/

The outputs are committed: CI has no Python and reads only these files. The script is
deterministic (fixed seed), so re-running it with the same versions gives identical bytes.

Every file is a raw little-endian array, no header; the extension gives the element type
(.u8 / .u16 / .u32). f32 values are stored as their u32 bit patterns. Files:

  decode_<fmt>.u32        every bit pattern of <fmt> (index = pattern) -> f32 bits.
                          fmt: e3m4 e4m3 e4m3fn e5m2 (256 entries), bf16 fp16 (65536).
  encode_fp8_in.u32       f32 probes shared by the four fp8 encoders;
  encode_<fmt>.u8         ml_dtypes' result for each probe (fmt: e3m4 e4m3 e4m3fn e5m2).
  encode_bf16_in.u32 / encode_bf16.u16, encode_fp16_in.u32 / encode_fp16.u16
                          the same for bf16 (ml_dtypes) and fp16 (numpy).
  int_in.u32              f32 probes for float -> int conversion;
  encode_<int>.u8/.u16/.u32  np.clip(np.rint(x)) computed in float64, NaN -> 0,
                          stored as the type's two's complement bits.
  decode_int_in.u32       32-bit integer probes;
  decode_int32.u32 / decode_uint32.u32  np.int32/np.uint32 -> float32 (RNE) f32 bits.

Probe sets (per float format): every midpoint between adjacent representable values
(exact ties), the f32 values one ulp either side of each midpoint, every representable
value, the negations, overflow probes around max, +-inf, NaNs with several payloads and
signs, zeros, f32 subnormals, and random values (random exponents over the format's range
plus fully random bit patterns). For the 16-bit formats the +-1 ulp and negation probes
are subsampled (full near zero and near max) to keep the committed files small.
"""

import os
import sys

import ml_dtypes
import numpy as np

OUT = os.path.join(
    os.path.dirname(os.path.abspath(__file__)),
    "..", "crates", "tpb-sim", "tests", "fixtures", "numerics",
)
RNG = np.random.default_rng(0x7B9)

FP8 = {
    "e3m4": ml_dtypes.float8_e3m4,
    "e4m3": ml_dtypes.float8_e4m3,
    "e4m3fn": ml_dtypes.float8_e4m3fn,
    "e5m2": ml_dtypes.float8_e5m2,
}
F16 = {"bf16": ml_dtypes.bfloat16, "fp16": np.float16}

manifest = []


def write(name, arr, dtype):
    arr = np.ascontiguousarray(np.asarray(arr).astype(dtype, copy=False))
    path = os.path.join(OUT, name)
    arr.astype(np.dtype(dtype).newbyteorder("<")).tofile(path)
    manifest.append(f"{name}\t{arr.size}")


def f32bits(x):
    return np.asarray(x, dtype=np.float32).view(np.uint32)


def bits_f32(b):
    return np.asarray(b, dtype=np.uint32).view(np.float32)


def patterns(t):
    """All bit patterns of t, viewed as t."""
    n = np.dtype(t).itemsize
    ut = np.uint8 if n == 1 else np.uint16
    return np.arange(1 << (8 * n), dtype=np.int64).astype(ut).view(t)


def nan_probes():
    b = [0x7FC00000, 0xFFC00000, 0x7F800001, 0xFF800001, 0x7FFFFFFF, 0xFFFFFFFF,
         0x7FA00000, 0x7FC12345, 0xFFD00001, 0x7F812345]
    return np.array(b, dtype=np.uint32)


def common_specials():
    v = [0.0, -0.0, np.inf, -np.inf, np.finfo(np.float32).max, -np.finfo(np.float32).max,
         np.finfo(np.float32).tiny, -np.finfo(np.float32).tiny, 1.0, -1.0, 0.5, 1.5, 2.5]
    b = [0x00000001, 0x80000001, 0x00000002, 0x007FFFFF, 0x00400000, 0x80400000]
    return np.concatenate([f32bits(np.array(v, dtype=np.float32)),
                           np.array(b, dtype=np.uint32), nan_probes()])


def float_probes(t, stride=1, n_rand=6000):
    """Probe f32 bit patterns for the float format t (see the module doc)."""
    vals = patterns(t).astype(np.float64)
    pos = np.unique(vals[np.isfinite(vals) & (vals >= 0)])  # includes 0, sorted
    mids = (pos[:-1] + pos[1:]) / 2
    ulp_top = pos[-1] - pos[-2]
    over_mid = pos[-1] + ulp_top / 2  # the tie between max and the next (overflow) step
    mids = np.append(mids, over_mid)
    mids32 = mids.astype(np.float32)
    assert np.all(mids32.astype(np.float64) == mids), "midpoint not exact in f32"
    # +-1 ulp of each midpoint: all of them when stride == 1, else every stride-th plus
    # the 512 nearest zero and nearest max.
    idx = np.arange(mids32.size)
    sel = (idx % stride == 0) | (idx < 512) | (idx >= mids32.size - 512)
    m = mids32[sel]
    up = np.nextafter(m, np.float32(np.inf))
    down = np.nextafter(m, np.float32(0))
    mx = np.float32(pos[-1])
    over = np.array([mx, mx * 1.1, mx * 2, mx * 1.0001, over_mid * 1.5, 65536.0, 1e30, 3e38],
                    dtype=np.float32)
    over = np.concatenate([over, np.nextafter(over, np.float32(np.inf)),
                           np.nextafter(over, np.float32(0))])
    positive = np.concatenate([mids32, up, down, pos.astype(np.float32), over])
    neg_sel = np.arange(positive.size) % max(1, stride // 2) == 0
    neg = -positive[neg_sel]
    # Random values over the format's binary exponent range (+ margins), random mantissas.
    lo = int(np.floor(np.log2(pos[1]))) - 4
    hi = int(np.ceil(np.log2(pos[-1]))) + 3
    e = RNG.integers(lo, hi + 1, n_rand)
    mant = RNG.integers(0, 1 << 23, n_rand).astype(np.uint32)
    sign = RNG.integers(0, 2, n_rand).astype(np.uint32) << 31
    rexp = np.clip(e + 127, 1, 254).astype(np.uint32)
    rnd = sign | (rexp << 23) | mant
    anybits = RNG.integers(0, 1 << 32, n_rand // 4, dtype=np.uint64).astype(np.uint32)
    return np.concatenate([f32bits(positive), f32bits(neg), rnd, anybits, common_specials()])


def encode_bits(x_bits, t):
    x = bits_f32(x_bits)
    with np.errstate(all="ignore"):
        y = x.astype(t)
    n = np.dtype(t).itemsize
    return y.view(np.uint8 if n == 1 else np.uint16)


def int_probes():
    p = []
    # Ties and near-ties across the small range, every 1/4 step.
    p.append(np.arange(-600, 600, 0.25))
    # Around each type boundary.
    for bnd in [127, 128, 255, 256, 32767, 32768, 65535, 65536, 2**31, 2**32, 2**24, 2**23]:
        for s in (1, -1):
            c = float(s * bnd)
            p.append(np.array([c - 1, c - 0.5, c, c + 0.5, c + 1, c - 1.5, c + 1.5]))
    f = np.concatenate(p).astype(np.float32)
    # Every f32 within 64 ulps of the 32-bit and 16-bit limits.
    near = []
    for c in [2.0**31, 2.0**32, 2.0**15, 2.0**16, 2.0**7, 2.0**8, 2.0**23, 2.0**24]:
        for s in (1, -1):
            b = int(f32bits(np.float32(s * c)))
            near.append(np.arange(b - 64, b + 65, dtype=np.int64).astype(np.uint32))
    # Large ties: k + 0.5 for k near 2^22 (the largest f32 halves).
    k = np.arange(2**22 - 200, 2**22 + 200, dtype=np.float64)
    large = np.concatenate([k + 0.5, -(k + 0.5)]).astype(np.float32)
    # Random values, exponents -10..40, and random bit patterns.
    n = 6000
    e = RNG.integers(-10, 41, n)
    mant = RNG.integers(0, 1 << 23, n).astype(np.uint32)
    sign = RNG.integers(0, 2, n).astype(np.uint32) << 31
    rnd = sign | ((e + 127).astype(np.uint32) << 23) | mant
    anybits = RNG.integers(0, 1 << 32, 2000, dtype=np.uint64).astype(np.uint32)
    return np.concatenate([f32bits(f), *near, f32bits(large), rnd, anybits, common_specials()])


def int_expect(x_bits, lo, hi):
    x = bits_f32(x_bits).astype(np.float64)
    r = np.clip(np.rint(x), lo, hi)
    r = np.where(np.isnan(x), 0, r)
    return r.astype(np.int64)


def main():
    os.makedirs(OUT, exist_ok=True)
    for f in os.listdir(OUT):
        os.remove(os.path.join(OUT, f))

    # Decode tables: every bit pattern.
    for name, t in {**FP8, **F16}.items():
        write(f"decode_{name}.u32", f32bits(patterns(t).astype(np.float32)), np.uint32)

    # FP8 encoders share one probe set (the union of every format's probes).
    fp8_in = np.unique(np.concatenate([float_probes(t) for t in FP8.values()]))
    write("encode_fp8_in.u32", fp8_in, np.uint32)
    for name, t in FP8.items():
        write(f"encode_{name}.u8", encode_bits(fp8_in, t), np.uint8)

    for name, t in F16.items():
        probes = np.unique(float_probes(t, stride=8, n_rand=12000))
        write(f"encode_{name}_in.u32", probes, np.uint32)
        write(f"encode_{name}.u16", encode_bits(probes, t), np.uint16)

    # float -> int: RNE, saturate, NaN -> 0 (decisions 4.6), computed in float64.
    ints = np.unique(int_probes())
    write("int_in.u32", ints, np.uint32)
    for name, lo, hi, st in [("int8", -2**7, 2**7 - 1, np.uint8), ("uint8", 0, 2**8 - 1, np.uint8),
                             ("int16", -2**15, 2**15 - 1, np.uint16),
                             ("uint16", 0, 2**16 - 1, np.uint16),
                             ("int32", -2**31, 2**31 - 1, np.uint32),
                             ("uint32", 0, 2**32 - 1, np.uint32)]:
        ext = {np.uint8: "u8", np.uint16: "u16", np.uint32: "u32"}[st]
        bits = int_expect(ints, lo, hi) & ((1 << (8 * np.dtype(st).itemsize)) - 1)
        write(f"encode_{name}.{ext}", bits.astype(np.uint64).astype(st), st)

    # 32-bit int -> f32 (exact to 2^24, RNE beyond).
    d = [np.arange(-70000, 70000, 29, dtype=np.int64)]
    for e in range(23, 32):
        for s in (1, -1):
            c = s * 2**e
            d.append(np.arange(c - 300, c + 300, dtype=np.int64))
    d.append(np.array([2**31 - 1, -2**31, 2**32 - 1, 2**32 - 128, 2**32 - 129], dtype=np.int64))
    d.append(RNG.integers(0, 1 << 32, 5000, dtype=np.uint64).astype(np.int64))
    dec_in = np.unique((np.concatenate(d) & 0xFFFFFFFF).astype(np.uint32))
    write("decode_int_in.u32", dec_in, np.uint32)
    write("decode_int32.u32", f32bits(dec_in.view(np.int32).astype(np.float32)), np.uint32)
    write("decode_uint32.u32", f32bits(dec_in.astype(np.float32)), np.uint32)

    with open(os.path.join(OUT, "MANIFEST.txt"), "w") as fh:
        fh.write("# Generated by tools/gen_numerics_fixtures.py; do not edit.\n")
        fh.write(f"# python {sys.version.split()[0]}, numpy {np.__version__}, "
                 f"ml_dtypes {ml_dtypes.__version__}\n")
        fh.write("# file\telements\n")
        fh.write("\n".join(manifest) + "\n")
    total = sum(os.path.getsize(os.path.join(OUT, f)) for f in os.listdir(OUT))
    print(f"wrote {len(manifest)} files, {total} bytes, to {os.path.normpath(OUT)}")


if __name__ == "__main__":
    # NaN/inf probes make numpy warn on casts by design.
    with np.errstate(all="ignore"):
        main()
