"""Kernel outputs as NKI has them: HBM tensors. A kernel that returns an SBUF or PSUM tile is
refused (issue 27; nki-api §1: outputs are ``nl.shared_hbm``), so the tests' kernels store
what they check into HBM outputs with :func:`hbm`."""

from __future__ import annotations

from typing import Any

from tpb.nki import language as nl


def hbm(*tiles: Any) -> Any:
    """Each tile stored into a new ``shared_hbm`` tensor of its shape (a PSUM tile is copied
    to SBUF first, as ``nl.store`` requires); one tensor, or a tuple for several tiles.

    Example::

        def kernel(t):
            return hbm(nl.exp(t))
    """
    out = []
    for t in tiles:
        if t.buffer == "psum":
            t = nl.copy(t)
        o = nl.ndarray(tuple(t.shape), t.dtype, buffer=nl.shared_hbm)
        nl.store(o, value=t)
        out.append(o)
    return out[0] if len(out) == 1 else tuple(out)
