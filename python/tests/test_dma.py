"""Device memory and DMA from Python (isa-facts-pe-act-dma §3.4, §3.5; nki-api §3.6):
HBM regions on tpb.Machine, nki.isa.dma_copy between HBM and SBUF with casts checked against
ml_dtypes, and its argument checks."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import tpb
import tpb.nki as nki


def test_machine_hbm_regions_round_trip_and_bound():
    m = tpb.Machine(gen="cayman", hbm_bytes=4096)
    assert m.hbm_bytes == 4096
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    m.write("hbm+0x100", x)
    np.testing.assert_array_equal(m.read("hbm+0x100:fp32:3x4"), x)
    with pytest.raises(tpb.Error):
        m.write("hbm+0xff0", x)
    with pytest.raises(tpb.Error):
        tpb.Machine(hbm_bytes=0)


def test_a_huge_read_is_an_error_not_a_crash():
    # Issue 29 item 8: reading 16 GiB of a 64 GiB HBM killed the interpreter (a failed
    # allocation); it is a tpb.RegionError naming the size, and a small read still works.
    m = tpb.Machine(gen="cayman", hbm_bytes=2**36)
    m.write("hbm+0x10", np.array([[2.5]], dtype=np.float32))
    with pytest.raises(tpb.RegionError, match="too large"):
        m.read("hbm+0x0:fp32:4294967296")
    np.testing.assert_array_equal(m.read("hbm+0x10:fp32:1"), [2.5])


def test_an_oversized_hbm_region_names_the_configured_hbm():
    # Issue 29 item 5: a region past the configured HBM is a tpb.RegionError naming that
    # HBM's size, also when its byte count passes 2^64 (it said "the 0x0-byte HBM"); a write
    # is refused before the array's bytes are gathered (a broadcast view stays unexpanded).
    m = tpb.Machine(gen="cayman", hbm_bytes=4096)
    for region in ("hbm+0x0:fp32:2305843009213693952x4", "hbm+0x10:fp32:2048"):
        with pytest.raises(tpb.RegionError, match="outside the 0x1000-byte HBM") as e:
            m.read(region)
        assert "0x0-byte" not in str(e.value)
    huge = np.broadcast_to(np.float32(1), (2**20, 2**20))  # 4 TiB if gathered
    with pytest.raises(tpb.RegionError, match="outside the 0x1000-byte HBM"):
        m.write("hbm+0x0", huge)
    m.write("hbm+0xff0", np.ones(4, np.float32))


def test_machine_runs_a_dma_from_hbm_to_sbuf():
    m = tpb.Machine(gen="cayman")
    x = (np.arange(64, dtype=np.float32) * 0.25).reshape(4, 16)
    m.write("hbm+0x0", x)
    m.run(
        tpb.asm(
            "dma_memcpy semaphore=2 sem_increment=1 src=hbm+0x0:[[64,4],[0,1]] src_elem_size=64 "
            "dst=sbuf[p0]+0x0:[[262144,4],[0,1]] dst_elem_size=64 in_dtype=fp32 out_dtype=fp32",
            gen="cayman",
        )
    )
    np.testing.assert_array_equal(m.read("sbuf[p0..4]+0x0:fp32:4x16"), x)
    assert m.semaphore(2) == 1


def test_dma_copy_casts_through_fp32_like_ml_dtypes():
    core = nki.Core(gen="cayman")
    rng = np.random.default_rng(7)
    x = rng.standard_normal((8, 32)).astype(np.float32) * 1000
    src = core.from_numpy(x)
    h = core.ndarray((8, 32), ml_dtypes.bfloat16, buffer="hbm")
    nki.isa.dma_copy(h, src, engine="scalar")
    want = x.astype(ml_dtypes.bfloat16)
    got = h.numpy()
    assert got.dtype == ml_dtypes.bfloat16
    np.testing.assert_array_equal(got.view(np.uint16), want.view(np.uint16))
    back = core.ndarray((8, 32), np.float32)
    nki.isa.dma_copy(back, h, dge_mode="swdge")
    np.testing.assert_array_equal(back.numpy(), want.astype(np.float32))
    assert "dma_memcpy" in core.disasm()
    assert ".engine act" in core.disasm() and ".engine pool" in core.disasm()


def test_dma_copy_argument_checks():
    core = nki.Core(gen="cayman")
    a = core.ndarray((2, 4), np.float32, buffer="hbm")
    b = core.ndarray((2, 2), np.float32)
    with pytest.raises(tpb.Error):
        nki.isa.dma_copy(b, a)  # element counts differ
    c = core.ndarray((2, 4), ml_dtypes.bfloat16)
    with pytest.raises(tpb.Error):
        nki.isa.dma_copy(c, a, dge_mode="hwdge")  # hwdge needs equal dtypes
    with pytest.raises(tpb.Error):
        nki.isa.dma_copy(c, a, engine="tensor")
    with pytest.raises(tpb.Error):
        nki.isa.dma_copy(c, a, priority=1)  # NeuronCore-v4+ only
    d = core.ndarray((2, 4), np.float32)
    nki.isa.dma_copy(d, a, engine=6, name="load")  # NKI enum value of engine.sync
