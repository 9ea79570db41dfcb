"""``nki.typing``: the annotations NKI kernels write on their parameters.

``nt.tensor``, ``nt.tensor[128, 512]``, ``nt.mutable_tensor`` and ``nt.tensor[nt.mutable]``
are annotations only: tpb records nothing from them (a kernel's arguments are checked
where they are used). The dtype names are :mod:`tpb.nki.language`'s.

Example::

    import nki.typing as nt
    def kernel(a: nt.tensor[128, 512], out: nt.mutable_tensor): ...
"""

from __future__ import annotations

from typing import Any

from .dtypes import *  # noqa: F401,F403  (nt.float32, nt.bfloat16, ...: the nl dtypes)
from .dtypes import __all__ as _dtype_names

__all__ = ["mutable", "mutable_tensor", "scalar", "tensor", *_dtype_names]


class _Annotation:
    """An annotation marker: subscripting it (``nt.tensor[128, 512]``) gives it back."""

    def __init__(self, name: str) -> None:
        self._name = name

    def __getitem__(self, item: Any) -> "_Annotation":
        return self

    def __call__(self, *args: Any, **kwargs: Any) -> "_Annotation":
        return self

    def __repr__(self) -> str:
        return f"nki.typing.{self._name}"


tensor = _Annotation("tensor")
mutable_tensor = _Annotation("mutable_tensor")
mutable = _Annotation("mutable")
scalar = _Annotation("scalar")
