"""Kernel runs from Python (issue 19): views, the runner and SPMD grids, emission with
synchronisation that `tpb run` accepts, profiles and timelines, sanitizers, and the NKI
support table (nki-api §1, §2; architecture guide, "The walk of an NKI kernel")."""

from __future__ import annotations

import json
import pathlib
import re

import numpy as np
import pytest

import tpb
import tpb.nki as nki
from tpb import _tpb
from tpb.nki import isa as nisa
from tpb.nki import language as nl
from _outputs import hbm

ROOT = pathlib.Path(__file__).resolve().parents[2]


def ramp(p: int, f: int, name: str = "") -> object:
    t = nl.ndarray((p, f), nl.float32, name=name)
    nisa.iota(t, [[1, f]], channel_multiplier=f)
    return t


def ramp_np(p: int, f: int) -> np.ndarray:
    return np.arange(p * f, dtype=np.float32).reshape(p, f)


# nki-api §2.2: slices, integers (keeping the partition dim), nl.ds, arange expressions,
# a start partition other than 0, reshape and view.
def test_views_read_and_compute_like_numpy():
    def kernel():
        t = ramp(64, 32)
        i_p, i_f = nl.arange(16)[:, None], nl.arange(8)[None, :]
        return hbm(
            t[8:40, 4:20],
            t[3],
            t[:, nl.ds(10, 4)],
            t[16 + i_p, 2 * i_f + 1],
            nl.multiply(t[32:64, ::4], 2.0),
            t.reshape((64, 4, 8))[:, 1],
            t[0:2].view(nl.int32),
        )

    a, b, c, d, e, f, g = nki.simulate_kernel(kernel)
    r = ramp_np(64, 32)
    np.testing.assert_array_equal(a, r[8:40, 4:20])
    np.testing.assert_array_equal(b, r[3:4])
    np.testing.assert_array_equal(c, r[:, 10:14])
    np.testing.assert_array_equal(d, r[16:32, 1:17:2])
    np.testing.assert_array_equal(e, r[32:64, ::4] * 2)
    np.testing.assert_array_equal(f, r.reshape(64, 4, 8)[:, 1])
    np.testing.assert_array_equal(g, r[0:2].view(np.int32))


def test_mgrid_and_a_box_mask_shrink_the_instruction():
    def kernel():
        t = nl.zeros((8, 16), nl.float32)
        src = ramp(8, 16)
        i_p, i_f = nl.mgrid[0:8, 0:16]
        nisa.tensor_scalar(t, src, nl.add, 100.0, mask=(i_p < 4) & (i_f >= 8))
        return hbm(t)

    got = nki.simulate_kernel(kernel)
    want = np.zeros((8, 16), np.float32)
    want[:4, 8:] = ramp_np(8, 16)[:4, 8:] + 100
    np.testing.assert_array_equal(got, want)


def test_a_mask_that_is_not_a_box_is_refused():
    def kernel():
        t = nl.zeros((8, 8), nl.float32)
        i_p, i_f = nl.mgrid[0:8, 0:8]
        nisa.iota(t, [[1, 8]], mask=i_p < i_f)

    with pytest.raises(tpb.NotSupported, match="affine_select"):
        nki.simulate_kernel(kernel)


# nki-api §1: kernel[g](...) runs one instance per grid point; program_id / num_programs.
def test_spmd_grid_program_id_and_num_programs():
    seen = []

    @nki.jit
    def kernel():
        seen.append((nl.program_id(0), nl.program_id(1), nl.num_programs(0), nl.num_programs((0, 1)),
                     nl.program_ndim()))
        t = nl.full((4, 4), nl.program_id(0) * 10 + nl.program_id(1), nl.int32)
        return hbm(t)

    out = kernel[2, 3]()
    assert seen == [(i, j, 2, 6, 2) for i in range(2) for j in range(3)]
    np.testing.assert_array_equal(out, np.full((4, 4), 12, np.int32))
    seen.clear()
    kernel()
    assert seen == [(0, 0, 1, 1, 0)]
    with pytest.raises(tpb.UsageError):
        kernel[0]


def test_nl_outside_a_kernel_is_a_usage_error():
    with pytest.raises(tpb.UsageError, match="inside a kernel run"):
        nl.ndarray((4, 4), nl.float32)


def pipeline():
    t = ramp(64, 32, name="t")
    u = nl.multiply(t[0:32], 0.5)
    v = nl.add(u, t[32:64, 0:1])  # a (P, 1) operand from the other half
    nisa.iota(t, [[0, 32]], offset=7)  # overwrites what DVE read: a write after read
    return hbm(v)


