"""tpb.nki: Core, Tile and the NKI-shaped calls, each checked bit for bit against an
independent NumPy / ml_dtypes computation of the documented semantics.

Semantics: nki-semantics §1.1 (affine_select and the nki-library parameterisations), §1.2
(iota), the numerics assumptions (docs/reference/assumptions.md) (§14 compares give 1.0/0.0, §15-§16 conversions:
FP32 -> float dtypes round to nearest even without saturation, FP32 -> integers round to
nearest even and saturate, §19 bitvec), §24 (bypass passes data; reversed operands), §26-§27
(ramp wraps; iota into integers keeps the low bits), §30 (select operands), §31
(range_select's index). Seed 002 is AffineSelect's reference page.
"""

from __future__ import annotations

import operator

import ml_dtypes
import numpy as np
import pytest

import tpb
import tpb.nki as nki
from conftest import FLT_MAX, assert_bits_equal, random_bits, random_values

BF16 = ml_dtypes.bfloat16
F32 = np.float32


# ---- independent reference computations ---------------------------------------------


def ramp(partitions: int, pattern, offset: int = 0, channel_multiplier: int = 0) -> np.ndarray:
    """nki-semantics §1.2: offset + c*cm + sum(index*step), pattern outermost first, as int32
    with 32-bit wrap-around (assumptions.md item 26). Shape (P, num_0, num_1, ...)."""
    shape = [partitions] + [num for _, num in pattern]
    v = np.full(shape, offset, dtype=np.int64)
    c = np.arange(partitions, dtype=np.int64).reshape([partitions] + [1] * len(pattern))
    v = v + c * channel_multiplier
    for axis, (step, num) in enumerate(pattern, start=1):
        idx_shape = [1] * (len(pattern) + 1)
        idx_shape[axis] = num
        v = v + np.arange(num, dtype=np.int64).reshape(idx_shape) * step
    return (v & 0xFFFFFFFF).astype(np.uint32).view(np.int32)


def from_fp32(x: np.ndarray, dtype) -> np.ndarray:
    """FP32 -> dtype as the datapath converts (assumptions.md items 15, 16)."""
    dt = np.dtype(dtype)
    x = np.asarray(x, dtype=F32)
    if dt.kind in "iu":
        info = np.iinfo(dt)
        r = np.rint(np.nan_to_num(x, nan=0.0, posinf=np.inf, neginf=-np.inf).astype(np.float64))
        return np.clip(r, info.min, info.max).astype(dt)
    with np.errstate(over="ignore"):  # overflow to inf is the documented result
        return x.astype(dt)  # numpy / ml_dtypes: round to nearest even


def to_fp32(x: np.ndarray) -> np.ndarray:
    return np.asarray(x).astype(F32)


def select_copy(keep: np.ndarray, src: np.ndarray, fill: float, out_dtype) -> np.ndarray:
    """Kept elements: bits copied when the dtypes agree, else through FP32; fill through FP32."""
    fill_out = from_fp32(np.full(src.shape, fill, F32), out_dtype)
    kept = src if src.dtype == np.dtype(out_dtype) else from_fp32(to_fp32(src), out_dtype)
    return np.where(keep, kept, fill_out)


def max_num(a, b):
    """IEEE maxNum with -0 < +0 (assumptions.md item 14): a NaN loses to a number."""
    a, b = np.broadcast_arrays(np.asarray(a, F32), np.asarray(b, F32))
    zeros = (a == 0) & (b == 0)
    return np.where(zeros, np.where(np.signbit(a) & np.signbit(b), F32(-0.0), F32(0.0)), np.fmax(a, b))


def min_num(a, b):
    """IEEE minNum with -0 < +0: a NaN loses to a number."""
    a, b = np.broadcast_arrays(np.asarray(a, F32), np.asarray(b, F32))
    zeros = (a == 0) & (b == 0)
    return np.where(zeros, np.where(np.signbit(a) | np.signbit(b), F32(-0.0), F32(0.0)), np.fmin(a, b))


ARITH = {
    "add": np.add,
    "subtract": np.subtract,
    "multiply": np.multiply,
    "maximum": max_num,
    "minimum": min_num,
    "greater": lambda a, b: (a > b).astype(F32),
    "greater_equal": lambda a, b: (a >= b).astype(F32),
    "less": lambda a, b: (a < b).astype(F32),
    "less_equal": lambda a, b: (a <= b).astype(F32),
    "equal": lambda a, b: (a == b).astype(F32),
    "not_equal": lambda a, b: (a != b).astype(F32),
}


def tensor_scalar_ref(data, out_dtype, op0, s0, reverse0=False, op1=None, s1=None, reverse1=False):
    """(data op0 s0) op1 s1 in FP32, then converted to out_dtype (nki tensor_scalar)."""
    x = to_fp32(data)

    def stage(op, a, s, rev):
        s = np.asarray(s, F32)
        with np.errstate(all="ignore"):
            r = np.asarray(ARITH[op](s, a) if rev else ARITH[op](a, s), F32)
        # assumptions.md item 17: every NaN an ALU op produces is 0x7FC00000.
        return np.where(np.isnan(r), np.uint32(0x7FC00000).view(F32), r)

    x = stage(op0, x, s0, reverse0).astype(F32)
    if op1 is not None:
        x = stage(op1, x, s1, reverse1).astype(F32)
    return from_fp32(x, out_dtype)


# ---- Core and Tile --------------------------------------------------------------------


def test_core_ndarray_and_tile_properties():
    core = nki.Core(gen="cayman")
    assert core.gen == "cayman"
    t = core.ndarray((4, 3, 5), BF16)
    assert t.shape == (4, 3, 5)
    assert t.dtype == np.dtype(BF16)
    assert t.buffer == "sbuf"
    assert t.region == f"sbuf[p0..4]+{t.offset:#x}:bfloat16:4x3x5"
    u = core.ndarray((4, 2), np.float32, buffer="psum")
    assert u.buffer == "psum" and u.region.startswith("psum[p0..4]")
    assert "sbuf[p0..4]" in repr(t)
    assert "cayman" in repr(core)


def test_tiles_do_not_overlap():
    core = nki.Core()
    tiles = [core.ndarray((8, n), np.float32) for n in (1, 7, 16, 3, 100)]
    spans = sorted((t.offset, t.offset + 4 * t.shape[1]) for t in tiles)
    for (_, end), (start, _) in zip(spans, spans[1:]):
        assert end <= start


@pytest.mark.parametrize(
    "dtype",
    [np.float32, np.float16, np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32,
     BF16, ml_dtypes.float8_e3m4, ml_dtypes.float8_e4m3, ml_dtypes.float8_e5m2],
    ids=lambda d: np.dtype(d).name,
)
def test_from_numpy_round_trips_every_dtype(dtype, rng):
    core = nki.Core()
    a = random_values(rng, (16, 2, 9), dtype)
    t = core.from_numpy(a)
    assert t.shape == (16, 2, 9) and t.dtype == np.dtype(dtype)
    assert_bits_equal(t.numpy(), a)
    # The tile's region reads the same bytes through a Machine-style read.
    assert core.bundles() == b""  # writes emit no instruction


@pytest.mark.parametrize("dtype", [np.float32, "float32", "fp32", "bf16", BF16, "bfloat16"])
def test_dtype_arguments(dtype):
    t = nki.Core().ndarray((2, 2), dtype)
    assert t.dtype in (np.dtype(np.float32), np.dtype(BF16))


def test_core_dtype_and_buffer_errors():
    core = nki.Core()
    for bad in [np.float64, "float64", np.int64, "nope", "fp64", object]:
        with pytest.raises(tpb.DtypeError):
            core.ndarray((4, 4), bad)
    with pytest.raises(tpb.DtypeError):
        core.from_numpy(np.zeros((4, 4)))
    with pytest.raises(tpb.UsageError, match="unknown buffer"):
        core.ndarray((4, 4), np.float32, buffer="dram")


@pytest.mark.parametrize(
    "shape,message",
    [
        ((129, 4), "129 is not in 1..=128"),
        ((0, 4), "0 is not in 1..=128"),
        ((), "at least the partition dimension"),
        ((4, 0), "no elements"),
        ((128, 2**40, 2**40), "overflows"),
        ((128, 10**12), "cannot allocate"),
    ],
)
def test_bad_and_huge_shapes(shape, message):
    core = nki.Core()
    with pytest.raises(tpb.Error, match=message):
        core.ndarray(shape, np.float32)


def test_negative_shape_is_a_python_error():
    with pytest.raises((OverflowError, ValueError)):
        nki.Core().ndarray((4, -1), np.float32)


