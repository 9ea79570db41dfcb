"""tpb.nki.isa issue-17a calls (tensor_tensor, tensor_copy, memset, reciprocal,
tensor_reduce, tensor_copy_predicated, nc_transpose, nc_stream_shuffle), each checked bit for
bit against an independent NumPy / ml_dtypes computation of the documented semantics
(docs/reference/dve-pool.md; isa-facts-dve-pool §1.5, §2.4, §3.4, §4.4, §5, §6.4, §7.4, §15).
"""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import tpb
import tpb.nki as nki
from conftest import assert_bits_equal, random_values

BF16 = ml_dtypes.bfloat16
F32 = np.float32


def from_fp32(x, dtype):
    """FP32 -> dtype: RNE; integers saturate, NaN -> 0 (decisions §4.4, §4.6)."""
    dt = np.dtype(dtype)
    x = np.asarray(x, dtype=F32)
    if dt.kind in "iu":
        info = np.iinfo(dt)
        r = np.rint(np.nan_to_num(x, nan=0.0, posinf=np.inf, neginf=-np.inf).astype(np.float64))
        return np.clip(r, info.min, info.max).astype(dt)
    with np.errstate(over="ignore"):
        return x.astype(dt)


@pytest.mark.parametrize("op", [np.add, np.subtract, np.multiply, np.maximum, np.greater])
def test_tensor_tensor_fp32_to_bf16(op, rng):
    core = nki.Core(gen="cayman")
    a = random_values(rng, (32, 40), F32)
    b = random_values(rng, (32, 40), F32)
    a, b = np.nan_to_num(a), np.nan_to_num(b)  # numpy's maximum propagates NaN; maxNum does not
    ta, tb = core.from_numpy(a), core.from_numpy(b)
    out = core.ndarray((32, 40), BF16)
    nki.isa.tensor_tensor(out, ta, tb, op)
    with np.errstate(all="ignore"):
        want = from_fp32(op(a, b).astype(F32), BF16)
    assert_bits_equal(out.numpy(), want)


def test_tensor_tensor_int32_wraps_on_gpsimd(rng):
    core = nki.Core()
    a = rng.integers(-(2**31), 2**31, (8, 16), dtype=np.int64).astype(np.int32)
    b = rng.integers(-(2**31), 2**31, (8, 16), dtype=np.int64).astype(np.int32)
    out = core.ndarray((8, 16), np.int32)
    nki.isa.tensor_tensor(out, core.from_numpy(a), core.from_numpy(b), np.add, engine="gpsimd")
    assert_bits_equal(out.numpy(), (a.astype(np.int64) + b).astype(np.int32))


def test_tensor_copy_casts_and_copies(rng):
    core = nki.Core()
    a = random_values(rng, (16, 33), F32)
    src = core.from_numpy(a)
    for dtype in (BF16, np.float16, np.int8, np.uint16, ml_dtypes.float8_e4m3, F32):
        dst = core.ndarray((16, 33), dtype)
        nki.isa.tensor_copy(dst, src)
        assert_bits_equal(dst.numpy(), from_fp32(a, dtype) if dtype is not F32 else a)


# nki-api §3 tensor_copy: "ScalarE always goes through fp32 (lossy for e.g. int32)"; tpb runs
# it as an Activate of the exact copy function, t = fma(x, 1, 0) in fp32 (assumption
# act-rounding), then the conversion to dst's dtype.
def test_tensor_copy_on_the_scalar_engine_goes_through_fp32(rng):
    core = nki.Core(gen="cayman")
    a = np.nan_to_num(random_values(rng, (16, 33), F32))
    a[0, :3] = [-0.0, 3.0e38, -1.5]
    dst = core.ndarray((16, 33), BF16)
    nki.isa.tensor_copy(dst, core.from_numpy(a), engine=nki.isa.engine.scalar)
    assert_bits_equal(dst.numpy(), from_fp32(a + F32(0.0), BF16))   # -0.0 + 0 is +0.0
    big = np.array([[2**24 + 1, -7, 2**31 - 1]] * 4, dtype=np.int32)
    out = core.ndarray((4, 3), np.int32)
    nki.isa.tensor_copy(out, core.from_numpy(big), engine=nki.isa.engine.scalar)
    assert_bits_equal(out.numpy(), from_fp32(big.astype(F32), np.int32))  # 2**24 + 1 rounds
    assert out.numpy()[0, 0] != big[0, 0]
    assert [ln.split()[0] for ln in core.disasm().splitlines()[1:]] == ["activate"] * 2
    assert "activation_func=copy" in core.disasm()


