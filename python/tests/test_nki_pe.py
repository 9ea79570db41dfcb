"""The PE calls of ``tpb.nki`` (issue 18 items 3 and 5, issue 19 ``nl.matmul`` /
``nl.transpose``): ``nisa.nc_matmul``, the Tensor-engine ``nisa.nc_transpose``,
``nl.matmul`` and ``nl.transpose``, against NumPy.

The PE's summation order is not public (isa-facts-pe-act-dma §1.9); tpb follows the fact
sheet's recommendation (§8 item 7; assumption ``pe-summation-order``: exact products summed
sequentially over k in fp32 with one rounding per step, a fused multiply-add, PSUM
accumulation one more fp32 addition) and the reference below computes the same order with a
float32 fused multiply-add, so every comparison is bit-exact. The
bit-accurate transpose (§1.8) is compared bit for bit, NaN, Inf and -0.0 included.
"""

from __future__ import annotations

import pathlib
import ml_dtypes
import numpy as np
import pytest

import tpb
import tpb.nki as nki
import tpb.nki.isa as nisa
import tpb.nki.language as nl
from _outputs import hbm

rng = np.random.default_rng(18)


def fma32(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """``float32(a * b + c)`` with one rounding, elementwise. The product is exact in float64;
    TwoSum gives the float64 sum ``s`` and its exact error ``e``; rounding ``s`` to float32 is
    right unless ``s`` is a float32 midpoint, where the sign of ``e`` decides (the same method
    as ``tools/gen_pe_act_fixtures.py``, which checks it against exact fractions)."""
    a64, b64, c64 = (np.asarray(v, np.float32).astype(np.float64) for v in (a, b, c))
    p = a64 * b64
    s = p + c64
    bp = s - c64
    e = (p - bp) + (c64 - (s - bp))
    with np.errstate(over="ignore", invalid="ignore"):
        r = s.astype(np.float32)
        up = s > r.astype(np.float64)
        n = np.where(up, np.nextafter(r, np.float32(np.inf)),
                     np.nextafter(r, np.float32(-np.inf)))
        mid = (r.astype(np.float64) + n.astype(np.float64)) / 2
        toward_n = (s == mid) & (e != 0) & np.where(up, e > 0, e < 0)
        return np.where(toward_n, n, r).astype(np.float32)


def our_order(st: np.ndarray, mv: np.ndarray, acc: np.ndarray | None = None) -> np.ndarray:
    """``st.T @ mv`` in tpb's documented order (the k = 0 product rounded once to fp32, then
    ``out = fp32(out + st[k] * mv[k])`` with the product exact, sequentially over k), plus
    ``acc`` with one more fp32 addition."""
    st = st.astype(np.float32)
    mv = mv.astype(np.float32)
    out = st[0][:, None] * mv[0][None, :]
    for k in range(1, st.shape[0]):
        out = fma32(st[k][:, None], mv[k][None, :], out)
    return out if acc is None else acc + out


def same_bits(a: np.ndarray, b: np.ndarray) -> bool:
    return a.dtype == b.dtype and np.array_equal(a.view(np.uint32), b.view(np.uint32))


def core_with(gen: str = "cayman", **kw):
    return tpb._tpb.Core(gen, **kw)


DTYPES = [
    pytest.param(np.float32, id="float32"),
    pytest.param(ml_dtypes.bfloat16, id="bfloat16"),
    pytest.param(np.float16, id="float16"),
    pytest.param(ml_dtypes.float8_e4m3, id="fp8_e4m3"),
    pytest.param(ml_dtypes.float8_e5m2, id="fp8_e5m2"),
]


# isa-facts-pe-act-dma §1.2: dst = stationary.T @ moving; §1.7 the input dtypes.
@pytest.mark.parametrize("dtype", DTYPES)
def test_nc_matmul_matches_numpy_in_our_order(dtype):
    c = core_with()
    a = rng.standard_normal((96, 40)).astype(dtype)
    b = rng.standard_normal((96, 72)).astype(dtype)
    st, mv = c.from_numpy(a, "sbuf"), c.from_numpy(b, "sbuf")
    out = c.ndarray((40, 72), np.float32, "psum")
    r = nisa.nc_matmul(out, st, mv, name="mm")
    assert r.instructions == 2
    assert same_bits(out.numpy(), our_order(a, b))
    # The order is ours, not the hardware's: the report says so.
    assert [w.kind for w in r.warnings] == ["exact-per-our-order"]
    ref = a.astype(np.float64).T @ b.astype(np.float64)
    np.testing.assert_allclose(out.numpy(), ref, rtol=1e-4, atol=1e-4)


# isa-facts-pe-act-dma §1.9, §8 item 7 (issue 29 item 25): exact products. K = 2,
# W = [1, 1 + 2^-12], X = [-1, 1 + 2^-12]: the second product 1 + 2^-11 + 2^-24 is not a
# float32; rounding it first would give 2^-11, the exact sum is 2^-11 + 2^-24.
def test_nc_matmul_products_are_exact():
    c = core_with()
    a = np.float32(1 + 2.0**-12)
    w = np.array([[1.0], [a]], np.float32)
    x = np.array([[-1.0], [a]], np.float32)
    out = c.ndarray((1, 1), np.float32, "psum")
    nisa.nc_matmul(out, c.from_numpy(w, "sbuf"), c.from_numpy(x, "sbuf"))
    exact = np.float32(2.0**-11 + 2.0**-24)
    assert np.float32(-1) + a * a != exact
    assert out.numpy()[0, 0] == exact
    assert same_bits(out.numpy(), our_order(w, x))
    # The reference's fused step on the float64 double-rounding case: the float64 sum is the
    # float32 midpoint 2^40 + 2^17 + 2^16, the exact sum lies just below it.
    u = 2.0**-23
    w1, x1 = np.float32(256 * (1 + u)), np.float32(256 * (1 - u))
    got = fma32(w1, x1, np.float32(2.0**40 + 2.0**17))
    assert got == np.float32(2.0**40 + 2.0**17)


@pytest.mark.parametrize("gen", ["sunda", "cayman", "mariana"])
def test_nc_matmul_on_each_generation_with_views(gen):
    c = core_with(gen)
    big = rng.standard_normal((128, 256)).astype(np.float32)
    t = c.from_numpy(big, "sbuf")
    acc = c.ndarray((64, 1024), np.float32, "psum")
    # Views everywhere: a partition range, a free slice and a PSUM bank of a wider tile.
    nisa.nc_matmul(acc[:, 512:640], t[64:128, 0:64], t[64:128, nl.ds(128, 128)])
    assert same_bits(acc[:, 512:640].numpy(), our_order(big[64:, :64], big[64:, 128:256]))
    # An operand that does not start on a quadrant has no row_grp mask (§1.5.8).
    with pytest.raises(tpb.UsageError, match="quadrant"):
        nisa.nc_matmul(acc[:, 0:64], t[32:96, 0:64], t[32:96, 0:64])


# nki-api §3.2: accumulate False overwrites, True adds, None = first write overwrites,
# later ones add; isa-facts-pe-act-dma §1.5.2 the flags.
def test_accumulation_group_over_k_tiles():
    c = core_with()
    a = rng.standard_normal((3, 64, 32)).astype(np.float32)
    b = rng.standard_normal((3, 64, 48)).astype(np.float32)
    out = c.ndarray((32, 48), np.float32, "psum")
    want = None
    for k in range(3):
        st, mv = c.from_numpy(a[k], "sbuf"), c.from_numpy(b[k], "sbuf")
        nisa.nc_matmul(out, st, mv)  # accumulate=None
        want = our_order(a[k], b[k], want)
    assert same_bits(out.numpy(), want)
    # A non-matmul write ends the group: the next accumulate=None overwrites again.
    nisa.memset(out, 7.0)
    st, mv = c.from_numpy(a[0], "sbuf"), c.from_numpy(b[0], "sbuf")
    nisa.nc_matmul(out, st, mv)
    assert same_bits(out.numpy(), our_order(a[0], b[0]))
    # Explicit flags: True adds onto whatever is there, False overwrites.
    nisa.nc_matmul(out, st, mv, accumulate=True)
    assert same_bits(out.numpy(), our_order(a[0], b[0], our_order(a[0], b[0])))
    nisa.nc_matmul(out, st, mv, accumulate=False)
    assert same_bits(out.numpy(), our_order(a[0], b[0]))


def test_accumulate_none_restarts_in_a_new_tile():
    c = core_with()
    a = rng.standard_normal((16, 8)).astype(np.float32)
    st = c.from_numpy(a, "sbuf")
    first = c.ndarray((8, 8), np.float32, "psum")
    nisa.nc_matmul(first, st, st)
    del first  # freed: a new tile at the same bytes starts a new group
    second = c.ndarray((8, 8), np.float32, "psum")
    nisa.nc_matmul(second, st, st)
    assert same_bits(second.numpy(), our_order(a, a))
    # A group belongs to one view: a matmul into an overlapping view overwrites and ends it.
    half = c.from_numpy(a[:, :4], "sbuf")
    nisa.nc_matmul(second[:, 0:4], st, half)
    nisa.nc_matmul(second, st, st)
    assert same_bits(second.numpy(), our_order(a, a))
    nisa.nc_matmul(second[:, 0:4], st, half)
    assert same_bits(second[:, 0:4].numpy(), our_order(a, a[:, :4]))


def test_nc_matmul_refusals_name_the_argument():
    c = core_with()
    st = c.from_numpy(np.ones((64, 32), np.float32), "sbuf")
    mv = c.from_numpy(np.ones((64, 16), np.float32), "sbuf")
    short = c.from_numpy(np.ones((32, 16), np.float32), "sbuf")
    sb_dst = c.ndarray((32, 16), np.float32, "sbuf")
    out = c.ndarray((32, 16), np.float32, "psum")
    with pytest.raises(tpb.UsageError, match="dst.*PSUM only"):
        nisa.nc_matmul(sb_dst, st, mv)
    with pytest.raises(tpb.UsageError, match="moving: 32 partitions, but stationary has 64"):
        nisa.nc_matmul(out, st, short)
    with pytest.raises(tpb.UsageError, match=r"dst: shape \[32, 8\]"):
        nisa.nc_matmul(out[:, 0:8], st, mv)
    bf = c.from_numpy(np.ones((64, 16), ml_dtypes.bfloat16), "sbuf")
    with pytest.raises(tpb.UsageError, match="fp32 pairs only with fp32"):
        nisa.nc_matmul(out, st, bf)
    with pytest.raises(tpb.UsageError, match="dst: dtype bfloat16: the PE writes fp32"):
        nisa.nc_matmul(c.ndarray((32, 16), ml_dtypes.bfloat16, "psum"), st, mv)
    v4 = core_with("mariana")
    v4_in = v4.from_numpy(np.ones((64, 16), ml_dtypes.bfloat16), "sbuf")
    with pytest.raises(tpb.NotSupported, match="bfloat16 nc_matmul dst"):
        nisa.nc_matmul(v4.ndarray((16, 16), ml_dtypes.bfloat16, "psum"), v4_in, v4_in)
    wide = c.ndarray((32, 1024), np.float32, "psum")
    mv600 = c.from_numpy(np.ones((64, 600), np.float32), "sbuf")
    with pytest.raises(tpb.UsageError, match="PSUM bank"):
        nisa.nc_matmul(wide[:, 0:600], st, mv600)
    with pytest.raises(tpb.NotSupported, match="tile_position"):
        nisa.nc_matmul(out, st, mv, tile_position=(0, 0), tile_size=(64, 128))
    with pytest.raises(tpb.NotSupported, match="perf_mode"):
        nisa.nc_matmul(out, st, mv, perf_mode="double_row")
    m = core_with("maverick")  # no PSUM facts for v5: refused before anything else
    m_st = m.from_numpy(np.ones((64, 32), np.float32), "sbuf")
    with pytest.raises(tpb.NotSupported, match="maverick"):
        nisa.nc_matmul(m.ndarray((32, 16), np.float32, "sbuf"), m_st, m_st)
    # Nothing was emitted by the refused calls.
    assert c.instructions() == []
    with pytest.raises(tpb.NotSupported, match="double_row"):
        nisa.nc_matmul(out, st, mv, perf_mode=nisa.matmul_perf_mode.double_row)
    nisa.nc_matmul(out, st, mv, perf_mode=nisa.matmul_perf_mode.none, is_moving_onezero=True)
    assert len(c.instructions()) == 2


def test_strict_exact_refuses_a_matmul():
    c = core_with(strict_exact=True)
    st = c.from_numpy(np.ones((8, 8), np.float32), "sbuf")
    out = c.ndarray((8, 8), np.float32, "psum")
    with pytest.raises(tpb.Fault, match="exact"):
        nisa.nc_matmul(out, st, st)


# isa-facts-pe-act-dma §1.2 "Transpose", §1.8: the bit-accurate fp32 transpose (cayman+).
@pytest.mark.parametrize("gen", ["cayman", "mariana"])
def test_nc_transpose_on_the_pe_is_bit_accurate_for_fp32(gen):
    c = core_with(gen)
    x = rng.standard_normal((96, 80)).astype(np.float32)
    x[0, 0], x[1, 2], x[5, 7], x[9, 9] = np.nan, np.inf, -0.0, -np.inf
    t = c.from_numpy(x, "sbuf")
    out = c.ndarray((80, 96), np.float32, "psum")
    r = nisa.nc_transpose(out, t, engine=nisa.engine.tensor)
    assert same_bits(out.numpy(), x.T.copy())
    assert not [w for w in r.warnings if w.kind == "exact-per-our-order"]
    # is_transpose=True on nc_matmul with the identity is the same instruction pair.
    ident = c.from_numpy(np.eye(96, dtype=np.float32), "sbuf")
    out2 = c.ndarray((80, 96), np.float32, "psum")
    nisa.nc_matmul(out2, t, ident, is_transpose=True)
    assert same_bits(out2.numpy(), x.T.copy())


@pytest.mark.parametrize("dtype", DTYPES[1:])
def test_nc_transpose_of_narrow_dtypes_goes_through_fp32(dtype):
    c = core_with()
    x = rng.standard_normal((64, 128)).astype(dtype)
    t = c.from_numpy(x, "sbuf")
    out = c.ndarray((128, 64), np.float32, "psum")
    nisa.nc_transpose(out, t, engine="tensor")
    # Multiplying by the identity: every finite non-zero value comes out exact.
    assert np.array_equal(out.numpy(), x.T.astype(np.float32))
    narrow = c.ndarray((128, 64), dtype, "psum")
    with pytest.raises(tpb.NotSupported, match="16/8-bit"):
        nisa.nc_transpose(narrow, t, engine="tensor")


def test_nc_transpose_on_sunda_multiplies_by_the_identity():
    c = core_with("sunda")
    x = rng.standard_normal((32, 48)).astype(np.float32)
    t = c.from_numpy(x, "sbuf")
    out = c.ndarray((48, 32), np.float32, "psum")
    r = nisa.nc_transpose(out, t, engine="tensor")
    assert np.array_equal(out.numpy(), x.T)
    assert "exact-per-our-order" in [w.kind for w in r.warnings]


def test_nc_transpose_engine_choice():
    c = core_with()
    x = rng.standard_normal((32, 32)).astype(np.float32)
    t = c.from_numpy(x, "sbuf")
    vec = c.ndarray((32, 32), np.float32, "sbuf")
    nisa.nc_transpose(vec, t)  # unknown + [32, 32] SBUF: the Vector engine
    assert [i.mnemonic for i in c.instructions()] == ["stream_transpose"]
    pe = c.ndarray((32, 32), np.float32, "psum")
    nisa.nc_transpose(pe, t)  # unknown + a PSUM dst: the PE
    assert "matmul" in [i.mnemonic for i in c.instructions()]
    assert same_bits(vec.numpy(), x.T.copy()) and same_bits(pe.numpy(), x.T.copy())
    with pytest.raises(tpb.NotSupported, match="engine Gpsimd"):
        nisa.nc_transpose(c.ndarray((32, 32), np.float32, "sbuf"), t, engine=nisa.engine.gpsimd)


# nki-api §2.10: nl.matmul / nl.transpose, value-returning, results in PSUM. The kernels
# take their data from the host by assignment (tile[...] = array), not as HBM arguments.
def sbuf(a):
    t = nl.ndarray(a.shape, a.dtype)
    t[...] = a
    return t


LINE_ACC = next(i for i, line in enumerate(pathlib.Path(__file__).read_text().splitlines(), 1)
                if line.endswith("# LINE_ACC"))


def tiled(lhsT, rhs):
    @nki.jit
    def k():
        kk, m = lhsT.shape
        n = rhs.shape[1]
        # Host writes first: a profile replays the program, not writes between instructions.
        tiles = [(sbuf(lhsT[ki * 64:(ki + 1) * 64]), sbuf(rhs[ki * 64:(ki + 1) * 64]))
                 for ki in range(kk // 64)]
        acc = nl.zeros((m, n), nl.float32, buffer=nl.psum)
        for lt, rt in tiles:
            acc += nl.matmul(lt, rt, transpose_x=True)  # LINE_ACC
        return hbm(nl.copy(acc))

    return k


@pytest.mark.parametrize("dtype", [np.float32, ml_dtypes.bfloat16])
def test_nl_matmul_accumulates_into_psum_as_one_matmul_per_k_tile(dtype):
    lhsT = rng.standard_normal((192, 32)).astype(dtype)
    rhs = rng.standard_normal((192, 40)).astype(dtype)
    c = core_with()
    out = nki.simulate_kernel(tiled(lhsT, rhs), core=c)
    want = np.zeros((32, 40), np.float32)
    for ki in range(3):
        want = our_order(lhsT[ki * 64:(ki + 1) * 64], rhs[ki * 64:(ki + 1) * 64], want)
    assert same_bits(out, want)
    names = [i.mnemonic for i in c.instructions()]
    # One Memset (nl.zeros), three LoadWeights + Matmul pairs, one copy out: no adds.
    assert names.count("matmul") == 3 and names.count("load_weights") == 3
    assert "tensor_tensor" not in names


def test_nl_matmul_and_transpose_values():
    x = rng.standard_normal((48, 64)).astype(np.float32)  # [M, K]
    y = rng.standard_normal((64, 40)).astype(np.float32)  # [K, N]

    @nki.jit
    def k():
        tx, ty = sbuf(x), sbuf(y)
        xy = nl.matmul(tx, ty)  # transpose_x=False: x is transposed on the PE first
        xT = nl.transpose(tx)
        return hbm(nl.copy(xy), nl.copy(xT))

    xy, xT = nki.simulate_kernel(k)
    assert same_bits(xT, x.T.copy())
    assert same_bits(xy, our_order(x.T, y))


def test_nl_transpose_keeps_a_bf16_tile_exact():
    x = rng.standard_normal((128, 96)).astype(ml_dtypes.bfloat16)

    @nki.jit
    def k():
        tt = nl.transpose(sbuf(x))
        # A PSUM write needs a 4-byte dtype: the bf16 result is copied out to SBUF.
        assert tt.buffer == "sbuf" and np.dtype(tt.dtype) == nl.bfloat16
        return hbm(nl.copy(tt))

    out = nki.simulate_kernel(k)
    assert out.dtype == x.dtype and np.array_equal(out, x.T)


def test_legacy_nc_matmul_form_accumulates():
    a = rng.standard_normal((32, 16)).astype(np.float32)
    b = rng.standard_normal((32, 24)).astype(np.float32)

    @nki.jit
    def k():
        ta, tb = sbuf(a), sbuf(b)
        psum = nl.zeros((16, 24), nl.float32, buffer=nl.psum)
        psum += nisa.nc_matmul(ta, tb)
        psum += nisa.nc_matmul(ta, tb)
        return hbm(nl.copy(psum))

    out = nki.simulate_kernel(k)
    once = our_order(a, b)
    assert same_bits(out, once + once)


def test_psum_capacity_error_names_the_matmul_tile():
    a = np.ones((16, 128), np.float32)

    @nki.jit
    def k():
        t = sbuf(a)
        held = [nl.ndarray((128, 512), nl.float32, buffer=nl.psum, name=f"bank{i}")
                for i in range(8)]
        return nl.matmul(t, t, transpose_x=True), held

    with pytest.raises(tpb.CapacityError, match=r'tile "nl\.matmul at .*test_nki_pe\.py:\d+"'):
        nki.simulate_kernel(k)


def test_kernel_strict_exact_raises_and_profile_runs_race_free():
    a = rng.standard_normal((64, 32)).astype(np.float32)
    with pytest.raises(tpb.Fault, match="exact"):
        nki.simulate_kernel(tiled(a, a), strict_exact=True)
    out, prof = nki.profile_kernel(tiled(a, a))
    assert same_bits(out, our_order(a, a, np.zeros((32, 32), np.float32)))
    assert prof.instruction_counts["matmul"] == 1
    assert "pe" in {e["engine"] for e in prof.engines}
    # The profile names the Matmul whose result is exact only per tpb's order.
    (mm,) = prof.exact_per_our_order
    assert mm["mnemonic"] == "matmul" and mm["engine"] == "pe"
    assert mm["origin"].endswith(f"test_nki_pe.py:{LINE_ACC}")


def test_emitted_program_has_the_transpose_and_runs_race_free():
    a = rng.standard_normal((64, 32)).astype(np.float32)

    @nki.jit
    def k():
        return hbm(nl.copy(nl.transpose(nl.copy(nl.matmul(sbuf(a), sbuf(a), transpose_x=True)))))

    c = core_with()
    out = nki.simulate_kernel(k, core=c)
    assert same_bits(out, our_order(a, a).T.copy())
    assert "transpose_mode:1" in c.disasm()
    out2, prof = nki.profile_kernel(k)
    assert same_bits(out2, out) and prof.instruction_counts["load_weights"] == 2


def test_a_held_back_matmul_runs_before_a_later_host_write():
    a = rng.standard_normal((16, 8)).astype(np.float32)

    @nki.jit
    def k():
        t = sbuf(a)
        r = nl.matmul(t, t, transpose_x=True)
        t[...] = np.zeros_like(a)  # must not reach the matmul above
        return hbm(nl.copy(r))

    assert same_bits(nki.simulate_kernel(k), our_order(a, a))


# issue 19 item 4: the emitted multi-engine program (POOL iota, DVE copies, PE matmul and
# transpose with their semaphore waits) runs in `tpb run` with no race; `--strict-exact`
# refuses its Matmul (docs/reference/pe-act.md, "Numerics").
def test_pe_program_runs_in_tpb_run_and_strict_exact_refuses_it(tmp_path):
    @nki.jit
    def k():
        x = nl.ndarray((64, 32), nl.float32)
        nisa.iota(x, [[1, 32]], channel_multiplier=32)
        y = nl.multiply(x, 1.0 / 1024)
        return hbm(nl.copy(nl.transpose(nl.copy(nl.matmul(y, y, transpose_x=True)))))

    c = core_with()
    out = nki.simulate_kernel(k, core=c)
    y = (np.arange(64 * 32, dtype=np.float32).reshape(64, 32) * np.float32(1.0 / 1024))
    assert same_bits(out, our_order(y, y).T.copy())
    text = c.disasm()
    assert "wait_mode=sem_ge_imm" in text and "matmul" in text
    prog = tmp_path / "pe.tpb"
    prog.write_text(text)
    assert tpb._tpb.cli(["run", str(prog), "--out-dir", str(tmp_path / "o")]) == 0
    assert tpb._tpb.cli(["run", str(prog), "--strict-exact"]) != 0
    assert tpb.decode(c.bundles(), gen="cayman") == c.instructions()


def test_name_labels_the_pe_instructions():
    a = rng.standard_normal((32, 16)).astype(np.float32)

    @nki.jit
    def k():
        t = sbuf(a)
        acc = nl.ndarray((16, 16), nl.float32, buffer=nl.psum)
        nisa.nc_matmul(acc, t, t, name="gram")
        return hbm(nl.copy(acc))

    out, prof = nki.profile_kernel(k)
    assert same_bits(out, our_order(a, a))
    (mm,) = prof.exact_per_our_order
    assert mm["name"] == "gram" and "test_nki_pe.py" in mm["origin"]


def test_matmul_accumulates_into_a_subscripted_psum_view():
    a = rng.standard_normal((32, 16)).astype(np.float32)
    b = rng.standard_normal((32, 8)).astype(np.float32)

    @nki.jit
    def k():
        ta, tb = sbuf(a), sbuf(b)
        acc = nl.zeros((16, 24), nl.float32, buffer=nl.psum)
        acc[:, 8:16] += nl.matmul(ta, tb, transpose_x=True)
        acc[:, 8:16] += nl.matmul(ta, tb, transpose_x=True)
        out = nl.ndarray((16, 24), nl.float32)
        out[...] = acc  # legacy assignment of a tile: a copy on the device
        return hbm(out)

    out = nki.simulate_kernel(k)
    once = our_order(a, b)
    assert same_bits(out[:, 8:16], once + once)
    assert not out[:, :8].any() and not out[:, 16:].any()


# A property over random shapes, dtypes, quadrant starts and accumulation flags: every result
# equals the documented order's (isa-facts-pe-act-dma §1.2, §1.5.8, §1.7).
def test_random_matmuls_follow_the_documented_order():
    r = np.random.default_rng(1818)
    dtypes = [np.float32, ml_dtypes.bfloat16, np.float16, ml_dtypes.float8_e4m3,
              ml_dtypes.float8_e5m2]
    for case in range(8):
        gen = ["sunda", "cayman", "mariana"][case % 3]
        c = core_with(gen)
        start, k = [(0, int(r.integers(1, 129))), (64, int(r.integers(1, 65))),
                    (32, int(r.integers(1, 33))), (96, int(r.integers(1, 33)))][case % 4]
        m, n = int(r.integers(1, 129)), int(r.integers(1, 513))
        dt = dtypes[case % len(dtypes)]
        dt2 = dt if dt is np.float32 else dtypes[1 + (case // 5) % 4]
        a = r.standard_normal((start + k, m)).astype(dt)
        b = r.standard_normal((start + k, n)).astype(dt2)
        st = c.from_numpy(a, "sbuf")[start:start + k]
        mv = c.from_numpy(b, "sbuf")[start:start + k]
        out = c.ndarray((m, n), np.float32, "psum")
        nisa.nc_matmul(out, st, mv)
        want = our_order(a[start:], b[start:])
        accumulate = bool(case % 2)
        nisa.nc_matmul(out, st, mv, accumulate=accumulate)
        if accumulate:
            want = our_order(a[start:], b[start:], want)
        assert same_bits(out.numpy(), want), (gen, start, k, m, n, dt, dt2)


def test_is_transpose_on_sunda_is_an_ordinary_matmul():
    c = core_with("sunda")
    x = rng.standard_normal((16, 8)).astype(np.float32)
    ident = c.from_numpy(np.eye(16, dtype=np.float32), "sbuf")
    out = c.ndarray((8, 16), np.float32, "psum")
    r = nisa.nc_matmul(out, c.from_numpy(x, "sbuf"), ident, is_transpose=True)
    assert np.array_equal(out.numpy(), x.T)
    assert "exact-per-our-order" in [w.kind for w in r.warnings]


def test_nl_matmul_errors_at_its_own_line():
    a = np.ones((32, 16), np.float32)
    b = np.ones((16, 8), np.float32)

    @nki.jit
    def k():
        nl.matmul(sbuf(a), sbuf(b), transpose_x=True)  # K 32 vs 16

    with pytest.raises(tpb.UsageError, match="moving: 16 partitions, but stationary has 32"):
        nki.simulate_kernel(k)


def test_moving_must_feed_the_stationary_rows():
    c = core_with()
    t = c.from_numpy(rng.standard_normal((128, 64)).astype(np.float32), "sbuf")
    out = c.ndarray((32, 32), np.float32, "psum")
    with pytest.raises(tpb.UsageError, match="same PE rows"):
        nisa.nc_matmul(out, t[64:96, 0:32], t[96:128, 0:32])
    # A transpose of a view at partition 64 multiplies by the identity block there.
    x = rng.standard_normal((32, 48)).astype(np.float32)
    big = c.from_numpy(np.concatenate([np.zeros((64, 48), np.float32), x]), "sbuf")
    tt = c.ndarray((48, 32), np.float32, "psum")
    nisa.nc_transpose(tt, big[64:96], engine="tensor")
    assert same_bits(tt.numpy(), x.T.copy())


def test_a_failed_kernel_leaves_no_matmul_pending():
    a = np.ones((16, 8), np.float32)
    c = core_with()

    @nki.jit
    def broken():
        t = sbuf(a)
        nl.matmul(t, t, transpose_x=True)
        raise RuntimeError("kernel bug")

    with pytest.raises(RuntimeError):
        nki.simulate_kernel(broken, core=c)
    n = len(c.instructions())

    @nki.jit
    def fine():
        return hbm(nl.copy(sbuf(a)))

    nki.simulate_kernel(fine, core=c)
    assert "matmul" not in [i.mnemonic for i in c.instructions()[n:]]
