"""Idioms of the public NKI kernels that once stopped them (issue 27; docs/public-kernels.md).

tools/public_kernel_drivers.py runs the public kernels themselves (not vendored here); each
test below is the project's own restatement of the idiom that blocked one, with a passing and
an error case, checked against NumPy. The comment above each names the public kernel.
"""

from __future__ import annotations

import numpy as np
import pytest

import tpb
import tpb.nki as nki
import tpb.nki.isa as nisa
import tpb.nki.language as nl


# fused_mamba v1–v3 and attention_fwd v3–v6 (restated): a loop of legacy value-returning
# calls whose inputs are temporaries. Each iteration's tiles are freed when their last
# reference goes (docs/python.md "Allocation"); a binding retry once kept them alive in a
# reference cycle until the garbage collector ran, and the loop ran out of SBUF.
def _exp_loop(x, keep):
    out = nl.ndarray(x.shape, x.dtype, buffer=nl.shared_hbm)
    kept = []
    acc = nl.zeros((128, x.shape[1]), dtype=nl.float32)
    for _ in nl.affine_range(120):              # 120 x 2 KiB per partition > 224 KiB
        e = nisa.activation(op=nl.exp, data=nl.load(x[0:128, :]), scale=-1.0)
        if keep:
            kept.append(e)
        acc = nisa.tensor_tensor(acc, e, op=nl.add)
    nl.store(out[0:128, :], value=acc)
    return out


def test_legacy_call_temporaries_are_freed_each_iteration():
    x = np.linspace(0, 1, 128 * 512, dtype=np.float32).reshape(128, 512)
    got = nki.simulate_kernel(_exp_loop, x, False)
    want = np.zeros_like(x)
    e = np.exp(-x)
    for _ in range(120):
        want = want + e
    np.testing.assert_allclose(got, want, rtol=1e-5)  # Activate exp is approximate


def test_tiles_a_kernel_keeps_still_exhaust_sbuf():
    x = np.zeros((128, 512), np.float32)
    with pytest.raises(tpb.CapacityError, match="bytes per partition"):
        nki.simulate_kernel(_exp_loop, x, True)


# nki-samples matrix multiplication basic / tiled / hoist_load (restated): the PSUM result is
# copied to SBUF with the transitional keyword form tensor_copy(dst=, src=, dtype=).
def _matmul_copy(a_t, b, dtype):
    out = nl.ndarray((a_t.shape[1], b.shape[1]), dtype=nl.float32, buffer=nl.shared_hbm)
    ps = nl.ndarray((a_t.shape[1], b.shape[1]), dtype=nl.float32, buffer=nl.psum)
    nisa.nc_matmul(ps, nl.load(a_t), nl.load(b))
    sb = nl.ndarray(ps.shape, dtype=nl.float32, buffer=nl.sbuf)
    nisa.tensor_copy(dst=sb, src=ps, dtype=dtype)
    nl.store(out, value=sb)
    return out


def test_tensor_copy_dst_with_dtype_keyword():
    r = np.random.default_rng(1)
    a_t = r.random((128, 64), dtype=np.float32)
    b = r.random((128, 256), dtype=np.float32)
    got = nki.simulate_kernel(_matmul_copy, a_t, b, np.float32)
    np.testing.assert_allclose(got, a_t.T @ b, rtol=1e-5)


def test_tensor_copy_dtype_other_than_dst_is_refused():
    a_t = np.ones((128, 64), np.float32)
    b = np.ones((128, 256), np.float32)
    with pytest.raises(tpb.UsageError, match="dtype=.*differs from dst"):
        nki.simulate_kernel(_matmul_copy, a_t, b, nl.bfloat16)


# attention_fwd v9/v10 and nki-library rotational_topk (restated): nl.shared_constant embeds
# a NumPy array (or a .npy file) as a constant HBM tensor (nki-api §2), read with nl.load.
def _identity_scale(x, path):
    out = nl.ndarray(x.shape, x.dtype, buffer=nl.shared_hbm)
    ident = nl.load(nl.shared_constant(np.identity(64, dtype=np.int8), dtype=np.float32))
    col = nl.load(nl.shared_constant(path))
    t = nl.ndarray(x.shape, nl.float32, buffer=nl.sbuf)
    nisa.tensor_scalar(t, ident, nl.multiply, col)
    nisa.tensor_tensor(t, t, nl.load(x), nl.add)
    nl.store(out, value=t)
    return out


def test_shared_constant_from_an_array_and_a_npy_file(tmp_path):
    col = np.arange(64, dtype=np.float32).reshape(64, 1)
    np.save(tmp_path / "col.npy", col)
    x = np.full((64, 64), 0.5, np.float32)
    got = nki.simulate_kernel(_identity_scale, x, str(tmp_path / "col.npy"))
    np.testing.assert_array_equal(got, np.identity(64, dtype=np.float32) * col + x)


def test_shared_constant_refuses_what_is_not_an_array(tmp_path):
    x = np.zeros((64, 64), np.float32)
    with pytest.raises(tpb.UsageError, match="cannot read a .npy"):
        nki.simulate_kernel(_identity_scale, x, str(tmp_path / "missing.npy"))
    with pytest.raises(tpb.UsageError, match="expected a NumPy array"):
        nki.simulate_kernel(_identity_scale, x, [1.0] * 64)