def test_out_of_memory_is_a_tpb_error_and_leaves_the_allocator_usable():
    core = nki.Core()
    with pytest.raises(tpb.Error, match="cannot allocate 240000 bytes per partition in sbuf"):
        core.ndarray((128, 60000), np.float32)
    with pytest.raises(tpb.Error, match="in psum"):
        core.ndarray((128, 5000), np.float32, buffer="psum")
    big = core.ndarray((128, 50000), np.float32)  # 200000 of 229376 bytes: fits
    assert big.offset == 0
    with pytest.raises(tpb.Error, match="cannot allocate"):
        core.ndarray((1, 10000), np.float32)
    with pytest.raises(tpb.Error):
        core.from_numpy(np.zeros((1, 10000), np.float32))


def test_psum_sizes_per_generation():
    """16 KiB of PSUM per partition on sunda..mariana (assumptions.md item 1)."""
    for gen in ["sunda", "cayman", "mariana"]:
        core = nki.Core(gen=gen)
        full = core.ndarray((128, 4096), np.float32, buffer="psum")  # kept: a dropped tile is freed
        with pytest.raises(tpb.Error):
            core.ndarray((128, 1), np.float32, buffer="psum")
        del full
        core.ndarray((128, 1), np.float32, buffer="psum")  # freed with its last reference


def test_maverick_psum_allocation_is_refused():
    core = nki.Core(gen="maverick")
    with pytest.raises(tpb.Error, match="psum"):
        core.ndarray((4, 4), np.float32, buffer="psum")


def test_maverick_psum_tile_cannot_be_used():
    core = nki.Core(gen="maverick")
    src = core.from_numpy(np.ones((4, 4), np.float32))
    try:
        t = core.ndarray((4, 4), np.float32, buffer="psum")
    except tpb.Error:
        return  # refused at allocation (the fixed behaviour)
    with pytest.raises(tpb.Error, match="psum"):
        t.numpy()
    with pytest.raises(tpb.Error, match="psum"):
        nki.isa.tensor_scalar(t, src, np.add, 1.0)
    assert core.bundles() == b""


def test_tiles_beyond_one_count_word_are_usable():
    core = nki.Core()
    data = (np.arange(2 * 70000) % 251).astype(np.uint8).reshape(2, 70000)
    src = core.from_numpy(data)
    dst = core.ndarray((2, 70000), np.uint8)
    nki.isa.tensor_scalar(dst, src, np.add, 1.0)
    assert_bits_equal(dst.numpy(), (data.astype(F32) + 1).astype(np.uint8))


def test_the_largest_single_word_count_runs():
    """The largest count one descriptor word holds, 65535, needs no split and runs."""
    core = nki.Core()
    data = (np.arange(2 * 65535) % 251).astype(np.uint8).reshape(2, 65535)
    src = core.from_numpy(data)
    dst = core.ndarray((2, 65535), np.uint8)
    nki.isa.tensor_scalar(dst, src, np.add, 1.0)
    assert_bits_equal(dst.numpy(), (data.astype(F32) + 1).astype(np.uint8))


# ---- iota (nki-semantics §1.2) --------------------------------------------------------


@pytest.mark.parametrize(
    "pattern,offset,cm",
    [
        ([[1, 8]], 0, 0),
        ([[1, 8]], 3, 10),
        ([[-1, 512]], 0, 1),
        ([[8, 4], [1, 8]], -5, -32),
        ([[100, 2], [10, 3], [1, 4], [1000, 2]], 7, 3),
        ([[1, 16]], 2**31 - 4, 1),  # wraps past INT32_MAX
    ],
)
def test_iota_int32(pattern, offset, cm):
    core = nki.Core()
    p = 16
    free = [num for _, num in pattern]
    dst = core.ndarray([p] + free, np.int32)
    report = nki.isa.iota(dst, pattern, offset=offset, channel_multiplier=cm)
    assert report.instructions == 1 and report.warnings == []
    assert_bits_equal(dst.numpy(), ramp(p, pattern, offset, cm))
    assert core.instructions()[0].mnemonic == "iota"


@pytest.mark.parametrize(
    "dtype",
    [np.float32, BF16, np.float16, ml_dtypes.float8_e4m3, np.int8, np.uint8, np.int16, np.uint32],
    ids=lambda d: np.dtype(d).name,
)
def test_iota_casts_to_dst_dtype(dtype):
    """assumptions.md item 27: integers keep the low bits; floats go int32 -> FP32 -> dtype (RNE)."""
    core = nki.Core()
    pattern = [[37, 64]]
    dst = core.ndarray((8, 64), dtype)
    nki.isa.iota(dst, pattern, offset=-1000, channel_multiplier=1001)
    r = ramp(8, pattern, -1000, 1001)
    dt = np.dtype(dtype)
    if dt.kind in "iu":
        want = r.view(np.uint32).astype(np.uint64).astype({1: np.uint8, 2: np.uint16, 4: np.uint32}[dt.itemsize]).view(dt)
    else:
        want = r.astype(F32).astype(dt)
    assert_bits_equal(dst.numpy(), want)


def test_iota_large_values_round_to_nearest_even_in_fp32():
    core = nki.Core()
    dst = core.ndarray((2, 4), np.float32)
    nki.isa.iota(dst, [[1, 4]], offset=2**24, channel_multiplier=2**30)
    assert_bits_equal(dst.numpy(), ramp(2, [[1, 4]], 2**24, 2**30).astype(F32))


# ---- affine_select (seed 002, nki-semantics §1.1) ------------------------------------


def test_causal_mask_nki_library_parameterisation(rng):
    """nki-semantics §1.1 table row 1 (attention_cte.py): pattern [[-1, F]], cm 1,
    greater_equal, fill -3.4028235e38, fp32 -> bf16; the fill rounds to -inf in bf16."""
    core = nki.Core()
    scores = (rng.standard_normal((128, 512)) * 4).astype(F32)
    src = core.from_numpy(scores)
    dst = core.ndarray((128, 512), BF16)
    report = nki.isa.affine_select(dst, [[-1, 512]], 1, src, -3.4028235e38,
                                   cmp_op=np.greater_equal)
    assert report.instructions == 1 and report.elements == 128 * 512
    q = np.arange(128)[:, None]
    k = np.arange(512)[None, :]
    want = np.where(q - k >= 0, scores, F32(-FLT_MAX)).astype(BF16)
    got = dst.numpy()
    assert_bits_equal(got, want)
    assert got.view(np.uint16)[0, 1] == 0xFF80  # -inf
    assert np.isneginf(got.astype(F32)).sum() == 128 * 512 - (128 * 129) // 2
    assert [i.mnemonic for i in core.instructions()] == ["affine_select"]


def test_causal_mask_with_query_offset(rng):
    """attention_cte: offset = q0 - k0 for a later query tile."""
    core = nki.Core()
    scores = random_values(rng, (128, 256), F32)
    src = core.from_numpy(scores)
    dst = core.ndarray((128, 256), F32)
    nki.isa.affine_select(dst, [[-1, 256]], 1, src, -FLT_MAX, cmp_op=np.greater_equal,
                          offset=128)
    keep = ramp(128, [[-1, 256]], 128, 1) >= 0
    assert_bits_equal(dst.numpy(), select_copy(keep, scores, -FLT_MAX, F32))


def test_sliding_window_lower_band(rng):
    """nki-semantics §1.1 row 2: pattern [[1, F]], offset k0+W-1-q0, cm -1, greater_equal."""
    core = nki.Core()
    window, q0, k0 = 32, 64, 0
    scores = random_values(rng, (128, 128), F32)
    src = core.from_numpy(scores)
    dst = core.ndarray((128, 128), BF16)
    nki.isa.affine_select(dst, [[1, 128]], -1, src, -FLT_MAX, cmp_op=np.greater_equal,
                          offset=k0 + window - 1 - q0)
    q = q0 + np.arange(128)[:, None]
    k = k0 + np.arange(128)[None, :]
    want = np.where(k > q - window, scores, F32(-FLT_MAX)).astype(BF16)
    assert_bits_equal(dst.numpy(), want)


def test_identity_matrix():
    """nki-semantics §1.1 row 3 (cascaded_max.py): memset 1.0, then pattern [[1, N]],
    cm -1, equal, fill 0.0 gives the identity."""
    core = nki.Core()
    ones = core.from_numpy(np.ones((128, 128), F32))
    eye = core.ndarray((128, 128), F32)
    nki.isa.affine_select(eye, [[1, 128]], -1, ones, 0.0, cmp_op=np.equal)
    assert_bits_equal(eye.numpy(), np.eye(128, dtype=F32))
    # cmp_op defaults to equal (NKI's default).
    eye2 = core.ndarray((128, 128), BF16)
    nki.isa.affine_select(eye2, [[1, 128]], -1, ones, 0.0)
    assert_bits_equal(eye2.numpy(), np.eye(128, dtype=BF16))


