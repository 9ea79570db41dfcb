"""Cumulative sum along the free dim of a [128, N] tensor with one tensor_tensor_scan
(follows nki-library's cumsum: ``r[i] = (data0[i] * r[i-1]) + data1[i]`` with data0 = 1)."""

import tpb.nki as nki
import tpb.nki.isa as nisa
import tpb.nki.language as nl


@nki.jit
def cumsum(x):
    out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.load(x)
    ones = nl.ones(x.shape, dtype=nl.float32)
    r = nl.ndarray(x.shape, dtype=nl.float32)
    nisa.tensor_tensor_scan(r, ones, t, 0.0, nl.multiply, nl.add)
    nl.store(out, value=r)
    return out


def reference(x):
    return x.astype("float32").cumsum(axis=1).astype(x.dtype)
