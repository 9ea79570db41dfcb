"""The NKI API is defined once (issue 26 item 3): every ``nki.isa`` / ``nki.language`` name
is one Python definition registered in ``tpb.nki._api``, from which the public callables,
``api_support()`` and docs/nki-support.md come; the legacy value-returning forms run
(issue 27 blocker 4); every bad argument is a ``tpb.UsageError`` naming the parameter
(issue 29 items 14 and 17)."""

from __future__ import annotations

import inspect
import pathlib
import shutil
import subprocess
import sys
import typing

import numpy as np
import pytest

import tpb
import tpb._tpb as native
from tpb import nki
from tpb.nki import _api
from tpb.nki import isa as nisa
from tpb.nki import language as nl

ROOT = pathlib.Path(__file__).resolve().parents[2]


def run(kernel, *args, **kw):
    return nki.simulate_kernel(kernel, *args, **kw)


def hbm(*tiles):
    """A kernel's outputs: each on-chip tile stored into a shared_hbm tensor (NKI refuses
    on-chip outputs)."""
    outs = []
    for t in tiles:
        if t.buffer == "psum":
            t = nl.copy(t)
        o = nl.ndarray(tuple(t.shape), t.dtype, buffer=nl.shared_hbm)
        nl.store(o, value=t)
        outs.append(o)
    return outs[0] if len(outs) == 1 else tuple(outs)


def ramp(p, f, dtype=np.float32):
    return (np.arange(p * f, dtype=np.float64).reshape(p, f) / 8).astype(dtype)


# ---- one definition, everything generated from it ----------------------------------------


def test_support_doc_is_the_registry_regenerated():
    """docs/nki-support.md is support_markdown() of the definitions (regenerate and diff;
    tools/gen_nki_support.py writes it)."""
    doc = (ROOT / "docs" / "nki-support.md").read_text(encoding="utf-8")
    assert doc == _api.support_markdown(), "run tools/gen_nki_support.py"
    check = subprocess.run([sys.executable, str(ROOT / "tools" / "gen_nki_support.py"),
                            "--check"], capture_output=True, text=True)
    assert check.returncode == 0, check.stderr


def test_the_support_doc_check_fails_on_a_stale_doc(tmp_path):
    stale = tmp_path / "nki-support.md"
    stale.write_text(_api.support_markdown().replace("| `iota` | supported |",
                                                     "| `iota` | not yet |"))
    check = subprocess.run([sys.executable, str(ROOT / "tools" / "gen_nki_support.py"),
                            "--check", "--doc", str(stale)], capture_output=True, text=True)
    assert check.returncode == 1 and "stale" in check.stderr


def test_api_support_is_the_registry():
    rows = nki.api_support()
    assert rows == [(c.module, c.name, c.status.tag, c.status.detail) for c in _api.calls()]
    assert ("isa", "tensor_scalar", "supported", "") in rows
    assert {r[2] for r in rows} == {"supported", "partial", "not yet", "not supported"}
    names = [(m, n) for m, n, _, _ in rows]
    assert len(names) == len(set(names))


def test_every_lowering_has_one_definition_and_back():
    """A Rust lowering without a Python definition (or the reverse) fails here by name."""
    lowered = {c.name for c in _api.calls() if c.lowering is not None}
    assert set(native._lowerings()) == lowered | set(_api.INTERNAL)
    with pytest.raises(tpb.UsageError, match="no Rust lowering is named .frobnicate."):
        native.Lowering("frobnicate", "nki.isa.frobnicate", [("dst", "tile")])
    with pytest.raises(tpb.UsageError, match="unknown kind .tyle."):
        native.Lowering("iota", "nki.isa.iota", [("dst", "tyle")])


def test_every_name_is_a_documented_callable_or_value_of_its_module():
    for c in _api.calls():
        module = nl if c.module == "language" else nisa
        obj = getattr(module, c.name)
        assert c.name in module.__all__, c.qualname
        if c.signature is not None:
            assert obj.__nki_call__ is c
            doc = obj.__doc__ or ""
            assert "Example" in doc, f"{c.qualname} has no example"
            assert inspect.signature(obj) == c.signature


