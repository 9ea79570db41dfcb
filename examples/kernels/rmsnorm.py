"""RMSNorm over the last dim of a [R, D] tensor in 128-row tiles (follows the nki-samples
tutorial "rmsnorm")."""

import math

import tpb.nki as nki
import tpb.nki.language as nl


@nki.jit
def rmsnorm(a, g):
    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    rows, d = a.shape
    g_tile = nl.load(g.reshape((1, d))[0:1, :])
    for i in nl.affine_range(math.ceil(rows / 128)):
        t = nl.load(a[i * 128:(i + 1) * 128, :])
        sq = nl.square(t)
        ms = nl.mean(sq, axis=1, keepdims=True)
        r = nl.rsqrt(nl.add(ms, 1e-6))
        y = nl.multiply(t, r)
        nl.store(out[i * 128:(i + 1) * 128, :], value=nl.multiply(y, nl.broadcast_to(g_tile, (128, d))))
    return out


def reference(a, g):
    import numpy as np

    r = 1 / np.sqrt((a.astype(np.float32) ** 2).mean(axis=1, keepdims=True) + 1e-6)
    return (a * r * g).astype(a.dtype)
