"""Row-wise softmax of a [128, N] tensor (follows the nki-samples tutorial "softmax")."""

import tpb.nki as nki
import tpb.nki.language as nl


@nki.jit
def softmax(x):
    out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.load(x)
    m = nl.max(t, axis=1, keepdims=True)
    e = nl.exp(nl.subtract(t, m))
    s = nl.sum(e, axis=1, keepdims=True)
    y = nl.multiply(e, nl.reciprocal(s))
    nl.store(out, value=y)
    return out


def reference(x):
    e = __import__("numpy").exp(x - x.max(axis=1, keepdims=True))
    return (e / e.sum(axis=1, keepdims=True)).astype(x.dtype)