@pytest.mark.parametrize("cmp_op", [np.greater, "greater", np.not_equal, "not_equal", "ge", np.equal])
def test_affine_select_compares_and_names(cmp_op, rng):
    name = cmp_op if isinstance(cmp_op, str) else cmp_op.__name__
    fn = {"greater": operator.gt, "not_equal": operator.ne, "ge": operator.ge,
          "equal": operator.eq}[name]
    core = nki.Core()
    data = random_values(rng, (16, 2, 8), F32)
    src = core.from_numpy(data)
    dst = core.ndarray((16, 2, 8), F32)
    pattern = [[-3, 2], [1, 8]]
    nki.isa.affine_select(dst, pattern, 2, src, 7.5, cmp_op=cmp_op, offset=-4)
    keep = fn(ramp(16, pattern, -4, 2), 0)
    assert_bits_equal(dst.numpy(), select_copy(keep, data, 7.5, F32))


@pytest.mark.parametrize(
    "in_dtype,out_dtype",
    [(np.int32, np.int32), (BF16, np.float32), (np.float32, np.int16), (np.int8, BF16),
     (np.float32, ml_dtypes.float8_e5m2), (np.float16, np.float16)],
    ids=lambda d: np.dtype(d).name,
)
def test_affine_select_dtype_pairs(in_dtype, out_dtype, rng):
    """A kept element is copied when in == out, else converted through FP32; the fill goes
    through FP32 (seed 002 §5.5, decisions §4.10)."""
    core = nki.Core()
    data = random_values(rng, (8, 32), in_dtype, limit=50000)
    if np.dtype(in_dtype) == np.int32:
        data = rng.integers(-(2**31), 2**31 - 1, (8, 32)).astype(np.int32)  # beyond 2**24
    src = core.from_numpy(data)
    dst = core.ndarray((8, 32), out_dtype)
    nki.isa.affine_select(dst, [[-1, 32]], 4, src, -3.0, cmp_op=np.greater)
    keep = ramp(8, [[-1, 32]], 0, 4) > 0
    assert_bits_equal(dst.numpy(), select_copy(keep, data, -3.0, out_dtype))


@pytest.mark.parametrize("out_dtype", [np.int8, np.uint16, np.int32, np.float16],
                         ids=lambda d: np.dtype(d).name)
def test_affine_select_fill_minus_flt_max_saturates_or_overflows(out_dtype, rng):
    """The FP32 fill converts like any FP32 value: integers saturate, fp16 overflows to -inf."""
    core = nki.Core()
    data = random_values(rng, (4, 16), F32)
    src = core.from_numpy(data)
    dst = core.ndarray((4, 16), out_dtype)
    nki.isa.affine_select(dst, [[-1, 16]], 1, src, -3.4028235e38, cmp_op=np.greater_equal)
    keep = ramp(4, [[-1, 16]], 0, 1) >= 0
    assert_bits_equal(dst.numpy(), select_copy(keep, data, -FLT_MAX, out_dtype))


def test_affine_select_in_place(rng):
    """nki-semantics §1.1: in-place use (dst is on_true_tile) is used in production."""
    core = nki.Core()
    data = random_values(rng, (32, 64), F32)
    t = core.from_numpy(data)
    nki.isa.affine_select(t, [[-1, 64]], 1, t, -FLT_MAX, cmp_op=np.greater_equal)
    keep = ramp(32, [[-1, 64]], 0, 1) >= 0
    assert_bits_equal(t.numpy(), select_copy(keep, data, -FLT_MAX, F32))


def test_affine_select_fill_register_is_listed_in_disasm():
    core = nki.Core()
    src = core.from_numpy(np.ones((4, 4), F32))
    dst = core.ndarray((4, 4), F32)
    nki.isa.affine_select(dst, [[-1, 4]], 1, src, -3.4028235e38, cmp_op=np.greater_equal)
    nki.isa.affine_select(dst, [[-1, 4]], 1, src, -3.4028235e38, cmp_op=np.greater)
    nki.isa.affine_select(dst, [[-1, 4]], 1, src, 0.0, cmp_op=np.greater)
    lines = core.disasm().splitlines()
    regs = [line for line in lines if line.startswith(".reg")]
    # One register per distinct fill value.
    assert regs == [".reg 63 = 0xff7fffff", ".reg 62 = 0x00000000"]
    fill_regs = [f[2] for i in core.instructions() for f in i.fields() if f[0] == "fill_reg"]
    assert fill_regs == ["63", "63", "62"]


def test_affine_select_on_psum_source_sunda_only():
    """seed 002 §7: PSUM operands only on sunda."""
    sunda = nki.Core(gen="sunda")
    src = sunda.from_numpy(np.arange(16, dtype=F32).reshape(4, 4), buffer="psum")
    dst = sunda.ndarray((4, 4), F32)
    nki.isa.affine_select(dst, [[-1, 4]], 1, src, 0.0, cmp_op=np.greater_equal)
    want = np.where(ramp(4, [[-1, 4]], 0, 1) >= 0, np.arange(16, dtype=F32).reshape(4, 4), F32(0))
    assert_bits_equal(dst.numpy(), want)
    cayman = nki.Core(gen="cayman")
    src = cayman.from_numpy(np.arange(16, dtype=F32).reshape(4, 4), buffer="psum")
    dst = cayman.ndarray((4, 4), F32)
    with pytest.raises(tpb.InvalidInstruction) as info:
        nki.isa.affine_select(dst, [[-1, 4]], 1, src, 0.0, cmp_op=np.greater_equal)
    assert [(f.rule, f.field) for f in info.value.findings] == [
        ("tensor_start_addr_valid", "src_mem_pattern.start_addr")
    ]


def test_invalid_affine_select_raises_before_anything_runs():
    """dst in PSUM on cayman: tpb.InvalidInstruction with the findings; nothing appended,
    no state changed, the fill register released."""
    core = nki.Core()
    src = core.from_numpy(np.arange(16, dtype=F32).reshape(4, 4))
    ok = core.ndarray((4, 4), BF16)
    nki.isa.affine_select(ok, [[-1, 4]], 1, src, -FLT_MAX, cmp_op=np.greater_equal)
    dst = core.from_numpy(np.full((4, 4), 9.0, F32), buffer="psum")
    bundles, text = core.bundles(), core.disasm()
    with pytest.raises(tpb.InvalidInstruction) as info:
        nki.isa.affine_select(dst, [[-1, 4]], 1, src, 1.5, cmp_op=np.greater_equal)
    e = info.value
    assert isinstance(e, tpb.Error) and isinstance(e, ValueError)
    (f,) = e.findings
    assert (f.rule, f.field, f.byte_range) == ("tensor_start_addr_valid", "dst_mem_pattern.start_addr", (48, 52))
    assert "cayman" in f.allowed
    assert "affine_select is invalid on cayman" in str(e)
    assert len(e.bundle) == 64
    assert tpb.Instruction.decode(e.bundle).mnemonic == "affine_select"
    assert tpb.validate(e.bundle)[0].rule == "tensor_start_addr_valid"
    assert core.bundles() == bundles and core.disasm() == text
    assert_bits_equal(dst.numpy(), np.full((4, 4), 9.0, F32))


@pytest.mark.parametrize("cmp_op", [np.less, np.less_equal, "less", "le"])
def test_affine_select_less_is_not_supported(cmp_op):
    """AFFINE_SELECT_CMP encodes only GT, GE, EQ, NE (seed 002)."""
    core = nki.Core()
    src = core.from_numpy(np.ones((4, 4), F32))
    dst = core.ndarray((4, 4), F32)
    with pytest.raises(tpb.NotSupported, match="greater") as info:
        nki.isa.affine_select(dst, [[-1, 4]], 1, src, 0.0, cmp_op=cmp_op)
    assert isinstance(info.value, NotImplementedError)
    assert core.bundles() == b"" and ".reg" not in core.disasm()


@pytest.mark.parametrize("cmp_op", [np.add, "frobnicate", 3])
def test_affine_select_non_comparisons(cmp_op):
    core = nki.Core()
    src = core.from_numpy(np.ones((4, 4), F32))
    dst = core.ndarray((4, 4), F32)
    with pytest.raises(tpb.UsageError):
        nki.isa.affine_select(dst, [[-1, 4]], 1, src, 0.0, cmp_op=cmp_op)


@pytest.mark.parametrize(
    "pattern,message",
    [
        ([[1, 1], [1, 1], [1, 1], [1, 1], [1, 4]], "at most 4"),
        ([[1, 0]], "num 0"),
        ([[40000, 4]], "step 40000"),
        ([[1, 70000]], "num 70000"),
    ],
)
def test_bad_patterns(pattern, message):
    core = nki.Core()
    src = core.from_numpy(np.ones((4, 4), F32))
    dst = core.ndarray((4, 4), F32)
    with pytest.raises(tpb.UsageError, match=message):
        nki.isa.affine_select(dst, pattern, 1, src, 0.0)
    with pytest.raises(tpb.UsageError, match=message):
        nki.isa.iota(dst, pattern)
    assert core.bundles() == b""


def test_pattern_that_does_not_cover_the_tile_is_invalid():
    core = nki.Core()
    dst = core.ndarray((4, 8), np.int32)
    with pytest.raises(tpb.InvalidInstruction) as info:
        nki.isa.iota(dst, [[1, 9]])
    assert info.value.findings[0].rule == "d4_iota_same_src_dst_count"
    assert core.bundles() == b""