def test_parameter_types_are_precise():
    """No `Any` where NKI documents a type: every parameter of every definition (and of
    its legacy forms) is annotated, and no annotation mentions Any."""
    for c in _api.calls():
        if c.definition is None:
            continue
        hints = typing.get_type_hints(c.definition, include_extras=True)
        for p in c.signature.parameters.values():
            if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
                continue
            assert p.name in hints, f"{c.qualname}: {p.name} has no type"
            assert "Any" not in str(hints[p.name]), f"{c.qualname}: {p.name} is Any"
        assert "return" in hints, f"{c.qualname}: no return type"


def test_the_signatures_are_nkis():
    """The current forms as NKI 0.6.0 spells them (nki-api §3)."""
    sig = {c.name: list(c.signature.parameters) for c in _api.calls("isa") if c.signature}
    assert sig["tensor_scalar"] == ["dst", "data", "op0", "operand0", "reverse0", "op1",
                                    "operand1", "reverse1", "engine", "name"]
    assert sig["nc_matmul"] == ["dst", "stationary", "moving", "is_stationary_onezero",
                                "is_moving_onezero", "is_transpose", "accumulate",
                                "tile_position", "tile_size", "perf_mode", "name"]
    assert sig["tensor_reduce"] == ["dst", "op", "data", "axis", "negate", "keepdims", "name"]
    assert sig["iota"] == ["dst", "pattern", "offset", "channel_multiplier", "name"]
    defaults = inspect.signature(nisa.affine_select).parameters
    assert defaults["cmp_op"].default is np.equal and defaults["offset"].default == 0


def test_mypy_sees_the_definitions(tmp_path):
    """The typed source is its own stub: the package type-checks (issue 26: 20 errors), and
    a kernel that passes a str where NKI documents a number or a tile, or a float where an
    int, is caught. mypy comes with the test extra (requirements.lock); one run checks both."""
    mypy = pytest.importorskip("mypy.api")
    # A copy of the package as installed (mypy refuses to check a package inside
    # site-packages as a user's module), found by the kernel's `import tpb` beside it.
    package = tmp_path / "tpb"
    shutil.copytree(pathlib.Path(tpb.__file__).parent, package,
                    ignore=shutil.ignore_patterns("*.so", "*.pyd", "__pycache__"))
    kernel = tmp_path / "kernel.py"
    kernel.write_text(
        "import numpy as np\n"
        "import tpb.nki.isa as nisa\n"
        "import tpb.nki.language as nl\n"
        "def k(t: nl.Tile) -> None:\n"
        "    nisa.tensor_scalar(t, t, np.add, 'two')\n"
        "    nisa.iota(t, [[1, 8]], offset=1.5)\n")
    out, err, status = mypy.run(["--cache-dir", str(tmp_path / "cache"), str(package),
                                 str(kernel)])
    errors = [line for line in out.splitlines() if ": error:" in line]
    assert all(line.startswith(str(kernel)) for line in errors), out + err
    assert '"tensor_scalar" has incompatible type "str"' in out, out
    assert '"iota" has incompatible type "float"' in out, out


# ---- legacy (neuronxcc.nki) value-returning forms, positional and keyword ------------------


def test_legacy_nc_matmul_by_keyword_and_psum_accumulation():
    a = ramp(64, 32)
    b = ramp(64, 48)

    def kernel(x, y):
        xs, ys = nl.load(x), nl.load(y)
        one = nisa.nc_matmul(stationary=xs, moving=ys)       # a new PSUM tile
        acc = nl.zeros((32, 48), nl.float32, buffer=nl.psum)
        acc += nisa.nc_matmul(xs, ys)                          # one accumulating Matmul
        acc += nisa.nc_matmul(xs, ys)
        return hbm(one, acc)

    one, acc = run(kernel, a, b)
    ref = a.T.astype(np.float64) @ b
    np.testing.assert_allclose(one, ref, rtol=1e-6)
    np.testing.assert_allclose(acc, 2 * ref, rtol=1e-6)


