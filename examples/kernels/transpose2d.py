"""Transpose of a [128, 128] tensor through the Tensor engine (follows the nki-samples
tutorial "transpose2d")."""

import tpb.nki as nki
import tpb.nki.language as nl


@nki.jit
def transpose2d(x):
    out = nl.ndarray((x.shape[1], x.shape[0]), dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.load(x)
    tt = nl.transpose(t)
    nl.store(out, value=nl.copy(tt))
    return out


def reference(x):
    return x.T.copy()