def test_emitted_program_runs_in_tpb_run_with_no_race(tmp_path):
    core = nki.Core()
    out = nki.simulate_kernel(pipeline, core=core)
    r = ramp_np(64, 32)
    np.testing.assert_array_equal(out, r[:32] * 0.5 + r[32:, :1])
    text = core.disasm()
    assert "wait_mode=sem_ge_imm" in text
    prog = tmp_path / "k.tpb"
    prog.write_text(text)
    assert _tpb.cli(["run", str(prog), "--out-dir", str(tmp_path / "o")]) == 0
    # The bundles are the same program.
    assert tpb.decode(core.bundles(), gen="cayman") == core.instructions()


def test_without_synchronisation_the_race_names_both_kernel_lines(tmp_path):
    with pytest.raises(tpb.RaceError) as e:
        nki.profile_kernel(pipeline, synchronize=False)
    err = e.value
    assert {err.first["engine"], err.second["engine"]} == {"pool", "dve"}
    for side in (err.first, err.second):
        assert re.search(r"test_nki_kernels\.py:\d+$", side["origin"]), side
    assert "test_nki_kernels.py" in str(err)
    # tpb run finds the same races in the text form.
    core = nki.Core()
    nki.simulate_kernel(pipeline, core=core, synchronize=False)
    prog = tmp_path / "racy.tpb"
    prog.write_text(core.disasm())
    assert _tpb.cli(["run", str(prog)]) != 0


def test_profile_reports_engines_critical_path_and_timelines(tmp_path):
    out, prof = nki.profile_kernel(pipeline, timeline=[tmp_path / "t.json", tmp_path / "t.svg"])
    assert out.shape == (32, 32)
    engines = {e["engine"]: e for e in prof.engines}
    assert set(engines) == {"pool", "dve", "sp", "dma.sp"}  # the store of the output on SP
    assert engines["pool"]["instructions"] == 2 and engines["dve"]["instructions"] == 2
    assert all(0 < e["utilisation"] <= 1 for e in engines.values())
    assert engines["dve"]["waiting_cycles"] > 0
    assert prof.estimated_time_us > 0
    path = prof.critical_path
    assert path[0]["mnemonic"] == "iota" and path[-1]["end_us"] == pytest.approx(prof.estimated_time_us)
    assert all(re.search(r"(test_nki_kernels|_outputs)\.py:\d+$", p["origin"]) for p in path)
    assert prof.instruction_counts == {"iota": 2, "ts_arith": 2, "dma_memcpy": 1}
    assert prof.races == []
    trace = json.loads((tmp_path / "t.json").read_text())
    assert trace["otherData"]["races"] == 0
    assert (tmp_path / "t.svg").read_text().lstrip().startswith("<svg")


def test_control_characters_in_a_kernel_name_keep_the_svg_well_formed(tmp_path):
    """Issue 29 item 4: a control character in the kernel's name made the SVG timeline
    invalid XML (XML 1.0 §2.2 allows none but tab, newline and carriage return). It is shown
    as an escape; the JSON timeline escapes it as JSON does."""
    import xml.etree.ElementTree as ET

    def kernel():
        return pipeline()

    kernel.__name__ = "k\x01\x1b[31m<&>"
    _, prof = nki.profile_kernel(kernel, timeline=[tmp_path / "t.svg", tmp_path / "t.json"])
    root = ET.parse(tmp_path / "t.svg").getroot()
    text = "".join(root.itertext())
    assert "k\\u{1}\\u{1b}[31m<&>" in text, text
    assert "\x01" not in text and "\x1b" not in text
    assert json.loads((tmp_path / "t.json").read_text())["otherData"]["program"] == kernel.__name__


def test_a_fifo_is_not_a_timeline(tmp_path):
    """Issue 29 item 3: a FIFO given as the timeline blocked forever (and Ctrl-C could not
    stop it); it is refused with a tpb.UsageError before anything is written."""
    import os

    fifo = tmp_path / "t.json"
    os.mkfifo(fifo)
    with pytest.raises(tpb.UsageError, match="FIFO"):
        nki.profile_kernel(pipeline, timeline=fifo)


# Sanitizers: out-of-bounds, capacity (naming the tile), uninitialised reads.
def test_out_of_bounds_subscripts_raise():
    def kernel():
        t = nl.ndarray((128, 64), nl.float32)
        return t[0:129]

    with pytest.raises(tpb.OutOfBoundsError, match="slice 0:129:1 on dim 0 of size 128"):
        nki.simulate_kernel(kernel)

    def kernel2():
        t = nl.ndarray((128, 64), nl.float32)
        return hbm(t[:, nl.ds(60, 8)])

    with pytest.raises(IndexError):
        nki.simulate_kernel(kernel2)
    with pytest.warns(UserWarning, match="out of bounds: .*clipped"):
        out = nki.simulate_kernel(kernel2, out_of_bounds="warn", uninitialized_reads="warn")
    assert out.shape == (128, 4)