@pytest.mark.parametrize("pattern", [[[1, 2, 3]], [[1]], "abc", [[2**70, 1]]])
def test_malformed_patterns_are_python_errors(pattern):
    core = nki.Core()
    dst = core.ndarray((4, 8), np.int32)
    with pytest.raises((ValueError, TypeError, OverflowError)):
        nki.isa.iota(dst, pattern)


def test_out_of_range_integers():
    core = nki.Core()
    dst = core.ndarray((4, 8), np.int32)
    src = core.from_numpy(np.ones((4, 8), F32))
    with pytest.raises(tpb.UsageError, match="int32"):
        nki.isa.iota(dst, [[1, 8]], offset=2**40)
    with pytest.raises(tpb.UsageError, match="32-bit"):
        nki.isa.iota(dst, [[1, 8]], channel_multiplier=2**40)
    with pytest.raises(tpb.UsageError, match="float32 range"):
        nki.isa.affine_select(dst, [[1, 8]], 1, src, 1e39)
    assert core.bundles() == b""


def test_mismatched_partitions():
    core = nki.Core()
    src = core.from_numpy(np.ones((8, 4), F32))
    dst = core.ndarray((4, 4), F32)
    with pytest.raises(tpb.UsageError, match="partition"):
        nki.isa.affine_select(dst, [[1, 4]], 1, src, 0.0)
    with pytest.raises(tpb.UsageError, match="partition"):
        nki.isa.tensor_scalar(dst, src, np.add, 1.0)


def test_tiles_of_another_core_are_refused():
    a, b = nki.Core(), nki.Core()
    src = a.from_numpy(np.ones((4, 4), F32))
    dst = b.ndarray((4, 4), F32)
    scalar = a.from_numpy(np.ones((4, 1), F32))
    own = b.from_numpy(np.ones((4, 4), F32))
    with pytest.raises(tpb.UsageError, match="another Core"):
        nki.isa.affine_select(dst, [[1, 4]], 1, src, 0.0)
    with pytest.raises(tpb.UsageError, match="another Core"):
        nki.isa.tensor_scalar(dst, src, np.add, 1.0)
    with pytest.raises(tpb.UsageError, match="another Core"):
        nki.isa.tensor_scalar(dst, own, np.add, scalar)
    with pytest.raises(tpb.UsageError, match="another Core"):
        nki.isa.range_select(dst, own, np.greater, np.less, scalar, scalar)
    with pytest.raises(tpb.UsageError, match="another Core"):
        nki.isa.select(dst, scalar, own, 0.0)
    assert a.bundles() == b"" and b.bundles() == b""


# ---- tensor_scalar -------------------------------------------------------------------


@pytest.mark.parametrize(
    "op0,s0,rev0,op1,s1,rev1",
    [
        ("multiply", 2.0, False, "add", 1.0, False),
        ("subtract", 1.0, True, None, None, False),
        ("subtract", 0.25, False, "subtract", 3.0, True),
        ("maximum", 0.0, False, "minimum", 6.0, False),
        ("multiply", 0.1, False, "add", -1e-3, False),
        ("greater_equal", 0.5, False, None, None, False),
        ("less", 0.5, False, "multiply", -2.0, False),
        ("not_equal", 0.0, False, None, None, False),
    ],
)
@pytest.mark.parametrize(
    "in_dtype,out_dtype",
    [(np.float32, np.float32), (BF16, BF16), (np.float32, BF16), (np.float16, np.float32)],
    ids=lambda d: np.dtype(d).name,
)
def test_tensor_scalar_immediates(op0, s0, rev0, op1, s1, rev1, in_dtype, out_dtype, rng):
    core = nki.Core()
    data = random_values(rng, (16, 40), in_dtype, limit=8)
    src = core.from_numpy(data)
    dst = core.ndarray((16, 40), out_dtype)
    ops = dict(np=dict(add=np.add, subtract=np.subtract, multiply=np.multiply,
                       maximum=np.maximum, minimum=np.minimum, greater_equal=np.greater_equal,
                       less=np.less, not_equal=np.not_equal))
    nki.isa.tensor_scalar(dst, src, ops["np"][op0], s0, reverse0=rev0,
                          op1=ops["np"][op1] if op1 else None, operand1=s1, reverse1=rev1)
    want = tensor_scalar_ref(data, out_dtype, op0, s0, rev0, op1, s1, rev1)
    assert_bits_equal(dst.numpy(), want)
    mnemonics = [i.mnemonic for i in core.instructions()]
    assert mnemonics == ["ts_arith"]


def test_tensor_scalar_bypass_is_a_cast_and_ignores_reversal(rng):
    """assumptions.md item 24: a BYPASS stage passes its data input whatever reverse says."""
    core = nki.Core()
    data = random_values(rng, (8, 16), F32)
    src = core.from_numpy(data)
    dst = core.ndarray((8, 16), BF16)
    nki.isa.tensor_scalar(dst, src, "bypass")
    assert_bits_equal(dst.numpy(), data.astype(BF16))
    nki.isa.tensor_scalar(dst, src, "bypass", 5.0, reverse0=True)
    assert_bits_equal(dst.numpy(), data.astype(BF16))
    nki.isa.tensor_scalar(dst, src, np.add, 1.0, op1="bypass", operand1=9.0, reverse1=True)
    assert_bits_equal(dst.numpy(), (data + F32(1)).astype(BF16))


def test_tensor_scalar_operator_names_as_strings(rng):
    core = nki.Core()
    data = random_values(rng, (4, 8), F32)
    src = core.from_numpy(data)
    a, b = core.ndarray((4, 8), F32), core.ndarray((4, 8), F32)
    nki.isa.tensor_scalar(a, src, np.multiply, 3.0, op1=np.add, operand1=0.5)
    nki.isa.tensor_scalar(b, src, "multiply", 3.0, op1="add", operand1=0.5)
    assert_bits_equal(a.numpy(), b.numpy())
    nki.isa.tensor_scalar(b, src, "mult", 3.0, op1="add", operand1=0.5)  # ISA ALU_OP name
    assert_bits_equal(a.numpy(), b.numpy())


def test_tensor_scalar_per_partition_tile_operands(rng):
    """(P, 1) tiles are read through pointers, one FP32 scalar per partition (assumptions.md item 28)."""
    core = nki.Core()
    data = random_values(rng, (32, 24), BF16)
    scale = random_values(rng, (32, 1), F32, limit=4)
    bias = random_values(rng, (32, 1), F32, limit=4)
    src, s0, s1 = core.from_numpy(data), core.from_numpy(scale), core.from_numpy(bias)
    dst = core.ndarray((32, 24), F32)
    nki.isa.tensor_scalar(dst, src, np.multiply, s0, op1=np.subtract, operand1=s1, reverse1=True)
    want = tensor_scalar_ref(data, F32, "multiply", scale, False, "subtract", bias, True)
    assert_bits_equal(dst.numpy(), want)
    # The pointer form shows in the emitted text.
    assert "imm0_src=ptr" in core.disasm() and "imm1_src=ptr" in core.disasm()
    # A mix: tile operand0, immediate operand1.
    nki.isa.tensor_scalar(dst, src, np.maximum, s0, op1=np.multiply, operand1=0.5)
    assert_bits_equal(dst.numpy(), tensor_scalar_ref(data, F32, "maximum", scale, False, "multiply", 0.5))


def test_tensor_scalar_integer_input_goes_through_fp32():
    """The arithmetic path converts int32 to FP32 (RNE) and back (RNE, saturating)."""
    core = nki.Core()
    x = np.array([[2**24 + 1, -(2**31), 2**31 - 1, 7, -3, 123456789, -5, 2**30 + 65]], np.int32)
    src = core.from_numpy(x)
    dst = core.ndarray((1, 8), np.int32)
    nki.isa.tensor_scalar(dst, src, np.add, 0.0)
    assert_bits_equal(dst.numpy(), from_fp32(x.astype(F32), np.int32))


def test_psum_writes_need_a_four_byte_dtype():
    """isa-facts §2.2 tensor_start_addr_valid: a PSUM write requires a 4-byte dtype."""
    core = nki.Core()
    src = core.from_numpy(np.ones((4, 8), F32))
    ok = core.ndarray((4, 8), F32, buffer="psum")
    nki.isa.tensor_scalar(ok, src, np.add, 1.0)
    assert_bits_equal(ok.numpy(), np.full((4, 8), 2.0, F32))
    bad = core.ndarray((4, 8), BF16, buffer="psum")
    with pytest.raises(tpb.InvalidInstruction) as info:
        nki.isa.tensor_scalar(bad, src, np.add, 1.0)
    assert [f.rule for f in info.value.findings] == ["tensor_start_addr_valid"]
    assert len(core.bundles()) == 64


