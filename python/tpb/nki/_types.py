"""The types NKI calls are declared with: NKI's enumerations, ``nl`` dtypes and memory
regions, and the parameter types of ``nki.isa`` / ``nki.language`` calls.

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
    "dge_mode",
    "engine",
    "matmul_perf_mode",
    "nc_version",
    "oob_mode",
    "reduce_cmd",
]


# --- NKI's enumerations (nki-api §3.1; values as NKI 0.6.0 numbers them) ------------------
class engine(enum.Enum):
    """The engine a call runs on (``engine=``); ``unknown`` lets tpb choose as the compiler
    does (the opcode table's engine)."""

    unknown = 0
    tensor = 1
    scalar = 2
    gpsimd = 3
    dma = 4
    vector = 5
    sync = 6


class reduce_cmd(enum.Enum):
    """``nki.isa.reduce_cmd``: what a call does to its engine's accumulator."""

    idle = 0
    reset = 1
    reduce = 2
    reset_reduce = 3
    load_reduce = 4


class nc_version(enum.IntEnum):
    """NeuronCore versions: gen2 (Trn1/Inf2 = tpb ``sunda``), gen3 (Trn2 = ``cayman``),
    gen4 (Trn3 = ``mariana``)."""

    gen2 = 2
    gen3 = 3
    gen4 = 4


class matmul_perf_mode(enum.Enum):
    """``nc_matmul(perf_mode=...)``: ``none`` runs; ``double_row`` (FP8 2× mode) is refused —
    its data layout and the PERF_OPT_MODE value are not public."""

    none = "none"
    double_row = "double_row"


class oob_mode(enum.Enum):
    """``dma_copy(oob_mode=...)``: what an out-of-bounds indirect transfer does."""

    error = 0
    skip = 1


class dge_mode(enum.Enum):
    """``dma_copy(dge_mode=...)``: who builds the DMA descriptors."""

    unknown = 0
    swdge = 1
    hwdge = 2
    none = 3


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

ReduceCmdArg = Annotated[Union[reduce_cmd, str], Kind("reduce_cmd")]
"""A ``reduce_cmd`` member or its name."""

OobMode = Annotated[Union[oob_mode, str, int], Kind("choice")]
DgeMode = Annotated[Union[dge_mode, str, int], Kind("choice")]
PerfMode = Annotated[Union[matmul_perf_mode, str], Kind("choice")]

Name = Annotated[Optional[str], Kind("name")]
"""``name=``: labels the call's instructions in profiles, races and capacity errors."""

Mask = Predicate
"""A legacy ``mask=``: an affine predicate over ``nl.arange`` indices."""

DType = Union["np.dtype[np.generic]", type, str]
"""A dtype: an ``nl`` dtype, a NumPy or ml_dtypes type, or its name."""
