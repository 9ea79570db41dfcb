"""One access-pattern algebra behind every way a kernel names memory (issue 27, "What to
build" item 1; issue 29 item 11). Facts: nki-api §2.2 (views, ``ap``), §2.1 (``address=``),
§4.2 (legacy ``nl.arange`` / ``nl.mgrid`` indexing, ``par_dim``, masks); the NKI access
pattern deep dive (flattened ``[step, num]`` patterns, partition step); isa-facts §3.2-§3.4
(descriptor words and dims).

Each feature has a kernel of our own, restating a public idiom, checked bit-exactly against
NumPy, and its error case."""

from __future__ import annotations

import numpy as np
import pytest

import tpb
import tpb.nki as nki
import tpb.nki.isa as nisa
import tpb.nki.language as nl

rng = np.random.default_rng(2727)


def f32(*shape):
    return rng.standard_normal(shape).astype(np.float32)


def small_ints(*shape, dtype=np.float32):
    """Values whose sums and products stay exact in float32."""
    return rng.integers(-8, 8, size=shape).astype(dtype)


def out_like(shape, dtype=nl.float32):
    return nl.ndarray(tuple(shape), dtype, buffer=nl.shared_hbm)


# ---- integers, slices, nl.ds ------------------------------------------------------------
# nki-api §2.2: in HBM an integer drops its dim (x[b, 0:128, 0:8] is (128, 8)); on chip an
# integer keeps the partition dim and drops a free dim, keeping one.
def test_integers_drop_dims_as_numpy_does():
    seen = {}

    def kernel(x):
        seen["hbm"] = (x[1, 0:128, 0:8].shape, x[2, 5].shape, x[0, 1, 2].shape)
        t = nl.load(x[2, 128:256, nl.ds(4, 8)])
        seen["chip"] = (t[3].shape, t[:, 2].shape, t[5, 1].shape)
        out = out_like((128, 8))
        nl.store(out, value=t)
        return out

    x = f32(3, 256, 16)
    np.testing.assert_array_equal(nki.simulate_kernel(kernel, x), x[2, 128:256, 4:12])
    assert seen == {"hbm": ((128, 8), (16,), (1,)), "chip": ((1, 8), (128, 1), (1, 1))}


def test_an_integer_or_slice_outside_its_dim_is_out_of_bounds():
    with pytest.raises(tpb.OutOfBoundsError, match="index 3 on dim 0 of size 3"):
        nki.simulate_kernel(lambda x: x[3, 0:128], f32(3, 256, 16))
    with pytest.raises(tpb.OutOfBoundsError, match="slice 0:300:1 on dim 1 of size 256"):
        nki.simulate_kernel(lambda x: x[0, 0:300], f32(3, 256, 16))


def test_tile_shape_is_a_tuple():
    def kernel(x):
        t = nl.load(x)
        assert t.shape == (128, 512) and isinstance(t.shape, tuple)
        assert x.shape == (128, 512)

    nki.simulate_kernel(kernel, f32(128, 512))


# ---- index expressions: sums, scaled sums and their axes --------------------------------
# nki-samples transpose2d (restated): each row holds a flattened (F1, F2) matrix; reading it
# as t[i_p, i_f1 * F2 + i_f2] and writing o[i_p, i_f2 * F1 + i_f1] transposes the matrices.
def test_scaled_sums_of_axes_transpose_flattened_rows():
    p, f1, f2 = 5, 3, 4

    def kernel(x):
        t = nl.load(x)
        i_p = nl.arange(p)[:, None, None]
        i_f1 = nl.arange(f1)[None, :, None]
        i_f2 = nl.arange(f2)[None, None, :]
        o = nl.ndarray((p, f2 * f1), x.dtype)
        o[i_p, i_f2 * f1 + i_f1] = nl.copy(t[i_p, i_f1 * f2 + i_f2])
        out = out_like(x.shape, x.dtype)
        nl.store(out, value=o)
        return out

    x = np.arange(p * f1 * f2, dtype=np.int8).reshape(p, f1 * f2)
    want = x.reshape(p, f1, f2).transpose(0, 2, 1).reshape(p, f1 * f2)
    np.testing.assert_array_equal(nki.simulate_kernel(kernel, x), want)


