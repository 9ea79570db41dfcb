"""Drop-in imports and the NKI entry points (issue 27; docs/python.md "Drop-in imports").

Public kernels import ``nki`` / ``neuronxcc.nki`` and launch through ``nki.jit``,
``nki.simulate``, ``kernel[grid]`` and the legacy ``baremetal``/``benchmark``/``profile``;
nki-api §1 and §4.1 give those entry points, §3.1 the enums, §2.3 the dtype names, §2.4
``tile_size``. The kernels here are the project's own restatements of public idioms.
"""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
import textwrap
import types

import numpy as np
import pytest

import tpb
import tpb.nki as tnki
from tpb.nki import dropin

NKI_NAMES = ["nki", "nki.language", "nki.isa", "nki.isa.constants", "nki.typing", "nki.tensor",
             "nki.dtype", "nki.compiler", "nki.collectives", "neuronxcc", "neuronxcc.nki",
             "neuronxcc.nki.language", "neuronxcc.nki.isa", "neuronxcc.nki.typing",
             "neuronxcc.nki.compiler", "neuronxcc.nki.isa.constants", "nki_cpu_simulator.nki"]


@pytest.fixture
def dropped_in():
    with dropin.installed():
        yield


def test_install_maps_every_dialect_to_tpb(dropped_in):
    import neuronxcc.nki as legacy_nki
    import neuronxcc.nki.isa as legacy_nisa
    import neuronxcc.nki.language as legacy_nl
    import nki
    import nki.isa as nisa
    import nki.language as nl
    from neuronxcc import nki as from_nki
    from nki.isa.constants import dge_mode, oob_mode

    assert nki is tnki and legacy_nki is tnki and from_nki is tnki
    assert nl is tnki.language and legacy_nl is tnki.language
    assert nisa is tnki.isa and legacy_nisa is tnki.isa
    assert dge_mode is tnki.isa.dge_mode and oob_mode.skip.value == 1
    for name in NKI_NAMES:
        assert name in sys.modules, name


def test_uninstall_removes_exactly_what_install_added():
    before = set(sys.modules)
    with dropin.installed():
        assert dropin.is_installed()
    assert not dropin.is_installed()
    assert set(sys.modules) - before == set()
    for name in NKI_NAMES:
        assert name not in sys.modules, name


def test_install_refuses_to_shadow_a_real_nki_module(monkeypatch):
    monkeypatch.setitem(sys.modules, "nki", types.ModuleType("nki"))
    with pytest.raises(tpb.UsageError, match="already imported"):
        dropin.install()
    assert not dropin.is_installed()
    assert "neuronxcc" not in sys.modules


LEGACY_KERNEL_FILE = '''
import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.typing as nt
from neuronxcc.nki.language import par_dim


@nki.jit(mode="simulation", platform_target="trn2", debug_kernel=True)
def add_kernel(a_input: nt.tensor[256, 512], b_input: nt.tensor) -> nt.tensor:
    c_output = nl.ndarray(a_input.shape, dtype=a_input.dtype, buffer=nl.shared_hbm)
    i_p = nl.program_id(0) * 128 + nl.arange(128)[:, None]
    i_f = nl.arange(512)[None, :]
    a = nl.load(a_input[i_p, i_f])
    b = nl.load(b_input[i_p, i_f])
    nl.store(c_output[i_p, i_f], value=nl.add(a, b))
    return c_output
'''


def test_a_legacy_kernel_file_runs_unmodified(tmp_path, monkeypatch, dropped_in):
    (tmp_path / "legacy_add.py").write_text(LEGACY_KERNEL_FILE)
    monkeypatch.syspath_prepend(str(tmp_path))
    import legacy_add

    rng = np.random.default_rng(7)
    a = rng.standard_normal((256, 512)).astype(np.float32)
    b = rng.standard_normal((256, 512)).astype(np.float32)
    out = tnki.simulate_kernel(legacy_add.add_kernel[2], a, b)
    np.testing.assert_array_equal(out, a + b)
    out = tnki.simulate(legacy_add.add_kernel[tnki.language.nc(2)])(a, b)
    np.testing.assert_array_equal(out, a + b)
    sys.modules.pop("legacy_add", None)


def _version_kernel():
    import tpb.nki.isa as nisa
    import tpb.nki.language as nl

    out = nl.ndarray((1, 1), nl.int32, buffer=nl.shared_hbm)
    t = nl.full((1, 1), int(nisa.get_nc_version()), nl.int32)
    nl.store(out, value=t)
    return out


@pytest.mark.parametrize("target, version", [("trn1", 2), ("inf2", 2), ("gen3", 3),
                                             ("trn2", 3), ("trn3", 4)])
