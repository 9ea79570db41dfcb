"""``tpb.nki.isa``: the NKI instruction calls (current NKI signatures, ``dst`` first).

Operators and comparisons are NumPy ufuncs (``numpy.multiply``, ``numpy.greater_equal``)
or their names; scalar operands are Python numbers (immediates) or ``(P, 1)`` tiles
(one value per partition, read through a pointer). Every call returns a
:class:`tpb.RunReport` for the one instruction it ran.
"""

from __future__ import annotations

from .._tpb import affine_select, iota, range_select, select, tensor_scalar

# Issue 17a: the DVE/POOL calls (docs/reference/dve-pool.md).
from .._tpb import (
    memset,
    nc_stream_shuffle,
    nc_transpose,
    reciprocal,
    tensor_copy,
    tensor_copy_predicated,
    tensor_reduce,
    tensor_tensor,
)

__all__ = [
    "affine_select",
    "iota",
    "range_select",
    "select",
    "tensor_scalar",
    # Issue 17a.
    "memset",
    "nc_stream_shuffle",
    "nc_transpose",
    "reciprocal",
    "tensor_copy",
    "tensor_copy_predicated",
    "tensor_reduce",
    "tensor_tensor",
]
