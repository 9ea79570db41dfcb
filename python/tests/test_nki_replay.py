"""A kernel is traced once per signature (issue 30; docs/python.md, "Traced once
per signature"): the first call runs the kernel's Python and records what it did to the
machine; a later call with the same signature replays the record in Rust with the new input
bytes. Replayed outputs must equal an eager run's bit for bit, and anything the kernel's
Python could have decided on must be part of the signature."""

from __future__ import annotations

import gc
import importlib.util
import inspect
import pathlib
import threading
import warnings

import numpy as np
import pytest

import tpb
import tpb.nki as nki
from tpb.nki import isa as nisa
from tpb.nki import language as nl

ROOT = pathlib.Path(__file__).resolve().parents[2]

SCALE = 2.0
calls: list = []
# Globals named like the attributes the kernels call (``nl.load``, ``nl.store``) whose values
# have no signature: only the names a kernel loads as globals are part of its signature.
load = {"not": "keyable"}
store = {"not": "keyable"}


@nki.jit
def scaled(x):
    t = nl.load(x)
    y = nl.ndarray(x.shape, x.dtype, buffer=nl.sbuf)
    nisa.tensor_scalar(y, t, nl.multiply, SCALE)
    out = nl.ndarray(x.shape, x.dtype, buffer=nl.shared_hbm)
    nl.store(out, value=y)
    return out


@pytest.fixture(autouse=True)
def _count_python_runs(monkeypatch):
    """``calls`` gets the kernel's first argument's shape each time a kernel's Python runs
    (its ``nl.load``): a kernel reading a list would make the list part of its signature."""
    calls.clear()
    load = nl.load

    def counting_load(src, *args, **kwargs):
        calls.append("scaled")
        return load(src, *args, **kwargs)

    monkeypatch.setattr(nl, "load", counting_load)
    yield


def rand(*shape: int, seed: int = 0, dtype=np.float32) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


def test_a_second_call_replays_without_running_the_python_and_uses_the_new_inputs():
    a, b = rand(64, 32, seed=1), rand(64, 32, seed=2)
    ya = scaled(a)
    yb = scaled(b)
    assert calls == ["scaled"]
    np.testing.assert_array_equal(ya, a * np.float32(2.0))
    np.testing.assert_array_equal(yb, b * np.float32(2.0))
    # Another shape is another signature: traced again.
    yc = scaled(rand(32, 8, seed=3))
    assert calls == ["scaled", "scaled"] and yc.shape == (32, 8)


def test_a_global_the_kernel_reads_is_part_of_the_signature():
    global SCALE
    a = rand(16, 8)
    scaled(a)
    SCALE = 3.0
    try:
        y = scaled(a)
    finally:
        SCALE = 2.0
    assert calls == ["scaled", "scaled"]
    np.testing.assert_array_equal(y, a * np.float32(3.0))


def test_kernels_compiled_from_the_same_source_guard_their_own_globals():
    """Code objects of the same contents share their global names (``_code_global_names``);
    the values are each module's own, and a global the kernel loads changed between calls
    is still seen."""
    code = compile(inspect.getsource(scaled.fn), "<scaled, again>", "exec")
    spaces = [{"nki": nki, "nl": nl, "nisa": nisa, "SCALE": s} for s in (2.0, 5.0)]
    for ns in spaces:
        exec(code, ns)
    a = rand(8, 4)
    for ns in spaces:
        np.testing.assert_array_equal(ns["scaled"](a), a * np.float32(ns["SCALE"]))
    spaces[0]["SCALE"] = -1.0
    np.testing.assert_array_equal(spaces[0]["scaled"](a), -a)
    np.testing.assert_array_equal(spaces[1]["scaled"](a), a * np.float32(5.0))


FACTORS = [2.0]


@nki.jit
def listed(x):
    t = nl.load(x)
    y = nl.ndarray(x.shape, x.dtype, buffer=nl.sbuf)
    nisa.tensor_scalar(y, t, nl.multiply, FACTORS[0])
    out = nl.ndarray(x.shape, x.dtype, buffer=nl.shared_hbm)
    nl.store(out, value=y)
    return out