# sd_attention (tutorial and reference) (restated): nl.load_transpose2d of a (seq, d) HBM view
# gives the (d, seq) tile, nki-api §2.7 (HBM -> SBUF with a 2-D transpose).
def _load_transposed(k, rows, dtype):
    out = nl.ndarray((k.shape[1], rows), nl.float32, buffer=nl.shared_hbm)
    i_p = nl.arange(rows)[:, None]
    i_f = nl.arange(k.shape[1])[None, :]
    t = nl.load_transpose2d(k[32 + i_p, i_f], dtype=dtype)
    c = nl.ndarray(t.shape, nl.float32, buffer=nl.sbuf)
    nisa.tensor_copy(c, t)
    nl.store(out, value=c)
    return out


def test_load_transpose2d_of_an_index_expression_view():
    k = np.arange(256 * 64, dtype=np.float32).reshape(256, 64)
    got = nki.simulate_kernel(_load_transposed, k, 128, None)
    np.testing.assert_array_equal(got, k[32:160].T)
    got16 = nki.simulate_kernel(_load_transposed, k / 1024, 96, nl.bfloat16)
    want16 = (k[32:128] / 1024).T.astype(nl.bfloat16).astype(np.float32)
    np.testing.assert_array_equal(got16, want16)


def test_load_transpose2d_refuses_a_mask_and_a_3d_source():
    def masked(k):
        i_p = nl.arange(64)[:, None]
        i_f = nl.arange(64)[None, :]
        nl.load_transpose2d(k[i_p, i_f], mask=(i_p < 32))

    def three_d(k):
        nl.load_transpose2d(k)

    with pytest.raises(tpb.NotSupported, match="mask="):
        nki.simulate_kernel(masked, np.zeros((64, 64), np.float32))
    with pytest.raises(tpb.UsageError, match="a 2-D tensor or view"):
        nki.simulate_kernel(three_d, np.zeros((2, 64, 64), np.float32))


# reference flash_fwd (restated): nl.zeros / nl.full take the legacy lazy_initialization=
# keyword; the tile is filled either way (nki-api §4.4 creation functions take **kwargs).
def _lazy(a):
    out = nl.ndarray(a.shape, a.dtype, buffer=nl.shared_hbm)
    z = nl.zeros(a.shape, nl.float32, buffer=nl.sbuf, lazy_initialization=True)
    f = nl.full(a.shape, 2.0, nl.float32, buffer=nl.sbuf, lazy_initialization=False)
    nisa.tensor_tensor(z, z, f, nl.add)
    nl.store(out, value=z)
    return out


def test_lazy_initialization_fills_as_ever():
    got = nki.simulate_kernel(_lazy, np.zeros((128, 16), np.float32))
    np.testing.assert_array_equal(got, np.full((128, 16), 2.0, np.float32))


def test_an_unknown_creation_keyword_is_still_refused():
    def typo(a):
        nl.zeros(a.shape, nl.float32, lazy_init=True)

    with pytest.raises(tpb.UsageError, match="did you mean lazy_initialization"):
        nki.simulate_kernel(typo, np.zeros((4, 4), np.float32))


# contributed neuron-team transposes (restated): `from nki.language.constants import
# sizeinbytes` through the drop-in; sizeinbytes is the dtype's element size.
def test_language_constants_sizeinbytes_through_the_dropin():
    from tpb.nki import dropin
    with dropin.installed():
        from neuronxcc.nki.language.constants import sizeinbytes
        from nki.language.constants import sizeinbytes as again
        assert again is sizeinbytes
        assert [sizeinbytes(d) for d in (nl.bfloat16, nl.float32, nl.int8)] == [2, 4, 1]
        with pytest.raises(tpb.UsageError, match="not a dtype"):
            sizeinbytes("no such dtype")
        with pytest.raises(tpb.DtypeError):
            sizeinbytes(nl.float8_e4m3fn_x4)


# nki-library cascaded_max (restated): the row maximum (tensor_reduce) broadcast to eight keys
# with a zero-step .ap(), then nc_find_index8: slot 0 is NumPy's argmax (first occurrence),
# assumption `search-nki-order` in docs/reference/assumptions.md.
def _argmax_rows(x, n_keys):
    p, f = x.shape
    out = nl.ndarray((p, 1), nl.uint32, buffer=nl.shared_hbm)
    d = nl.load(x)
    m = nl.ndarray((p, 1), nl.float32, buffer=nl.sbuf)
    nisa.tensor_reduce(dst=m, op=nl.maximum, data=d, axis=1)
    idx = nl.ndarray((p, 8), nl.uint32, buffer=nl.sbuf)
    nisa.nc_find_index8(dst=idx, data=d, vals=m.ap([[1, p], [0, n_keys]]))
    nl.store(out, value=idx[:, 0:1])
    return out


def test_find_index8_with_a_repeated_key_gives_the_argmax_in_slot_zero():
    x = np.random.default_rng(3).standard_normal((16, 300)).astype(np.float32)
    x[5, 17] = x[5, 200] = 9.0                       # a tie: the first occurrence wins
    got = nki.simulate_kernel(_argmax_rows, x, 8)
    np.testing.assert_array_equal(got[:, 0], np.argmax(x, axis=1))


def test_find_index8_refuses_other_than_eight_keys():
    x = np.zeros((16, 300), np.float32)
    with pytest.raises(tpb.Error, match="8 values per partition"):
        nki.simulate_kernel(_argmax_rows, x, 4)


