"""tpb.nki: NKI kernels run as the real instruction stream.

:func:`simulate_kernel` runs a kernel written against :mod:`tpb.nki.language` (``nl``) and
:mod:`tpb.nki.isa` (``nisa``): each call packs its tiles' access patterns (views included)
with the compiler's packer, builds the instruction the compiler would emit on the engine it
would choose, validates it for the generation (raising :class:`tpb.InvalidInstruction`
before anything runs), runs it bit-exactly and appends it, with the semaphore waits its
footprint needs, to the core's program. :func:`profile_kernel` re-runs that program on the
engine scheduler (timing, races, deadlocks) and returns the profile. The calls also work on
a :class:`Core` directly, outside a kernel::

    >>> import numpy as np, ml_dtypes, tpb.nki as nki
    >>> core = nki.Core(gen="cayman")
    >>> scores = core.from_numpy(np.arange(16, dtype=np.float32).reshape(4, 4))
    >>> masked = core.ndarray((4, 4), ml_dtypes.bfloat16)
    >>> _ = nki.isa.affine_select(masked, [[-1, 4]], 1, scores, -3.4028235e38,
    ...                           cmp_op=np.greater_equal)
    >>> row = masked.numpy()[1]
    >>> row.astype(np.float32).tolist(), row.dtype == ml_dtypes.bfloat16
    ([4.0, 5.0, -inf, -inf], True)
    >>> print(core.disasm().splitlines()[2].split()[0])
    affine_select
"""

from __future__ import annotations

from typing import List, Tuple

from .._tpb import Core, Profile, Tile
from . import _api, collectives, compiler, constants, dtypes, isa, language, tensor, typing
from ._runner import (Kernel, baremetal, benchmark, jit, profile, profile_kernel, simulate,
                      simulate_kernel)

from . import _operators

_operators.install()

# `nki.dtype` (an annotation in nki-library: `dtype: nki.dtype`) is the dtypes module.
dtype = dtypes


def api_support() -> List[Tuple[str, str, str, str]]:
    """Every NKI name tpb knows: ``(module, name, status, detail)`` with status
    ``supported``, ``partial``, ``not yet`` (the detail names the missing instruction) or
    ``not supported`` (the detail says why).

    Example::

        [r for r in tpb.nki.api_support() if r[2] == "not yet"]
    """
    return _api.api_support()


__all__ = [
    "Core",
    "Kernel",
    "Profile",
    "Tile",
    "api_support",
    "baremetal",
    "benchmark",
    "collectives",
    "compiler",
    "constants",
    "dtype",
    "dtypes",
    "isa",
    "jit",
    "language",
    "profile",
    "profile_kernel",
    "simulate",
    "simulate_kernel",
    "tensor",
    "typing",
]