def test_a_global_changed_in_place_or_a_rebound_closure_cell_is_seen_on_the_next_call():
    # The guards are kept while the objects they came from stay in place, which holds for
    # values an object's identity fixes: a list changed in place is compared by value.
    a = rand(8, 4)
    np.testing.assert_array_equal(listed(a), a * np.float32(2))
    np.testing.assert_array_equal(listed(a), a * np.float32(2))
    FACTORS[0] = 5.0
    try:
        np.testing.assert_array_equal(listed(a), a * np.float32(5))
    finally:
        FACTORS[0] = 2.0
    assert len(calls) == 2

    factor = 2.0

    @nki.jit
    def k(x):
        t = nl.load(x)
        y = nl.ndarray(x.shape, x.dtype, buffer=nl.sbuf)
        nisa.tensor_scalar(y, t, nl.multiply, factor)
        out = nl.ndarray(x.shape, x.dtype, buffer=nl.shared_hbm)
        nl.store(out, value=y)
        return out

    np.testing.assert_array_equal(k(a), a * np.float32(2))
    np.testing.assert_array_equal(k(a), a * np.float32(2))
    factor = 7.0
    np.testing.assert_array_equal(k(a), a * np.float32(7))
    assert len(calls) == 4


def test_closure_values_and_scalar_arguments_are_part_of_the_signature():
    def make(factor):
        @nki.jit
        def k(x, bias):
            t = nl.load(x)
            y = nl.ndarray(x.shape, x.dtype, buffer=nl.sbuf)
            nisa.tensor_scalar(y, t, nl.multiply, factor, op1=nl.add, operand1=bias)
            out = nl.ndarray(x.shape, x.dtype, buffer=nl.shared_hbm)
            nl.store(out, value=y)
            return out
        return k

    a = rand(8, 4)
    k = make(2.0)
    np.testing.assert_array_equal(k(a, 1.0), a * np.float32(2) + np.float32(1))
    np.testing.assert_array_equal(k(a, 5.0), a * np.float32(2) + np.float32(5))
    np.testing.assert_array_equal(k(a, 5.0), a * np.float32(2) + np.float32(5))
    assert len(calls) == 2
    np.testing.assert_array_equal(make(3.0)(a, 5.0), a * np.float32(3) + np.float32(5))
    assert len(calls) == 3


def test_replay_off_runs_the_python_every_time(monkeypatch):
    a = rand(16, 8)
    scaled(a, replay=False)
    scaled(a, replay=False)
    assert calls == ["scaled", "scaled"]
    monkeypatch.setenv("TPB_NKI_REPLAY", "0")
    scaled(a)
    scaled(a)
    assert calls == ["scaled"] * 4
    with pytest.raises(tpb.UsageError, match="replay="):
        scaled(a, replay="yes")


def test_the_replay_switch_is_read_at_every_call(monkeypatch):
    # The variable is read through tpb's cheap environment lookup (nki/_environ.py): a
    # change made after the first call must still be seen, both ways.
    from tpb.nki import _replay

    _replay.forget(scaled.fn)  # only this test's recorded run
    a = rand(16, 8)
    monkeypatch.setenv("TPB_NKI_REPLAY", "0")
    scaled(a)
    scaled(a)
    assert calls == ["scaled"] * 2
    monkeypatch.setenv("TPB_NKI_REPLAY", "1")
    scaled(a)
    scaled(a)
    assert calls == ["scaled"] * 3
    monkeypatch.setenv("TPB_NKI_REPLAY", "0")
    scaled(a)
    assert calls == ["scaled"] * 4
    monkeypatch.delenv("TPB_NKI_REPLAY")
    scaled(a)
    assert calls == ["scaled"] * 4


def test_the_environment_lookup_is_os_environ_get(monkeypatch):
    import os

    from tpb.nki import _environ

    names = ["TPB_TEST_ENV_A", "TPB_TEST_ENV_\u00e9", "TPB_TEST_ENV_UNSET"]
    monkeypatch.setenv(names[0], "trn2")
    monkeypatch.setenv(names[1], "caf\u00e9")
    monkeypatch.delenv(names[2], raising=False)
    for n in names:
        assert _environ.get(n) == os.environ.get(n), n
    monkeypatch.setenv(names[2], "")
    monkeypatch.delenv(names[0])
    for n in names:
        assert _environ.get(n) == os.environ.get(n), n


def test_a_zero_dimensional_input_replays():
    # A 0-d array is a one-element HBM tensor; the replay is given the 0-d array itself.
    @nki.jit
    def add_one(x):
        t = nl.load(x)
        out = nl.ndarray(x.shape, x.dtype, buffer=nl.shared_hbm)
        nl.store(out, value=nl.add(t, 1.0))
        return out

    np.testing.assert_array_equal(add_one(np.array(2.5, np.float32)), [3.5])
    n = len(calls)
    np.testing.assert_array_equal(add_one(np.array(7.0, np.float32)), [8.0])
    assert len(calls) == n
    from tpb.nki import _replay

    rec = next(r for r in _replay.table(add_one.fn).values() if isinstance(r, _replay.Recorded))
    outs, unwritten, back = rec.replay.run([np.array(-1.0, np.float32)])
    np.testing.assert_array_equal(outs[0], [0.0])
    assert unwritten is None and back is None


