"""Small API contracts: hashing, star-imports, argument validation, GpSimd memories."""

from __future__ import annotations

import numpy as np
import pytest

import tpb
import tpb.nki as nki


def test_instructions_hash_by_their_bytes_and_generation():
    code = open(tpb_example("causal_mask.bin"), "rb").read()
    a, b = tpb.decode(code)[1], tpb.decode(code)[1]
    assert a == b and hash(a) == hash(b)
    assert len({a, b, tpb.decode(code)[0]}) == 2


def test_star_import_keeps_the_builtin_warning():
    namespace: dict = {}
    exec("from tpb import *", namespace)
    assert "Warning" not in namespace
    assert tpb.Warning is not Warning


def test_negative_sizes_are_usage_errors():
    core = nki.Core()
    with pytest.raises(tpb.UsageError, match="negative"):
        core.ndarray((4, -1), np.float32)
    with pytest.raises(tpb.UsageError, match="negative"):
        tpb.pack(partitions=4, offset=-1, dims=[[1, 4]])


def test_gpsimd_calls_take_sbuf_tiles_only():
    """nki-semantics §1.2: iota's dst must be SBUF (GpSimd cannot access PSUM), although
    the ISA's Iota allows PSUM."""
    core = nki.Core(gen="cayman")
    dst = core.ndarray((4, 8), np.float32, buffer="psum")
    with pytest.raises(tpb.UsageError, match="SBUF tiles only"):
        nki.isa.iota(dst, [[1, 8]])
    assert core.bundles() == b""


def test_user_registers_stop_below_the_constant_registers():
    core = nki.Core()
    core.set_register(31, 1.5)
    with pytest.raises(tpb.UsageError, match="reserved"):
        core.set_register(32, 0)


def tpb_example(name: str) -> str:
    import pathlib

    return str(pathlib.Path(__file__).resolve().parents[2] / "examples" / name)