def test_legacy_tensor_reduce_activation_reciprocal_by_keyword():
    x = ramp(8, 16) + 1

    def kernel(a):
        t = nl.load(a)
        s = nisa.tensor_reduce(op=np.add, data=t, axis=1)
        r = nisa.reciprocal(data=s)
        y = nisa.activation(op=nl.copy, data=t, scale=2.0, bias=r)
        return hbm(s, r, y)

    s, r, y = run(kernel, x)
    np.testing.assert_array_equal(s[:, 0], x.sum(axis=1, dtype=np.float32))
    np.testing.assert_allclose(r[:, 0], 1 / x.sum(axis=1), rtol=1e-6)
    np.testing.assert_array_equal(y, (x * 2 + r).astype(np.float32))


def test_legacy_tensor_tensor_positional_and_keyword():
    a, b = ramp(4, 8), ramp(4, 8, np.float16)

    def kernel(x, y):
        tx, ty = nl.load(x), nl.load(y)
        return hbm(nisa.tensor_tensor(tx, ty, op=np.add),
                   nisa.tensor_tensor(data1=tx, data2=ty, op=np.multiply, dtype=nl.bfloat16))

    s, p = run(kernel, a, b)
    assert s.dtype == np.float32  # the wider input
    np.testing.assert_array_equal(s, a + b.astype(np.float32))
    assert p.dtype == nl.bfloat16
    np.testing.assert_array_equal(p, (a * b.astype(np.float32)).astype(nl.bfloat16))


def test_legacy_tensor_tensor_scan_with_dtype_and_mask():
    d0, d1 = np.full((4, 8), 0.5, np.float32), ramp(4, 8)
    i_p = nl.arange(4)[:, None]

    def kernel(a, b):
        return hbm(nisa.tensor_tensor_scan(data0=nl.load(a), data1=nl.load(b), initial=0.0,
                                           op0=np.multiply, op1=np.add, dtype=nl.float32,
                                           mask=(i_p < 4)))

    out = run(kernel, d0, d1)
    ref = np.zeros_like(d1)
    r = np.zeros(4, np.float32)
    for i in range(8):
        r = (d0[:, i] * r + d1[:, i]).astype(np.float32)
        ref[:, i] = r
    np.testing.assert_array_equal(out, ref)


def test_legacy_tensor_scalar_positional():
    x = ramp(4, 8)

    def kernel(a):
        return hbm(nisa.tensor_scalar(nl.load(a), np.multiply, 2.0, False, np.add, 1.0))

    np.testing.assert_array_equal(run(kernel, x), x * 2 + 1)


def test_legacy_affine_select_pred_and_iota_expr():
    x = ramp(4, 8)
    i_f = nl.arange(8)[None, :]

    def kernel(a):
        keep = nisa.affine_select(pred=(i_f < 3), on_true_tile=nl.load(a),
                                  on_false_value=-1.0)
        r = nisa.iota(nl.arange(8)[None, :], nl.int32)
        return hbm(keep, r)

    keep, r = run(kernel, x)
    np.testing.assert_array_equal(keep, np.where(np.arange(8)[None, :] < 3, x, -1.0))
    np.testing.assert_array_equal(r, np.arange(8, dtype=np.int32)[None, :])


def test_legacy_affine_select_compares_two_index_expressions():
    """The nki-samples causal mask: pred=(i_q >= i_k), kept where it holds (nki-semantics
    §1.1, the legacy pred form)."""
    x = ramp(8, 8)
    i_q, i_k = nl.arange(8)[:, None], nl.arange(8)[None, :]

    def kernel(a):
        t = nl.load(a)
        lower = nisa.affine_select(pred=(i_q >= i_k), on_true_tile=t, on_false_value=-9984.0)
        upper = nisa.affine_select((i_q < i_k + 2), t, 0.0)
        return hbm(lower, upper)

    lower, upper = run(kernel, x)
    q, k = np.arange(8)[:, None], np.arange(8)[None, :]
    np.testing.assert_array_equal(lower, np.where(q >= k, x, np.float32(-9984.0)))
    np.testing.assert_array_equal(upper, np.where(q < k + 2, x, np.float32(0.0)))

    def joined(a):
        nisa.affine_select(pred=(i_q >= i_k) & (i_q < 4), on_true_tile=nl.load(a),
                           on_false_value=0.0)

    with pytest.raises(tpb.NotSupported, match="joined with &"):
        run(joined, x)