def test_a_kernel_that_reads_device_data_back_is_never_replayed():
    @nki.jit
    def peeks(x):
        t = nl.load(x)
        if float(t.numpy()[0, 0]) > 100.0:  # the kernel's Python decides on device data
            raise AssertionError("no such element")
        out = nl.ndarray(x.shape, x.dtype, buffer=nl.shared_hbm)
        nl.store(out, value=t)
        return out

    a, b = rand(8, 4, seed=1), rand(8, 4, seed=2)
    np.testing.assert_array_equal(peeks(a), a)
    np.testing.assert_array_equal(peeks(b), b)
    assert len(calls) == 2


def test_an_argument_without_a_value_signature_runs_eagerly():
    class Config:  # a mutable object: its fields could change between calls
        def __init__(self, s):
            self.s = s

    @nki.jit
    def k(x, cfg):
        t = nl.load(x)
        y = nl.ndarray(x.shape, x.dtype, buffer=nl.sbuf)
        nisa.tensor_scalar(y, t, nl.multiply, cfg.s)
        out = nl.ndarray(x.shape, x.dtype, buffer=nl.shared_hbm)
        nl.store(out, value=y)
        return out

    a = rand(8, 4)
    cfg = Config(2.0)
    k(a, cfg)
    cfg.s = 4.0
    np.testing.assert_array_equal(k(a, cfg), a * np.float32(4))
    assert len(calls) == 2


def test_an_input_the_kernel_writes_comes_back_after_a_replay():
    @nki.jit
    def double_in_place(x):
        t = nl.load(x)
        y = nl.ndarray(x.shape, x.dtype, buffer=nl.sbuf)
        nisa.tensor_scalar(y, t, nl.multiply, 2.0)
        nl.store(x, value=y)
        out = nl.ndarray(x.shape, x.dtype, buffer=nl.shared_hbm)
        nl.store(out, value=y)
        return out

    for seed in (1, 2):
        a = rand(8, 4, seed=seed)
        want = a * np.float32(2)
        double_in_place(a)
        np.testing.assert_array_equal(a, want)
    ro = rand(8, 4)
    ro.flags.writeable = False
    with pytest.raises(tpb.UsageError, match="read-only"):
        double_in_place(ro)


def test_unwritten_outputs_are_reported_by_replays_too():
    @nki.jit
    def half(x):
        out = nl.ndarray(x.shape, x.dtype, buffer=nl.shared_hbm)
        t = nl.load(x[0:4, :])
        nl.store(out[0:4, :], value=t)
        return out

    a = rand(8, 4)
    with pytest.raises(tpb.UnwrittenOutputError):
        half(a)
    for _ in range(2):
        with pytest.warns(RuntimeWarning, match=r"element \[4, 0\]"):
            half(a, uninitialized_reads="warn")
    with pytest.raises(tpb.UnwrittenOutputError):
        half(a)


def test_tuple_outputs_and_grids_replay():
    @nki.jit
    def two(x):
        i = nl.program_id(0)
        t = nl.load(x[i])
        a = nl.ndarray(x.shape, x.dtype, buffer=nl.shared_hbm)
        b = nl.ndarray(x.shape[1:], x.dtype, buffer=nl.shared_hbm)
        nl.store(a[i], value=t)
        nl.store(b, value=t)
        return a, b

    for seed in (1, 2, 3):
        x = rand(2, 8, 4, seed=seed)
        a, b = two[2](x)
        np.testing.assert_array_equal(a, x)
        np.testing.assert_array_equal(b, x[1])


def _cores_alive() -> int:
    return sum(1 for o in gc.get_objects() if type(o) is tpb._tpb.Core)