# contributed neuron-team cumsum (restated): y = cumsum(x) along the free axis in tiles of F,
# the running total carried with a Python-bool mask (`mask=j + 1 < n_tiles`, False on the
# last tile: nothing runs), written into the output the caller passed in (NKI's simulator
# updates such inputs).
def _cumsum_into(x, y, f):
    p, n = x.shape
    i_p, i_f = nl.mgrid[0:p, 0:f]
    ones = nl.ones((p, f), dtype=nl.float32)
    init = nl.zeros((p, 1), dtype=nl.float32)
    for j in nl.affine_range(n // f):
        data = nl.load(x[i_p, j * f + i_f])
        run = nisa.tensor_tensor_scan(data0=ones, data1=data, initial=init, op0=np.multiply,
                                      op1=np.add, dtype=nl.float32)
        nl.store(y[i_p, j * f + i_f], run)
        init[:, :] = nl.copy(run[:, f - 1], mask=j + 1 < n // f)


def test_python_bool_mask_and_an_input_written_by_the_kernel():
    x = np.random.default_rng(4).random((64, 96), dtype=np.float32)
    y = np.zeros_like(x)
    assert nki.simulate_kernel(_cumsum_into, x, y, 32) is None
    np.testing.assert_allclose(y, np.cumsum(x, axis=1), rtol=1e-5)
    np.testing.assert_array_equal(x, np.random.default_rng(4).random((64, 96), np.float32))


def test_false_mask_runs_nothing_and_a_non_mask_is_refused():
    def masked_store(a, keep):
        t = nl.load(a)
        nl.store(a, value=nl.add(t, 1.0), mask=keep)

    a = np.zeros((8, 8), np.float32)
    nki.simulate_kernel(masked_store, a, False)
    np.testing.assert_array_equal(a, 0.0)
    nki.simulate_kernel(masked_store, a, True)
    np.testing.assert_array_equal(a, 1.0)
    with pytest.raises(tpb.UsageError, match="mask"):
        nki.simulate_kernel(masked_store, a, "yes")


def test_a_host_assignment_into_an_input_comes_back_and_an_untouched_input_is_left_alone():
    # The write-back reads back only what was written after the arguments were placed: an
    # instruction's write, or a host assignment (`x[0:1, 0:2] = value` from the kernel's
    # Python); a read-only input nothing writes is fine (it is not even read back).
    def assigns(a, b):
        a[0:1, 0:2] = 7.0
        out = nl.ndarray(b.shape, dtype=b.dtype, buffer=nl.shared_hbm)
        nl.store(out, value=nl.load(b))
        return out

    a = np.zeros((4, 4), np.float32)
    b = np.arange(16, dtype=np.float32).reshape(4, 4)
    b.flags.writeable = False
    out = nki.simulate_kernel(assigns, a, b, replay=False)
    np.testing.assert_array_equal(out, b)
    want = np.zeros((4, 4), np.float32)
    want[0, :2] = 7.0
    np.testing.assert_array_equal(a, want)


def test_an_input_written_into_a_read_only_array_is_refused():
    def writes_input(a):
        nl.store(a, value=nl.add(nl.load(a), 1.0))

    a = np.zeros((8, 8), np.float32)
    a.flags.writeable = False
    with pytest.raises(tpb.UsageError, match="read-only"):
        nki.simulate_kernel(writes_input, a)


# contributed matmul (restated): each block's PSUM product is reduced into an SBUF
# accumulator with `acc[...] = nl.loop_reduce(psum, op=np.add, loop_indices=[k])`, which is
# acc = acc + psum (legacy nl.loop_reduce: the destination is the other operand).
def _blocked_matmul(a_t, b, op):
    kk, m = a_t.shape
    out = nl.ndarray((m, b.shape[1]), nl.float32, buffer=nl.shared_hbm)
    acc = nl.zeros((m, b.shape[1]), nl.float32, buffer=nl.sbuf)
    for k in nl.affine_range(kk // 128):
        ps = nl.zeros((m, b.shape[1]), nl.float32, buffer=nl.psum)
        ps += nisa.nc_matmul(nl.load(a_t[k * 128:(k + 1) * 128, :]),
                             nl.load(b[k * 128:(k + 1) * 128, :]))
        acc[...] = nl.loop_reduce(ps, op=op, loop_indices=[k], dtype=nl.float32)
    nl.store(out, value=acc)
    return out


def test_loop_reduce_accumulates_into_its_destination():
    r = np.random.default_rng(5)
    a_t = r.integers(-4, 4, (384, 64)).astype(np.float32)
    b = r.integers(-4, 4, (384, 128)).astype(np.float32)
    got = nki.simulate_kernel(_blocked_matmul, a_t, b, np.add)
    np.testing.assert_array_equal(got, a_t.T @ b)          # small integers: exact
    got_max = nki.simulate_kernel(_blocked_matmul, a_t, b, np.maximum)
    blocks = [a_t[k * 128:(k + 1) * 128].T @ b[k * 128:(k + 1) * 128] for k in range(3)]
    np.testing.assert_array_equal(got_max, np.maximum(0, np.maximum.reduce(blocks)))


def test_loop_reduce_refuses_a_non_operator_and_a_rebound_result():
    a_t = np.zeros((128, 64), np.float32)
    b = np.zeros((128, 128), np.float32)
    with pytest.raises(tpb.UsageError, match="op"):
        nki.simulate_kernel(_blocked_matmul, a_t, b, "no such op")

    def rebound(a):
        t = nl.load(a)
        r = nl.loop_reduce(t, np.add, [0])
        nl.store(a, value=r)

    with pytest.raises(tpb.UsageError, match="expected a tile, not tpb.nki.language.LoopReduce"):
        nki.simulate_kernel(rebound, np.zeros((4, 4), np.float32))


# nki-library attention_cte (restated): q rows read with a 4-D .ap() pattern and transposed
# by the DMA into a (d, rows) SBUF tile, nki-api §3 dma_transpose (axes (3, 1, 2, 0)).
def _q_transposed(q, rows, row0):
    s, d = q.shape
    out = nl.ndarray((d, rows), q.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray((d, rows), q.dtype, buffer=nl.sbuf)
    nisa.dma_transpose(dst=t.ap([[rows, d], [1, 1], [1, 1], [1, rows]]),
                       src=q.ap([[d, rows], [1, 1], [1, 1], [1, d]], offset=row0 * d))
    t2 = nl.ndarray((d, rows), q.dtype, buffer=nl.sbuf)
    nisa.dma_transpose(t2, q[row0:row0 + rows, :])             # 2-D, axes (1, 0)
    nisa.tensor_tensor(t, t, t2, nl.subtract)                  # the two agree: t - t2 == 0
    nisa.tensor_tensor(t, t, t2, nl.add)
    nl.store(out, value=t)
    return out


def test_dma_transpose_of_an_hbm_pattern():
    q = np.arange(64 * 32, dtype=np.float32).reshape(64, 32)
    got = nki.simulate_kernel(_q_transposed, q, 16, 8)
    np.testing.assert_array_equal(got, q[8:24].T)


def test_dma_transpose_refuses_a_psum_source_a_dtype_change_and_a_wrong_shape():
    def from_psum(q):
        p = nl.ndarray((q.shape[0], q.shape[1]), q.dtype, buffer=nl.psum)
        d = nl.ndarray((q.shape[1], q.shape[0]), q.dtype, buffer=nl.sbuf)
        nisa.dma_transpose(d, p)

    def converting(q):
        d = nl.ndarray((q.shape[1], q.shape[0]), nl.bfloat16, buffer=nl.sbuf)
        nisa.dma_transpose(d, q)

    def wrong_shape(q):
        d = nl.ndarray(q.shape, q.dtype, buffer=nl.sbuf)
        nisa.dma_transpose(d, q)

    def sbuf_wrong_shape(q):
        t = nl.load(q)
        d = nl.ndarray(q.shape, q.dtype, buffer=nl.sbuf)
        nisa.dma_transpose(d, t)

    q = np.zeros((16, 32), np.float32)
    with pytest.raises(tpb.NotSupported, match="PSUM source"):
        nki.simulate_kernel(from_psum, q)
    with pytest.raises(tpb.UsageError, match="does not convert"):
        nki.simulate_kernel(converting, q)
    with pytest.raises(tpb.UsageError, match="permuted by"):
        nki.simulate_kernel(wrong_shape, q)
    with pytest.raises(tpb.UsageError, match="permuted by"):
        nki.simulate_kernel(sbuf_wrong_shape, q)


# nki-library attention_cte (restated): the exp tile is transposed SBUF to SBUF by the DMA,
# a 4-D .ap() read of [rows partitions, 1, blocks, 128] permuted by (3, 1, 2, 0) into
# [128 partitions, 1, blocks, rows] (nki-api §3 dma_transpose: dst = src permuted); and a
# plain 2-D SBUF tile with axes (1, 0).
def _sbuf_transposes(x, rows, blocks):
    out4 = nl.ndarray((128, blocks * rows), x.dtype, buffer=nl.shared_hbm)
    out2 = nl.ndarray((128, rows), x.dtype, buffer=nl.shared_hbm)
    t = nl.load(x)                                            # (P, blocks * 128)
    d = nl.ndarray((128, blocks * rows), x.dtype, buffer=nl.sbuf)
    width = x.shape[1]
    nisa.dma_transpose(dst=d.ap([[blocks * rows, 128], [1, 1], [rows, blocks], [1, rows]]),
                       src=t.ap([[width, rows], [1, 1], [128, blocks], [1, 128]]))
    nl.store(out4, value=d)
    d2 = nl.ndarray((128, rows), x.dtype, buffer=nl.sbuf)
    nisa.dma_transpose(d2, t[:, 128:256])
    nl.store(out2, value=d2)
    return out4, out2


def test_dma_transpose_of_an_sbuf_source():
    rows, blocks = 48, 3
    x = np.arange(rows * blocks * 128, dtype=np.float32).reshape(rows, blocks * 128)
    got4, got2 = nki.simulate_kernel(_sbuf_transposes, x, rows, blocks)
    # dst[q, b * rows + p] = src[p, b * 128 + q]
    want4 = x.reshape(rows, blocks, 128).transpose(2, 1, 0).reshape(128, blocks * rows)
    np.testing.assert_array_equal(got4, want4)
    np.testing.assert_array_equal(got2, x[:, 128:256].T)


# nki-library attention_cte (restated): a @dataclass NKIObject whose fields are plain class
# attributes (no annotations) takes them as keyword arguments.
def test_nkiobject_plain_class_attributes_are_dataclass_fields():
    import dataclasses

    @dataclasses.dataclass
    class Section(nl.NKIObject):
        idx = None
        offset = 0
        sizes = [1, 2]            # a mutable default stays a class attribute

        def end(self):
            return self.offset + 1

    s = Section(idx=3, offset=5)
    assert (s.idx, s.offset, s.end(), Section.sizes) == (3, 5, 6, [1, 2])
    with pytest.raises(TypeError, match="sizes"):
        Section(sizes=[3])


# --- whole-kernel restatements, each checked against NumPy --------------------------------

# nki-samples rmsnorm (restated): rows in tiles of 128 with a ragged masked tail, the row
# mean of squares, rsqrt, and the gain broadcast from one partition.
def _rmsnorm(a, g):
    n, f = a.shape
    out = nl.ndarray(a.shape, a.dtype, buffer=nl.shared_hbm)
    i_p = nl.arange(128)[:, None]
    i_f = nl.arange(f)[None, :]
    gain = nl.load(g.reshape((1, f))[nl.arange(1)[:, None], i_f]).broadcast_to((128, f))
    for i in nl.affine_range((n + 127) // 128):
        rows = i * 128 + i_p
        x = nl.load(a[rows, i_f], mask=(rows < n))
        ms = nl.mean(nl.square(x, mask=(rows < n)), axis=1, mask=(rows < n))
        y = nl.multiply(nl.multiply(x, nl.rsqrt(ms, mask=(rows < n)), mask=(rows < n)), gain,
                        mask=(rows < n))
        nl.store(out[rows, i_f], value=y, mask=(rows < n))
    return out


def test_restated_rmsnorm_with_a_ragged_tail():
    r = np.random.default_rng(6)
    a = r.random((250, 64), dtype=np.float32) + 0.1
    g = r.random(64, dtype=np.float32)
    want = a / np.sqrt(np.mean(a * a, axis=1, keepdims=True)) * g
    np.testing.assert_allclose(nki.simulate_kernel(_rmsnorm, a, g), want, rtol=1e-4)


# nki-samples softmax (restated): the row max, exp of the shifted row, the row sum and a
# division, on 250 rows in tiles of 128.
def _softmax(a):
    n, f = a.shape
    out = nl.ndarray(a.shape, a.dtype, buffer=nl.shared_hbm)
    i_p = nl.arange(128)[:, None]
    i_f = nl.arange(f)[None, :]
    for i in nl.affine_range((n + 127) // 128):
        rows = i * 128 + i_p
        x = nl.load(a[rows, i_f], mask=(rows < n))
        e = nl.exp(nl.subtract(x, nl.max(x, axis=1, mask=(rows < n)), mask=(rows < n)),
                   mask=(rows < n))
        y = nl.divide(e, nl.sum(e, axis=1, mask=(rows < n)), mask=(rows < n))
        nl.store(out[rows, i_f], value=y, mask=(rows < n))
    return out


def test_restated_softmax():
    a = np.random.default_rng(7).standard_normal((250, 96)).astype(np.float32)
    e = np.exp(a - a.max(axis=1, keepdims=True))
    want = e / e.sum(axis=1, keepdims=True)
    np.testing.assert_allclose(nki.simulate_kernel(_softmax, a), want, rtol=1e-4, atol=1e-7)


# nki-samples tensor_add (restated): an SPMD 2 x 2 grid, each instance adding its 128 x 512
# block located with nl.program_id.
@nki.jit
def _tensor_add_block(a, b):
    out = nl.ndarray(a.shape, a.dtype, buffer=nl.shared_hbm)
    r0 = nl.program_id(0) * 128
    c0 = nl.program_id(1) * 512
    x = nl.load(a[r0:r0 + 128, c0:c0 + 512])
    y = nl.load(b[r0:r0 + 128, c0:c0 + 512])
    nl.store(out[r0:r0 + 128, c0:c0 + 512], value=x + y)
    return out


def test_restated_spmd_tensor_add():
    r = np.random.default_rng(8)
    a, b = r.random((256, 1024), dtype=np.float32), r.random((256, 1024), dtype=np.float32)
    np.testing.assert_array_equal(_tensor_add_block[2, 2](a, b), a + b)


# nki-library rope_hf (restated): x * cos + rotate_half(x) * sin on a (seq, d) tile, the
# halves swapped and negated through views, outputs written into caller-given arrays.
def _rope_half(x, cos, sin, x_out):
    s, d = x.shape
    h = d // 2
    t = nl.load(x)
    c = nl.load(cos)
    sn = nl.load(sin)
    rot = nl.ndarray((s, d), nl.float32, buffer=nl.sbuf)
    nisa.tensor_scalar(rot[:, 0:h], t[:, h:d], nl.multiply, -1.0)
    nisa.tensor_copy(rot[:, h:d], t[:, 0:h])
    y = nl.add(nl.multiply(t, c), nl.multiply(rot, sn))
    nl.store(x_out, value=y)


def test_restated_rope_hf_into_a_given_output():
    r = np.random.default_rng(9)
    x = r.standard_normal((128, 64)).astype(np.float32)
    ang = r.random((128, 32), dtype=np.float32)
    cos = np.cos(np.concatenate([ang, ang], 1)).astype(np.float32)
    sin = np.sin(np.concatenate([ang, ang], 1)).astype(np.float32)
    out = np.zeros_like(x)
    nki.simulate_kernel(_rope_half, x, cos, sin, out)
    rot = np.concatenate([-x[:, 32:], x[:, :32]], 1)
    np.testing.assert_allclose(out, x * cos + rot * sin, rtol=1e-6, atol=1e-6)


# nki-samples attention_fwd v1 (restated): q^T k on the PE, a row softmax, the scores
# transposed on the PE and multiplied by v^T, stored straight from PSUM.
def _attention_v1(q, k, v):
    d, s = q.shape
    out = nl.ndarray((s, d), q.dtype, buffer=nl.shared_hbm)
    qk = nl.matmul(nl.load(q), nl.load(k), transpose_x=True)          # (s, s) in PSUM
    e = nl.exp(nl.subtract(qk, nl.max(qk, axis=1)))
    scores = nl.divide(e, nl.sum(e, axis=1))
    v_t = nl.transpose(nl.load(v))                                     # (s, d)
    o = nl.matmul(nl.copy(nl.transpose(scores)), nl.copy(v_t), transpose_x=True)
    nl.store(out, value=o)
    return out


def test_restated_attention_v1():
    r = np.random.default_rng(10)
    q, k, v = ((r.random((64, 128), dtype=np.float32) - 0.5) for _ in range(3))
    qk = q.T @ k
    e = np.exp(qk - qk.max(axis=1, keepdims=True))
    want = (e / e.sum(axis=1, keepdims=True)) @ v.T
    np.testing.assert_allclose(nki.simulate_kernel(_attention_v1, q, k, v), want, rtol=1e-3,
                               atol=1e-4)


# nki-samples layernorm v1 (restated): mean and mean of squares along the row, shift and
# scale by rsqrt(var + eps), then the gamma/beta rows broadcast from one partition.
def _layernorm(x, eps, gamma, beta):
    n, f = x.shape
    out = nl.ndarray(x.shape, x.dtype, buffer=nl.shared_hbm)
    i_f = nl.arange(f)[None, :]
    one = nl.arange(1)[:, None]
    g = nl.load(gamma.reshape((1, f))[one, i_f]).broadcast_to((n, f))
    b = nl.load(beta.reshape((1, f))[one, i_f]).broadcast_to((n, f))
    t = nl.load(x)
    mean = nl.mean(t, axis=1)
    var = nl.mean(nl.square(t), axis=1) - mean * mean
    y = (t - mean) * nl.rsqrt(var + eps) * g + b
    nl.store(out, value=y)
    return out


def test_restated_layernorm_v1():
    r = np.random.default_rng(11)
    x = r.random((100, 256), dtype=np.float32)
    gamma, beta = r.random(256, dtype=np.float32), r.random(256, dtype=np.float32)
    mu = x.mean(axis=1, keepdims=True)
    want = (x - mu) / np.sqrt(x.var(axis=1, keepdims=True) + 1e-5) * gamma + beta
    got = nki.simulate_kernel(_layernorm, x, 1e-5, gamma, beta)
    np.testing.assert_allclose(got, want, rtol=1e-3, atol=1e-4)


# nki-samples layernorm v2 (restated): the row statistics come from nisa.bn_stats over
# bn_stats_fmax-wide chunks of the row (a mask trims the last chunk), gathered side by side
# and folded by nisa.bn_aggr; one tensor_scalar then subtracts the mean and multiplies by
# rsqrt(var + eps) (assumption bn-stats-lowering: approximate, fp32).
def _layernorm_bn(x, eps, gamma, beta):
    n, f = x.shape
    out = nl.ndarray(x.shape, x.dtype, buffer=nl.shared_hbm)
    i_p, i_f = nl.arange(n)[:, None], nl.arange(f)[None, :]
    one = nl.arange(1)[:, None]
    g = nl.load(gamma.reshape((1, f))[one, i_f]).broadcast_to((n, f))
    b = nl.load(beta.reshape((1, f))[one, i_f]).broadcast_to((n, f))
    t = nl.load(x[i_p, i_f])
    fmax = nl.tile_size.bn_stats_fmax
    chunks = (f + fmax - 1) // fmax
    i_bn, i_six = nl.arange(fmax)[None, :], nl.arange(6)[None, :]
    stats = nl.ndarray((n, 6 * chunks), dtype=np.float32)
    for j in nl.affine_range(chunks):
        stats[i_p, j * 6 + i_six] = nisa.bn_stats(t[i_p, j * fmax + i_bn],
                                                  mask=(j * fmax + i_bn < f),
                                                  dtype=np.float32)
    mean_var = nisa.bn_aggr(stats[i_p, nl.arange(6 * chunks)[None, :]])
    scale = nl.rsqrt(mean_var[i_p, 1] + eps)
    y = nisa.tensor_scalar(data=t, op0=np.subtract, operand0=mean_var[i_p, 0],
                           op1=np.multiply, operand1=scale)
    nl.store(out[i_p, i_f], value=y * g + b)
    return out


def test_restated_layernorm_v2_with_bn_stats():
    r = np.random.default_rng(12)
    x = r.random((100, 700), dtype=np.float32)          # two chunks, the second ragged
    gamma, beta = r.random(700, dtype=np.float32), r.random(700, dtype=np.float32)
    mu = x.mean(axis=1, keepdims=True)
    want = (x - mu) / np.sqrt(x.var(axis=1, keepdims=True) + 1e-5) * gamma + beta
    got = nki.simulate_kernel(_layernorm_bn, x, 1e-5, gamma, beta)
    np.testing.assert_allclose(got, want, rtol=1e-3, atol=1e-4)  # rsqrt is approximate


def test_restated_layernorm_v2_refuses_a_chunk_wider_than_bn_stats_fmax():
    def wide(x):
        t = nl.load(x)
        nisa.bn_stats(t)

    with pytest.raises(tpb.UsageError, match="bn_stats_fmax"):
        nki.simulate_kernel(wide, np.zeros((8, 1024), np.float32))


# attention_fwd v9/v10 (restated): nki.compiler.psum/sbuf.mod_alloc(..., num_*_tiles=(m,))
# places block i of a block dim at physical block i % m; four blocks in two slots, so
# block 2 reads what block 0 wrote (the compiler's modulo placement).
def _modulo_blocks(a):
    from tpb.nki import compiler
    out = nl.ndarray((4, 128, 64), a.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray((4, nl.par_dim(128), 64), nl.float32,
                   buffer=compiler.sbuf.mod_alloc(base_addr=0, num_free_tiles=(2,)))
    for i in nl.affine_range(2):
        t[i] = nl.load(a[i])
    for i in nl.affine_range(4):
        c = nl.ndarray((128, 64), nl.float32, buffer=nl.sbuf)
        nisa.tensor_copy(c, t[i])
        nl.store(out[i], value=c)
    return out


def test_mod_alloc_blocks_wrap_modulo_the_tile_count():
    a = np.arange(2 * 128 * 64, dtype=np.float32).reshape(2, 128, 64)
    got = nki.simulate_kernel(_modulo_blocks, a)
    np.testing.assert_array_equal(got, np.concatenate([a, a]))


def test_mod_alloc_refuses_a_slice_across_blocks_and_whole_use():
    from tpb.nki import compiler

    def sliced(a):
        t = nl.ndarray((4, nl.par_dim(128), 64), nl.float32,
                       buffer=compiler.psum.mod_alloc(base_bank=0, num_bank_tiles=(2,)))
        t[0:2]

    def whole(a):
        t = nl.ndarray((4, nl.par_dim(128), 64), nl.float32,
                       buffer=compiler.psum.mod_alloc(base_bank=0, num_bank_tiles=(2,)))
        nisa.memset(t, 0.0)

    a = np.zeros((2, 128, 64), np.float32)
    with pytest.raises(tpb.NotSupported, match="integer block indices"):
        nki.simulate_kernel(sliced, a)
    with pytest.raises(tpb.UsageError, match="expected a tile, not .*ModAllocTensor"):
        nki.simulate_kernel(whole, a)


# attention_fwd v9/v10 (restated): `acc[i] += nisa.nc_matmul(...)` into block i of a PSUM
# tensor whose blocks all share one bank (psum.mod_alloc(num_bank_tiles=(1,))). Each block
# index starts its own accumulation group at its first `+=` although the bank still holds
# the previous block's sums (assumption mod-alloc-block-groups; nki-api §3.2 groups).
def _blocks_sharing_a_bank(a, b, first):
    from tpb.nki import compiler
    nb, kt = a.shape[0], a.shape[1]
    out = nl.ndarray((nb, 64, 32), nl.float32, buffer=nl.shared_hbm)
    acc = nl.ndarray((nb, nl.par_dim(64), 32), nl.float32,
                     buffer=compiler.psum.mod_alloc(base_bank=0, num_bank_tiles=(1,)))
    for i in nl.sequential_range(nb):
        if first is not None:
            nisa.memset(acc[i], first)           # written first: the += adds onto it
        for k in nl.affine_range(kt):
            acc[i] += nisa.nc_matmul(nl.load(a[i, k]), nl.load(b[i, k]))
        res = nl.ndarray((64, 32), nl.float32, buffer=nl.sbuf)
        nisa.tensor_copy(res, acc[i])
        nl.store(out[i], value=res)
    return out


# The same blocks with the current form nc_matmul(acc[i], ..., accumulate=None): the block
# used through a new index ends the group the previous index opened (assumption
# mod-alloc-block-groups), so its first matmul overwrites, as into a new allocation.
def _dst_form_blocks_sharing_a_bank(a, b):
    from tpb.nki import compiler
    nb, kt = a.shape[0], a.shape[1]
    out = nl.ndarray((nb, 64, 32), nl.float32, buffer=nl.shared_hbm)
    acc = nl.ndarray((nb, nl.par_dim(64), 32), nl.float32,
                     buffer=compiler.psum.mod_alloc(base_bank=0, num_bank_tiles=(1,)))
    for i in nl.sequential_range(nb):
        for k in nl.affine_range(kt):
            nisa.nc_matmul(acc[i], nl.load(a[i, k]), nl.load(b[i, k]))
        res = nl.ndarray((64, 32), nl.float32, buffer=nl.sbuf)
        nisa.tensor_copy(res, acc[i])
        nl.store(out[i], value=res)
    return out


def test_dst_form_matmuls_into_blocks_sharing_a_bank_start_per_block():
    r = np.random.default_rng(16)
    a = r.random((3, 2, 128, 64), dtype=np.float32) - 0.5
    b = r.random((3, 2, 128, 32), dtype=np.float32) - 0.5
    got = nki.simulate_kernel(_dst_form_blocks_sharing_a_bank, a, b)
    np.testing.assert_allclose(got, _block_products(a, b), rtol=1e-5, atol=1e-5)


def _block_products(a, b):
    return np.einsum("ikpm,ikpn->imn", a.astype(np.float64), b.astype(np.float64))


def test_each_block_sharing_a_bank_starts_its_own_accumulation():
    r = np.random.default_rng(13)
    a = r.random((3, 2, 128, 64), dtype=np.float32) - 0.5   # 3 blocks, 2 K tiles each
    b = r.random((3, 2, 128, 32), dtype=np.float32) - 0.5
    got = nki.simulate_kernel(_blocks_sharing_a_bank, a, b, None)
    np.testing.assert_allclose(got, _block_products(a, b), rtol=1e-5, atol=1e-5)


def test_a_block_written_first_accumulates_onto_what_was_written():
    r = np.random.default_rng(14)
    a = r.random((3, 2, 128, 64), dtype=np.float32) - 0.5
    b = r.random((3, 2, 128, 32), dtype=np.float32) - 0.5
    got = nki.simulate_kernel(_blocks_sharing_a_bank, a, b, 1.0)
    np.testing.assert_allclose(got, _block_products(a, b) + 1.0, rtol=1e-5, atol=1e-5)


def _plain_acc(a, b, zeroed):
    out = nl.ndarray((64, 32), nl.float32, buffer=nl.shared_hbm)
    if zeroed:
        acc = nl.zeros((64, 32), nl.float32, buffer=nl.psum)
    else:
        acc = nl.ndarray((64, 32), nl.float32, buffer=nl.psum)
    for k in nl.affine_range(a.shape[0]):
        acc += nisa.nc_matmul(nl.load(a[k]), nl.load(b[k]))
    res = nl.ndarray((64, 32), nl.float32, buffer=nl.sbuf)
    nisa.tensor_copy(res, acc)
    nl.store(out, value=res)
    return out


def test_a_plain_psum_tile_is_unchanged_zeroed_adds_and_unwritten_faults():
    r = np.random.default_rng(15)
    a = r.random((2, 128, 64), dtype=np.float32) - 0.5
    b = r.random((2, 128, 32), dtype=np.float32) - 0.5
    got = nki.simulate_kernel(_plain_acc, a, b, True)
    want = np.einsum("kpm,kpn->mn", a.astype(np.float64), b.astype(np.float64))
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    # The per-block rule covers mod_alloc blocks only: a plain tile never written is still
    # an uninitialised read (the sanitizer), not a silently started group.
    with pytest.raises(tpb.Fault, match="uninitiali"):
        nki.simulate_kernel(_plain_acc, a, b, False)


# nki-library attention_cte (restated): one PSUM tensor per query group, every one placed by
# the kernel at the same bank (nl.ndarray(..., address=(0, bank))), each filled by
# nc_matmul(dst, ..., accumulate=None) over the contraction tiles. NKI's "first write
# overwrites" is per tensor (nki-api §3.2 nc_matmul), so each tensor starts its own group
# although the bank holds the previous tensor's sums.
def _tensors_sharing_a_bank(a, b):
    nb, kt = a.shape[0], a.shape[1]
    out = nl.ndarray((nb, 64, 32), nl.float32, buffer=nl.shared_hbm)
    accs = [nl.ndarray((64, 32), nl.float32, buffer=nl.psum, address=(0, 4 * 2048))
            for _ in range(nb)]
    for i in range(nb):
        for k in range(kt):
            nisa.nc_matmul(accs[i], nl.load(a[i, k]), nl.load(b[i, k]))
        res = nl.ndarray((64, 32), nl.float32, buffer=nl.sbuf)
        nisa.tensor_copy(res, accs[i])
        nl.store(out[i], value=res)
    return out


def test_each_tensor_placed_on_a_shared_bank_starts_its_own_group():
    r = np.random.default_rng(17)
    a = r.random((3, 2, 128, 64), dtype=np.float32) - 0.5
    b = r.random((3, 2, 128, 32), dtype=np.float32) - 0.5
    got = nki.simulate_kernel(_tensors_sharing_a_bank, a, b)
    np.testing.assert_allclose(got, _block_products(a, b), rtol=1e-5, atol=1e-5)


def _one_tensor_two_views(a, b):
    # The same placed tensor twice: the second matmul continues its group.
    out = nl.ndarray((64, 32), nl.float32, buffer=nl.shared_hbm)
    acc = nl.ndarray((64, 32), nl.float32, buffer=nl.psum, address=(0, 4 * 2048))
    nisa.nc_matmul(acc, nl.load(a[0]), nl.load(b[0]))
    nisa.nc_matmul(acc, nl.load(a[1]), nl.load(b[1]))
    res = nl.ndarray((64, 32), nl.float32, buffer=nl.sbuf)
    nisa.tensor_copy(res, acc)
    nl.store(out, value=res)
    return out


def test_views_of_one_placed_tensor_keep_accumulating():
    r = np.random.default_rng(18)
    a = r.random((2, 128, 64), dtype=np.float32) - 0.5
    b = r.random((2, 128, 32), dtype=np.float32) - 0.5
    got = nki.simulate_kernel(_one_tensor_two_views, a, b)
    want = np.einsum("kpm,kpn->mn", a.astype(np.float64), b.astype(np.float64))
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