def test_platform_target_env_chooses_the_generation(monkeypatch, target, version):
    monkeypatch.setenv("NEURON_PLATFORM_TARGET_OVERRIDE", target)
    assert tnki.simulate_kernel(_version_kernel)[0, 0] == version
    monkeypatch.delenv("NEURON_PLATFORM_TARGET_OVERRIDE")
    assert tnki.jit(_version_kernel, platform_target=target)()[0, 0] == version


def test_an_unknown_platform_target_is_a_usage_error(monkeypatch):
    monkeypatch.setenv("NEURON_PLATFORM_TARGET_OVERRIDE", "trn9")
    with pytest.raises(tpb.UsageError, match="trn9"):
        tnki.simulate_kernel(_version_kernel)


def test_gen_overrides_the_environment(monkeypatch):
    monkeypatch.setenv("NEURON_PLATFORM_TARGET_OVERRIDE", "trn1")
    assert tnki.simulate_kernel(_version_kernel, gen="mariana")[0, 0] == 4


def _scale_kernel(a):
    import tpb.nki.language as nl

    out = nl.ndarray(a.shape, a.dtype, buffer=nl.shared_hbm)
    nl.store(out, value=nl.multiply(nl.load(a), 2.0))
    return out


def test_legacy_launchers_run_and_report_the_estimate():
    a = np.arange(128 * 64, dtype=np.float32).reshape(128, 64)
    np.testing.assert_array_equal(tnki.baremetal(_scale_kernel)(a), a * 2)
    np.testing.assert_array_equal(
        tnki.baremetal(save_neff_name="file.neff")(_scale_kernel)(a), a * 2)
    bench = tnki.benchmark(warmup=5, iters=10)(_scale_kernel)
    np.testing.assert_array_equal(bench(a), a * 2)
    latency = bench.benchmark_result.nc_latency
    assert latency.get_latency_percentile(50) == latency.get_latency_percentile(99) > 0
    prof = tnki.profile(working_directory="/nonexistent")(_scale_kernel)
    np.testing.assert_array_equal(prof(a), a * 2)
    assert prof.profile.estimated_time_us > 0


def test_nki_options_never_reach_the_kernel():
    k = tnki.jit(mode="baremetal", additional_compile_opt="--x", save_trace_name="p.ntff")(
        _scale_kernel)
    a = np.ones((128, 8), np.float32)
    np.testing.assert_array_equal(k(a), a * 2)


@pytest.mark.parametrize("call, want", [
    (lambda nl: nl.affine_range(4), [0, 1, 2, 3]),
    (lambda nl: nl.affine_range(0, stop=8, step=2), [0, 2, 4, 6]),
    (lambda nl: nl.sequential_range(start=1, stop=4, step=1), [1, 2, 3]),
    (lambda nl: nl.affine_range(start=3), [0, 1, 2]),
    (lambda nl: nl.static_range(2, 5), [2, 3, 4]),
    (lambda nl: nl.affine_range(3, directives=tnki.compiler.no_reorder()), [0, 1, 2]),
    (lambda nl: nl.sequential_range(2, directives=tnki.compiler.multi_buffer(2)), [0, 1]),
])
def test_loops_take_nki_keywords(call, want):
    assert list(call(tnki.language)) == want


@pytest.mark.parametrize("call, match", [
    (lambda nl: nl.affine_range(0, stpo=3), "stpo"),
    (lambda nl: nl.sequential_range(step=2), "missing a required argument: 'start'"),
    (lambda nl: nl.affine_range(1, 2, 3, 4), "too many positional arguments"),
    (lambda nl: nl.affine_range(4, start=1), "multiple values for argument 'start'"),
    (lambda nl: nl.affine_range(1.5), "start: expected an int, not float"),
    (lambda nl: nl.static_range(0, 4, 0), "step"),
])
def test_bad_loop_arguments_are_usage_errors(call, match):
    with pytest.raises(tpb.UsageError, match=match):
        list(call(tnki.language))


def test_mx_and_tf32_names_import_and_refuse_when_used():
    nl = tnki.language
    for name in ["tfloat32", "float8_e4m3fn_x4", "float4_e2m1fn_x4", "float8_e5m2_x4",
                 "float8_e8m0fnu"]:
        dt = getattr(nl, name)
        assert "not supported" in repr(dt)
        # NumPy 2.0 (the lock's for Python 3.9) turns the refusal into its own TypeError,
        # which still names the dtype; later versions pass tpb.DtypeError through.
        with pytest.raises((tpb.DtypeError, TypeError)) as refused:
            np.dtype(dt)
        assert name in str(refused.value)
        core = tnki.Core()
        with pytest.raises(tpb.DtypeError, match=name):
            core.ndarray((4, 4), dt)


