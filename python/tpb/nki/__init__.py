"""NKI-shaped calls that emit, validate and run real TPB bundles.

Each call in :mod:`tpb.nki.isa` builds the instruction the compiler would emit (access
patterns through the compiler's packer, patterns outermost first as NKI writes them),
validates it for the core's generation (raising :class:`tpb.InvalidInstruction` before
anything runs), runs it bit-exactly and appends it to :meth:`Core.bundles` /
:meth:`Core.disasm`::

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

from .._tpb import Core, Tile
from . import isa

__all__ = ["Core", "Tile", "isa"]
