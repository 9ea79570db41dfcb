"""``tpb.nki.isa``: the NKI instruction calls (current NKI signatures, ``dst`` first).

Operators and comparisons are NumPy ufuncs (``numpy.multiply``, ``numpy.greater_equal``)
or their names; scalar operands are Python numbers (immediates) or ``(P, 1)`` tiles
(one value per partition, read through a pointer). Every call returns a
:class:`tpb.RunReport` for the one instruction it ran.
"""

from __future__ import annotations

from .._tpb import affine_select, dma_copy, iota, range_select, select, tensor_scalar

__all__ = ["affine_select", "dma_copy", "iota", "range_select", "select", "tensor_scalar"]