@pytest.mark.parametrize("out_dtype", [np.int32, np.int8, np.uint8, np.uint16],
                         ids=lambda d: np.dtype(d).name)
def test_tensor_scalar_to_integers_rounds_to_nearest_even_and_saturates(out_dtype):
    """assumptions.md item 16: FP32 -> integer outputs round to nearest even and saturate."""
    core = nki.Core()
    data = np.array([[0.5, 1.5, 2.5, -0.5, -1.5, 1e10, -1e10, 126.5, 255.5, -128.5, 3.49, 65535.5]], F32)
    src = core.from_numpy(data)
    dst = core.ndarray((1, 12), out_dtype)
    nki.isa.tensor_scalar(dst, src, np.multiply, 1.0)
    assert_bits_equal(dst.numpy(), from_fp32(data, out_dtype))


def test_tensor_scalar_to_fp8_overflows_without_saturation():
    """assumptions.md item 15: FP32 -> fp8 rounds to nearest even; overflow gives inf."""
    core = nki.Core()
    data = np.array([[0.3, 1.0625, 239.0, 250.0, 1e6, -1e6, 0.001, 17.0]], F32)
    src = core.from_numpy(data)
    for dt in [ml_dtypes.float8_e4m3, ml_dtypes.float8_e5m2, ml_dtypes.float8_e3m4]:
        dst = core.ndarray((1, 8), dt)
        nki.isa.tensor_scalar(dst, src, np.add, 0.0)
        assert_bits_equal(dst.numpy(), data.astype(dt))


@pytest.mark.parametrize(
    "dtype,op0,s0,op1,s1",
    [
        (np.int32, np.bitwise_and, 0xFF, np.left_shift, 4),
        (np.int32, np.bitwise_xor, -1, None, None),
        (np.uint32, np.bitwise_or, 0x80000001, np.right_shift, 3),
        (np.uint16, np.bitwise_and, 0x0FF0, np.bitwise_xor, 0xFFFF),
        (np.uint8, np.right_shift, 2, np.bitwise_or, 0x80),
        (np.int16, np.left_shift, 3, np.bitwise_and, 0x7FF8),
    ],
    ids=lambda x: getattr(x, "__name__", str(x)),
)
def test_tensor_scalar_bitvec(dtype, op0, s0, op1, s1, rng):
    """Bitvec ops work on the element's bits (assumptions.md item 19): logical shifts, masks."""
    core = nki.Core()
    data = random_values(rng, (8, 16), dtype, limit=2**31)
    src = core.from_numpy(data)
    dst = core.ndarray((8, 16), dtype)
    nki.isa.tensor_scalar(dst, src, op0, s0, op1=op1, operand1=s1)
    width = np.dtype(dtype).itemsize * 8
    mask = (1 << width) - 1
    u = data.view({8: np.uint8, 16: np.uint16, 32: np.uint32}[width]).astype(np.uint64)

    def apply(op, x, s):
        s = s & mask
        if op is np.left_shift:
            return (x << np.uint64(s)) & np.uint64(mask) if s < width else x * 0
        if op is np.right_shift:
            return x >> np.uint64(s) if s < width else x * 0
        return op(x, np.uint64(s)) & np.uint64(mask)

    r = apply(op0, u, s0)
    if op1 is not None:
        r = apply(op1, r, s1)
    want = r.astype(u.dtype).astype({8: np.uint8, 16: np.uint16, 32: np.uint32}[width]).view(dtype)
    assert_bits_equal(dst.numpy(), want)
    assert core.instructions()[0].mnemonic == "ts_bitvec"


def test_tensor_scalar_bitvec_per_partition_tile(rng):
    core = nki.Core()
    data = random_values(rng, (8, 16), np.uint16, limit=2**16)
    masks = random_values(rng, (8, 1), np.uint16, limit=2**16)
    src, m = core.from_numpy(data), core.from_numpy(masks)
    dst = core.ndarray((8, 16), np.uint16)
    nki.isa.tensor_scalar(dst, src, np.bitwise_and, m)
    assert_bits_equal(dst.numpy(), data & masks)


def test_tensor_scalar_errors():
    core = nki.Core()
    src = core.from_numpy(np.ones((4, 8), F32))
    ints = core.from_numpy(np.ones((4, 8), np.int32))
    dst = core.ndarray((4, 8), F32)
    idst = core.ndarray((4, 8), np.int32)
    with pytest.raises(tpb.UsageError, match="not a 32-bit integer"):
        nki.isa.tensor_scalar(idst, ints, np.bitwise_xor, 1.5)
    with pytest.raises(tpb.InvalidInstruction) as info:
        nki.isa.tensor_scalar(idst, ints, np.bitwise_xor, 1, op1=np.add, operand1=1.0)
    assert info.value.findings[0].rule == "tensor_scalar_valid_ops"
    with pytest.raises(tpb.UsageError, match="operand1: given without op1"):
        nki.isa.tensor_scalar(dst, src, np.add, 1.0, operand1=1.0)
    with pytest.raises(tpb.UsageError, match="unknown operator"):
        nki.isa.tensor_scalar(dst, src, "frob", 1.0)
    with pytest.raises(tpb.UsageError, match="not an operator"):
        nki.isa.tensor_scalar(dst, src, 3, 1.0)
    with pytest.raises(tpb.UsageError, match="expected a number or a"):
        nki.isa.tensor_scalar(dst, src, np.add, "a")
    with pytest.raises(tpb.UsageError, match="float32 range"):
        nki.isa.tensor_scalar(dst, src, np.add, 1e39)
    with pytest.raises(tpb.UsageError, match=r"shape \(P, 1\)"):
        nki.isa.tensor_scalar(dst, src, np.add, src)
    assert core.bundles() == b""


@pytest.mark.parametrize("op", [np.divide, "true_divide", np.power, "mod"])
def test_tensor_scalar_divide_is_invalid_before_running(op):
    """isa-facts §7 (validate.rs tensor_scalar_rules): Divide/Pow/Mod are not TensorScalar ops."""
    core = nki.Core()
    src = core.from_numpy(np.full((4, 8), 6.0, F32))
    dst = core.from_numpy(np.full((4, 8), -1.0, F32))
    with pytest.raises(tpb.InvalidInstruction) as info:
        nki.isa.tensor_scalar(dst, src, op, 2.0)
    rules = {f.rule for f in info.value.findings}
    assert rules == {"tensor_scalar_valid_ops"}
    assert all(f.field.startswith("op0") for f in info.value.findings)
    assert core.bundles() == b""
    assert_bits_equal(dst.numpy(), np.full((4, 8), -1.0, F32))


@pytest.mark.parametrize("op", [np.fmod, np.remainder])
def test_numpy_mod_ufuncs_resolve(op):
    core = nki.Core()
    src = core.from_numpy(np.full((4, 8), 6.0, F32))
    dst = core.ndarray((4, 8), F32)
    with pytest.raises(tpb.InvalidInstruction):  # MOD is not a TensorScalar op
        nki.isa.tensor_scalar(dst, src, op, 2.0)


# ---- range_select (isa-facts §10.2, assumptions.md item 31) ---------------------------


@pytest.mark.parametrize("gen", ["cayman", "mariana", "maverick"])
def test_range_select_with_tile_bounds(gen, rng):
    core = nki.Core(gen=gen)
    data = random_values(rng, (16, 64), F32)
    lo = rng.integers(-5, 40, (16, 1)).astype(F32)
    hi = lo + rng.integers(0, 30, (16, 1)).astype(F32)
    src, b0, b1 = core.from_numpy(data), core.from_numpy(lo), core.from_numpy(hi)
    dst = core.ndarray((16, 64), BF16)
    nki.isa.range_select(dst, src, np.greater_equal, np.less, b0, b1, range_start=3.0)
    x = F32(3.0) + np.arange(64, dtype=F32)[None, :]
    keep = (x >= lo) & (x < hi)
    assert_bits_equal(dst.numpy(), select_copy(keep, data, -FLT_MAX, BF16))
    assert core.instructions()[0].mnemonic == "range_select"


def test_range_select_immediate_bounds_and_compare_names(rng):
    core = nki.Core()
    data = random_values(rng, (8, 32), F32)
    src = core.from_numpy(data)
    dst = core.ndarray((8, 32), F32)
    nki.isa.range_select(dst, src, "greater", "less_equal", 4.5, 20.0, range_start=-2.0)
    x = F32(-2.0) + np.arange(32, dtype=F32)[None, :]
    keep = np.broadcast_to((x > 4.5) & (x <= 20.0), (8, 32))
    assert_bits_equal(dst.numpy(), select_copy(keep, data, -FLT_MAX, F32))
    nki.isa.range_select(dst, src, np.equal, np.less_equal, 7.0, 100.0)
    keep = np.broadcast_to(np.arange(32) == 7, (8, 32))
    assert_bits_equal(dst.numpy(), select_copy(keep, data, -FLT_MAX, F32))
    # not_equal is no RangeSelect compare (isa-facts §10.2, validate.rs).
    with pytest.raises(tpb.InvalidInstruction) as info:
        nki.isa.range_select(dst, src, np.equal, np.not_equal, 7.0, 100.0)
    assert [(f.rule, f.field) for f in info.value.findings] == [("range_select_valid", "comp_op1")]
    assert len(core.bundles()) == 2 * 64