def test_capacity_errors_name_the_tile_its_size_and_what_is_left():
    def kernel():
        keep = nl.ndarray((128, 3000), nl.float32, buffer=nl.psum, name="acc")
        nl.ndarray((128, 2048), nl.float32, buffer=nl.psum, name="scores")
        return keep

    with pytest.raises(tpb.CapacityError, match=r'8192 bytes per partition in psum for tile "scores": 4352 of 16384'):
        nki.simulate_kernel(kernel)


def test_tiles_freed_in_a_loop_are_reused():
    def kernel():
        for i in nl.affine_range(64):
            t = nl.ndarray((128, 16384), nl.float32)  # 64 KiB per partition each
            nisa.iota(t, [[0, 16384]], offset=i)
        return hbm(t[0:1, 0:1])

    assert nki.simulate_kernel(kernel)[0, 0] == 63


def test_uninitialised_reads_raise_unless_asked_to_warn():
    def kernel():
        t = nl.ndarray((4, 8), nl.float32)
        return hbm(nl.add(t, 1.0))

    with pytest.raises(tpb.Fault, match="uninitialised") as e:
        nki.simulate_kernel(kernel)
    assert e.value.kind == "strict"
    assert nki.simulate_kernel(kernel, uninitialized_reads="warn").shape == (4, 8)


# Issue 29 item 12: output elements a kernel never writes would read back as 0.0.
def _half_store(a):
    out = nl.ndarray((4, 8), nl.float32, buffer=nl.shared_hbm)
    nl.store(out[0:2, :], value=nl.load(a[0:2, :]))     # rows 2 and 3 never written
    return out


def test_an_output_the_kernel_wrote_whole_passes():
    def kernel(a):
        out = nl.ndarray((4, 8), nl.float32, buffer=nl.shared_hbm)
        nl.store(out, value=nl.load(a))
        return out

    a = np.arange(32, dtype=np.float32).reshape(4, 8)
    np.testing.assert_array_equal(nki.simulate_kernel(kernel, a), a)


def test_unwritten_output_elements_raise_naming_the_output_and_the_first_index():
    a = np.ones((4, 8), np.float32)
    with pytest.raises(tpb.UnwrittenOutputError, match=r"element \[2, 0\]") as e:
        nki.simulate_kernel(_half_store, a)
    assert (e.value.output, e.value.index) == (None, (2, 0))
    assert isinstance(e.value, RuntimeError)

    def two_outputs(a):
        whole = nl.ndarray((4, 8), nl.float32, buffer=nl.shared_hbm)
        nl.store(whole, value=nl.load(a))
        return whole, _half_store(a)

    with pytest.raises(tpb.UnwrittenOutputError, match="output 1") as e:
        nki.simulate_kernel(two_outputs, a)
    assert (e.value.output, e.value.index) == (1, (2, 0))

    def ragged(a):
        out = nl.ndarray((4, 8), nl.float32, buffer=nl.shared_hbm)
        nl.store(out[0:2, :], value=nl.load(a[0:2, :]))
        nl.store(out[2:3, 0:3], value=nl.load(a[2:3, 0:3]))
        nl.store(out[3:4, :], value=nl.load(a[3:4, :]))
        return out

    with pytest.raises(tpb.UnwrittenOutputError) as e:
        nki.simulate_kernel(ragged, a)
    assert e.value.index == (2, 3)


def test_unwritten_output_elements_warn_when_asked():
    a = np.ones((4, 8), np.float32)
    with pytest.warns(RuntimeWarning, match=r"element \[2, 0\].*never written"):
        out = nki.simulate_kernel(_half_store, a, uninitialized_reads="warn")
    np.testing.assert_array_equal(out[2:], 0.0)


def test_an_unwritten_element_inside_a_strided_output_view_is_found():
    def kernel(a):
        out = nl.ndarray((4, 8), nl.float32, buffer=nl.shared_hbm)
        nl.store(out[:, 0:5], value=nl.load(a[:, 0:5]))   # columns 5..7 never written
        return out[:, 4:8]

    with pytest.raises(tpb.UnwrittenOutputError) as e:
        nki.simulate_kernel(kernel, np.ones((4, 8), np.float32))
    assert e.value.index == (0, 1)


# Calls: name=, engine=, legacy forms, and refusals naming the missing instruction.
def test_engine_and_name_keywords():
    def kernel():
        t = ramp(4, 8)
        u = nl.ndarray((4, 8), nl.float32)
        nisa.tensor_scalar(u, t, nl.add, 1.0, engine=nisa.engine.vector, name="bump")
        with pytest.raises(tpb.UsageError, match="runs on DVE only"):
            nisa.tensor_scalar(u, t, nl.add, 1.0, engine=nisa.engine.gpsimd)
        v = nisa.tensor_scalar(data=u, op0=np.multiply, operand0=2.0)  # legacy, returns a tile
        return hbm(v)

    np.testing.assert_array_equal(nki.simulate_kernel(kernel), (ramp_np(4, 8) + 1) * 2)


