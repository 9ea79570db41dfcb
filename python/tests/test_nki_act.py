"""The activation engine from Python (issue 18 items 4-5, issue 19 item 2):
``nisa.activation`` / ``activation_reduce`` / ``exponential`` and the ``nl`` element-wise
functions lowered to Activate. Exact functions are bit-exact against NumPy; table functions
are within 1 ulp of NumPy float64 math and labelled approximate (isa-facts-pe-act-dma
§2.9-§2.12; docs/reference/pe-act.md); ``strict_exact=True`` makes them errors."""

from __future__ import annotations

import math

import ml_dtypes
import numpy as np
import pytest

import tpb
import tpb.nki as nki
from tpb.nki import isa as nisa
from tpb.nki import language as nl
from _outputs import hbm

rng = np.random.default_rng(18)


def grid(p: int, f: int) -> np.ndarray:
    """Values with few significant bits, so x * 1.5 + bias is exact in float32."""
    return (rng.integers(-64, 64, size=(p, f)) / 16).astype(np.float32)


def ulps(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    ai = a.astype(np.float32).view(np.int32).astype(np.int64)
    bi = b.astype(np.float32).view(np.int32).astype(np.int64)
    return np.abs(ai - bi)


def approximate(report) -> bool:
    return any(w.kind == "approximate" for w in report.warnings)


EXACT = {
    "relu": lambda t: np.maximum(t, np.float32(0)),
    "copy": lambda t: t,
    "square": lambda t: t * t,
    "abs": np.abs,
    "sign": np.sign,
}


# §2.11: the hardwired functions are exact: out = f(x * scale + bias) bit for bit.
@pytest.mark.parametrize("name", sorted(EXACT))
def test_exact_functions_are_bit_exact(name):
    core = nki.Core("cayman")
    x = grid(32, 48)
    bias = (np.arange(32, dtype=np.float32) / 8 - 2).reshape(32, 1)
    tx, tb = core.from_numpy(x), core.from_numpy(bias)
    out = core.ndarray((32, 48), np.float32)
    op = nl.copy if name == "copy" else name
    r = nisa.activation(out, op, tx, bias=tb, scale=1.5)
    assert not approximate(r)
    want = EXACT[name](x * np.float32(1.5) + bias)
    np.testing.assert_array_equal(out.numpy().view(np.int32), want.view(np.int32))


TABLE = {
    np.exp: np.exp,
    np.tanh: np.tanh,
    "sigmoid": lambda t: 1 / (1 + np.exp(-t)),
    "silu": lambda t: t / (1 + np.exp(-t)),
    "gelu": lambda t: 0.5 * t * (1 + np.vectorize(math.erf)(t / math.sqrt(2))),
    "erf": np.vectorize(math.erf),
    np.arctan: np.arctan,
    "softplus": lambda t: np.log1p(np.exp(t)),
}


# §2.11: table functions = their definition (f64, rounded once): within 1 ulp of NumPy
# float64, and the report labels the instruction approximate.
@pytest.mark.parametrize("op", list(TABLE), ids=lambda o: getattr(o, "__name__", o))
def test_table_functions_within_one_ulp_and_labelled(op):
    core = nki.Core("cayman")
    x = (rng.standard_normal((16, 64)) * 2).astype(np.float32)
    out = core.ndarray((16, 64), np.float32)
    r = nisa.activation(out, op, core.from_numpy(x))
    assert approximate(r)
    want = TABLE[op](x.astype(np.float64))
    assert ulps(out.numpy(), want).max() <= 1


# nl element-wise functions: each one Activate, dtype= casts the result.
NL = {
    "exp": np.exp, "log": np.log, "sqrt": np.sqrt, "rsqrt": lambda t: 1 / np.sqrt(t),
    "tanh": np.tanh, "sigmoid": lambda t: 1 / (1 + np.exp(-t)), "relu": lambda t: np.maximum(t, 0),
    "silu": lambda t: t / (1 + np.exp(-t)), "erf": np.vectorize(math.erf), "sin": np.sin,
    "square": np.square,
}


@pytest.mark.parametrize("name", sorted(NL))
def test_nl_functions_match_numpy(name):
    x = (rng.random((8, 32)) * 3 + 0.05).astype(np.float32)
    core = nki.Core("cayman")
    tx = core.from_numpy(x)

    def kernel(t):
        return hbm(getattr(nl, name)(t), getattr(nl, name)(t, dtype=nl.bfloat16))

    y, yb = nki.simulate_kernel(kernel, tx, core=core)
    want = NL[name](x.astype(np.float64))
    assert ulps(y, want).max() <= (0 if name in ("relu", "square") else 1)
    assert yb.dtype == nl.bfloat16
    np.testing.assert_array_equal(yb, want.astype(np.float32).astype(ml_dtypes.bfloat16))


def test_functions_without_an_act_id_are_refused_naming_the_fact():
    core = nki.Core("cayman")
    tx = core.from_numpy(grid(4, 8))
    with pytest.raises(tpb.NotSupported, match="§2.9"):
        nki.simulate_kernel(lambda t: nl.cos(t), tx, core=core)
    out = core.ndarray((4, 8), np.float32)
    with pytest.raises(tpb.NotSupported, match="§2.9"):
        nisa.activation(out, np.cos, tx)
    with pytest.raises(tpb.NotSupported, match="slope"):
        nisa.activation(out, "prelu", tx)
    with pytest.raises(tpb.UsageError, match="reduce_op"):
        nisa.activation(out, np.exp, tx, reduce_op=np.multiply,
                        reduce_res=core.ndarray((4, 1), np.float32))
    with pytest.raises(tpb.NotSupported, match="rms_norm"):
        nki.simulate_kernel(lambda t: nl.rms_norm(t, t, 1, 8), tx, core=core)
    assert core.instructions() == []


# §2.3: reset_reduce zeroes the per-partition accumulator and adds the fp32 outputs in
# order; the drain (0x24) writes them to reduce_res.
def test_activation_reduce_row_sums():
    core = nki.Core("cayman")
    x = grid(16, 40)
    out = core.ndarray((16, 40), np.float32)
    sums = core.ndarray((16, 1), np.float32)
    r = nisa.activation_reduce(out, nl.relu, core.from_numpy(x), nl.add, sums)
    assert r.instructions == 2
    y = np.maximum(x, 0)
    want = np.zeros((16, 1), np.float32)
    for j in range(40):
        want[:, 0] += y[:, j]
    np.testing.assert_array_equal(sums.numpy(), want)
    mnemonics = [i.mnemonic for i in core.instructions()]
    assert mnemonics[-2:] == ["activate", "act_read_accumulator"]


def test_legacy_value_returning_form():
    core = nki.Core("cayman")
    x = grid(4, 8)

    def kernel(t):
        return hbm(nisa.activation(np.tanh, t, scale=0.5, dtype=nl.float32))

    y = nki.simulate_kernel(kernel, core.from_numpy(x), core=core)
    assert ulps(y, np.tanh(x.astype(np.float64) * 0.5)).max() <= 1


def test_softmax_matches_numpy():
    core = nki.Core("cayman")
    x = rng.standard_normal((32, 96)).astype(np.float32)
    y = nki.simulate_kernel(lambda t: hbm(nl.softmax(t, axis=1)), core.from_numpy(x), core=core)
    e = np.exp(x.astype(np.float64) - x.max(axis=1, keepdims=True))
    np.testing.assert_allclose(y, e / e.sum(axis=1, keepdims=True), rtol=2e-6, atol=1e-9)
    with pytest.raises(tpb.NotSupported, match="softmax"):
        nki.simulate_kernel(lambda t: nl.softmax(t, axis=0), core.from_numpy(x), core=core)


# decisions §6.2: strict_exact turns an approximate result into an error; exact runs.
def test_strict_exact_raises_for_table_functions():
    x = grid(4, 8)

    def kernel(t):
        return hbm(nl.exp(t))

    core = nki.Core("cayman", strict_exact=True)
    assert nki.simulate_kernel(lambda t: hbm(nl.relu(t)), core.from_numpy(x), core=core).shape == (4, 8)
    with pytest.raises(tpb.Fault) as e:
        nki.simulate_kernel(kernel, core.from_numpy(x), core=core)
    assert e.value.kind == "strict" and "approximate" in str(e.value)
    with pytest.raises(tpb.Fault, match="approximate"):
        nki.simulate_kernel(lambda: nl.exp(nl.zeros((4, 8), nl.float32)), strict_exact=True)


def test_profile_lists_approximate_instructions_with_their_source_line():
    core = nki.Core("cayman")
    x = grid(8, 16)

    def kernel(t):
        a = nl.relu(t)
        return hbm(nl.exp(a))  # the approximate one

    _, prof = nki.profile_kernel(kernel, core.from_numpy(x), core=core)
    assert [a["mnemonic"] for a in prof.approximate] == ["activate"]
    assert prof.approximate[0]["origin"].endswith(f":{kernel.__code__.co_firstlineno + 2}")
    assert prof.races == [] and "act" in {e["engine"] for e in prof.engines}
    assert "1 approximate" in repr(prof)


# §2.12: Exponential on DVE from mariana; sunda/cayman refuse it (decision 18).
def test_exponential_on_mariana_only():
    x = grid(8, 16)
    m = (np.arange(8, dtype=np.float32) / 4).reshape(8, 1)
    core = nki.Core("mariana")
    out = core.ndarray((8, 16), np.float32)
    r = nisa.exponential(out, core.from_numpy(x), max_value=core.from_numpy(m))
    assert approximate(r)
    assert ulps(out.numpy(), np.exp(x.astype(np.float64) - m)).max() <= 1
    # The running sum: the Vector accumulator, drained into reduce_res (0x9b).
    sums = core.ndarray((8, 1), np.float32)
    r = nisa.exponential(out, core.from_numpy(x), max_value=1.0, reduce_res=sums,
                         reduce_cmd=nisa.reduce_cmd.reset_reduce)
    assert r.instructions == 2
    y = out.numpy()
    want = np.zeros((8, 1), np.float32)
    for j in range(16):
        want[:, 0] += y[:, j]
    np.testing.assert_array_equal(sums.numpy(), want)
    nisa.exponential(out, core.from_numpy(x), reduce_res=sums, reduce_init=5.0,
                     reduce_cmd=nisa.reduce_cmd.load_reduce)
    assert abs(sums.numpy() - 5.0 - np.exp(x.astype(np.float64)).sum(axis=1, keepdims=True)).max() < 1e-4
    cay = nki.Core("cayman")
    with pytest.raises(tpb.NotSupported, match="mariana"):
        nisa.exponential(cay.ndarray((8, 16), np.float32), cay.from_numpy(x))


# issue 19 item 4: POOL iota → ACT exp with a row-sum drain → DVE scale is a race-free
# multi-engine program `tpb run` accepts; `--strict-exact` refuses its approximate exp.
def test_emitted_act_program_runs_in_tpb_run(tmp_path):
    from tpb import _tpb

    def kernel():
        t = nl.ndarray((32, 16), nl.float32)
        nisa.iota(t, [[1, 16]], channel_multiplier=16)
        x = nl.multiply(t, 1 / 512)
        e = nl.ndarray((32, 16), nl.float32)
        s = nl.ndarray((32, 1), nl.float32)
        nisa.activation_reduce(e, nl.exp, x, nl.add, s, bias=-0.5)
        return hbm(nl.multiply(e, s))

    core = nki.Core("cayman")
    out = nki.simulate_kernel(kernel, core=core)
    x = np.arange(512, dtype=np.float64).reshape(32, 16) / 512
    e = np.exp(x - 0.5)
    np.testing.assert_allclose(out, e * e.sum(axis=1, keepdims=True), rtol=3e-6)
    prog = tmp_path / "k.tpb"
    prog.write_text(core.disasm())
    assert _tpb.cli(["run", str(prog), "--out-dir", str(tmp_path / "o")]) == 0
    assert _tpb.cli(["run", str(prog), "--strict-exact", "--out-dir", str(tmp_path / "s")]) != 0


# §2.13: activation costs max(MIN_II, N) ACT cycles; activation_reduce one MIN_II more
# (its ActivationReadAccumulator): 64 (N = 32) + 512 + 64 (N = 512).
def test_activation_reduce_costs_one_min_ii_more():
    def kernel():
        small, big = nl.zeros((16, 32), nl.float32), nl.zeros((16, 512), nl.float32)
        a, b = nl.ndarray((16, 32), nl.float32), nl.ndarray((16, 512), nl.float32)
        nisa.activation(a, nl.exp, small)
        nisa.activation_reduce(b, nl.exp, big, nl.add, nl.ndarray((16, 1), nl.float32))
        return hbm(b)

    _, prof = nki.profile_kernel(kernel)
    act = [e for e in prof.engines if e["engine"] == "act"][0]
    # max(64, 32) + max(64, 512) + the 0x24 drain's 64 (NKI's max(MIN_II, N) + MIN_II), and
    # TENSOR_ACCESS_OVERHEAD (60, ASSUMED) for each Activate that starts with ACT's pipeline
    # empty: the first one, and the second after waiting for its input's memset; the drain
    # follows back to back (docs/reference/pe-act.md, Timing).
    assert (act["instructions"], act["busy_cycles"]) == (3, 64 + 512 + 64 + 2 * 60)