def test_range_select_other_fill_is_invalid():
    """isa-facts §10.2: fill_val must be -FLT_MAX (range_select_valid)."""
    core = nki.Core()
    src = core.from_numpy(np.ones((4, 8), F32))
    dst = core.ndarray((4, 8), F32)
    with pytest.raises(tpb.InvalidInstruction) as info:
        nki.isa.range_select(dst, src, np.greater, np.less, 0.0, 4.0, on_false_value=0.0)
    assert [(f.rule, f.field) for f in info.value.findings] == [("range_select_valid", "fill_val")]
    assert core.bundles() == b""


@pytest.mark.parametrize("reduce_cmd", ["max", "accumulate", "reset", "bogus"])
def test_range_select_reduce_is_not_supported(reduce_cmd):
    """assumptions.md item 38: only reduce_cmd="idle" runs."""
    core = nki.Core()
    src = core.from_numpy(np.ones((4, 8), F32))
    dst = core.ndarray((4, 8), F32)
    with pytest.raises(tpb.NotSupported, match="reduce_cmd"):
        nki.isa.range_select(dst, src, np.greater, np.less, 0.0, 4.0, reduce_cmd=reduce_cmd)
    assert core.bundles() == b""


def test_range_select_is_refused_on_sunda():
    """RangeSelect 0xBC exists from cayman on (the opcode table in README.md)."""
    core = nki.Core(gen="sunda")
    src = core.from_numpy(np.ones((4, 8), F32))
    b = core.from_numpy(np.ones((4, 1), F32))
    dst = core.ndarray((4, 8), F32)
    with pytest.raises(tpb.NotSupported, match="sunda"):
        nki.isa.range_select(dst, src, np.greater, np.less, b, b)
    assert core.bundles() == b""


def test_range_select_bound_errors():
    core = nki.Core()
    src = core.from_numpy(np.ones((4, 8), F32))
    dst = core.ndarray((4, 8), F32)
    with pytest.raises(tpb.UsageError, match="bound0"):
        nki.isa.range_select(dst, src, np.greater, np.less, None, 1.0)
    with pytest.raises(tpb.UsageError, match="comp_op1"):
        nki.isa.range_select(dst, src, np.greater, np.add, 0.0, 1.0)
    with pytest.raises(tpb.UsageError, match=r"\(P, 1\)"):
        nki.isa.range_select(dst, src, np.greater, np.less, src, 1.0)


# ---- select (TensorScalarSelect, assumptions.md item 30) -------------------------------


def test_select_with_predicate_tile_and_immediate_fill(rng):
    core = nki.Core()
    data = random_values(rng, (16, 20), F32)
    pred = rng.integers(0, 2, (16, 1)).astype(np.uint32) * rng.integers(1, 9, (16, 1)).astype(np.uint32)
    src, p = core.from_numpy(data), core.from_numpy(pred)
    dst = core.ndarray((16, 20), F32)
    nki.isa.select(dst, p, src, -1.5)
    want = np.where(pred != 0, data, F32(-1.5))
    assert_bits_equal(dst.numpy(), want)
    nki.isa.select(dst, p, src, -1.5, reverse_pred=True)
    assert_bits_equal(dst.numpy(), np.where(pred == 0, data, F32(-1.5)))
    assert [i.mnemonic for i in core.instructions()] == ["ts_select", "ts_select"]


def test_select_bf16_fill_is_encoded_in_the_data_dtype(rng):
    core = nki.Core()
    data = random_values(rng, (8, 12), BF16)
    pred = np.array([[1], [0]] * 4, np.uint16)
    src, p = core.from_numpy(data), core.from_numpy(pred)
    dst = core.ndarray((8, 12), BF16)
    fill = 1.00390625  # rounds (RNE) to 1.0 in bf16
    nki.isa.select(dst, p, src, fill)
    want = np.where(pred != 0, data, np.array(fill, F32).astype(BF16))
    assert_bits_equal(dst.numpy(), want)


def test_select_constant_predicate_and_tile_fill(rng):
    core = nki.Core()
    data = random_values(rng, (4, 6), F32)
    fill = random_values(rng, (4, 1), F32)
    src, f = core.from_numpy(data), core.from_numpy(fill)
    dst = core.ndarray((4, 6), F32)
    nki.isa.select(dst, 1, src, f)
    assert_bits_equal(dst.numpy(), data)
    nki.isa.select(dst, 0, src, f)
    assert_bits_equal(dst.numpy(), np.broadcast_to(fill, (4, 6)).copy())
    with pytest.raises(tpb.UsageError, match="0 or 1"):
        nki.isa.select(dst, 2, src, 0.0)


def test_select_refuses_a_dst_dtype_other_than_the_source():
    core = nki.Core()
    src = core.from_numpy(np.ones((4, 32), F32))
    pred = core.from_numpy(np.ones((4, 1), np.uint32))
    dst = core.ndarray((4, 32), BF16)
    neighbour = core.from_numpy(np.full((4, 32), 7, np.int32))
    with pytest.raises(tpb.Error):
        nki.isa.select(dst, pred, src, 0.0)
    assert_bits_equal(neighbour.numpy(), np.full((4, 32), 7, np.int32))
    assert core.bundles() == b""


def test_nan_and_signed_zero_rules(rng):
    """assumptions.md items 14 and 17: MAX/MIN are maxNum/minNum (a NaN loses) with -0 < +0;
    compares give 1.0/0.0 (false with NaN, except not_equal); every NaN an ALU op produces is
    0x7FC00000."""
    snan = np.uint32(0x7FA00001).view(F32)
    x = np.array([[np.nan, -0.0, 0.0, 1.0, -np.inf, snan, 3.0, -2.0]], F32)
    core = nki.Core()
    src = core.from_numpy(x)
    dst = core.ndarray((1, 8), F32)

    def run(op, value):
        nki.isa.tensor_scalar(dst, src, op, value)
        return dst.numpy().view(np.uint32)[0].tolist()

    pos0, neg0, one, three, m2, ninf, qnan = 0, 0x80000000, 0x3F800000, 0x40400000, 0xC0000000, 0xFF800000, 0x7FC00000
    assert run(np.maximum, 0.0) == [pos0, pos0, pos0, one, pos0, pos0, three, pos0]
    assert run(np.minimum, 0.0) == [pos0, neg0, pos0, pos0, ninf, pos0, pos0, m2]
    assert run(np.maximum, -0.0) == [neg0, neg0, pos0, one, neg0, neg0, three, neg0]
    assert run(np.maximum, np.nan) == [qnan, neg0, pos0, one, ninf, qnan, three, m2]
    assert run(np.multiply, 1.0) == [qnan, neg0, pos0, one, ninf, qnan, three, m2]
    assert run(np.add, 0.0) == [qnan, pos0, pos0, one, ninf, qnan, three, m2]
    assert run(np.greater, np.nan) == [0] * 8
    assert run(np.not_equal, np.nan) == [one] * 8
    assert run(np.equal, 0.0) == [0, one, one, 0, 0, 0, 0, 0]


@pytest.mark.parametrize(
    "config,dtype,want",
    [
        (dict(fp8_e4m3="fn"), ml_dtypes.float8_e4m3fn, [0.3125, 448, 448, "nan", "nan", "nan", "nan"]),
        (dict(fp8_ocp_sat=True), ml_dtypes.float8_e4m3, [0.3125, 240, 240, 240, -240, "nan", 240]),
        (dict(fp8_ocp_sat=True), ml_dtypes.float8_e5m2, [0.3125, 448, 448, 57344, -57344, "nan", 57344]),
        (dict(), ml_dtypes.float8_e4m3, [0.3125, "inf", "inf", "inf", "-inf", "nan", "inf"]),
    ],
)
def test_fp8_variants_and_saturation(config, dtype, want):
    """assumptions.md item 15: E4M3 finite-only (max 448, overflow -> NaN) with fp8_e4m3="fn";
    fp8_ocp_sat saturates to +-max; by default overflow gives inf."""
    core = nki.Core(**config)
    x = np.array([[0.3, 448.0, 460.0, 1e6, -1e6, np.nan, np.inf]], F32)
    src = core.from_numpy(x)
    dst = core.ndarray((1, 7), dtype)
    nki.isa.tensor_scalar(dst, src, np.multiply, 1.0)
    got = dst.numpy().astype(F32)[0]
    # Compared as values (NaN by isnan), never through how numpy prints them.
    assert np.array_equal(got, np.array([float(w) for w in want], F32), equal_nan=True)
    if not config.get("fp8_ocp_sat"):
        assert_bits_equal(dst.numpy()[:, :5], x[:, :5].astype(dtype))


