"""nki.isa.bn_stats / bn_aggr and nl.var (nki-api §3 "bn_stats", "bn_aggr"; assumption
`bn-stats-lowering` in docs/reference/assumptions.md).

NKI publishes the results (per partition: count, mean and variance·count of the even-indexed
elements, then of the odd-indexed ones; bn_aggr folds such triples into mean and variance),
not the instructions' order, so tpb computes the definition in fp32 with Vector instructions
and labels them approximate. Tolerance: the fp32 results agree with NumPy's float64 ones to
rtol 1e-5 (sums of a few hundred values in [0, 1) in fp32).
"""

from __future__ import annotations

import numpy as np
import pytest

import tpb
import tpb.nki as nki
import tpb.nki.isa as nisa
import tpb.nki.language as nl

RTOL = 1e-5


def _triple(v):
    """(count, mean, variance·count) of the rows of v (NumPy, float64)."""
    v = v.astype(np.float64)
    n = v.shape[1]
    if n == 0:
        return np.zeros((v.shape[0], 3))
    mean = v.mean(axis=1)
    return np.stack([np.full(v.shape[0], n), mean, v.var(axis=1) * n], axis=1)


def _stats_want(x):
    return np.concatenate([_triple(x[:, 0::2]), _triple(x[:, 1::2])], axis=1)


def _stats(x):
    out = nl.ndarray((x.shape[0], 6), nl.float32, buffer=nl.shared_hbm)
    st = nl.ndarray((x.shape[0], 6), nl.float32)
    nisa.bn_stats(st, nl.load(x))
    nl.store(out, value=st)
    return out


_STATS_LINE = _stats.__code__.co_firstlineno + 3


@pytest.mark.parametrize("free", [512, 7, 1])
def test_bn_stats_gives_the_even_then_odd_triples(free):
    # 512: bn_stats_fmax; 7: the even half has one element more; 1: the odd half is empty.
    x = np.random.default_rng(free).random((64, free), dtype=np.float32)
    got = nki.simulate_kernel(_stats, x)
    np.testing.assert_allclose(got, _stats_want(x), rtol=RTOL, atol=1e-6)
    np.testing.assert_array_equal(got[:, [0, 3]], [[(free + 1) // 2, free // 2]] * 64)


def test_bn_stats_refuses_more_than_bn_stats_fmax_and_a_wrong_dst():
    def too_wide(x):
        st = nl.ndarray((x.shape[0], 6), nl.float32)
        nisa.bn_stats(st, nl.load(x))

    def narrow_dst(x):
        st = nl.ndarray((x.shape[0], 4), nl.float32)
        nisa.bn_stats(st, nl.load(x))

    assert nl.tile_size.bn_stats_fmax == 512
    with pytest.raises(tpb.UsageError, match="data.*513 elements per partition.*bn_stats_fmax"):
        nki.simulate_kernel(too_wide, np.zeros((8, 513), np.float32))
    with pytest.raises(tpb.UsageError, match="dst.*6 values per partition"):
        nki.simulate_kernel(narrow_dst, np.zeros((8, 16), np.float32))


# The legacy value-returning forms, a masked ragged tail and the aggregation, as the
# nki-samples layernorm v2 tutorial uses them (restated in test_public_idioms.py).
def _stats_aggr(x):
    p, f = x.shape
    out = nl.ndarray((p, 2), nl.float32, buffer=nl.shared_hbm)
    t = nl.load(x)
    fmax = nl.tile_size.bn_stats_fmax
    chunks = (f + fmax - 1) // fmax
    st = nl.ndarray((p, 6 * chunks), nl.float32)
    i_f = nl.arange(fmax)[None, :]
    i_p = nl.arange(p)[:, None]
    for j in nl.affine_range(chunks):
        st[i_p, j * 6 + nl.arange(6)[None, :]] = nisa.bn_stats(
            t[i_p, j * fmax + i_f], mask=(j * fmax + i_f < f), dtype=nl.float32)
    mv = nisa.bn_aggr(st)
    nl.store(out, value=mv)
    return out


def test_legacy_bn_stats_with_a_ragged_mask_then_bn_aggr_match_numpy():
    x = np.random.default_rng(3).random((100, 1000), dtype=np.float32)
    got = nki.simulate_kernel(_stats_aggr, x)
    want = np.stack([x.mean(axis=1), x.var(axis=1)], axis=1)
    np.testing.assert_allclose(got, want, rtol=RTOL)


def test_bn_aggr_refuses_a_free_size_not_a_multiple_of_three():
    def k(x):
        mv = nl.ndarray((x.shape[0], 2), nl.float32)
        nisa.bn_aggr(mv, nl.load(x))

    with pytest.raises(tpb.UsageError, match="data.*8 elements per partition.*multiple of 3"):
        nki.simulate_kernel(k, np.ones((4, 8), np.float32))
    # A multiple of 3 runs: two triples (2, 1.0, 0.5) and (1, 4.0, 0.0).
    trip = np.tile(np.array([2, 1.0, 0.5, 1, 4.0, 0.0], np.float32), (4, 1))

    def ok(x):
        out = nl.ndarray((x.shape[0], 2), nl.float32, buffer=nl.shared_hbm)
        mv = nl.ndarray((x.shape[0], 2), nl.float32)
        nisa.bn_aggr(mv, nl.load(x))
        nl.store(out, value=mv)
        return out

    got = nki.simulate_kernel(ok, trip)
    mean = (2 * 1.0 + 1 * 4.0) / 3
    var = (0.5 + 2 * (1.0 - mean) ** 2 + (4.0 - mean) ** 2) / 3
    np.testing.assert_allclose(got, [[mean, var]] * 4, rtol=RTOL)


def test_bn_instructions_are_labelled_approximate():
    x = np.random.default_rng(5).random((32, 64), dtype=np.float32)
    _, prof = nki.profile_kernel(_stats, x)
    # Every Vector instruction of the call (two halves of seven), none of the DMAs.
    labelled = [a for a in prof.approximate if "bn-stats-lowering" in a["message"]]
    assert len(labelled) == 14 == len(prof.approximate)
    assert {a["engine"] for a in labelled} == {"dve"}
    assert all(a["origin"].endswith(f"test_nki_bn.py:{_STATS_LINE}") for a in labelled)
    # An exact kernel lists none.
    _, exact = nki.profile_kernel(_copy, x)
    assert exact.approximate == []
    with pytest.raises(tpb.Fault, match="approximate"):
        nki.simulate_kernel(_stats, x, strict_exact=True)


def _copy(x):
    out = nl.ndarray(x.shape, x.dtype, buffer=nl.shared_hbm)
    nl.store(out, value=nl.load(x))
    return out


def test_nl_var_over_the_free_axis():
    x = np.random.default_rng(8).random((50, 700), dtype=np.float32)

    def k(x):
        out = nl.ndarray((x.shape[0], 1), nl.float32, buffer=nl.shared_hbm)
        nl.store(out, value=nl.var(nl.load(x), axis=1))
        return out

    got = nki.simulate_kernel(k, x)
    np.testing.assert_allclose(got[:, 0], x.var(axis=1), rtol=RTOL)


def test_nl_var_refuses_the_partition_axis():
    def k(x):
        nl.var(nl.load(x), axis=0)

    with pytest.raises(tpb.NotSupported, match="var"):
        nki.simulate_kernel(k, np.ones((4, 8), np.float32))