@pytest.mark.parametrize(
    "call, needs",
    [
        (lambda a: nl.all(a, axis=1), "logical-and TensorReduce"),
    ],
)
def test_missing_instructions_are_named(call, needs):
    def kernel():
        return call(ramp(4, 4))

    with pytest.raises(tpb.NotSupported, match=f"not supported yet: nki.* needs .*{needs}"):
        nki.simulate_kernel(kernel)


# nki-api §2.8-§2.10: the value-returning ops lower to TensorTensor, TensorReduce, Copy,
# Reciprocal, Memset, StreamTranspose and AffineSelect; results against NumPy.
def test_language_ops_against_numpy():
    def kernel():
        t = ramp(32, 16)
        t32 = ramp(32, 32)
        u = nl.add(t, 1.0)
        return hbm(
            nl.add(t, u),
            nl.maximum(t, nl.multiply(u, 0.5)),
            nl.sum(t, axis=1, keepdims=True),
            nl.max(t, axis=1),
            nl.mean(t, axis=1, keepdims=True),
            nl.reciprocal(u),
            nl.copy(t, dtype=nl.bfloat16),
            nl.transpose(t32),
            nl.zeros((4, 4), nl.float32),
            nl.full((4, 4), 3, nl.int32),
            nl.shared_identity_matrix(8, dtype=nl.float32),
        )

    out = nki.simulate_kernel(kernel)
    r = ramp_np(32, 16)
    u = r + 1
    np.testing.assert_array_equal(out[0], r + u)
    np.testing.assert_array_equal(out[1], np.maximum(r, u * 0.5))
    np.testing.assert_array_equal(out[2], r.sum(axis=1, keepdims=True))
    np.testing.assert_array_equal(out[3][:, 0], r.max(axis=1))
    np.testing.assert_array_equal(out[4], (r.sum(axis=1, keepdims=True) * np.float32(1 / 16)))
    np.testing.assert_array_equal(out[5], np.float32(1) / u)
    np.testing.assert_array_equal(out[6].astype(np.float32), r.astype(nl.bfloat16).astype(np.float32))
    np.testing.assert_array_equal(out[7], ramp_np(32, 32).T)
    np.testing.assert_array_equal(out[8], np.zeros((4, 4)))
    np.testing.assert_array_equal(out[9], np.full((4, 4), 3))
    np.testing.assert_array_equal(out[10], np.eye(8))


def test_broadcast_to_copies_a_zero_step_view():
    def kernel():
        t = ramp(8, 4)
        return hbm(nl.broadcast_to(t[:, 1:2], (8, 6)), t[:, 2:3].broadcast(1, 3))

    b, v = nki.simulate_kernel(kernel)
    r = ramp_np(8, 4)
    np.testing.assert_array_equal(b, np.broadcast_to(r[:, 1:2], (8, 6)))
    np.testing.assert_array_equal(v, np.broadcast_to(r[:, 2:3], (8, 3)))


def test_binary_ops_do_not_broadcast():
    def kernel():
        t = ramp(4, 4)
        return nl.add(t, t[:, 0:2])

    with pytest.raises(tpb.NotSupported, match="do not broadcast"):
        nki.simulate_kernel(kernel)


def test_engine_keyword_places_dve_or_pool_instructions():
    core = nki.Core()

    def kernel():
        t = ramp(4, 8)
        u = nl.ndarray((4, 8), nl.float32)
        nisa.tensor_copy(u, t, engine=nisa.engine.gpsimd)
        v = nl.ndarray((4, 8), nl.float32)
        nisa.tensor_copy(v, u, engine=nisa.engine.vector)
        return hbm(v)

    np.testing.assert_array_equal(nki.simulate_kernel(kernel, core=core), ramp_np(4, 8))
    text = core.disasm()
    assert ".engine pool\n" in text and ".engine auto\n" in text
    _, prof = nki.profile_kernel(kernel)
    assert {e["engine"] for e in prof.engines} == {"pool", "dve", "sp", "dma.sp"}


def test_every_supported_name_exists_with_a_docstring():
    for m, n, tag, _ in nki.api_support():
        module = nl if m == "language" else nisa
        obj = getattr(module, n)
        if callable(obj) and not isinstance(obj, type):
            doc = obj.__doc__ or ""
            assert "Example" in doc, f"{m}.{n} has no example in its docstring"