def test_constant_registers_run_out_cleanly():
    """Fill values live in registers 63 downwards, at most 32 of them (crate docs)."""
    core = nki.Core()
    src = core.from_numpy(np.ones((4, 4), F32))
    dst = core.ndarray((4, 4), F32)
    for i in range(32):
        nki.isa.affine_select(dst, [[-1, 4]], 1, src, float(i), cmp_op=np.greater_equal)
    text = core.disasm()
    with pytest.raises(tpb.UsageError, match="no register left"):
        nki.isa.affine_select(dst, [[-1, 4]], 1, src, 99.0, cmp_op=np.greater_equal)
    assert core.disasm() == text and len(core.bundles()) == 32 * 64
    # A fill already placed still works.
    nki.isa.affine_select(dst, [[-1, 4]], 1, src, 5.0, cmp_op=np.greater_equal)


def test_user_registers_do_not_clobber_fill_constants():
    core = nki.Core()
    src = core.from_numpy(np.arange(16, dtype=F32).reshape(4, 4))
    dst = core.ndarray((4, 4), F32)
    nki.isa.affine_select(dst, [[-1, 4]], 1, src, -FLT_MAX, cmp_op=np.greater_equal)
    first = dst.numpy().copy()
    try:
        core.set_register(63, 0.0)
    except tpb.Error:
        pass  # refusing the constant register is a fix too
    nki.isa.affine_select(dst, [[-1, 4]], 1, src, -FLT_MAX, cmp_op=np.greater_equal)
    assert_bits_equal(dst.numpy(), first)


# ---- the emitted program --------------------------------------------------------------


def build_kernel(core: nki.Core, rng) -> tuple:
    """Five calls of every kind; returns (inputs written, output tiles)."""
    x = random_values(rng, (32, 64), F32)
    scale = random_values(rng, (32, 1), F32, limit=2)
    tx, ts = core.from_numpy(x), core.from_numpy(scale)
    ramp_t = core.ndarray((32, 64), np.int32)
    nki.isa.iota(ramp_t, [[-1, 64]], channel_multiplier=1)
    scaled = core.ndarray((32, 64), F32)
    nki.isa.tensor_scalar(scaled, tx, np.multiply, ts, op1=np.add, operand1=0.5)
    masked = core.ndarray((32, 64), BF16)
    nki.isa.affine_select(masked, [[-1, 64]], 1, scaled, -3.4028235e38, cmp_op=np.greater_equal)
    band = core.ndarray((32, 64), F32)
    nki.isa.range_select(band, scaled, np.greater_equal, np.less, 8.0, 40.0)
    picked = core.ndarray((32, 64), F32)
    pred = core.from_numpy((np.arange(32) % 3 == 0).astype(np.uint32).reshape(32, 1))
    nki.isa.select(picked, pred, band, 0.0)
    return [(tx, x), (ts, scale), (pred, pred.numpy())], [ramp_t, scaled, masked, band, picked]


def test_bundles_and_disasm_describe_every_call(rng):
    core = nki.Core()
    build_kernel(core, rng)
    mnemonics = ["iota", "ts_arith", "affine_select", "range_select", "ts_select"]
    code = core.bundles()
    assert len(code) == 64 * 5
    assert [i.mnemonic for i in tpb.decode(code)] == mnemonics
    assert [i.mnemonic for i in core.instructions()] == mnemonics
    assert b"".join(i.encode() for i in core.instructions()) == code
    for inst in core.instructions():
        assert tpb.validate(inst) == []
    text = core.disasm()
    lines = text.splitlines()
    assert lines[0] == ".gen cayman"
    assert [line.split()[0] for line in lines if not line.startswith(".")] == mnemonics


def test_disasm_without_reg_lines_assembles_to_the_bundles(rng):
    core = nki.Core()
    build_kernel(core, rng)
    text = "\n".join(l for l in core.disasm().splitlines() if not l.startswith(".reg"))
    assert tpb.asm(text) == core.bundles()


def test_disasm_is_tpb_run_text(rng):
    """Core.disasm() is `tpb run` program text: its instruction lines assemble to the
    bundles, and Machine.run takes it whole, `.reg` lines included."""
    core = nki.Core()
    inputs, outputs = build_kernel(core, rng)
    text = core.disasm()
    plain = "\n".join(l for l in text.splitlines() if not l.startswith(".reg"))
    assert tpb.asm(plain) == core.bundles()
    with pytest.raises(tpb.AsmError):
        tpb.asm(text)  # tpb.asm, like `tpb asm`, takes no `.reg` directive
    m = tpb.Machine()
    for tile, array in inputs:
        m.write(tile.region.rsplit(":", 2)[0], array)
    assert m.run(text).instructions == len(core.instructions())
    for tile in outputs:
        assert_bits_equal(m.read(tile.region), tile.numpy())


def test_replaying_the_bundles_on_a_machine_reproduces_every_tile(rng):
    """The emitted stream is real: the same bytes on a fresh Machine, with the inputs and
    the `.reg` constants the disasm lists, give the same tiles bit for bit."""
    core = nki.Core()
    inputs, outputs = build_kernel(core, rng)
    m = tpb.Machine()
    for tile, array in inputs:
        m.write(tile.region.rsplit(":", 2)[0], array)
    for line in core.disasm().splitlines():
        if line.startswith(".reg"):
            _, n, _, value = line.split()
            m.set_register(int(n), int(value, 16))
    report = m.run(core.bundles())
    assert report.instructions == 5
    for tile in outputs:
        assert_bits_equal(m.read(tile.region), tile.numpy())


def test_sunda_core_emits_sunda_bundles():
    core = nki.Core(gen="sunda")
    dst = core.ndarray((4, 8), np.int32)
    nki.isa.iota(dst, [[1, 8]])
    assert core.disasm().splitlines()[0] == ".gen sunda"
    assert tpb.validate(core.bundles(), gen="sunda") == []


def test_call_report():
    core = nki.Core()
    src = core.from_numpy(np.ones((4, 8), F32))
    dst = core.ndarray((4, 8), F32)
    report = nki.isa.tensor_scalar(dst, src, np.add, 1.0)
    assert isinstance(report, tpb.RunReport)
    assert report.instructions == 1 and report.elements == 32 and report.bytes_written == 128


def test_uninitialised_tile_warns_and_strict_core_faults():
    """assumptions.md item 37; strict mode turns the warning into tpb.Fault (nothing emitted)."""
    core = nki.Core()
    src = core.ndarray((4, 8), F32)  # never written
    dst = core.ndarray((4, 8), F32)
    report = nki.isa.tensor_scalar(dst, src, np.add, 1.0)
    assert [w.kind for w in report.warnings] == ["uninitialised-read"]
    strict = nki.Core(strict=True)
    src = strict.ndarray((4, 8), F32)
    dst = strict.from_numpy(np.full((4, 8), 5.0, F32))
    with pytest.raises(tpb.Fault) as info:
        nki.isa.tensor_scalar(dst, src, np.add, 1.0)
    assert info.value.kind == "strict" and info.value.index == 0
    assert strict.bundles() == b""
    assert_bits_equal(dst.numpy(), np.full((4, 8), 5.0, F32))


def test_a_faulting_call_releases_its_fill_register():
    core = nki.Core(strict=True)
    src = core.ndarray((4, 4), F32)  # never written: strict mode faults
    dst = core.ndarray((4, 4), F32)
    with pytest.raises(tpb.Fault):
        nki.isa.affine_select(dst, [[-1, 4]], 1, src, 2.5)
    assert core.disasm() == ".gen cayman\n"
    ok = core.from_numpy(np.ones((4, 4), F32))
    nki.isa.affine_select(dst, [[-1, 4]], 1, ok, 7.5)
    assert core.disasm().splitlines()[1] == ".reg 63 = 0x40f00000"  # 7.5, in the freed register


def test_core_set_register():
    core = nki.Core()
    core.set_register(0, 1.5)
    with pytest.raises(tpb.UsageError):
        core.set_register(64, 1)
    with pytest.raises(tpb.UsageError):
        core.set_register(0, 2**40)


def test_plain_import_tpb_exposes_tpb_nki():
    import subprocess
    import sys

    code = "import tpb; tpb.nki.Core(gen='cayman'); tpb.nki.isa.iota"
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


# ---- seeded differential sweeps over every dtype pair ----------------------------------

SWEEP_DTYPES = [np.float32, BF16, np.float16, ml_dtypes.float8_e4m3, ml_dtypes.float8_e5m2,
                ml_dtypes.float8_e3m4, np.int8, np.uint8, np.int16, np.uint16, np.int32,
                np.uint32]
SWEEP_OPS = ["add", "subtract", "multiply", "maximum", "minimum", "greater", "greater_equal",
             "less", "less_equal", "equal", "not_equal"]


