"""Shared helpers for the tpb Python test suite.

References (the project's own docs): docs/reference/assumptions.md (numerics §14-§20, simulator
§21-§38), docs/syntax.md (text), docs/cli-run.md (regions). Seeds: 000 PtrMulti, 001 the
packer, 002 AffineSelect. nki-semantics §1.1 is the source of the nki-library cases.
"""

from __future__ import annotations

import pathlib

import ml_dtypes
import numpy as np
import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples"

FLT_MAX = float(np.finfo(np.float32).max)  # 3.4028235e38: nki-library fills with -FLT_MAX

# Every dtype the datapath holds, as NumPy / ml_dtypes spells it.
ALL_DTYPES = [
    np.float32,
    np.float16,
    np.int8,
    np.uint8,
    np.int16,
    np.uint16,
    np.int32,
    np.uint32,
    ml_dtypes.bfloat16,
    ml_dtypes.float8_e3m4,
    ml_dtypes.float8_e4m3,
    ml_dtypes.float8_e5m2,
]

# The TPB region names of the same dtypes (docs/cli-run.md).
REGION_NAMES = {
    np.dtype(np.float32): "fp32",
    np.dtype(np.float16): "fp16",
    np.dtype(np.int8): "int8",
    np.dtype(np.uint8): "uint8",
    np.dtype(np.int16): "int16",
    np.dtype(np.uint16): "uint16",
    np.dtype(np.int32): "int32",
    np.dtype(np.uint32): "uint32",
    np.dtype(ml_dtypes.bfloat16): "bf16",
    np.dtype(ml_dtypes.float8_e3m4): "fp8_exp3",
    np.dtype(ml_dtypes.float8_e4m3): "fp8_exp4",
    np.dtype(ml_dtypes.float8_e5m2): "fp8_exp5",
}


def bits(a: np.ndarray) -> np.ndarray:
    """The raw bits of an array as unsigned integers of the element width."""
    a = np.ascontiguousarray(a)
    return a.view({1: np.uint8, 2: np.uint16, 4: np.uint32}[a.dtype.itemsize])


def assert_bits_equal(got: np.ndarray, want: np.ndarray) -> None:
    """Bit-exact equality of dtype, shape and every element's bits (NaN payloads included)."""
    assert got.dtype == want.dtype, f"dtype {got.dtype} != {want.dtype}"
    assert got.shape == want.shape, f"shape {got.shape} != {want.shape}"
    g, w = bits(got), bits(want)
    bad = np.argwhere(g != w)
    assert bad.size == 0, (
        f"{len(bad)} elements differ; first at {tuple(bad[0])}: "
        f"got {got[tuple(bad[0])]!r} (bits {int(g[tuple(bad[0])]):#x}), "
        f"want {want[tuple(bad[0])]!r} (bits {int(w[tuple(bad[0])]):#x})"
    )


def region(space: str, partitions: int, offset: int, dtype, shape) -> str:
    """A region string, `sbuf[p0..P]+0xOFF:DTYPE:AxB`."""
    name = REGION_NAMES[np.dtype(dtype)]
    dims = "x".join(str(d) for d in shape)
    return f"{space}[p0..{partitions}]+{offset:#x}:{name}:{dims}"


@pytest.fixture
def rng() -> np.random.Generator:
    return np.random.default_rng(9)


def random_bits(rng: np.random.Generator, shape, dtype) -> np.ndarray:
    """Every bit pattern of `dtype` is fair game (NaNs, infinities, subnormals included)."""
    dt = np.dtype(dtype)
    raw = {1: np.uint8, 2: np.uint16, 4: np.uint32}[dt.itemsize]
    info = np.iinfo(raw)
    return rng.integers(0, info.max, size=shape, endpoint=True, dtype=raw).view(dt)


def random_values(rng: np.random.Generator, shape, dtype, limit: float = 100.0) -> np.ndarray:
    """Finite values of `dtype` within +-limit (and within the dtype's range)."""
    dt = np.dtype(dtype)
    if dt.kind in "iu":
        info = np.iinfo(dt)
        lo, hi = max(info.min, -int(limit)), min(info.max, int(limit))
        return rng.integers(lo, hi, size=shape, endpoint=True).astype(dt)
    top = min(limit, float(ml_dtypes.finfo(dt).max) / 2)
    return rng.uniform(-top, top, size=shape).astype(np.float32).astype(dt)