def test_tensor_copy_on_the_scalar_engine_is_refused_on_sunda_and_tensor_anywhere():
    core = nki.Core(gen="sunda")
    t = core.from_numpy(np.ones((4, 8), F32))
    with pytest.raises(tpb.NotSupported, match="NeuronCore-v2.*activation"):
        nki.isa.tensor_copy(core.ndarray((4, 8), F32), t, engine=nki.isa.engine.scalar)
    with pytest.raises(tpb.NotSupported, match="engine Tensor"):
        nki.isa.tensor_copy(core.ndarray((4, 8), F32), t, engine=nki.isa.engine.tensor)


def test_memset_and_reciprocal(rng):
    core = nki.Core()
    t = core.ndarray((128, 64), BF16)
    nki.isa.memset(t, 1.5, engine="vector")
    assert_bits_equal(t.numpy(), np.full((128, 64), 1.5, dtype=BF16))
    with pytest.raises(tpb.UsageError, match="value"):
        nki.isa.memset(core.ndarray((2, 2), np.int8), 1.5)
    a = random_values(rng, (16, 20), F32)
    inv = core.ndarray((16, 20), F32)
    nki.isa.reciprocal(inv, core.from_numpy(a))
    with np.errstate(all="ignore"):
        want = (F32(1.0) / a).astype(F32)
    want = np.where(np.isnan(want), np.float32(np.nan), want)
    assert_bits_equal(inv.numpy(), want)


def test_tensor_reduce_rows(rng):
    core = nki.Core()
    a = rng.standard_normal((16, 4, 24)).astype(F32)
    out = core.ndarray((16, 4), F32)
    nki.isa.tensor_reduce(out, np.add, core.from_numpy(a), axis=2, negate=True)
    # Sequential float32 fold in element order (reduce-geometry), then negate.
    want = np.empty((16, 4), F32)
    for p in range(16):
        for j in range(4):
            acc = a[p, j, 0]
            for x in a[p, j, 1:]:
                acc = F32(acc + x)
            want[p, j] = -acc
    assert_bits_equal(out.numpy(), want)
    m = core.ndarray((16, 1), F32)
    nki.isa.tensor_reduce(m, np.maximum, core.from_numpy(a), axis=[1, 2])
    assert_bits_equal(m.numpy(), a.reshape(16, -1).max(axis=1, keepdims=True))


def test_tensor_copy_predicated(rng):
    core = nki.Core()
    pred = (rng.integers(0, 3, (8, 10)) == 0).astype(np.uint8)
    old = rng.standard_normal((8, 10)).astype(F32)
    data = rng.standard_normal((8, 10)).astype(F32)
    dst = core.from_numpy(old)
    nki.isa.tensor_copy_predicated(dst, core.from_numpy(data), core.from_numpy(pred))
    assert_bits_equal(dst.numpy(), np.where(pred != 0, data, old))
    dst2 = core.from_numpy(old)
    nki.isa.tensor_copy_predicated(dst2, -np.inf, core.from_numpy(pred), reverse_pred=True)
    assert_bits_equal(dst2.numpy(), np.where(pred == 0, F32(-np.inf), old))


def test_nc_transpose_and_stream_shuffle(rng):
    core = nki.Core()
    a = random_values(rng, (32, 32), BF16)
    t = core.ndarray((32, 32), BF16)
    nki.isa.nc_transpose(t, core.from_numpy(a), engine="vector")
    assert_bits_equal(t.numpy(), a.T)


