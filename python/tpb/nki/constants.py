"""``nki.isa.constants``: the DMA enumerations of NKI 0.6.0 (nki-api §3.1).

``dge_mode`` says who generates a DMA's descriptors and ``oob_mode`` what an out-of-bounds
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

__all__ = ["dge_mode", "dma_engine", "oob_mode"]


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
