"""The ``nki.language`` names that are neither calls nor dtypes: the configuration base
class nki-library builds on, the legacy SPMD grid specifiers and the tile-size constants.
"""

from __future__ import annotations

import types
from typing import Any, Dict

from .. import _tpb
from . import _environ

__all__ = ["ModAlloc", "NKIObject", "nc", "spmd_dim", "tile_size"]


class NKIObject:
    """``nl.NKIObject``: the base class of the configuration objects nki-library passes
    into kernels (usually ``@dataclass`` subclasses), ordinary Python objects during a tpb
    run. A plain class attribute of a subclass (``section_idx = None``, no annotation) is a
    field as an annotated one is, so ``@dataclass`` gives it a keyword argument
    (nki-library's attention_cte builds its ``SectionParams(section_idx=...)`` so); a
    mutable default (list, dict, set) stays a class attribute.

    Example::

        @dataclass
        class TileConfig(nl.NKIObject):
            rows: int = 128
            cols = 512                      # a field too: TileConfig(cols=256)
    """

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        own = dict(cls.__dict__.get("__annotations__", {}))
        for name, value in list(cls.__dict__.items()):
            if name.startswith("_") or name in own or isinstance(value, _NOT_FIELDS):
                continue
            own[name] = Any
        cls.__annotations__ = own


# Class attributes that are not configuration fields: methods and descriptors, nested
# classes, and mutable values @dataclass refuses as defaults.
_NOT_FIELDS = (types.FunctionType, staticmethod, classmethod, property, type, list, dict, set)


def nc(n: int) -> int:
    """Legacy ``nl.nc(n)``: a grid dimension spread over ``n`` NeuronCores. tpb runs every
    SPMD instance on one simulated core, in grid order (as the legacy CPU simulator did), so
    this is the dimension's size ``n``.

    Example::

        kernel[nl.nc(2) * 2, 2](a, b)    # a 4 x 2 grid
    """
    return _positive("nl.nc", n)


def spmd_dim(*dims: int) -> int:
    """Legacy ``nl.spmd_dim(d0, d1, ...)``: one grid dimension of ``d0 * d1 * ...``
    instances (``nl.spmd_dim(nl.nc(2), 2)`` is 4), run in order on one simulated core.

    Example::

        kernel[nl.spmd_dim(nl.nc(2), 2), 2](a, b)
    """
    size = 1
    for d in dims:
        size *= _positive("nl.spmd_dim", d)
    return size


def _positive(what: str, n: Any) -> int:
    from .._errors import UsageError

    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise UsageError(f"{what}: a grid dimension is a positive int, not {n!r}")
    return int(n)


# NKI's platform names (nki-api §1) → tpb generations.
_PLATFORM_GEN = {"trn1": "sunda", "inf2": "sunda", "gen2": "sunda", "trn2": "cayman",
                 "gen3": "cayman", "trn3": "mariana", "gen4": "mariana"}


def platform_gen(target: Any) -> str:
    """The tpb generation of an NKI platform target (``trn2``, ``gen3``) or a tpb name."""
    from .._errors import UsageError

    name = str(getattr(target, "value", target)).lower()
    if name in _PLATFORM_GEN:
        return _PLATFORM_GEN[name]
    if name in ("sunda", "cayman", "mariana", "maverick"):
        return name
    raise UsageError(f"platform target {target!r}: expected one of "
                     f"{', '.join(sorted(_PLATFORM_GEN))} (or a tpb generation)")


def default_gen() -> str:
    """The generation a kernel runs on when none is given: ``NEURON_PLATFORM_TARGET_OVERRIDE``
    (as NKI reads it) or ``cayman`` (trn2)."""
    env = _environ.get("NEURON_PLATFORM_TARGET_OVERRIDE")
    return platform_gen(env) if env else "cayman"


def _current_gen() -> str:
    from . import _context

    ctx = _context.maybe_current()
    return ctx.core.gen if ctx is not None else default_gen()


_GEOMETRY: Dict[str, Dict[str, int]] = {}


def _geometry(gen: str) -> Dict[str, int]:
    if gen not in _GEOMETRY:
        _GEOMETRY[gen] = dict(_tpb._geometry(gen))
    return _GEOMETRY[gen]


class _TileSizeMeta(type):
    # The SBUF figures depend on the generation: read the running kernel's (or the default).
    @property
    def sbuf_fmax_bytes(cls) -> int:
        return _geometry(_current_gen())["sbuf_partition_bytes"]

    @property
    def total_available_sbuf_size(cls) -> int:
        return _geometry(_current_gen())["sbuf_partition_bytes"]

    @property
    def sbuf_size_bytes(cls) -> int:
        return 128 * _geometry(_current_gen())["sbuf_partition_bytes"]


class tile_size(metaclass=_TileSizeMeta):
    """``nl.tile_size`` (nki-api §2.4): ``pmax`` partitions of a tile (128); PSUM
    ``psum_bank_fmax`` fp32 elements (``psum_bank_fmax_bytes`` = 2048 bytes) per bank and
    partition, ``psum_num_banks`` (8), ``psum_fmax`` (legacy, 512); ``gemm_stationary_fmax``
    (128) and ``gemm_moving_fmax`` (512) for ``nc_matmul``; ``bn_stats_fmax`` (512); and the
    SBUF bytes per partition of the running kernel's generation (``sbuf_fmax_bytes``, the
    deprecated ``total_available_sbuf_size``; ``sbuf_size_bytes`` for all 128 partitions:
    192 KiB per partition on sunda, 224 on cayman, 256 on mariana, 512 on maverick — fact
    sheet §geometry).

    Example::

        for k in nl.affine_range(K // nl.tile_size.pmax): ...
    """

    pmax = 128
    psum_fmax = 512
    psum_bank_fmax = 512
    psum_bank_fmax_bytes = 2048
    psum_num_banks = 8
    gemm_stationary_fmax = 128
    gemm_moving_fmax = 512
    bn_stats_fmax = 512


class ModAlloc:
    """A modulo placement (``mod_alloc`` with tile counts): ``nl.ndarray`` gives a tensor
    whose ``k``-th block dim holds ``counts[k]`` physical blocks, block ``i`` being physical
    ``i % counts[k]`` (placements sharing bytes across tensors are distinct storage in tpb,
    assumption ``explicit-placement``)."""

    def __init__(self, buffer: str, counts: tuple) -> None:
        self.buffer = buffer
        self.counts = counts

    @property
    def name(self) -> str:
        return self.buffer

    def __repr__(self) -> str:
        return f"nki.compiler.{self.buffer}.mod_alloc(counts={self.counts})"
