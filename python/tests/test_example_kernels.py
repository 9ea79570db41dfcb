"""The acceptance kernels of examples/kernels/ (issue 19 item 7) against NumPy.

Each kernel runs through ``tpb.nki.simulate_kernel`` and must match its NumPy reference;
kernels whose instructions tpb does not have yet are strict xfails that must stop with
"not supported yet: … needs <instruction>" (never a wrong result), so a kernel that starts
running fails here until its mark is removed.
"""

from __future__ import annotations

import importlib.util
import json
import pathlib

import numpy as np
import pytest

import tpb
import tpb.nki as nki
from tpb import _tpb

KERNELS = pathlib.Path(__file__).resolve().parents[2] / "examples" / "kernels"
rng = np.random.default_rng(19)


def load(name: str):
    spec = importlib.util.spec_from_file_location(f"kernel_{name}", KERNELS / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def f32(*shape):
    return rng.standard_normal(shape).astype(np.float32)


ACT = "Activation"
CASES = {
    "tensor_add": (lambda: (f32(256, 1024), f32(256, 1024)), (2, 2), None),
    "scale_bias": (lambda: (f32(128, 64), f32(128, 1)), (), None),
    "softmax": (lambda: (f32(128, 256),), (), None),
    "rmsnorm": (lambda: (f32(256, 64), f32(64)), (), None),
    "layernorm": (lambda: (f32(128, 64), f32(128, 64), f32(128, 64)), (), None),
    "matmul_tiled": (lambda: (f32(256, 128), f32(256, 512)), (), None),
    "transpose2d": (lambda: (f32(128, 128),), (), None),
    "average_pool2d": (lambda: (f32(16, 8, 8),), (), None),
    "causal_attention": (lambda: (f32(64, 128), f32(64, 128), f32(128, 64)), (), None),
    "cumsum": (lambda: (f32(128, 64),), (), None),
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


RUNNING = [name for name, (_, _, needs) in CASES.items() if needs is None]


def run_capturing(name, core):
    """Runs kernel ``name`` on ``core`` with HBM inputs the test placed, returning the input
    tiles, the output tile (before its conversion to NumPy) and the inputs as arrays."""
    make, grid, _ = CASES[name]
    kernel = getattr(load(name), name)
    arrays = make()
    inputs = [core.from_numpy(a, buffer="hbm") for a in arrays]
    captured = []

    def capture(*args):
        out = kernel(*args)  # a jitted kernel called inside a run runs inline
        captured.append(out)
        return out

    wrapper = nki.jit(capture)
    out = nki.simulate_kernel(wrapper[grid] if grid else wrapper, *inputs, core=core)
    return inputs, captured[-1], arrays, out


def flat_region(tile):
    dtype = tile.region.split(":")[1]
    return f"hbm+{tile.offset:#x}:{dtype}:{int(np.prod(tile.shape))}"


@pytest.mark.parametrize("name", RUNNING)
def test_emitted_kernel_runs_in_tpb_run_race_free_with_the_same_results(name, tmp_path):
    """The program a kernel emitted (``core.disasm()``), fed to ``tpb run`` with the kernel's
    inputs in HBM, runs on the engine model (DMA queues included) with no race, and its
    output in HBM is bit for bit the eager run's (which matches NumPy)."""
    core = nki.Core()
    inputs, out_tile, arrays, out = run_capturing(name, core)
    mod = load(name)
    np.testing.assert_allclose(out, mod.reference(*arrays), **TOLERANCE.get(name, dict(rtol=2e-6, atol=1e-6)))
    lines = core.disasm().splitlines()
    assert lines[0].startswith(".gen")
    ins = []
    for k, (t, a) in enumerate(zip(inputs, arrays)):
        np.save(tmp_path / f"in{k}.npy", np.ascontiguousarray(a).reshape(-1))
        ins.append(f".in in{k}.npy@{flat_region(t)}")
    np.save(tmp_path / "want.npy", np.ascontiguousarray(out).reshape(-1))
    text = "\n".join([lines[0], *ins, *lines[1:], f".expect {flat_region(out_tile)} == want.npy"])
    assert "dma_memcpy" in text
    prog = tmp_path / "k.tpb"
    prog.write_text(text + "\n")
    assert _tpb.cli(["run", str(prog), "--out-dir", str(tmp_path / "o")]) == 0


def test_profile_of_tensor_add_shows_the_dma_queues(tmp_path):
    """``profile_kernel`` on the SPMD tensor_add: the DMA queue and its issuer appear with
    busy and waiting time, the critical path ends at the estimated time, and the Chrome
    trace and SVG timelines are written."""
    make, grid, _ = CASES["tensor_add"]
    a, b = make()
    kernel = load("tensor_add").tensor_add
    out, prof = nki.profile_kernel(kernel[grid], a, b,
                                   timeline=[tmp_path / "t.json", tmp_path / "t.svg"])
    np.testing.assert_array_equal(out, a + b)
    engines = {e["engine"]: e for e in prof.engines}
    assert {"sp", "dma.sp", "act", "dma.act", "dve"} <= set(engines), engines
    # 2 loads and 1 store per instance, 4 instances: 12 requests and 12 transfers, issued
    # SP, ACT, SP, … (docs/engines.md "Queues in kernels"), so 6 on each queue.
    for issuer in ("sp", "act"):
        assert engines[issuer]["instructions"] == 6, engines
        assert engines["dma." + issuer]["instructions"] == 6, engines
        assert engines["dma." + issuer]["busy_cycles"] > 0, engines
    # Each add waits for its two loads, which land on the two queues: the second wait is an
    # EventSemaphore record just before it (docs/python.md "Engines and synchronisation").
    assert prof.instruction_counts["tt_arith"] == 4
    assert prof.instruction_counts["event_semaphore"] == 4
    assert engines["dve"]["instructions"] == 8
    assert engines["dve"]["waiting_cycles"] > 0
    assert prof.instruction_counts["dma_memcpy"] == 12
    assert prof.estimated_time_us > 0
    path = prof.critical_path
    assert path[-1]["end_us"] == pytest.approx(prof.estimated_time_us)
    assert any(p["mnemonic"] == "dma_memcpy" for p in path)
    assert prof.races == []
    trace = json.loads((tmp_path / "t.json").read_text())
    names = {e.get("args", {}).get("name") for e in trace["traceEvents"] if e.get("ph") == "M"}
    assert "DMA queue of SP (hardware DGE)" in names, names
    assert (tmp_path / "t.svg").read_text().lstrip().startswith("<svg")
