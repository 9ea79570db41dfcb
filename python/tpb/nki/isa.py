"""``tpb.nki.isa``: the NKI instruction calls (current NKI signatures, ``dst`` first).

Operators and comparisons are NumPy ufuncs (``numpy.multiply``, ``numpy.greater_equal``)
or their names; scalar operands are Python numbers (immediates) or ``(P, 1)`` tiles
(one value per partition, read through a pointer). Every call returns a
:class:`tpb.RunReport` for the instructions it ran.
"""

from __future__ import annotations

from .._tpb import affine_select, iota, range_select, select, tensor_scalar

# Issue 17b calls: the vector engine's per-partition accumulator and the STT family.
from .._tpb import (
    max8,
    nc_find_index8,
    nc_match_replace8,
    scalar_tensor_tensor,
    select_reduce,
    tensor_scalar_reduce,
    tensor_tensor_scan,
)

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


class reduce_cmd:
    """``nki.isa.reduce_cmd``: what a call does to the vector engine's accumulator."""

    idle = "idle"
    reset = "reset"
    reduce = "reduce"
    reset_reduce = "reset_reduce"
    load_reduce = "load_reduce"


__all__ = [
    "affine_select",
    "iota",
    "range_select",
    "select",
    "tensor_scalar",
    # Issue 17b.
    "max8",
    "nc_find_index8",
    "nc_match_replace8",
    "reduce_cmd",
    "scalar_tensor_tensor",
    "select_reduce",
    "tensor_scalar_reduce",
    "tensor_tensor_scan",
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