def shuffled(src, old, mask):
    """NumPy: per 32-partition quadrant, row i <- src row mask[i]; 255 keeps old (nki-api §3,
    isa-facts-dve-pool §14, assumption `stream-shuffle-mask`)."""
    out = old.copy()
    for p in range(old.shape[0]):
        m = mask[p % 32]
        if m != 255:
            out[p] = src[p // 32 * 32 + m]
    return out


def test_nc_stream_shuffle_against_numpy(rng):
    core = nki.Core()
    a = random_values(rng, (64, 10), BF16)
    old = random_values(rng, (64, 10), BF16)
    mask = list(range(31, -1, -1))
    mask[3] = 255
    dst = core.from_numpy(old)
    rep = nki.isa.nc_stream_shuffle(dst, core.from_numpy(a), mask, name="shuffle")
    assert rep.instructions == 2  # LoadMaskSelect, StreamShuffle
    assert_bits_equal(dst.numpy(), shuffled(a, old, mask))
    # NumPy fancy indexing of the partition axis, the benchmark's reference.
    perm = np.array([g * 32 + m for g in range(2) for m in range(31, -1, -1)])
    full = core.ndarray((64, 10), BF16)
    nki.isa.nc_stream_shuffle(full, core.from_numpy(a), list(range(31, -1, -1)))
    assert_bits_equal(full.numpy(), a[perm])
    # NumPy integers as mask entries (converted through __index__, not the int fast path).
    full_np = core.ndarray((64, 10), BF16)
    np_mask = [np.int64(m) for m in range(31, -1, -1)]
    nki.isa.nc_stream_shuffle(full_np, core.from_numpy(a), np_mask)
    assert_bits_equal(full_np.numpy(), a[perm])
    # In place, and the legacy (src, dst, mask, dtype=) order.
    t = core.from_numpy(a)
    rot = [(i + 1) % 32 for i in range(32)]
    nki.isa.nc_stream_shuffle(t, t, rot)
    assert_bits_equal(t.numpy(), shuffled(a, a, rot))
    legacy = core.from_numpy(old)
    nki.isa.nc_stream_shuffle(core.from_numpy(a), legacy, mask, dtype=BF16)
    assert_bits_equal(legacy.numpy(), shuffled(a, old, mask))


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda d, s: nki.isa.nc_stream_shuffle(d, s, list(range(31))), "exactly 32"),
        (lambda d, s: nki.isa.nc_stream_shuffle(d, s, [40] * 32), "0..31"),
        # No silent int conversion of a mask entry (3.5 would truncate to 3).
        (lambda d, s: nki.isa.nc_stream_shuffle(d, s, [3.5] + [0] * 31), r"shuffle_mask\[0\]"),
        (lambda d, s: nki.isa.nc_stream_shuffle(d, s, [0] * 31 + ["3"]), r"shuffle_mask\[31\]"),
        (lambda d, s: nki.isa.nc_stream_shuffle(d, s, [True] + [0] * 31), r"shuffle_mask\[0\]"),
        (lambda d, s: nki.isa.nc_stream_shuffle(d, s, [0] * 31 + [2**70]), r"shuffle_mask\[31\]"),
        (lambda d, s: nki.isa.nc_stream_shuffle(d, s, [0] * 31 + [-1]), r"\[31\] = -1: .*0..31"),
        (lambda d, s: nki.isa.nc_stream_shuffle(d, s, 7), "shuffle_mask: expected a list of ints"),
        (lambda d, s: nki.isa.nc_stream_shuffle(d, s, list(range(32)), dtype=np.int8),
         "never converts"),
    ],
)
def test_nc_stream_shuffle_refusals(call, match):
    core = nki.Core()
    a, b = core.ndarray((32, 4), F32), core.ndarray((32, 4), F32)
    with pytest.raises(tpb.UsageError, match=match):
        call(a, b)
    half = core.ndarray((32, 4), BF16)
    with pytest.raises(tpb.UsageError, match="dtype"):
        nki.isa.nc_stream_shuffle(a, half, list(range(32)))
