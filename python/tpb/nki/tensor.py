"""``nki.tensor``: the tensor type of NKI kernels' annotations (``a: nki.tensor``).

``NkiTensor`` is :class:`tpb.nki.Tile`, the tile or HBM tensor every ``nl``/``nisa`` call
takes and returns.

Example::

    def kernel(a: nki.tensor) -> nki.tensor: ...
"""

from __future__ import annotations

from .._tpb import Tile as NkiTensor

__all__ = ["NkiTensor"]
