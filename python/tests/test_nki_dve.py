"""Issue 17b calls (scalar_tensor_tensor, tensor_tensor_scan, select_reduce,
tensor_scalar_reduce), each checked bit for bit against an independent NumPy / ml_dtypes
computation of the NKI 0.6.0 semantics and the assumptions of
docs/reference/assumptions.md (issue 17b section; fp32 math, RNE narrowing)."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import tpb
import tpb.nki as nki

BF16 = ml_dtypes.bfloat16
F32 = np.float32


def rand(shape, seed):
    return np.random.default_rng(seed).uniform(-8, 8, size=shape).astype(F32)


@pytest.mark.parametrize("out_dtype", [F32, BF16])
def test_scalar_tensor_tensor_is_fp32_then_cast(out_dtype):
    core = nki.Core(gen="cayman")
    a, b = rand((64, 96), 1), rand((64, 96), 2).astype(BF16)
    s = rand((64, 1), 3)
    ta, tb, ts = core.from_numpy(a), core.from_numpy(b), core.from_numpy(s)
    out = core.ndarray((64, 96), out_dtype)
    rep = nki.isa.scalar_tensor_tensor(
        out, ta, np.subtract, ts, np.multiply, tb, reverse0=True, name="stt"
    )
    assert rep.instructions == 1
    want = ((s - a) * b.astype(F32)).astype(F32).astype(out_dtype)
    np.testing.assert_array_equal(out.numpy().view(np.uint8), want.view(np.uint8))


def test_tensor_tensor_scan_matches_the_recurrence():
    core = nki.Core(gen="mariana")
    d0 = rand((8, 50), 4) / F32(16)
    d1 = rand((8, 50), 5)
    out = core.ndarray((8, 50), F32)
    nki.isa.tensor_tensor_scan(
        out, core.from_numpy(d0), core.from_numpy(d1), 0.5, np.multiply, np.add
    )
    r = np.full(8, 0.5, dtype=F32)
    want = np.empty_like(d0)
    for i in range(50):
        r = (d0[:, i] * r).astype(F32) + d1[:, i]
        want[:, i] = r
    np.testing.assert_array_equal(out.numpy().view(np.uint32), want.view(np.uint32))


def test_select_reduce_is_where_plus_row_max():
    core = nki.Core(gen="cayman")
    pred = (np.arange(32 * 40).reshape(32, 40) % 5 == 0).astype(np.uint8)
    data = rand((32, 40), 6)
    out = core.ndarray((32, 40), F32)
    mx = core.ndarray((32, 1), F32)
    rep = nki.isa.select_reduce(
        out,
        core.from_numpy(pred),
        core.from_numpy(data),
        -1e30,
        reduce_res=mx,
        reduce_cmd=nki.isa.reduce_cmd.reset_reduce,
    )
    assert rep.instructions == 2
    np.testing.assert_array_equal(out.numpy(), np.where(pred != 0, data, F32(-1e30)))
    np.testing.assert_array_equal(
        mx.numpy()[:, 0], np.where(pred != 0, data, -np.inf).max(axis=1)
    )
    with pytest.raises(tpb.NotSupported):
        nki.isa.select_reduce(out, core.from_numpy(pred), core.from_numpy(data), 0.0,
                              reverse_pred=True)


def test_tensor_scalar_reduce_chains_through_the_accumulator():
    core = nki.Core(gen="cayman")
    x, y = rand((16, 30), 7), rand((16, 30), 8)
    out = core.ndarray((16, 30), F32)
    res = core.ndarray((16, 1), F32)
    nki.isa.tensor_scalar_reduce(out, core.from_numpy(x), np.multiply, 2.0, np.maximum)
    rep = nki.isa.tensor_scalar_reduce(
        out, core.from_numpy(y), np.multiply, 2.0, np.maximum, reduce_res=res,
        reduce_cmd="reduce", reduce_res_negate=True,
    )
    assert rep.instructions == 2
    np.testing.assert_array_equal(out.numpy(), (y * F32(2)).astype(F32))
    want = -np.maximum((x * F32(2)).max(axis=1), (y * F32(2)).max(axis=1))
    np.testing.assert_array_equal(res.numpy()[:, 0], want)
    with pytest.raises(tpb.NotSupported):
        nki.isa.tensor_scalar_reduce(out, core.from_numpy(y), np.multiply, 2.0, np.add,
                                     reverse0=True)


def test_search_calls_against_numpy():
    core = nki.Core(gen="cayman")
    rng = np.random.default_rng(9)
    x = rng.permutation(np.arange(64 * 200, dtype=F32)).reshape(64, 200)
    tx = core.from_numpy(x)
    top = core.ndarray((64, 8), F32)
    nki.isa.max8(top, tx, name="top")
    want = -np.sort(-x, axis=1)[:, :8]
    np.testing.assert_array_equal(top.numpy(), want)
    idx = core.ndarray((64, 8), np.uint32)
    nki.isa.nc_find_index8(idx, tx, top)
    np.testing.assert_array_equal(idx.numpy(), np.argsort(-x, axis=1)[:, :8])
    out = core.ndarray((64, 200), F32)
    pos = core.ndarray((64, 8), np.uint16)
    rep = nki.isa.nc_match_replace8(out, tx, top, -np.inf, dst_idx=pos)
    assert rep.instructions == 3
    np.testing.assert_array_equal(pos.numpy(), np.argsort(-x, axis=1)[:, :8])
    ref = x.copy()
    np.put_along_axis(ref, np.argsort(-x, axis=1)[:, :8], -np.inf, axis=1)
    np.testing.assert_array_equal(out.numpy(), ref)