def test_index_expressions_that_are_not_affine_or_do_not_broadcast_are_refused():
    i_p, i_f = nl.arange(8)[:, None], nl.arange(8)[None, :]
    with pytest.raises(tpb.NotSupported, match="product of two index expressions"):
        i_p * i_f
    with pytest.raises(tpb.NotSupported, match="division or modulo"):
        i_f // 2
    with pytest.raises(tpb.UsageError, match="sizes 8 and 4 on axis 1"):
        i_f + nl.arange(4)[None, :]
    with pytest.raises(tpb.UsageError, match="not an integer"):
        i_f + 0.5

    def mixed(x):
        x[i_p, 0:8]

    with pytest.raises(tpb.NotSupported, match="among nl.arange"):
        nki.simulate_kernel(mixed, f32(8, 8))


# nki-samples average_pool2d (restated): an mgrid over (C, H/k, k, W/k, k) reads every pool
# window of a (C, H, W) tile; the sum over axes [2, 4] is the window sum.
def test_mgrid_pools_windows():
    c, h, w, k = 4, 6, 8, 2

    def kernel(x):
        t = nl.load(x)
        i0, i1, i2, i3, i4 = nl.mgrid[0:c, 0:h // k, 0:k, 0:w // k, 0:k]
        s = nl.sum(t[i0, k * i1 + i2, k * i3 + i4], axis=[2, 4])
        out = out_like((c, h // k, w // k))
        nl.store(out, value=nl.multiply(s, 1.0 / (k * k)))
        return out

    x = small_ints(c, h, w)
    want = x.reshape(c, h // k, k, w // k, k).sum(axis=(2, 4)) / np.float32(k * k)
    np.testing.assert_array_equal(nki.simulate_kernel(kernel, x), want)


# contributed maxpooling (restated): x[i_h + i_kh, i_w] (two axes on one dim) loads the k
# rows of every output row; a stride-1 max pool over a ragged last tile of rows.
def test_sums_of_two_axes_and_a_ragged_tail_max_pool():
    h, w, k = 140, 12, 3
    h_out, w_out = h - (k - 1), w - (k - 1)

    def kernel(x):
        out = out_like((h_out, w_out))
        for tile in nl.affine_range((h_out + 127) // 128):
            i_h, i_kh, i_w = nl.mgrid[0:128, 0:k, 0:w]
            row = tile * 128 + i_h
            rows = nl.load(x[row + i_kh, i_w], mask=(row < h_out))
            j_h, j_kh, j_w, j_kw = nl.mgrid[0:128, 0:k, 0:w_out, 0:k]
            m = nl.max(rows[j_h, j_kh, j_w + j_kw], axis=[1, 3],
                       mask=(tile * 128 + j_h < h_out))
            o_h, o_w = nl.mgrid[0:128, 0:w_out]
            nl.store(out[tile * 128 + o_h, o_w], value=m, mask=(tile * 128 + o_h < h_out))
        return out

    x = f32(h, w)
    want = np.lib.stride_tricks.sliding_window_view(x, (k, k)).max(axis=(2, 3))
    out, prof = nki.profile_kernel(kernel, x)
    np.testing.assert_array_equal(out, want)
    assert prof.races == []


# ---- transposed placement ---------------------------------------------------------------
# sd_attention (restated): nl.store(out[jf, ip], value=t) writes t transposed, and
# nl.load(a[jf, ip]) reads a transposed: the partition index follows the view's axis 0.
def test_transposed_placement_loads_and_stores_transposed():
    def kernel(a):
        ip = nl.arange(128)[:, None]
        jf = nl.arange(64)[None, :]
        t = nl.load(a[jf, ip])  # t[p, f] = a[f, p]
        assert t.shape == (128, 64)
        back = out_like((64, 128))
        nl.store(back[jf, ip], value=nl.add(t, 1.0))
        tt = out_like((128, 64))
        nl.store(tt, value=t)
        return back, tt

    a = f32(64, 128)
    back, tt = nki.simulate_kernel(kernel, a)
    np.testing.assert_array_equal(tt, a.T)
    np.testing.assert_array_equal(back, a + np.float32(1))


def test_swapped_three_dim_assignment_permutes_the_free_axes():
    p, f1, f2 = 16, 3, 5

    def kernel(x):
        t = nl.load(x)
        i_p = nl.arange(p)[:, None, None]
        i_f1 = nl.arange(f1)[None, :, None]
        i_f2 = nl.arange(f2)[None, None, :]
        o = nl.ndarray((p, f2, f1), x.dtype)
        o[i_p, i_f2, i_f1] = t[i_p, i_f1, i_f2]
        out = out_like((p, f2, f1))
        nl.store(out, value=o)
        return out

    x = f32(p, f1, f2)
    np.testing.assert_array_equal(nki.simulate_kernel(kernel, x), x.transpose(0, 2, 1))


def test_a_transposing_view_of_an_on_chip_tile_is_refused():
    def kernel(a):
        t = nl.load(a)
        ip = nl.arange(32)[:, None]
        jf = nl.arange(32)[None, :]
        return nl.copy(t[jf, ip])

    with pytest.raises(tpb.NotSupported, match="transposing view"):
        nki.simulate_kernel(kernel, f32(32, 32))


# ---- masks on ragged tiles --------------------------------------------------------------
# nki-samples rmsnorm/softmax (restated): 250 rows in tiles of 128; the last tile's view
# a[i * 128 + ix, iy] leaves the tensor until its mask brings it back, the loaded tile keeps
# 128 partitions, and unmasked computes on the rows the mask left out run on don't-care data.
def row_centre(a):
    out = out_like(a.shape)
    ix = nl.arange(128)[:, None]
    iy = nl.arange(a.shape[1])[None, :]
    rows = a.shape[0]
    for i in nl.affine_range((rows + 127) // 128):
        keep = i * 128 + ix < rows
        t = nl.load(a[i * 128 + ix, iy], mask=keep)
        assert t.shape == (128, a.shape[1])
        top = nl.max(t, axis=[1], keepdims=True, mask=keep)
        centred = nl.subtract(t, top, mask=keep)
        doubled = nl.multiply(centred, 2.0)  # unmasked: the tail's spare rows are don't-care
        nl.store(out[i * 128 + ix, iy], value=doubled, mask=keep)
    return out


def test_masked_loads_computes_and_stores_run_the_ragged_tail():
    a = f32(250, 96)
    out, prof = nki.profile_kernel(row_centre, a)
    np.testing.assert_array_equal(out, (a - a.max(axis=1, keepdims=True)) * np.float32(2))
    assert prof.races == []


def test_a_ragged_view_without_its_mask_is_out_of_bounds():
    def kernel(a):
        ix, iy = nl.arange(128)[:, None], nl.arange(8)[None, :]
        view = a[128 + ix, iy]  # rows 128..255 of 250: kept pending
        assert view.shape == (128, 8)
        return nl.load(view)

    with pytest.raises(tpb.OutOfBoundsError, match="dim 0 of size 250 indexed 128..=255"):
        nki.simulate_kernel(kernel, f32(250, 8))

    def short_mask(a):
        ix, iy = nl.arange(128)[:, None], nl.arange(8)[None, :]
        nl.load(a[128 + ix, iy], mask=(128 + ix < 251))

    with pytest.raises(tpb.OutOfBoundsError, match="dim 0 of size 250"):
        nki.simulate_kernel(short_mask, f32(250, 8))


def test_a_mask_that_is_not_a_box_is_refused():
    def kernel(a):
        ix, iy = nl.arange(8)[:, None], nl.arange(8)[None, :]
        nl.load(a[ix, iy], mask=(ix + iy < 8))

    with pytest.raises(tpb.NotSupported, match="several axes"):
        nki.simulate_kernel(kernel, f32(8, 8))


# ---- block dims -------------------------------------------------------------------------
# sd_attention / attention_fwd (restated): nl.ndarray((n, nl.par_dim(P), F)) is n tiles of
# (P, F), addressed t[i] or t[i, ip, if]; PSUM block tiles accumulate one matmul per block.
def test_block_dims_before_the_partition_dim():
    n, p, f = 3, 64, 16
    kept = []

    def kernel(a):
        t = nl.ndarray((n, nl.par_dim(p), f), nl.float32)
        assert t.shape == (n, p, f) and type(t.shape[1]) is nl.par_dim
        ip, jf = nl.arange(p)[:, None], nl.arange(f)[None, :]
        for i in range(n):
            if i % 2:
                t[i, ip, jf] = nl.load(a[i * p + ip, jf])
            else:
                t[i] = nl.load(a[i * p:(i + 1) * p])
        assert t[1].shape == (p, f)
        total = nl.add(nl.add(t[0], t[1]), t[2, ip, jf])
        kept.append(t)
        out = out_like((p, f))
        nl.store(out, value=total)
        return out

    a = small_ints(n * p, f)
    out = nki.simulate_kernel(kernel, a)
    np.testing.assert_array_equal(out, a[:p] + a[p:2 * p] + a[2 * p:])
    np.testing.assert_array_equal(kept[0].numpy(), a.reshape(n, p, f))


def test_psum_block_tiles_take_one_matmul_each():
    k, m, n = 32, 16, 64

    def kernel(lhsT, rhs):
        acc = nl.zeros((2, nl.par_dim(m), n), nl.float32, buffer=nl.psum)
        x, y = nl.load(lhsT), nl.load(rhs)
        for j in range(2):
            acc[j] += nl.matmul(x, y, transpose_x=True)
        acc[1] += nl.matmul(x, y, transpose_x=True)
        out = out_like((2, m, n))
        for j in range(2):
            nl.store(out[j], value=nl.copy(acc[j]))
        return out

    lhsT, rhs = small_ints(k, m), small_ints(k, n)
    once = lhsT.T @ rhs
    out = nki.simulate_kernel(kernel, lhsT, rhs)
    np.testing.assert_array_equal(out, np.stack([once, 2 * once]))


def test_block_tiles_refuse_whole_tile_views_and_two_par_dims():
    def reshape(a):
        t = nl.ndarray((2, nl.par_dim(8), 4), nl.float32)
        t.reshape((8, 8))

    with pytest.raises(tpb.NotSupported, match="block dim"):
        nki.simulate_kernel(reshape, f32(1, 1))
    with pytest.raises(tpb.UsageError, match="more than one nl.par_dim"):
        nki.simulate_kernel(lambda a: nl.ndarray((nl.par_dim(2), nl.par_dim(8)), nl.float32),
                            f32(1, 1))


# ---- tensor.ap(pattern, offset) ---------------------------------------------------------
# The access-pattern deep dive and nki-library (restated): the tensor flattened, [step, num]
# pairs outermost first, offset in elements; on chip the first pair is the partitions.
def test_access_patterns_read_the_flattened_tensor():
    def kernel(q, s):
        rows = nl.ndarray((3, 4), nl.float32)
        # q[1, 2:5, :] of a (2, 8, 4) tensor.
        nisa.dma_copy(dst=rows.ap([[4, 3], [1, 4]], offset=0),
                      src=q.ap(pattern=[[4, 3], [1, 4]], offset=1 * 8 * 4 + 2 * 4))
        cols = nl.ndarray((4, 3), nl.float32)
        nisa.dma_copy(dst=cols, src=q.ap([[1, 4], [4, 3]]))  # q[0, 0:3, :].T
        tile = nl.load(s)
        block = tile.ap([[16, 16], [1, 8]], offset=8)  # tile[:, 8:16]
        assert block.shape == (16, 8)
        o1, o2, o3 = out_like((3, 4)), out_like((4, 3)), out_like((16, 8))
        nl.store(o1, value=rows)
        nl.store(o2, value=cols)
        nl.store(o3, value=nl.multiply(block, 2.0))
        return o1, o2, o3

    q, s = f32(2, 8, 4), f32(16, 16)
    o1, o2, o3 = nki.simulate_kernel(kernel, q, s)
    np.testing.assert_array_equal(o1, q[1, 2:5])
    np.testing.assert_array_equal(o2, q[0, 0:3].T)
    np.testing.assert_array_equal(o3, s[:, 8:16] * np.float32(2))


def test_access_patterns_reinterpret_dtypes():
    def kernel(x):
        t = nl.load(x)
        halves = t.ap([[16, 4], [1, 16]], dtype=nl.bfloat16)
        assert halves.shape == (4, 16) and halves.dtype == nl.bfloat16
        out = out_like((4, 16), nl.bfloat16)
        nl.store(out, value=halves)
        return out

    x = f32(4, 8)
    np.testing.assert_array_equal(nki.simulate_kernel(kernel, x).view(np.uint16),
                                  x.view(np.uint16))


def test_access_patterns_that_skip_partitions_or_leave_the_tensor_are_refused():
    def skip(s):
        nl.load(s).ap([[64, 8], [1, 32]], offset=0)

    with pytest.raises(tpb.NotSupported, match="partition pair's step 64 must be the tensor's 32"):
        nki.simulate_kernel(skip, f32(16, 32))
    with pytest.raises(tpb.OutOfBoundsError, match="outside 0..32"):
        nki.simulate_kernel(lambda s: nl.load(s).ap([[32, 16], [1, 33]]), f32(16, 32))
    with pytest.raises(tpb.OutOfBoundsError, match="flat elements"):
        nki.simulate_kernel(lambda s: s.ap([[32, 17], [1, 32]]), f32(16, 32))
    with pytest.raises(tpb.NotSupported, match="runtime offset"):
        nki.simulate_kernel(lambda s: s.ap([[32, 16], [1, 32]], scalar_offset=nl.load(s[0:1, 0:1])),
                            f32(16, 32))


# ---- broadcast views --------------------------------------------------------------------
# sd_attention / rmsnorm (restated): (P, 1).broadcast_to((P, F)) is a zero-step view;
# (1, F).broadcast_to((P, F)) copies the row to every partition.
def test_broadcast_to_free_dims_and_partitions():
    def kernel(x, g):
        t = nl.load(x)
        s = nl.sum(t, axis=[1], keepdims=True)
        scaled = nl.multiply(t, s.broadcast_to((64, 32)))
        gains = nl.load(g).broadcast_to((64, 32))
        assert gains.shape == (64, 32)
        out = out_like((64, 32))
        nl.store(out, value=nl.multiply(scaled, gains))
        return out

    x, g = small_ints(64, 32), small_ints(1, 32)
    want = x * x.sum(axis=1, keepdims=True) * g
    np.testing.assert_array_equal(nki.simulate_kernel(kernel, x, g), want)

    with pytest.raises(tpb.UsageError, match="does not broadcast"):
        nki.simulate_kernel(lambda g: nl.load(g).broadcast_to((64, 32)), small_ints(2, 32))


# ---- placement, stores and outputs ------------------------------------------------------
# nki-api §2.1: address=(partition_offset, byte_offset) pins a tile; pinned tiles may alias.
def test_address_pins_tiles_that_may_alias_each_other():
    def kernel(x):
        a = nl.ndarray((4, 8), nl.float32, address=(32, 4096))
        b = nl.ndarray((4, 8), nl.float32, address=(32, 4096))
        assert (a.start_partition, a.offset) == (32, 4096)
        nisa.tensor_copy(a, nl.load(x))
        c = nl.ndarray((4, 1024), nl.float32)  # placed by tpb: clear of the pinned bytes
        assert not (4096 <= c.offset < 4096 + 32) and not (c.offset < 4096 < c.offset + 4096)
        out = out_like((4, 8))
        nl.store(out, value=b)  # b is a: the same bytes
        return out

    x = f32(4, 8)
    np.testing.assert_array_equal(nki.simulate_kernel(kernel, x), x)

    def overlap(x):
        t = nl.ndarray((4, 8), nl.float32)
        nl.ndarray((4, 8), nl.float32, address=(0, t.offset))

    with pytest.raises(tpb.UsageError, match="hold a tile tpb placed"):
        nki.simulate_kernel(overlap, f32(1, 1))


def test_storing_into_or_returning_an_on_chip_tile_is_refused():
    def store_sbuf(x):
        t = nl.ndarray((4, 8), nl.float32)
        nl.store(t, value=nl.load(x))

    with pytest.raises(tpb.UsageError, match="nl.store writes HBM"):
        nki.simulate_kernel(store_sbuf, f32(4, 8))
    with pytest.raises(tpb.UsageError, match="returned an SBUF tile"):
        nki.simulate_kernel(lambda x: nl.load(x), f32(4, 8))


# ---- views too large for one instruction (issue 29 item 11) -----------------------------
def test_a_load_of_a_32769_column_row():
    def kernel(x):
        back = out_like(x.shape)
        nl.store(back, value=nl.load(x))
        return back

    x = f32(128, 32769)
    np.testing.assert_array_equal(nki.simulate_kernel(kernel, x), x)


def test_a_sum_over_40000_columns():
    def kernel(y):
        sums = out_like((y.shape[0], 1))
        nl.store(sums, value=nl.sum(nl.load(y), axis=[1], keepdims=True))
        return sums

    y = small_ints(4, 40000) + np.float32(0.125)
    sums = nki.simulate_kernel(kernel, y)
    # TensorReduce folds in element order: NumPy's sequential float32 accumulation.
    np.testing.assert_array_equal(sums[:, 0], np.add.accumulate(y, axis=1, dtype=np.float32)[:, -1])


def test_a_reduction_that_no_instruction_holds_names_the_limit():
    def kernel(y):
        nl.sum(nl.load(y), axis=[1])

    # 65537 is prime: no split into descriptor counts of at most 65535.
    with pytest.raises(tpb.UsageError, match="reduce a smaller part per call"):
        nki.simulate_kernel(kernel, np.zeros((2, 65537), np.float16))


def test_bad_arguments_to_the_view_calls_are_usage_errors():
    def kernel(x):
        t = nl.load(x)
        for call, match in [
            (lambda: t.ap("rows"), "pattern"),
            (lambda: t.ap([[8, 4], [1, 8]], offset=1.5), "offset"),
            (lambda: t.broadcast_to(None), "shape"),
            (lambda: t.reshape(("4", 8)), "shape"),
            (lambda: nl.ndarray((4, 8), nl.float32, address="p0"), "address"),
            (lambda: nl.ndarray((4, 8), nl.float32, address=(0, 1, 2)), "address"),
            (lambda: nl.arange(4)[1], "place an arange"),
            (lambda: nl.mgrid[0:4, 3], "start:stop"),
            (lambda: bool(nl.arange(4)[:, None] < 2), "not a Python bool"),
        ]:
            with pytest.raises(tpb.UsageError, match=match):
                call()

    nki.simulate_kernel(kernel, f32(4, 8))


# sd_attention (restated): an element-wise nl call on a tile with block dims returns a tile
# of the same block layout (its result is allocated as nl.ndarray would, par_dim included),
# and a plain tile's result is a plain tile of its shape.
def test_elementwise_results_keep_the_operand_layout():
    def k(a):
        t = nl.ndarray((2, nl.par_dim(128), 8), dtype=nl.float32, buffer=nl.sbuf)
        t[0] = nl.load(a)
        t[1] = nl.load(a)
        u = nl.multiply(t, 2.0)
        assert u.shape == (2, 128, 8) and type(u.shape[1]) is nl.par_dim
        v = nl.add(nl.load(a), 1.0)
        assert v.shape == (128, 8) and all(type(d) is int for d in v.shape)
        out = nl.ndarray((128, 8), dtype=nl.float32, buffer=nl.shared_hbm)
        nl.store(out, value=nl.add(u[1], v))
        return out

    a = np.arange(128 * 8, dtype=np.float32).reshape(128, 8)
    np.testing.assert_array_equal(nki.simulate_kernel(k, a), a * 2 + (a + 1))

