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


def cumulative(x, op0, imm0, op1, seed):
    """NKI's tensor_scalar_cumulative in fp32: reg = op1(op0(x[i], imm0), reg); dst[i] = reg
    (nki-api §3, assumption `cache-reduce-model`)."""
    x = np.asarray(x, dtype=F32)
    reg = np.broadcast_to(np.asarray(seed, dtype=F32), (x.shape[0],)).astype(F32)
    imm0 = np.asarray(imm0, dtype=F32).reshape(-1)
    out = np.empty_like(x)
    with np.errstate(all="ignore"):
        for i in range(x.shape[1]):
            reg = op1(op0(x[:, i], imm0).astype(F32), reg).astype(F32)
            out[:, i] = reg
    return out


@pytest.mark.parametrize(
    "op0, op1, seed",
    [(np.multiply, np.add, 0.0), (np.add, np.subtract, 0.0), (np.multiply, np.multiply, 1.0),
     (np.subtract, np.maximum, -np.inf), (np.add, np.minimum, np.inf)],
)
def test_tensor_scalar_cumulative_against_numpy(op0, op1, seed):
    core = nki.Core(gen="cayman")
    x = rand((32, 40), 11) / F32(4)
    out = core.ndarray((32, 40), F32)
    rep = nki.isa.tensor_scalar_cumulative(out, core.from_numpy(x), op0, op1, 1.5)
    assert rep.instructions == 1
    np.testing.assert_array_equal(out.numpy(), cumulative(x, op0, 1.5, op1, seed))


def test_tensor_scalar_cumulative_seeds_chains_and_narrows():
    core = nki.Core(gen="mariana")
    x = rand((16, 24), 12)
    s = rand((16, 1), 13)
    seed = rand((16, 1), 14)
    tx, ts, tseed = core.from_numpy(x), core.from_numpy(s), core.from_numpy(seed)
    out = core.ndarray((16, 24), BF16)
    nki.isa.tensor_scalar_cumulative(out, tx, np.multiply, np.add, ts, imm1=tseed,
                                     reduce_cmd="load_reduce")
    first = cumulative(x, np.multiply, s, np.add, seed[:, 0])
    np.testing.assert_array_equal(out.numpy(), first.astype(BF16))
    # reduce continues from the accumulator the last call left.
    out2 = core.ndarray((16, 24), F32)
    nki.isa.tensor_scalar_cumulative(out2, tx, np.multiply, np.add, 1.0,
                                     reduce_cmd=nki.isa.reduce_cmd.reduce)
    np.testing.assert_array_equal(out2.numpy(), cumulative(x, np.multiply, 1.0, np.add,
                                                           first[:, -1]))
    # An int8 source (integers convert to fp32 exactly).
    xi = np.random.default_rng(15).integers(-100, 100, (16, 24)).astype(np.int8)
    out3 = core.ndarray((16, 24), F32)
    nki.isa.tensor_scalar_cumulative(out3, core.from_numpy(xi), np.add, np.maximum, 0.0)
    np.testing.assert_array_equal(out3.numpy(), cumulative(xi, np.add, 0.0, np.maximum,
                                                           -np.inf))


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        ({"op1": np.divide}, tpb.UsageError, "op1"),
        ({"src_dtype": np.int32}, tpb.UsageError, "32-bit integer"),
        ({"dst_dtype": np.uint32}, tpb.UsageError, "32-bit integer"),
        ({"dst_shape": (16, 23)}, tpb.UsageError, "one output per input"),
        ({"dst_shape": (8, 24)}, tpb.UsageError, "partitions"),
        ({"imm1": 2.0}, tpb.UsageError, "imm1"),
        ({"reduce_cmd": "load_reduce"}, tpb.UsageError, "imm1"),
        ({"reduce_cmd": "idle"}, tpb.NotSupported, "reduce_cmd"),
    ],
)
def test_tensor_scalar_cumulative_refusals(kwargs, error, match):
    core = nki.Core(gen="cayman")
    src = core.ndarray((16, 24), kwargs.pop("src_dtype", F32))
    dst = core.ndarray(kwargs.pop("dst_shape", (16, 24)), kwargs.pop("dst_dtype", F32))
    op1 = kwargs.pop("op1", np.add)
    with pytest.raises(error, match=match):
        nki.isa.tensor_scalar_cumulative(dst, src, np.multiply, op1, 1.0, **kwargs)


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
