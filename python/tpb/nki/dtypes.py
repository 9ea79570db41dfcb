"""``nki.language`` dtypes (nki-api §2.3): NumPy / ml_dtypes dtype objects, usable wherever
NKI takes a dtype and wherever NumPy does.

NKI names tpb cannot store are still importable — a kernel module that only mentions them
imports — and refuse when used (allocating a tile, casting) with :class:`tpb.DtypeError`
naming the missing fact: ``tfloat32`` (not a storage dtype: the matmul's ``fp32_mode`` bit,
fact sheet §DTYPE) and the NC-v4 MX names (``float8_e4m3fn_x4``, ``float8_e5m2_x4``,
``float4_e2m1fn_x4``, ``float8_e8m0fnu``: tpb has no MX datapath — ``nc_matmul_mx`` /
``quantize_mx`` and their packing are not in its fact sheets).

Example::

    t = nl.ndarray((128, 512), nl.bfloat16)
    nl.fp32.min          # -3.4028235e38, the legacy constant
"""

from __future__ import annotations

from typing import Any, NoReturn

import ml_dtypes
import numpy as np

from .._errors import UsageError

__all__ = [
    "bfloat16", "bool_", "float16", "float32", "float4_e2m1fn_x4", "float8_e4m3",
    "float8_e4m3fn", "float8_e4m3fn_x4", "float8_e5m2", "float8_e5m2_x4", "float8_e8m0fnu",
    "fp32", "int16", "int32", "int8", "sizeinbytes", "tfloat32", "uint16", "uint32", "uint8",
]

bool_ = np.dtype(np.uint8)
int8 = np.dtype(np.int8)
int16 = np.dtype(np.int16)
int32 = np.dtype(np.int32)
uint8 = np.dtype(np.uint8)
uint16 = np.dtype(np.uint16)
uint32 = np.dtype(np.uint32)
float16 = np.dtype(np.float16)
float32 = np.dtype(np.float32)
bfloat16 = np.dtype(ml_dtypes.bfloat16)
float8_e4m3 = np.dtype(ml_dtypes.float8_e4m3)
float8_e5m2 = np.dtype(ml_dtypes.float8_e5m2)
float8_e4m3fn = np.dtype(ml_dtypes.float8_e4m3fn)


class UnsupportedDtype:
    """An NKI dtype name tpb cannot store: importable and comparable, refused when used.

    Every tpb call that takes it raises :class:`tpb.DtypeError` naming ``why``; so does
    ``numpy.dtype(nl.tfloat32)`` (NumPy 2.0 raises its own ``TypeError`` naming the dtype).
    """

    def __init__(self, name: str, why: str) -> None:
        self.name = name
        self.why = why

    def refuse(self) -> NoReturn:
        from .._errors import DtypeError

        raise DtypeError(f"not supported: nl.{self.name} — {self.why}")

    @property
    def dtype(self) -> Any:
        # NumPy reads `.dtype` to convert an object into a dtype: refuse there, by name.
        self.refuse()

    def __repr__(self) -> str:
        return f"nl.{self.name} (not supported: {self.why})"

    __str__ = __repr__


_MX = ("tpb has no MX datapath: nc_matmul_mx / quantize_mx and the x4 packing and E8M0 "
       "scale encodings are not in its fact sheets")
tfloat32 = UnsupportedDtype(
    "tfloat32", "TF32 is not a storage dtype on the TPB (the matmul's fp32_mode bit, "
    "fact sheet §DTYPE); store fp32 and let nc_matmul use it")
float8_e4m3fn_x4 = UnsupportedDtype("float8_e4m3fn_x4", _MX)
float8_e5m2_x4 = UnsupportedDtype("float8_e5m2_x4", _MX)
float4_e2m1fn_x4 = UnsupportedDtype("float4_e2m1fn_x4", _MX)
float8_e8m0fnu = UnsupportedDtype("float8_e8m0fnu", _MX)


class _Fp32Constants:
    """Legacy ``nl.fp32``: ``nl.fp32.min`` is the most negative finite fp32 (bit pattern
    0xff7fffff, nki-api §4.2), ``nl.fp32.max`` the largest."""

    min = float(np.finfo(np.float32).min)
    max = float(np.finfo(np.float32).max)
    dtype = float32

    def __repr__(self) -> str:
        return "nl.fp32"


fp32 = _Fp32Constants()


def sizeinbytes(dtype: Any) -> int:
    """Bytes per element of ``dtype`` (legacy ``nki.language.constants.sizeinbytes``; the
    drop-in maps that module here).

    Example::

        sizeinbytes(nl.bfloat16)   # 2
    """
    if isinstance(dtype, UnsupportedDtype):
        dtype.refuse()
    try:
        return int(np.dtype(dtype).itemsize)
    except TypeError:
        raise UsageError(f"sizeinbytes: {dtype!r} is not a dtype", parameter="dtype") from None