def test_tensor_scalar_sweep_against_numpy():
    """200 random (in dtype, out dtype, op0, op1, immediates, reversal) cases, inputs of
    every bit pattern (NaN, inf, subnormals) for floats: bit-exact, NaN bits included."""
    rng = np.random.default_rng(5)
    core = nki.Core()  # one core: 400 small tiles fit, and a new machine per case is slow
    specials = [0.0, -0.0, 1.5, -3.25, 1e-40, 1e30, np.inf, np.nan]
    for case in range(200):
        in_dtype, out_dtype = (SWEEP_DTYPES[i] for i in rng.choice(len(SWEEP_DTYPES), 2))
        op0 = str(rng.choice(SWEEP_OPS))
        op1 = str(rng.choice(SWEEP_OPS)) if rng.random() < 0.6 else None
        s0 = float(rng.choice(specials)) if rng.random() < 0.5 else float(np.float32(rng.normal() * 100))
        s1 = float(np.float32(rng.normal() * 10)) if op1 else None
        rev0, rev1 = bool(rng.random() < 0.5), bool(rng.random() < 0.5)
        if np.dtype(in_dtype).kind in "iu":
            data = random_values(rng, (4, 16), in_dtype, limit=2**31)
        else:
            data = random_bits(rng, (4, 16), in_dtype)
        src, dst = core.from_numpy(data), core.ndarray((4, 16), out_dtype)
        nki.isa.tensor_scalar(dst, src, op0, s0, reverse0=rev0, op1=op1, operand1=s1, reverse1=rev1)
        want = tensor_scalar_ref(data, out_dtype, op0, s0, rev0, op1, s1, rev1)
        try:
            assert_bits_equal(dst.numpy(), want)
        except AssertionError as e:
            raise AssertionError(
                f"case {case}: {np.dtype(in_dtype).name} -> {np.dtype(out_dtype).name}, "
                f"({op0} {s0} rev={rev0}) ({op1} {s1} rev={rev1}): {e}"
            ) from None


def test_affine_select_sweep_against_numpy():
    """200 random dtype pairs, fills and ramps; inputs of every bit pattern: kept elements
    are copied (same dtype) or converted through FP32, the fill converted from FP32."""
    rng = np.random.default_rng(6)
    core = nki.Core()
    fills = [-3.4028235e38, 0.0, -0.0, 1.5, 1e30, -np.inf, np.nan, 300.0, -129.5]
    for case in range(200):
        in_dtype, out_dtype = (SWEEP_DTYPES[i] for i in rng.choice(len(SWEEP_DTYPES), 2))
        data = random_bits(rng, (4, 16), in_dtype)
        fill = float(rng.choice(fills))
        cm, offset = int(rng.integers(-3, 4)), int(rng.integers(-10, 10))
        cmp_name = str(rng.choice(["greater", "greater_equal", "equal", "not_equal"]))
        src, dst = core.from_numpy(data), core.ndarray((4, 16), out_dtype)
        nki.isa.affine_select(dst, [[-1, 16]], cm, src, fill, cmp_op=cmp_name, offset=offset)
        keep = getattr(np, cmp_name)(ramp(4, [[-1, 16]], offset, cm), 0)
        with np.errstate(all="ignore"):
            want = select_copy(keep, data, fill, out_dtype)
        try:
            assert_bits_equal(dst.numpy(), want)
        except AssertionError as e:
            raise AssertionError(
                f"case {case}: {np.dtype(in_dtype).name} -> {np.dtype(out_dtype).name}, "
                f"fill {fill}, {cmp_name}, cm {cm}, offset {offset}: {e}"
            ) from None


FLOAT_DTYPES = [np.float32, BF16, np.float16, ml_dtypes.float8_e4m3, ml_dtypes.float8_e5m2,
                ml_dtypes.float8_e3m4]
COMPARES = {"greater": np.greater, "greater_equal": np.greater_equal, "equal": np.equal,
            "less": np.less, "less_equal": np.less_equal}


def test_range_select_sweep_against_numpy():
    """150 random float dtype pairs, compares, NaN/inf bounds (immediate and (P, 1) tile) and
    range starts: x = fp32(range_start + k) (assumptions.md item 31)."""
    rng = np.random.default_rng(7)
    core = nki.Core()
    for case in range(150):
        in_dtype, out_dtype = (FLOAT_DTYPES[i] for i in rng.choice(len(FLOAT_DTYPES), 2))
        data = random_bits(rng, (4, 16), in_dtype)
        b0 = F32(rng.choice([np.nan, 3.0, 7.5, -1.0, 100.0, np.inf]))
        b1 = np.full((4, 1), rng.choice([np.nan, 10.0, 7.5, 15.0, -np.inf]), F32)
        start = float(rng.choice([0.0, -2.0, 0.5, 1000.0]))
        c0, c1 = (str(c) for c in rng.choice(list(COMPARES), 2))
        src, dst = core.from_numpy(data), core.ndarray((4, 16), out_dtype)
        nki.isa.range_select(dst, src, c0, c1, float(b0), core.from_numpy(b1), range_start=start)
        x = F32(start) + np.arange(16, dtype=F32)[None, :]
        keep = COMPARES[c0](x, b0) & COMPARES[c1](x, b1)
        with np.errstate(all="ignore"):
            want = select_copy(keep, data, -FLT_MAX, out_dtype)
        try:
            assert_bits_equal(dst.numpy(), want)
        except AssertionError as e:
            raise AssertionError(
                f"case {case}: {np.dtype(in_dtype).name} -> {np.dtype(out_dtype).name}, "
                f"x {c0} {b0} and x {c1} {b1[0, 0]}, start {start}: {e}"
            ) from None


def test_select_sweep_against_numpy():
    """150 random dtypes, predicates (any nonzero is true) and fills encoded in the data's
    dtype (RNE for floats); an integer dtype takes only a fill it holds exactly, anything
    else is refused rather than saturated (issue 20 item 14)."""
    rng = np.random.default_rng(8)
    core = nki.Core()
    for case in range(150):
        dtype = SWEEP_DTYPES[rng.integers(len(SWEEP_DTYPES))]
        width = np.dtype(dtype).itemsize
        data = random_bits(rng, (4, 16), dtype)
        pred = rng.integers(0, 3, (4, 1)).astype({1: np.uint8, 2: np.uint16, 4: np.uint32}[width])
        fill = float(rng.choice([0.0, -0.0, 1.5, 300.7, -129.5, np.inf, np.nan, 1e30, -FLT_MAX]))
        reverse = bool(rng.random() < 0.5)
        src, dst, p = core.from_numpy(data), core.ndarray((4, 16), dtype), core.from_numpy(pred)
        if np.issubdtype(dtype, np.integer):
            info = np.iinfo(dtype)
            if not (fill == int(fill) if np.isfinite(fill) else False) or not (
                info.min <= fill <= info.max
            ):
                with pytest.raises(tpb.UsageError, match="on_false_value"):
                    nki.isa.select(dst, p, src, fill, reverse_pred=reverse)
                continue
        nki.isa.select(dst, p, src, fill, reverse_pred=reverse)
        with np.errstate(all="ignore"):
            fill_value = from_fp32(np.full((4, 16), fill, F32), dtype)
        want = np.where((pred != 0) ^ reverse, data, fill_value)
        try:
            assert_bits_equal(dst.numpy(), want)
        except AssertionError as e:
            raise AssertionError(
                f"case {case}: {np.dtype(dtype).name}, fill {fill}, reverse {reverse}: {e}"
            ) from None


def test_iota_sweep_against_numpy():
    """150 random patterns (1-4 dims, negative steps), offsets and channel multipliers near
    the int32 limits, into every dtype (assumptions.md items 26, 27)."""
    rng = np.random.default_rng(10)
    core = nki.Core()
    for case in range(150):
        dtype = SWEEP_DTYPES[rng.integers(len(SWEEP_DTYPES))]
        pattern = [[int(rng.integers(-300, 300)), int(rng.integers(1, 4))]
                   for _ in range(rng.integers(1, 5))]
        offset = int(rng.choice([0, 7, -(2**31), 2**31 - 100, int(rng.integers(-(2**31), 2**31))]))
        cm = int(rng.choice([0, 1, -1, 2**30, int(rng.integers(-(2**31), 2**31))]))
        p = int(rng.integers(1, 9))
        dst = core.ndarray([p] + [num for _, num in pattern], dtype)
        nki.isa.iota(dst, pattern, offset=offset, channel_multiplier=cm)
        r = ramp(p, pattern, offset, cm)
        dt = np.dtype(dtype)
        if dt.kind in "iu":
            want = r.view(np.uint32).astype({1: np.uint8, 2: np.uint16, 4: np.uint32}[dt.itemsize]).view(dt)
        else:
            with np.errstate(over="ignore"):
                want = r.astype(F32).astype(dt)
        try:
            assert_bits_equal(dst.numpy(), want)
        except AssertionError as e:
            raise AssertionError(f"case {case}: {dt.name} {pattern} offset {offset} cm {cm}: {e}") from None
