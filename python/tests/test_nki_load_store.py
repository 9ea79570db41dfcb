"""``nl.load`` / ``nl.store`` and HBM kernel arguments (issue 19 item 2, issue 18 item 5;
nki-api §2.7, docs/reference/dma.md): views of HBM tensors (slices, ``nl.ds``, ``nl.arange``
expressions, start rows, steps), masks, dtype conversion, the SPMD grid's shared output,
and the emitted program's synchronisation checked on the engine scheduler."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import tpb
import tpb.nki as nki
import tpb.nki.isa as nisa
import tpb.nki.language as nl

rng = np.random.default_rng(1918)


def f32(*shape):
    return rng.standard_normal(shape).astype(np.float32)


def test_views_with_ds_arange_and_steps_load_and_store():
    def kernel(a):
        out = nl.ndarray((64, 32), nl.float32, buffer=nl.shared_hbm)
        i_p = nl.arange(64)[:, None]
        i_f = nl.arange(32)[None, :]
        # Rows 64..128 (a start row), every other column from column 1.
        t = nl.load(a[64 + i_p, 2 * i_f + 1])
        u = nl.load(a[nl.ds(0, 64), nl.ds(8, 32)])
        nl.store(out, value=nl.add(t, u))
        return out

    a = f32(128, 96)
    out, prof = nki.profile_kernel(kernel, a)
    np.testing.assert_array_equal(out, a[64:128, 1:65:2] + a[0:64, 8:40])
    assert prof.races == []


def test_load_converts_and_a_masked_store_writes_the_box_only():
    def kernel(a):
        conv = nl.ndarray((100, 16), nl.float32, buffer=nl.shared_hbm)
        out = nl.ndarray((128, 16), nl.float32, buffer=nl.shared_hbm)
        nl.store(out, value=nl.zeros((128, 16), nl.float32))
        i_p = nl.arange(128)[:, None]
        i_f = nl.arange(16)[None, :]
        # The masked load keeps the view's shape and fills the box (issue 27 item 6).
        t = nl.load(a[i_p, i_f], dtype=nl.bfloat16, mask=(i_p < 100))
        assert t.shape == (128, 16) and t.dtype == nl.bfloat16
        nl.store(conv[i_p, i_f], value=nl.copy(t, dtype=nl.float32), mask=(i_p < 100))
        nl.store(out[i_p, i_f], value=nl.load(a), mask=(i_p < 100) & (i_f >= 4))
        return conv, out

    a = f32(128, 16)
    (conv, out), _ = nki.profile_kernel(kernel, a)
    np.testing.assert_array_equal(
        conv, a[:100].astype(ml_dtypes.bfloat16).astype(np.float32))
    want = np.zeros((128, 16), np.float32)
    want[:100, 4:] = a[:100, 4:]
    np.testing.assert_array_equal(out, want)


def test_one_dim_and_reshaped_hbm_arguments():
    def kernel(g, x):
        out = nl.ndarray(x.shape, x.dtype, buffer=nl.shared_hbm)
        row = nl.load(g.reshape((1, 8))[0:1, :])
        col = nl.load(g)  # (8,) -> 8 partitions of one element
        assert tuple(row.shape) == (1, 8) and tuple(col.shape) == (8, 1)
        t = nl.load(x)
        y = nl.ndarray(x.shape, nl.float32)
        nisa.tensor_scalar(y, t, nl.multiply, col)
        nl.store(out, value=y)
        return out

    g, x = f32(8), f32(8, 8)
    np.testing.assert_array_equal(nki.simulate_kernel(kernel, g, x), x * g[:, None])


def test_spmd_instances_share_their_shared_hbm_output():
    @nki.jit
    def kernel(a):
        out = nl.ndarray(a.shape, a.dtype, buffer=nl.shared_hbm)
        i = nl.program_id(0)
        t = nl.load(a[i * 32:(i + 1) * 32, :])
        nl.store(out[i * 32:(i + 1) * 32, :], value=nl.multiply(t, 2.0))
        return out

    a = f32(128, 8)
    np.testing.assert_array_equal(kernel[4](a), a * 2.0)

    @nki.jit
    def inconsistent(a):
        return nl.ndarray((nl.program_id(0) + 1, 4), nl.float32, buffer=nl.shared_hbm)

    with pytest.raises(tpb.UsageError, match="shared_hbm tensor #0"):
        inconsistent[2](a)


def test_store_of_a_psum_tile_copies_it_first_and_a_count_mismatch_is_refused():
    # nki-api §4.4: the legacy nl.store takes a PSUM value (an extra copy to SBUF), as
    # nki-samples' attention_fwd v1/v2 store an nl.matmul result; dma_copy itself refuses it.
    def from_psum(a):
        out = nl.ndarray((4, 4), nl.float32, buffer=nl.shared_hbm)
        p = nl.ndarray((4, 4), nl.float32, buffer=nl.psum)
        nisa.tensor_copy(p, nl.load(a))
        nl.store(out, value=p)
        return out

    a = f32(4, 4)
    np.testing.assert_array_equal(nki.simulate_kernel(from_psum, a), a)

    def dma_from_psum(a):
        out = nl.ndarray((4, 4), nl.float32, buffer=nl.shared_hbm)
        p = nl.zeros((4, 4), nl.float32, buffer=nl.psum)
        nisa.dma_copy(out, p)

    with pytest.raises(tpb.UsageError, match="PSUM source"):
        nki.simulate_kernel(dma_from_psum, f32(4, 4))

    def mismatch(a):
        out = nl.ndarray((4, 8), nl.float32, buffer=nl.shared_hbm)
        nl.store(out, value=nl.load(a))

    with pytest.raises(tpb.UsageError, match="equal element counts"):
        nki.simulate_kernel(mismatch, f32(4, 4))


def test_without_synchronisation_a_load_races_with_its_reader():
    def kernel(a):
        out = nl.ndarray(a.shape, a.dtype, buffer=nl.shared_hbm)
        nl.store(out, value=nl.add(nl.load(a), 1.0))
        return out

    a = f32(128, 64)
    out, prof = nki.profile_kernel(kernel, a)
    np.testing.assert_array_equal(out, a + 1.0)
    # The load goes out from SP, the store from ACT (issuers alternate, docs/engines.md
    # "Queues in kernels").
    assert {e["engine"] for e in prof.engines} == {"sp", "dma.sp", "dve", "act", "dma.act"}
    # With the default uninitialized_reads="raise" too (issue 29 item 13): the read that ran
    # before its load is reported as the race it is, naming both kernel lines.
    for reads in ("warn", "raise"):
        with pytest.raises(tpb.RaceError) as e:
            nki.profile_kernel(kernel, a, synchronize=False, uninitialized_reads=reads)
        assert {e.value.first["engine"], e.value.second["engine"]} == {"dma.sp", "dve"}
        for side in (e.value.first, e.value.second):
            assert "test_nki_load_store.py" in side["origin"], side


def test_an_hbm_fill_is_refused_with_the_way_round():
    def kernel():
        nl.zeros((4, 4), nl.float32, buffer=nl.shared_hbm)

    with pytest.raises(tpb.NotSupported, match="nl.store it"):
        nki.simulate_kernel(kernel)


def test_broadcast_to_over_partitions_is_one_dma_and_race_free():
    """rmsnorm's ``nl.broadcast_to(g_tile, (128, d))``: a (1, d) row copied to every
    partition by one DMA with a partition step of 0, then read by DVE after it lands."""

    def kernel(g, x):
        out = nl.ndarray(x.shape, x.dtype, buffer=nl.shared_hbm)
        row = nl.load(g.reshape((1, 16))[0:1, :])
        col = nl.load(g.reshape((1, 16))[0:1, 3:4])
        gb = nl.broadcast_to(row, (128, 16))
        cb = nl.broadcast_to(col, (128, 16))  # free and partition dims at once
        nl.store(out, value=nl.add(nl.multiply(nl.load(x), gb), cb))
        return out

    g, x = f32(16), f32(128, 16)
    out, prof = nki.profile_kernel(kernel, g, x)
    np.testing.assert_array_equal(out, x * g[None, :] + g[3])
    assert prof.instruction_counts["dma_memcpy"] == 6

    def wrong(x):
        nl.broadcast_to(nl.load(x), (8, 4))

    with pytest.raises(tpb.UsageError, match="partition dim 2 cannot broadcast"):
        nki.simulate_kernel(wrong, f32(2, 4))
