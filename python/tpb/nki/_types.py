"""The parameter types of ``nki.isa`` / ``nki.language`` calls (NKI's enumerations are in
:mod:`tpb.nki.constants`).

A parameter type also says how its argument is converted: ``Annotated[..., Kind("alu")]``
marks an ALU operator, ``Operand`` a number or a ``(P, 1)`` tile, and so on
(:mod:`tpb.nki._api` reads the kinds; the native module's converters do the conversion,
the same for every call). Type checkers see the plain types.
"""

from __future__ import annotations

import enum
from typing import Annotated, Callable, Optional, Sequence, Union

import numpy as np

from .._tpb import RunReport, Tile
from ._mask import Predicate
from .constants import dge_mode, engine, matmul_perf_mode, oob_mode

__all__ = [
    "ActOp",
    "AluOp",
    "Axes",
    "CmpOp",
    "DType",
    "DgeMode",
    "DmaEngine",
    "EngineArg",
    "Ints",
    "Kind",
    "Mask",
    "Name",
    "OobMode",
    "Operand",
    "Operator",
    "Pattern",
    "PerfMode",
    "ReduceCmdArg",
    "RunReport",
    "Tile",
]


# --- parameter types ----------------------------------------------------------------------
class Kind(str):
    """How an argument is converted (``Annotated`` metadata of a parameter type)."""

    __slots__ = ()


Operator = Union[str, Callable[..., object]]
"""An operator: ``nl.multiply``, ``numpy.add`` or a name (``"bitwise_and"``)."""

AluOp = Annotated[Operator, Kind("alu")]
"""An ALU operator (``nl.add``, ``numpy.maximum``, ``"bitwise_or"``, an ISA ``ALU_OP`` name)."""

CmpOp = Annotated[Operator, Kind("cmp")]
"""A comparison (``nl.greater_equal``, ``numpy.equal``, ``"less"``)."""

ActOp = Annotated[Operator, Kind("act")]
"""An activation function (``nl.exp``, ``numpy.tanh``, ``"gelu_apprx_tanh"``)."""

Operand = Annotated[Union[float, Tile], Kind("operand")]
"""A scalar operand: a number (an immediate) or a ``(P, 1)`` tile (one per partition)."""

Pattern = Annotated[Sequence[Sequence[int]], Kind("pattern")]
"""An access pattern: ``[[step, num], ...]``, outermost first."""

Axes = Annotated[Union[int, Sequence[int]], Kind("axes")]
"""Free axes: an int or a list of ints."""

Ints = Annotated[Sequence[int], Kind("ints")]
"""A list of ints."""

EngineArg = Annotated[Union[engine, str], Kind("engine")]
"""An ``engine`` member (or its name) for a compute call."""

DmaEngine = Annotated[Union[engine, str, int], Kind("choice")]
"""``dma_copy``'s issuing engine: an ``engine`` member, its name or its NKI number."""

ReduceCmdArg = Annotated[Union[str, enum.Enum], Kind("reduce_cmd")]
"""A ``reduce_cmd`` member (``nisa.reduce_cmd.idle``) or its name."""

OobMode = Annotated[Union[oob_mode, str, int], Kind("choice")]
DgeMode = Annotated[Union[dge_mode, str, int], Kind("choice")]
PerfMode = Annotated[Union[matmul_perf_mode, str], Kind("choice")]

Name = Annotated[Optional[str], Kind("name")]
"""``name=``: labels the call's instructions in profiles, races and capacity errors."""

Mask = Predicate
"""A legacy ``mask=``: an affine predicate over ``nl.arange`` indices."""

DType = Union["np.dtype[np.generic]", type, str]
"""A dtype: an ``nl`` dtype, a NumPy or ml_dtypes type, or its name."""
