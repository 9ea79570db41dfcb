"""How a kernel author tests their own kernel against NumPy with tpb.

The kernel below is written with the NKI calls (tpb.nki.isa mirrors nki.isa, `dst` first):
scale attention scores by a per-query factor held in a (P, 1) tile, then apply the causal
mask. tpb runs each call bit-exactly, validates the instruction it emitted for the core's
generation, and keeps the bundles, so the test can check the numbers *and* the program.

    pytest examples/python/test_my_kernel.py
"""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import tpb
import tpb.nki as nki

NEG_FLT_MAX = -3.4028235e38


# ---- the kernel under test --------------------------------------------------------------


def scaled_causal_mask(core, scores, scale, out_dtype=ml_dtypes.bfloat16, q0=0):
    """masked[q, k] = scores[q, k] * scale[q] where q0 + q >= k, else -FLT_MAX (as out_dtype)."""
    p, f = scores.shape
    scaled = core.ndarray((p, f), np.float32)
    nki.isa.tensor_scalar(scaled, scores, np.multiply, scale)  # scale: a (P, 1) tile
    masked = core.ndarray((p, f), out_dtype)
    nki.isa.affine_select(masked, [[-1, f]], 1, scaled, NEG_FLT_MAX,
                          cmp_op=np.greater_equal, offset=q0)
    return masked


# ---- its NumPy reference ---------------------------------------------------------------


def reference(scores, scale, out_dtype=ml_dtypes.bfloat16, q0=0):
    """The same computation in NumPy: fp32 math, then one round-to-nearest-even cast."""
    p, f = scores.shape
    scaled = scores.astype(np.float32) * scale.astype(np.float32)
    keep = (q0 + np.arange(p))[:, None] - np.arange(f)[None, :] >= 0
    with np.errstate(over="ignore"):  # -FLT_MAX overflows to -inf in narrow float dtypes
        return np.where(keep, scaled, np.float32(NEG_FLT_MAX)).astype(out_dtype)


def same_bits(a, b):
    """Bit-exact comparison (NaN and -0.0 included), with the first difference on failure."""
    assert a.dtype == b.dtype and a.shape == b.shape
    ua, ub = (x.view(f"u{x.dtype.itemsize}") for x in (a, b))
    bad = np.argwhere(ua != ub)
    assert bad.size == 0, f"{len(bad)} differ, first at {tuple(bad[0])}: {a[tuple(bad[0])]} != {b[tuple(bad[0])]}"


# ---- the tests -------------------------------------------------------------------------


@pytest.mark.parametrize("p,f", [(128, 512), (64, 128), (1, 8)])
@pytest.mark.parametrize("out_dtype", [ml_dtypes.bfloat16, np.float32, np.float16])
def test_matches_numpy(p, f, out_dtype):
    rng = np.random.default_rng(p * f)
    scores = rng.standard_normal((p, f)).astype(np.float32)
    scale = rng.uniform(0.05, 2.0, (p, 1)).astype(np.float32)

    core = nki.Core(gen="cayman")
    out = scaled_causal_mask(core, core.from_numpy(scores), core.from_numpy(scale), out_dtype)

    same_bits(out.numpy(), reference(scores, scale, out_dtype))


def test_later_query_tile():
    rng = np.random.default_rng(1)
    scores = rng.standard_normal((128, 256)).astype(np.float32)
    scale = np.full((128, 1), 0.125, np.float32)
    core = nki.Core()
    out = scaled_causal_mask(core, core.from_numpy(scores), core.from_numpy(scale), q0=128)
    same_bits(out.numpy(), reference(scores, scale, q0=128))


@pytest.mark.parametrize("gen", ["cayman", "mariana", "maverick"])
def test_emits_two_valid_instructions(gen):
    core = nki.Core(gen=gen)
    scores = core.from_numpy(np.ones((128, 64), np.float32))
    scale = core.from_numpy(np.ones((128, 1), np.float32))
    scaled_causal_mask(core, scores, scale)

    assert [i.mnemonic for i in core.instructions()] == ["ts_arith", "affine_select"]
    assert len(core.bundles()) == 2 * 64
    for inst in core.instructions():
        assert tpb.validate(inst, gen=gen) == []
    print(core.disasm())  # shown with `pytest -s`: the program the kernel leaves behind


def test_psum_output_is_rejected_before_running():
    """AffineSelect may not write PSUM on cayman: the call raises, with the failing rule."""
    core = nki.Core(gen="cayman")
    scores = core.from_numpy(np.ones((8, 8), np.float32))
    out = core.ndarray((8, 8), np.float32, buffer="psum")
    with pytest.raises(tpb.InvalidInstruction) as info:
        nki.isa.affine_select(out, [[-1, 8]], 1, scores, NEG_FLT_MAX, cmp_op=np.greater_equal)
    assert info.value.findings[0].field == "dst_mem_pattern.start_addr"