def test_legacy_iota_of_a_two_axis_expression():
    def kernel():
        return hbm(nisa.iota(nl.arange(4)[:, None] * 8 + nl.arange(8)[None, :], nl.int32))

    np.testing.assert_array_equal(run(kernel), np.arange(32, dtype=np.int32).reshape(4, 8))


def test_legacy_memset_max8_find_index8():
    x = ramp(2, 16)[:, ::-1].copy()

    def kernel(a):
        t = nl.load(a)
        z = nisa.memset((2, 4), 3.0, nl.float32)
        top = nisa.max8(src=t)
        idx = nisa.nc_find_index8(data=t, vals=top)
        return hbm(z, top, idx)

    z, top, idx = run(kernel, x)
    np.testing.assert_array_equal(z, np.full((2, 4), 3.0, np.float32))
    np.testing.assert_array_equal(top, -np.sort(-x, axis=1)[:, :8])
    assert idx.dtype == np.uint32
    np.testing.assert_array_equal(idx, np.argsort(-x, axis=1, kind="stable")[:, :8])


def test_a_legacy_form_with_a_wrong_kind_names_the_parameter():
    def kernel(a):
        nisa.tensor_reduce(op=np.add, data=[1, 2], axis=1)

    with pytest.raises(tpb.UsageError, match="data"):
        run(kernel, ramp(2, 2))


# ---- every bad argument is a tpb.UsageError naming the parameter ---------------------------

BAD = [3.5, None, [1, 2], "x"]


def _sweep():
    """Every registered callable, called with a bad value in every required slot; returns
    the exceptions that are not tpb errors."""
    escaped = []
    for c in _api.calls():
        if c.signature is None:
            continue
        fn = c.public
        required = [p for p in c.signature.parameters.values()
                    if p.default is p.empty and p.kind in (p.POSITIONAL_ONLY,
                                                          p.POSITIONAL_OR_KEYWORD)]
        for bad in BAD:
            try:
                r = fn(*[bad] * len(required))
                if inspect.isgenerator(r):
                    list(r)
            except tpb.Error:
                pass
            except BaseException as e:  # noqa: BLE001 - what escapes is the finding
                escaped.append(f"{c.qualname}({bad!r}): {type(e).__name__}: {e}")
    return escaped


def test_no_call_raises_anything_but_a_tpb_error_for_a_bad_argument():
    """Issue 29 item 14: 76 of 141 functions raised AttributeError/TypeError for a number,
    None or a list instead of a tile."""
    escaped = []

    def kernel():
        escaped.extend(_sweep())

    run(kernel)
    assert escaped == []


def test_a_wrong_kind_names_the_call_and_the_parameter():
    core = nki.Core()
    t = core.ndarray((4, 8), np.float32)
    with pytest.raises(tpb.UsageError, match=r"nki.isa.tensor_scalar: operand0: expected a "
                                             r"number or a \(P, 1\) tile, not list") as e:
        nisa.tensor_scalar(t, t, np.add, [1, 2])
    assert e.value.parameter == "operand0"
    with pytest.raises(tpb.UsageError, match="reverse0: expected True or False, not int"):
        nisa.tensor_scalar(t, t, np.add, 1.0, reverse0=1)
    with pytest.raises(tpb.UsageError, match="op0: unknown operator .frob."):
        nisa.tensor_scalar(t, t, "frob", 1.0)
    with pytest.raises(tpb.UsageError, match="channel_multiplier: expected an int, not float"):
        nisa.iota(t, [[1, 8]], channel_multiplier=1.5)
    # The good call runs.
    nisa.iota(t, [[1, 8]], channel_multiplier=8)
    assert t.numpy()[1, 0] == 8


def test_a_call_without_dst_says_dst_comes_first():
    """Issue 29 item 17: a 0.6.0 call without dst gave a bare TypeError about `op`."""
    core = nki.Core()
    x = core.from_numpy(ramp(4, 8))
    with pytest.raises(tpb.UsageError, match="dst comes first") as e:
        nisa.tensor_scalar_cumulative(x, np.multiply, np.add, 1.0)
    assert "tensor_scalar_cumulative(dst, src, op0, op1, imm0" in str(e.value)
    with pytest.raises(tpb.UsageError, match="dst comes first"):
        nisa.exponential(src=x)
    with pytest.raises(tpb.UsageError, match="dst comes first"):
        nisa.select(x, x, 0.0)