def test_legacy_fp32_constants():
    assert tnki.language.fp32.min == -3.4028234663852886e38
    assert np.float32(tnki.language.fp32.min).view(np.uint32) == 0xFF7FFFFF


def test_nkiobject_configuration_classes():
    @dataclasses.dataclass(frozen=True)
    class TileConfig(tnki.language.NKIObject):
        rows: int = 128

    assert TileConfig().rows == 128 and isinstance(TileConfig(), tnki.language.NKIObject)


@pytest.mark.parametrize("gen, kib", [("sunda", 192), ("cayman", 224), ("mariana", 256)])
def test_tile_size_sbuf_fields_follow_the_generation(monkeypatch, gen, kib):
    monkeypatch.setenv("NEURON_PLATFORM_TARGET_OVERRIDE", gen)
    ts = tnki.language.tile_size
    assert ts.total_available_sbuf_size == ts.sbuf_fmax_bytes == kib * 1024
    assert ts.sbuf_size_bytes == 128 * kib * 1024
    assert (ts.pmax, ts.gemm_moving_fmax, ts.psum_num_banks) == (128, 512, 8)


def test_legacy_grid_specifiers():
    nl = tnki.language
    assert nl.spmd_dim(nl.nc(2), 2) == nl.nc(2) * 2 == 4
    with pytest.raises(tpb.UsageError, match="positive int"):
        nl.nc(0)
    with pytest.raises(tpb.UsageError, match="positive int"):
        nl.spmd_dim(2, "2")


def test_engine_aliases_and_dma_enums():
    nisa = tnki.isa
    assert nisa.vector_engine is nisa.engine.vector
    assert nisa.gpsimd_engine is nisa.engine.gpsimd
    assert nisa.constants.dma_engine.gpsimd_dma.value == 2
    assert [m.name for m in nisa.dge_mode] == ["unknown", "swdge", "hwdge", "none"]


def test_compiler_directives_leave_the_kernel_unchanged():
    c = tnki.compiler

    def k():
        return 1

    assert c.skip_middle_end_transformations(k) is k
    assert c.enable_stack_allocator(log_level=20)(k) is k
    assert c.enable_stack_allocator(k) is k
    assert c.sbuf.mod_alloc(base_addr=0) is tnki.language.sbuf
    assert c.sbuf.mod_alloc(base_addr=0, num_free_tiles=(2,)).counts == (2,)  # block wrap
    assert c.psum.alloc(lambda idx, p, f: (0, 0, 0)) is tnki.language.psum
    with c.no_reorder():
        pass


def test_collectives_import_and_refuse_when_called():
    ncc = tnki.collectives
    ncc.ReplicaGroup([[0, 1]])
    with pytest.raises(tpb.NotSupported, match="all_reduce"):
        ncc.all_reduce()


def test_typing_annotations_subscript():
    nt = tnki.typing
    assert nt.tensor[128, 512] is nt.tensor and nt.tensor[nt.mutable] is nt.tensor
    assert nt.float32 == np.float32 and tnki.tensor.NkiTensor is tnki.Tile


def test_pytest_plugin_installs_the_drop_in(tmp_path):
    (tmp_path / "test_uses_nki.py").write_text(textwrap.dedent('''
        import nki.language as nl
        import neuronxcc.nki as nki

        def test_it():
            import tpb.nki
            assert nki is tpb.nki and nl is tpb.nki.language
    '''))
    r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                        "-p", "tpb.nki.pytest_plugin", str(tmp_path)],
                       capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "1 passed" in r.stdout


@pytest.mark.parametrize("timeline, match", [
    ("k.txt", r"\.json"), (["k.json", "k.png"], r"\.svg"), (3, "path"),
    ("/nonexistent-folder/k.json", "does not exist"), ([b"\xff/k.svg"], "does not exist"),
])
def test_profile_checks_timeline_paths_before_running(tmp_path, monkeypatch, timeline, match):
    # Issue 29 item 15: a bad timeline path must not throw the run's outputs away.
    monkeypatch.chdir(tmp_path)
    ran = []

    def k(a):
        ran.append(1)
        return _scale_kernel(a)

    with pytest.raises(tpb.UsageError, match=match):
        tnki.profile_kernel(k, np.ones((128, 4), np.float32), timeline=timeline)
    assert ran == []


def test_profile_accepts_bytes_and_pathlike_timelines(tmp_path):
    a = np.ones((128, 4), np.float32)
    out, prof = tnki.profile_kernel(_scale_kernel, a,
                                    timeline=[tmp_path / "k.svg", os.fsencode(tmp_path / "k.json")])
    np.testing.assert_array_equal(out, a * 2)
    assert (tmp_path / "k.svg").stat().st_size > 0 and (tmp_path / "k.json").stat().st_size > 0