def test_a_recorded_call_frees_its_core_without_the_garbage_collector():
    """Recording a run (a signature's first call) must leave no reference cycle holding the
    run's tiles: their core's machine would stay allocated until the collector's next full
    pass, and every first call take a new machine's memory (docs/benchmarks.md, "Seventh
    pass")."""

    @nki.jit
    def pair(x):
        t = nl.load(x)
        a = nl.ndarray(x.shape, x.dtype, buffer=nl.shared_hbm)
        b = nl.ndarray(x.shape, x.dtype, buffer=nl.shared_hbm)
        nl.store(a, value=t)
        nl.store(b, value=t)
        return a, [b, 3]

    enabled = gc.isenabled()
    gc.collect()
    gc.disable()
    try:
        before = _cores_alive()
        for seed in (1, 2):  # recorded, then replayed
            x = rand(4, 8, seed=seed)
            a, (b, three) = pair(x)
            np.testing.assert_array_equal(a, x)
            np.testing.assert_array_equal(b, x)
            assert three == 3
        assert _cores_alive() == before
    finally:
        if enabled:
            gc.enable()


def _example(name):
    spec = importlib.util.spec_from_file_location(name, ROOT / "examples" / "kernels" / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


# Differential: every example kernel, replayed on fresh random inputs, against an eager run
# of its Python on the same inputs (the record of one run must not leak into the next).
EXAMPLES = {
    "scale_bias": lambda s: (rand(128, 512, seed=s), rand(128, 1, seed=s + 9)),
    "softmax": lambda s: (rand(128, 512, seed=s),),
    "transpose2d": lambda s: (rand(128, 128, seed=s),),
    "cumsum": lambda s: (rand(128, 64, seed=s),),
    "average_pool2d": lambda s: (rand(16, 8, 8, seed=s),),
}


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_replays_of_example_kernels_equal_eager_runs(name):
    mod = _example(name)
    kernel = getattr(mod, name)
    rng = np.random.default_rng(7)
    for s in rng.integers(0, 1000, size=4):
        args = EXAMPLES[name](int(s))
        eager = kernel(*args, replay=False)
        replayed = kernel(*args)
        np.testing.assert_array_equal(np.asarray(replayed).view(np.uint8),
                                      np.asarray(eager).view(np.uint8))


def test_two_threads_replay_the_same_kernel_correctly():
    a = [rand(64, 32, seed=s) for s in range(8)]
    scaled(a[0])
    warm = len(calls)
    errors = []

    def work(k):
        try:
            for _ in range(5):
                for x in a[k::2]:
                    np.testing.assert_array_equal(scaled(x), x * np.float32(2.0))
        except Exception as e:  # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert len(calls) == warm


def test_a_recorded_run_refuses_arrays_that_do_not_match_it():
    from tpb.nki import _replay

    scaled(rand(16, 8))
    scaled(rand(16, 8))
    rec = next(r for r in _replay.table(scaled.fn).values()
               if isinstance(r, _replay.Recorded))
    with pytest.raises(tpb.UsageError, match="0 arrays given"):
        rec.replay.run([])
    with pytest.raises(tpb.UsageError, match="input 0"):
        rec.replay.run([np.zeros(3, np.int8)])
    with pytest.raises(tpb.Error):
        rec.replay.run(["not an array"])


def test_a_replay_reads_every_array_form_of_the_recorded_dtype_alike():
    # An input in the recorded form (C order, little-endian) is borrowed without a copy;
    # any other form of the same values (big-endian, Fortran order, a strided view, a
    # 0-d-free list of rows) goes through the general conversion. All must give the same
    # bits as the eager run.
    from tpb.nki import _replay

    _replay.forget(scaled.fn)  # only this test's recorded run
    x = rand(16, 8)
    want = scaled(x, replay=False)
    scaled(x)
    rec = next(r for r in _replay.table(scaled.fn).values()
               if isinstance(r, _replay.Recorded))
    wide = np.zeros((16, 16), np.float32)
    wide[:, ::2] = x
    forms = {
        "borrowed": x,
        "big-endian": x.astype(">f4"),
        "fortran": np.asfortranarray(x),
        "strided": wide[:, ::2],
    }
    for name, a in forms.items():
        outs, first, back = rec.replay.run([a])
        assert outs[0].dtype == np.float32 and outs[0].shape == (16, 8), name
        np.testing.assert_array_equal(outs[0].view(np.uint32), want.view(np.uint32),
                                      err_msg=name)
        assert first is None and back is None, name
    # The borrowed array is not changed by the replay.
    np.testing.assert_array_equal(forms["borrowed"], x)


def test_replays_keep_bfloat16_outputs_and_inputs_bit_exact():
    import ml_dtypes

    x = rand(16, 8).astype(ml_dtypes.bfloat16)
    want = scaled(x, replay=False)
    got = scaled(x)
    got = scaled(x)
    assert got.dtype == ml_dtypes.bfloat16 and got.shape == (16, 8)
    np.testing.assert_array_equal(got.view(np.uint16), want.view(np.uint16))