def test_a_keyword_typo_is_an_error_that_suggests_the_name():
    core = nki.Core()
    t = core.ndarray((4, 8), np.float32)
    with pytest.raises(tpb.UsageError, match="unexpected keyword argument 'chanel_multiplier' "
                                             r"\(did you mean channel_multiplier\?\)"):
        nisa.iota(t, [[1, 8]], chanel_multiplier=8)

    def kernel(a):
        return nl.load(a, dtpye=nl.bfloat16)

    with pytest.raises(tpb.UsageError, match=r"'dtpye' \(did you mean dtype\?\)"):
        run(kernel, ramp(4, 8))


@pytest.mark.parametrize("shape", [(4.7, 4), ("4", 4), (True, 4), (0, 4), (4, None)])
def test_a_shape_is_ints(shape):
    def kernel():
        nl.ndarray(shape, nl.float32)

    with pytest.raises(tpb.UsageError, match=r"shape\[\d\]"):
        run(kernel)


def test_a_shape_of_ints_allocates():
    def kernel():
        t = nl.zeros((np.int64(4), 4), nl.float32)
        return hbm(t)

    np.testing.assert_array_equal(run(kernel), np.zeros((4, 4), np.float32))


@pytest.mark.parametrize("value", [float("nan"), float("inf"), 2.5, True, "7"])
def test_a_fill_into_an_int_tile_is_a_whole_number(value):
    def kernel():
        nl.full((4, 4), value, nl.int32)

    with pytest.raises(tpb.UsageError, match="fill_value"):
        run(kernel)


def test_a_whole_fill_into_an_int_tile_runs():
    def kernel():
        return hbm(nl.full((2, 2), 7.0, nl.int32))

    np.testing.assert_array_equal(run(kernel), np.full((2, 2), 7, np.int32))


def test_memset_refuses_a_finite_value_that_overflows_the_dtype():
    """memset(t, 1e39) stored inf while nl.add(t, 1e300) was refused."""
    core = nki.Core()
    t = core.ndarray((2, 2), np.float32)
    with pytest.raises(tpb.UsageError, match="value"):
        nisa.memset(t, 1e39)
    nisa.memset(t, 3e38)
    nisa.memset(t, float("inf"))  # infinity asked for is infinity
    assert np.isinf(t.numpy()).all()


def test_gen_with_core_is_an_error():
    core = nki.Core(gen="sunda")
    with pytest.raises(tpb.UsageError, match="gen='cayman' with core="):
        run(lambda: None, gen="cayman", core=core)
    run(lambda: None, gen="sunda", core=core)


def test_a_generator_or_async_kernel_is_an_error():
    def gen_kernel():
        yield nl.zeros((2, 2), nl.float32)

    async def async_kernel():
        return None

    with pytest.raises(tpb.UsageError, match="generator or async"):
        run(gen_kernel)
    with pytest.raises(tpb.UsageError, match="generator or async"):
        run(async_kernel)


def test_timeline_paths_are_checked_before_the_run(tmp_path):
    ran = []

    def kernel():
        ran.append(1)
        return hbm(nl.zeros((2, 2), nl.float32))

    with pytest.raises(tpb.UsageError, match="timeline"):
        nki.profile_kernel(kernel, timeline=str(tmp_path / "k.png"))
    assert ran == []
    out, _ = nki.profile_kernel(kernel, timeline=bytes(tmp_path / "k.json"))
    assert (tmp_path / "k.json").is_file() and ran == [1]


def test_loops_take_their_keywords():
    """`nl.affine_range(0, stop=n)` dropped its keywords; sequential_range(start=, stop=,
    step=) raised TypeError."""
    def kernel():
        return [list(nl.affine_range(0, stop=3)),
                list(nl.sequential_range(start=1, stop=7, step=2))]

    assert run(kernel) == [[0, 1, 2], [1, 3, 5]]


# ---- issue 29 item 17: one rule per message ------------------------------------------------


