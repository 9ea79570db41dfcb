"""The acceptance kernels of examples/kernels/ (issue 19 item 7) against NumPy.

Each kernel runs through ``tpb.nki.simulate_kernel`` and must match its NumPy reference;
kernels whose instructions tpb does not have yet are strict xfails that must stop with
"not supported yet: … needs <instruction>" (never a wrong result), so a kernel that starts
running fails here until its mark is removed.
"""

from __future__ import annotations

import importlib.util
import pathlib

import numpy as np
import pytest

import tpb
import tpb.nki as nki

KERNELS = pathlib.Path(__file__).resolve().parents[2] / "examples" / "kernels"
rng = np.random.default_rng(19)


def load(name: str):
    spec = importlib.util.spec_from_file_location(f"kernel_{name}", KERNELS / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def f32(*shape):
    return rng.standard_normal(shape).astype(np.float32)


DMA = "DMAMEMCPY"
CASES = {
    "tensor_add": (lambda: (f32(256, 1024), f32(256, 1024)), (2, 2), DMA),
    "scale_bias": (lambda: (f32(128, 64), f32(128, 1)), (), DMA),
    "softmax": (lambda: (f32(128, 256),), (), DMA),
    "rmsnorm": (lambda: (f32(256, 64), f32(64)), (), DMA),
    "layernorm": (lambda: (f32(128, 64), f32(128, 64), f32(128, 64)), (), DMA),
    "matmul_tiled": (lambda: (f32(256, 128), f32(256, 512)), (), DMA),
    "transpose2d": (lambda: (f32(128, 128),), (), DMA),
    "average_pool2d": (lambda: (f32(16, 8, 8),), (), DMA),
    "causal_attention": (lambda: (f32(64, 128), f32(64, 128), f32(128, 64)), (), DMA),
    "cumsum": (lambda: (f32(128, 64),), (), DMA),
}


# NumPy's float32 matmul sums in BLAS order; tpb sums in its documented order (assumption
# pe-summation-order), so a K-term sum may differ by a few ulps of its terms.
TOLERANCE = {"matmul_tiled": dict(rtol=1e-5, atol=1e-4)}


def params():
    for name, (_, _, needs) in CASES.items():
        marks = []
        if needs:
            marks.append(pytest.mark.xfail(raises=tpb.NotSupported, strict=True,
                                           reason=f"not supported yet: needs {needs}"))
        yield pytest.param(name, marks=marks, id=name)


@pytest.mark.parametrize("name", list(params()))
def test_kernel_matches_numpy(name):
    make, grid, needs = CASES[name]
    mod = load(name)
    kernel = getattr(mod, name)
    args = make()
    try:
        out = nki.simulate_kernel(kernel[grid] if grid else kernel, *args)
    except tpb.NotSupported as e:
        assert str(e).startswith("not supported yet:") and (needs or "") in str(e), str(e)
        raise
    tol = TOLERANCE.get(name, dict(rtol=2e-6, atol=1e-6))
    np.testing.assert_allclose(out, mod.reference(*args), **tol)
