"""``nki.isa.constants``: the enumerations of ``nki.isa`` (NKI 0.6.0, nki-api §3.1), also
importable as ``nisa.engine``, ``nisa.dge_mode``, ….

``engine`` picks the engine of a call, ``reduce_cmd`` what a call does to an accumulator,
``nc_version`` the NeuronCore version, ``matmul_perf_mode`` the matmul mode; ``dge_mode`` says who generates a DMA's descriptors and ``oob_mode`` what an out-of-bounds
indirect transfer does; ``dma_engine`` picks the queue family of ``sendrecv``. tpb accepts
every member where NKI does: the descriptors tpb builds are the same whoever generates
them, so ``dge_mode`` changes no result (docs/python.md, "DMA modes").

Members carry NKI 0.6.0's values (the legacy ``neuronxcc`` ``dge_mode`` numbered them
differently; kernels name members, and tpb refuses raw ints as NKI does since 0.3.0).

Example::

    from nki.isa.constants import dge_mode, oob_mode
    nisa.dma_copy(dst=t, src=a, dge_mode=dge_mode.hwdge, oob_mode=oob_mode.error)
"""

from __future__ import annotations

import enum

__all__ = ["dge_mode", "dma_engine", "engine", "gpsimd_engine", "matmul_perf_mode",
           "nc_version", "oob_mode", "reduce_cmd", "scalar_engine", "tensor_engine",
           "unknown_engine", "vector_engine"]


class dge_mode(enum.Enum):
    """Descriptor generation of a DMA: ``unknown`` (the compiler picks), ``swdge`` (GpSimd
    builds descriptors), ``hwdge`` (the issuing sequencer's DGE block), ``none`` (the
    runtime pre-builds them in HBM)."""

    unknown = 0
    swdge = 1
    hwdge = 2
    none = 3


class oob_mode(enum.Enum):
    """Out-of-bounds indirect DMA: ``error`` (a fault) or ``skip`` (the element is not
    transferred)."""

    error = 0
    skip = 1


class dma_engine(enum.Enum):
    """The DMA family of ``sendrecv``: ``dma`` (shared DMA rings) or ``gpsimd_dma``."""

    dma = 1
    gpsimd_dma = 2


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


# Deprecated aliases NKI keeps (nki-api §3.0): `engine=nisa.vector_engine`.
tensor_engine = engine.tensor
vector_engine = engine.vector
scalar_engine = engine.scalar
gpsimd_engine = engine.gpsimd
unknown_engine = engine.unknown


class matmul_perf_mode(enum.Enum):
    """``nc_matmul(perf_mode=...)``: ``none`` runs; ``double_row`` (FP8 2× mode) is refused —
    its data layout and the PERF_OPT_MODE value are not public."""

    none = "none"
    double_row = "double_row"


class nc_version(enum.IntEnum):
    """NeuronCore versions: gen2 (Trn1/Inf2 = tpb ``sunda``), gen3 (Trn2 = ``cayman``),
    gen4 (Trn3 = ``mariana``)."""

    gen2 = 2
    gen3 = 3
    gen4 = 4


class reduce_cmd(enum.Enum):
    """``nki.isa.reduce_cmd``: what a call does to its engine's accumulator (``idle`` leaves
    it, ``reset`` zeroes it, ``reduce`` accumulates, ``reset_reduce`` zeroes then
    accumulates, ``load_reduce`` loads an initial value then accumulates)."""

    idle = 0
    reset = 1
    reduce = 2
    reset_reduce = 3
    load_reduce = 4
