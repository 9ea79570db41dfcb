#!/usr/bin/env python3
"""Runs the public NKI kernels listed in docs/public-kernels.md unmodified, checked against NumPy.

The kernel files are imported as they are, through ``tpb.nki.dropin.install()``; only the
driver (inputs, the launch and the NumPy reference) is ours. Each kernel runs in its own
subprocess with a time limit. Third-party host-side modules that a kernel file imports but
whose kernel never uses (``torch``, ``torch_xla``, ``transformers``, ``loguru``) are given
stand-ins that fail if called, and the table says so; scipy (nki-library's rotational_topk
computes its constants with it) must be installed. Nothing here is part of the test suite (the public repositories are not vendored):

    python tools/public_kernel_drivers.py --samples OLD_SAMPLES --lib LIB [--only NAME ...]

``OLD_SAMPLES`` is an nki-samples checkout at 7af4e4d (before the reference and legacy
kernels were removed), ``LIB`` an nki-library checkout.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
import types
from typing import Any, Callable, Dict, Tuple

import numpy as np

T = "src/nki_samples/tutorials"
DRIVERS: Dict[str, Tuple[str, Callable[..., Any]]] = {}
# Kernels written for one generation run with NKI's own target override (the kernel's
# instructions are invalid on another: flash_fwd's affine_select reads PSUM, which trn2's
# ISA does not allow).
TARGETS: Dict[str, str] = {}


def driver(name: str, path: str, target: str = ""):
    def wrap(fn):
        DRIVERS[name] = (path, fn)
        if target:
            TARGETS[name] = target
        return fn
    return wrap


def rng():
    return np.random.default_rng(0)


def close(got, want, rtol=1e-5, atol=1e-5):
    got = np.asarray(got, dtype=np.float64)
    want = np.asarray(want, dtype=np.float64)
    if got.shape != want.shape:
        raise AssertionError(f"shape {got.shape} != NumPy's {want.shape}")
    if rtol == 0 and atol == 0:
        if not np.array_equal(got, want):
            raise AssertionError("differs from NumPy (bit-exact comparison)")
        return
    err = np.max(np.abs(got - want) / (atol + rtol * np.abs(want)))
    if not err <= 1.0:
        raise AssertionError(f"differs from NumPy: max error {err:.3g} x the tolerance "
                             f"(rtol={rtol}, atol={atol})")


def softmax(x, axis=-1):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


# --- nki-samples tutorials ------------------------------------------------------------------

def _matmul(fn_name, k, m, n):
    def run(mod):
        r = rng()
        lhsT = r.random((k, m), dtype=np.float32)
        rhs = r.random((k, n), dtype=np.float32)
        close(getattr(mod, fn_name)(lhsT, rhs), lhsT.T @ rhs, rtol=1e-4)
    return run


MM = f"{T}/matrix_multiplication/matrix_multiplication_nki_kernels.py"
driver("matmul_basic", MM)(_matmul("nki_matmul_basic_", 128, 64, 512))
driver("matmul_tiled", MM)(_matmul("nki_matmul_tiled_", 256, 256, 1024))
driver("matmul_hoist_load", MM)(_matmul("nki_matmul_hoist_load_", 256, 256, 1024))
driver("matmul_block_free_dimension", MM)(_matmul("nki_matmul_block_free_dimension_", 256, 512, 2048))
driver("matmul_fully_optimized", MM)(_matmul("nki_matmul_fully_optimized_", 1024, 2048, 1024))


@driver("tensor_add_spmd", f"{T}/tensor_addition/spmd_tensor_addition_nki_kernels.py")
def _(mod):
    r = rng()
    a, b = r.random((256, 1024), dtype=np.float32), r.random((256, 1024), dtype=np.float32)
    close(mod.nki_tensor_add(a, b), a + b, rtol=0, atol=0)


@driver("tensor_add_spmd_multiple_nc", f"{T}/tensor_addition/spmd_multiple_nc_tensor_addition_nki_kernels.py")
def _(mod):
    r = rng()
    a, b = r.random((256, 1024), dtype=np.float32), r.random((256, 1024), dtype=np.float32)
    close(mod.nki_tensor_add_nc2(a, b), a + b, rtol=0, atol=0)


@driver("transpose2d", f"{T}/transpose2d/transpose2d_nki_kernels.py")
def _(mod):
    P, F1, F2 = 5, 3, 4
    x = np.arange(P * F1 * F2, dtype=np.float32).reshape(P, F1 * F2)
    got = mod.tensor_transpose2D_kernel_(x, (F1, F2))
    close(got, x.reshape(P, F1, F2).transpose(0, 2, 1).reshape(P, F1 * F2), rtol=0, atol=0)


@driver("average_pool2d", f"{T}/average_pool2d/average_pool2d_nki_kernels.py")
def _(mod):
    C, H, W, k = 2, 8, 8, 2
    x = rng().random((C, H, W), dtype=np.float32)
    want = x.reshape(C, H // k, k, W // k, k).mean(axis=(2, 4))
    close(mod.tensor_avgpool_kernel(x, k), want)


@driver("rmsnorm", f"{T}/rmsnorm/rmsnorm_nki_kernels.py")
def _(mod):
    r = rng()
    a, g = r.random((250, 512), dtype=np.float32), r.random((512,), dtype=np.float32)
    want = a / np.sqrt(np.mean(a * a, axis=1, keepdims=True)) * g
    close(mod.nki_rmsnorm_kernel(a, g), want, rtol=1e-4, atol=1e-5)


def _layernorm(version):
    def run(mod):
        r = rng()
        x = r.random((250, 1024), dtype=np.float32)
        g, b = r.random(1024, dtype=np.float32), r.random(1024, dtype=np.float32)
        mu = x.mean(axis=1, keepdims=True)
        var = x.var(axis=1, keepdims=True)
        want = (x - mu) / np.sqrt(var + 1e-5) * g + b
        got = getattr(mod, f"nki_layernorm_kernel_{version}")(x, 1e-5, g, b)
        close(got, want, rtol=1e-3, atol=1e-3)
    return run


LN = f"{T}/layernorm/layernorm_nki_kernel.py"
driver("layernorm_v1", LN)(_layernorm("v1"))
driver("layernorm_v2", LN)(_layernorm("v2"))


@driver("softmax", f"{T}/softmax/softmax_nki_kernels.py")
def _(mod):
    x = rng().random((250, 512), dtype=np.float32)
    close(mod.nki_softmax_kernel(x), softmax(x), rtol=1e-3, atol=1e-6)


def _mamba(version):
    def run(mod):
        r = rng()
        b, c, s, n = 1, 256, 512, 16
        delta = r.random((b, c, s), dtype=np.float32) * 0.1
        u = r.random((b, c, s), dtype=np.float32)
        A = -r.random((c, n), dtype=np.float32)
        B = r.random((b, n, s), dtype=np.float32)
        C = r.random((b, n, s), dtype=np.float32)
        dA = np.exp(delta[:, :, None, :] * A[None, :, :, None])        # b c n s
        dBu = delta[:, :, None, :] * B[:, None, :, :] * u[:, :, None, :]
        state = np.zeros((b, c, n), np.float32)
        out = np.zeros((b, c, s), np.float32)
        for t in range(s):
            state = dA[..., t] * state + dBu[..., t]
            out[:, :, t] = (state * C[:, None, :, t]).sum(axis=2)
        close(getattr(mod, f"mamba_{version}")(delta, u, A, B, C), out, rtol=1e-3, atol=1e-3)
    return run


MB = f"{T}/fused_mamba/mamba_nki_kernels.py"
for _v in ("v1", "v2", "v3"):
    driver(f"mamba_{_v}", MB)(_mamba(_v))


def _sd_attention(path_fn):
    def run(mod):
        r = rng()
        s, d = 512, 64
        q, k, v = (r.random((s, d), dtype=np.float32) for _ in range(3))
        want = softmax((q * 0.125) @ k.T) @ v
        close(path_fn(mod)(q, k, v), want, rtol=1e-2, atol=1e-3)
    return run


driver("sd_attention", f"{T}/sd_attention/sd_attention_nki_kernels.py")(
    _sd_attention(lambda m: m.fused_self_attn_for_SD_small_head_size))


@driver("sd_attention_reference", "src/nki_samples/reference/attention.py")
def _(mod):
    r = rng()
    bs, s, d = 1, 512, 64
    q = r.random((bs, d, s), dtype=np.float32)          # (bs, d_head, seq)
    k, v = (r.random((bs, s, d), dtype=np.float32) for _ in range(2))
    got = mod.fused_self_attn_for_SD_small_head_size[bs](q, k, v, mixed_precision=False)
    want = softmax((q[0].T * 0.125) @ k[0].T) @ v[0]
    close(got[0], want, rtol=1e-2, atol=1e-3)


def _attn_fwd(version):
    def run(mod):
        r = rng()
        d, s = 128, 128 if version in ("v1", "v2") else 512
        q, k, v = ((r.random((d, s)) - 0.5) * 2 for _ in range(3))
        q, k, v = (a.astype(np.float32) for a in (q, k, v))
        want = softmax(q.T @ k) @ v.T
        close(getattr(mod, f"attn_fwd_{version}")(q, k, v), want, rtol=1e-2, atol=1e-2)
    return run


AF = f"{T}/attention_fwd_performance/attention_kernels.py"
for _v in ("v1", "v2", "v3", "v4", "v5", "v6", "v7", "v8", "v9", "v10"):
    driver(f"attn_fwd_{_v}", AF)(_attn_fwd(_v))


@driver("flash_fwd_causal", "src/nki_samples/reference/attention.py", target="trn1")
def _(mod):
    r = rng()
    bs, h, d, s = 1, 1, 64, 2048
    q = r.random((bs, h, d, s), dtype=np.float32) - 0.5
    k = r.random((bs, h, d, s), dtype=np.float32) - 0.5
    v = r.random((bs, h, s, d), dtype=np.float32) - 0.5
    seed = np.zeros((1,), np.int32)
    o = mod.flash_fwd[bs, h](q, k, v, seed, use_causal_mask=True, mixed_precision=False)
    o = o[0] if isinstance(o, tuple) else o
    scores = np.einsum("bhds,bhdt->bhst", q, k) / np.sqrt(d)
    scores = np.where(np.tril(np.ones((s, s), bool)), scores, -np.inf)
    close(o, softmax(scores) @ v, rtol=1e-2, atol=1e-3)


@driver("rotary", f"{T}/rotary/rotary_nki_kernels.py")
def _(mod):
    r = rng()
    b, h, s, d = 1, 2, 256, 64
    q = r.standard_normal((b, h, s, d)).astype(np.float32)
    k = r.standard_normal((b, h, s, d)).astype(np.float32)
    ang = r.random((b, s, d // 2), dtype=np.float32) * 3
    cos = np.cos(np.concatenate([ang, ang], -1)).astype(np.float32)
    sin = np.sin(np.concatenate([ang, ang], -1)).astype(np.float32)
    got = mod.nki_apply_rotary_embedding[b, h](q, k, cos, sin)
    c, sn = cos[:, None], sin[:, None]
    close(got[0], q * c + _rotate_half(q) * sn, rtol=1e-5, atol=1e-5)
    close(got[1], k * c + _rotate_half(k) * sn, rtol=1e-5, atol=1e-5)


# --- contributed ----------------------------------------------------------------------------

@driver("maxpooling", "contributed/maxpooling.py")
def _(mod):
    x = rng().random((200, 64), dtype=np.float32)
    k = 3
    win = np.lib.stride_tricks.sliding_window_view(x, (k, k))
    close(mod.max_pooling_2d_stride_1(x, k), win.max(axis=(2, 3)), rtol=0, atol=0)


def _bilinear_2x(x):
    def axis_weights(n):
        o = np.arange(2 * n)
        src = np.maximum((o + 0.5) / 2 - 0.5, 0)
        i0 = np.floor(src).astype(int)
        i1 = np.minimum(i0 + 1, n - 1)
        return i0, i1, (src - i0).astype(np.float32)
    h0, h1, wh = axis_weights(x.shape[-2])
    w0, w1, ww = axis_weights(x.shape[-1])
    rows = x[..., h0, :] * (1 - wh)[:, None] + x[..., h1, :] * wh[:, None]
    return rows[..., w0] * (1 - ww) + rows[..., w1] * ww


@driver("interpolate_bilinear_fwd", "contributed/interpolate_bilinear_fwd.py")
def _(mod):
    x = rng().random((2, 64, 32, 32), dtype=np.float32)
    got = mod.interpolate_bilinear_2x_fwd(x)
    close(np.asarray(got).reshape(2, 64, 64, 64), _bilinear_2x(x), rtol=1e-5, atol=1e-5)


@driver("matmul_contributed", "contributed/matmul.py")
def _(mod):
    r = rng()
    a = r.random((1024, 512), dtype=np.float32)
    b = r.random((1024, 2048), dtype=np.float32)
    import tpb.nki as tnki
    close(tnki.simulate_kernel(mod.matmul, a, b), a.T @ b, rtol=1e-4)


@driver("cumsum_neuron_team", "contributed/neuron-team-kernels/cumsum.py")
def _(mod):
    import nki.language as nl  # noqa: F401  (the drop-in)
    x = rng().random((128, 64), dtype=np.float32)
    y = np.zeros_like(x)
    import tpb.nki as tnki
    out = tnki.simulate_kernel(mod.cumsum, x, y, axis=1)
    close(y if out is None else out, np.cumsum(x, axis=1), rtol=1e-4)


@driver("tiled_dve_transpose_10", "contributed/neuron-team-kernels/transpose.py")
def _(mod):
    import tpb.nki as tnki
    x = rng().random((128, 16, 24), dtype=np.float32)
    got = tnki.simulate_kernel(mod.tiled_dve_transpose_10, x, permutation=(0, 2, 1))
    close(got, x.transpose(0, 2, 1), rtol=0, atol=0)


@driver("tiled_dve_transpose_210", "contributed/neuron-team-kernels/transpose.py")
def _(mod):
    import tpb.nki as tnki
    x = rng().random((128, 6, 5, 4), dtype=np.float32)
    got = tnki.simulate_kernel(mod.tiled_dve_transpose_210, x)
    close(got, x.transpose(0, 3, 2, 1), rtol=0, atol=0)


# --- nki-library ----------------------------------------------------------------------------

L = "nkilib_src/nkilib"


@driver("lib_cumsum", f"{L}/core/cumsum/cumsum.py")
def _(mod):
    x = rng().random((256, 512), dtype=np.float32)
    close(mod.cumsum(x), np.cumsum(x, axis=-1), rtol=1e-4, atol=1e-4)


@driver("lib_cascaded_max", f"{L}/core/max/cascaded_max.py")
def _(mod):
    x = rng().standard_normal((1, 1, 3168)).astype(np.float32)
    val, idx = mod.cascaded_max(x)
    close(np.ravel(val), [x.max()], rtol=0, atol=0)
    assert int(np.ravel(idx)[0]) == int(x.argmax()), \
        f"index {np.ravel(idx)[0]} differs from NumPy's argmax {x.argmax()}"


def _rotate_half(x):
    h = x.shape[-1] // 2
    return np.concatenate([-x[..., h:], x[..., :h]], axis=-1)


@driver("lib_rope_hf", f"{L}/core/embeddings/rope_hf.py")
def _(mod):
    r = rng()
    b, hq, hk, s, d = 1, 2, 1, 128, 64
    q = r.standard_normal((b, hq, s, d)).astype(np.float32)
    k = r.standard_normal((b, hk, s, d)).astype(np.float32)
    ang = r.random((s, d // 2), dtype=np.float32) * 3
    cos = np.cos(np.concatenate([ang, ang], -1)).astype(np.float32)
    sin = np.sin(np.concatenate([ang, ang], -1)).astype(np.float32)
    q_out, k_out = np.zeros_like(q), np.zeros_like(k)
    got_q, got_k = mod.rope_hf(q, k, q_out, k_out, cos, sin)
    close(got_q, q * cos + _rotate_half(q) * sin, rtol=1e-5, atol=1e-5)
    close(got_k, k * cos + _rotate_half(k) * sin, rtol=1e-5, atol=1e-5)


@driver("lib_rope", f"{L}/core/embeddings/rope.py")
def _(mod):
    r = rng()
    d, b, h, s = 64, 1, 2, 128
    x = r.standard_normal((d, b, h, s)).astype(np.float32)
    ang = r.random((d // 2, b, s), dtype=np.float32) * 3
    cos, sin = np.cos(ang).astype(np.float32), np.sin(ang).astype(np.float32)
    x1, x2 = x[: d // 2], x[d // 2:]
    c, sn = cos[:, :, None, :], sin[:, :, None, :]
    want = np.concatenate([x1 * c - x2 * sn, x2 * c + x1 * sn], axis=0)
    close(mod.RoPE(x, cos, sin), want, rtol=1e-5, atol=1e-5)


@driver("lib_attention_cte", f"{L}/core/attention/attention_cte.py")
def _(mod):
    import ml_dtypes
    r = rng()
    b, s, d = 1, 512, 64
    bf = ml_dtypes.bfloat16
    q = (r.standard_normal((b, s, d)) * 0.5).astype(bf)       # tp_q=True: (b, seq, d)
    k = (r.standard_normal((b, d, s)) * 0.5).astype(bf)       # tp_k=False: (b, d, seq)
    v = r.standard_normal((b, s, d)).astype(bf)
    got = mod.attention_cte(q, k, v, scale=0.125, causal_mask=True)
    qf, kf, vf = (a.astype(np.float32) for a in (q, k, v))
    scores = np.einsum("bsd,bdt->bst", qf, kf) * 0.125
    scores = np.where(np.tril(np.ones((s, s), bool)), scores, -np.inf)
    close(np.asarray(got).astype(np.float32), softmax(scores) @ vf, rtol=2e-2, atol=2e-2)


@driver("lib_cross_entropy_forward", f"{L}/experimental/loss/cross_entropy.py")
def _(mod):
    r = rng()
    n, v = 64, 8192
    logits = r.standard_normal((n, v)).astype(np.float32)
    targets = r.integers(0, v, n).astype(np.int32)
    loss, lse = mod.cross_entropy_forward(logits, targets, positions_per_batch=32,
                                          chunk_size=4096, dtype=np.float32)
    m = logits.max(axis=1)
    want_lse = m + np.log(np.exp(logits - m[:, None]).sum(axis=1))
    close(lse, want_lse, rtol=1e-4, atol=1e-4)
    close(loss, want_lse - logits[np.arange(n), targets], rtol=1e-4, atol=1e-4)


@driver("lib_find_nonzero_indices", f"{L}/core/subkernels/find_nonzero_indices.py")
def _(mod):
    r = rng()
    t, c = 256, 8
    x = (r.random((t, c)) < 0.3).astype(np.float32) * r.random((t, c), dtype=np.float32)
    idx, counts = mod.find_nonzero_indices(x)
    for col in range(c):
        nz = np.nonzero(x[:, col])[0]
        assert int(np.ravel(counts)[col]) == len(nz), f"column {col}: count differs"
        assert np.array_equal(np.asarray(idx)[col, :len(nz)], nz), f"column {col}: indices differ"


@driver("lib_dynamic_elementwise_add", f"{L}/experimental/dynamic_shapes/dynamic_elementwise_add.py")
def _(mod):
    import ml_dtypes
    r = rng()
    a = r.standard_normal((512, 1024)).astype(ml_dtypes.bfloat16)
    b = r.standard_normal((512, 1024)).astype(ml_dtypes.bfloat16)
    got = mod.dynamic_elementwise_add(a, b, np.array([[3]], np.int32))
    want = (a.astype(np.float32) + b.astype(np.float32)).astype(ml_dtypes.bfloat16)
    close(np.asarray(got)[:384], want[:384], rtol=0, atol=0)


@driver("lib_rotational_topk", f"{L}/core/topk/rotational_topk.py")
def _(mod):
    from nkilib_src.nkilib.core.topk import rotational_topk_utils as u
    r = rng()
    x = r.standard_normal((4, 4096)).astype(np.float32)
    k = 8
    cfg = u.create_rotational_topk_config(
        x.shape, u.create_topk_config(x.shape, x.dtype, k, num_programs=1))
    vals, idx = mod.rotational_topk(x, cfg)
    order = np.argsort(-x, axis=1)[:, :k]
    close(vals, np.take_along_axis(x, order, 1), rtol=0, atol=0)
    assert np.array_equal(np.asarray(idx).astype(np.int64), order), "indices differ"


# --- running ---------------------------------------------------------------------------------

# Host-side modules the kernel files import at module level for their own __main__ blocks
# (PyTorch references, profilers, loggers); the kernels never call them.
STUBBED = ("torch", "torch.nn", "torch.nn.functional", "torch.profiler", "torch_neuronx",
           "torch_xla", "torch_xla.core", "torch_xla.core.xla_model", "loguru", "transformers",
           "transformers.models", "transformers.models.llama",
           "transformers.models.llama.modeling_llama")


class _Stub(types.ModuleType):
    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return _Stub(f"{self.__name__}.{name}")

    def __call__(self, *a, **k):
        raise AssertionError(f"{self.__name__} is a stand-in: the kernel called host code")


def run_one(name: str, samples: str, lib: str) -> None:
    import importlib.util
    import warnings
    import tpb.nki.dropin
    tpb.nki.dropin.install()
    warnings.simplefilter("ignore")
    rel, fn = DRIVERS[name]
    if rel.startswith(L):
        sys.path.insert(0, lib)
        modname = rel[:-3].replace("/", ".")
        mod = __import__(modname, fromlist=["x"])
    else:
        path = os.path.join(samples, rel)
        sys.path.insert(0, os.path.dirname(path))
        for s in STUBBED:  # host-side imports the kernels never call
            sys.modules.setdefault(s, _Stub(s))
        spec = importlib.util.spec_from_file_location("kernel_under_test", path)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
    fn(mod)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--samples", required=True)
    ap.add_argument("--lib", required=True)
    ap.add_argument("--only", nargs="*")
    ap.add_argument("--one", help=argparse.SUPPRESS)
    ap.add_argument("--timeout", type=float, default=300.0)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    if args.one:
        run_one(args.one, args.samples, args.lib)
        return 0
    results = []
    for name in args.only or DRIVERS:
        t0 = time.monotonic()
        try:
            r = subprocess.run([sys.executable, __file__, "--samples", args.samples, "--lib",
                                args.lib, "--one", name], capture_output=True, text=True,
                               timeout=args.timeout,
                               env={**os.environ, **({"NEURON_PLATFORM_TARGET_OVERRIDE":
                                                      TARGETS[name]} if name in TARGETS else {})})
            ok, tail = r.returncode == 0, (r.stderr.strip().splitlines() or [""])[-1]
        except subprocess.TimeoutExpired:
            ok, tail = False, f"timeout after {args.timeout:.0f} s"
        results.append({"kernel": name, "file": DRIVERS[name][0], "ok": ok,
                        "target": TARGETS.get(name, "default"),
                        "seconds": round(time.monotonic() - t0, 1), "error": "" if ok else tail[:300]})
        r_ = results[-1]
        if not args.json:
            print(f"{'ok  ' if ok else 'FAIL'} {r_['seconds']:6.1f}s {name:30} {r_['error']}", flush=True)
    if args.json:
        print(json.dumps(results, indent=1))
    passed = sum(r["ok"] for r in results)
    print(f"{passed} passed, {len(results) - passed} failed",
          file=sys.stderr if args.json else sys.stdout)
    return 0 if passed == len(results) else 1


if __name__ == "__main__":
    sys.exit(main())