def test_two_psum_inputs_name_one_rule():
    core = nki.Core()
    a = core.ndarray((4, 8), np.float32, buffer="psum")
    b = core.ndarray((4, 8), np.float32, buffer="psum")
    c = core.ndarray((4, 8), np.float32)
    nisa.memset(a, 1.0)
    nisa.memset(b, 2.0)
    with pytest.raises(tpb.UsageError) as e:
        nisa.tensor_tensor(c, a, b, np.add)
    msg = str(e.value)
    assert "data1 and data2 are both in PSUM" in msg and "quadrant" not in msg
    sb = core.ndarray((4, 8), np.float32)
    nisa.tensor_copy(sb, b)
    nisa.tensor_tensor(c, a, sb, np.add)  # one input in PSUM runs
    np.testing.assert_array_equal(c.numpy(), np.full((4, 8), 3.0, np.float32))


def test_transposing_more_than_128_columns_says_so():
    def kernel(x):
        return hbm(nl.copy(nl.transpose(nl.load(x))))

    with pytest.raises(tpb.UsageError, match=r"x is 128 × 512; the PE transposes at most 128 × 128"):
        run(kernel, np.ones((128, 512), np.float32))
    np.testing.assert_array_equal(run(kernel, ramp(64, 128)), ramp(64, 128).T)


def test_a_psum_tile_on_a_generation_without_psum_is_not_supported():
    def kernel(x, y):
        return hbm(nl.copy(nl.matmul(nl.load(x), nl.load(y), transpose_x=True)))

    with pytest.raises(tpb.NotSupported, match="maverick: the generation has no psum"):
        run(kernel, np.ones((4, 4), np.float32), np.ones((4, 8), np.float32), gen="maverick")


def test_machine_and_subscript_arguments_are_usage_errors():
    for bad in (-1, 2**70, 0):
        with pytest.raises(tpb.UsageError, match="hbm_bytes"):
            tpb.Machine(hbm_bytes=bad)
    assert tpb.Machine(hbm_bytes=4096).hbm_bytes == 4096
    core = nki.Core()
    t = core.from_numpy(np.zeros((4, 8), np.float32))
    with pytest.raises(tpb.UsageError, match=r"index=\d+ is outside"):
        t[2**70]
    with pytest.raises(tpb.UsageError, match="a tile subscript must be an int"):
        t[True]
    for bad in (None, "x", object()):
        with pytest.raises(tpb.UsageError, match="expected a number"):
            t[...] = bad
    with pytest.raises(tpb.UsageError, match="does not broadcast"):
        t[...] = np.ones((3,), np.float32)
    t[1] = 1.5
    assert t.numpy()[1, 0] == 1.5 and t.numpy()[0, 0] == 0.0


def test_mask_on_the_current_form_shrinks_the_operand_tile_on_partitions():
    """`mask=` restricted to partitions 2..4 reads the (P, 1) operand's rows 2..4 too."""
    x = ramp(4, 8)
    col = np.arange(4, dtype=np.float32).reshape(4, 1) * 100
    i_p = nl.arange(4)[:, None]

    def kernel(a, c):
        t = nl.load(a)
        out = nl.zeros((4, 8), nl.float32)
        nisa.tensor_scalar(out, t, np.add, nl.load(c), mask=(i_p >= 2))
        return hbm(out)

    got = run(kernel, x, col)
    np.testing.assert_array_equal(got[:2], np.zeros((2, 8), np.float32))
    np.testing.assert_array_equal(got[2:], x[2:] + col[2:])


def test_a_non_tile_dst_is_named_not_called_missing():
    core = nki.Core()
    x = core.from_numpy(ramp(4, 8))
    with pytest.raises(tpb.UsageError, match="dst: expected a tile, not ndarray"):
        nisa.tensor_copy(np.zeros((4, 8), np.float32), x)


def test_legacy_buffer_none_is_sbuf():
    def kernel():
        t = nl.zeros((2, 4), nl.float32, buffer=None)
        assert t.buffer == "sbuf"
        return hbm(nl.full((2, 4), 3.0, nl.float32, buffer=None))

    np.testing.assert_array_equal(run(kernel), np.full((2, 4), 3.0, np.float32))
