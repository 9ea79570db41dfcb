#!/usr/bin/env python3
"""Regenerate the committed .npy fixtures used by crates/tpb/tests/npy.rs.

CI has no Python: the tests read only the committed files, and their expected values are
hard-coded there. Rerun this (numpy + ml_dtypes needed; written with numpy 2.4.6 and
ml_dtypes 0.6.0) only when adding a fixture, then update the tests to match.

    python3 tools/gen_npy_fixtures.py

Each fixture's header `descr` is asserted here so a numpy/ml_dtypes change that alters what
lands on disk fails loudly instead of silently changing what the tests cover.
"""

import io
import pathlib

import ml_dtypes
import numpy as np

OUT = pathlib.Path(__file__).resolve().parent.parent / "crates/tpb/tests/fixtures/npy"


def header_descr(raw: bytes) -> str:
    """The header dict's 'descr' as written in the file."""
    start = raw.index(b"'descr': '") + len(b"'descr': '")
    return raw[start : raw.index(b"'", start)].decode()


def save(name: str, arr, descr: str, version=None) -> None:
    buf = io.BytesIO()
    if version is None:
        np.save(buf, arr)
    else:
        np.lib.format.write_array(buf, arr, version=version)
    raw = buf.getvalue()
    got = header_descr(raw)
    assert got == descr, f"{name}: expected descr {descr!r}, numpy wrote {got!r}"
    assert raw[6] == (version or (1, 0))[0], f"{name}: unexpected header version {raw[6]}"
    (OUT / name).write_bytes(raw)
    print(f"{name:24} {descr:5} shape={arr.shape} v{raw[6]}.{raw[7]} {len(raw)} bytes")
    print(f"{'':24} data {raw[len(raw) - arr.nbytes:].hex(' ')}")


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)

    save("f32_2x3.npy", np.array([[0.0, 1.0, -2.0], [0.5, 3.25, -0.125]], np.float32), "<f4")
    save("u8.npy", np.array([0, 1, 127, 128, 255], np.uint8), "|u1")
    save("i16_2x2.npy", np.array([[-32768, -1], [0, 32767]], np.int16), "<i2")
    save("f16_scalar.npy", np.array(np.float16(1.5)), "<f2")

    bf16 = np.array([1.0, -2.0, 0.5, np.inf], ml_dtypes.bfloat16)
    save("bf16_ml_dtypes.npy", bf16, "<V2")
    save("bf16_bits_u2.npy", bf16.view(np.uint16), "<u2")

    fp8_vals = [1.0, -2.0, 0.5, 0.0]
    save("fp8_e4m3_ml_dtypes.npy", np.array(fp8_vals, ml_dtypes.float8_e4m3), "<V1")
    save("fp8_e5m2_ml_dtypes.npy", np.array(fp8_vals, ml_dtypes.float8_e5m2), "<f1")
    save("fp8_e4m3_bits_u1.npy", np.array(fp8_vals, ml_dtypes.float8_e4m3).view(np.uint8), "|u1")

    # Column-major on disk: 0, 12, 4, 16, 8, 20, 1, 13, ... ; C order is 0..23.
    fort = np.asfortranarray(np.arange(24, dtype=np.int32).reshape(2, 3, 4))
    assert fort.flags.f_contiguous and not fort.flags.c_contiguous
    save("i32_fortran_2x3x4.npy", fort, "<i4")

    save("f32_big_endian.npy", np.array([1.0, -2.5, 3.0], ">f4"), ">f4")
    save("u32_v2.npy", np.array([1, 0xDEADBEEF, 7], np.uint32), "<u4", version=(2, 0))
    save("i8_v3.npy", np.array([-1, 2], np.int8), "|i1", version=(3, 0))
    save("bool.npy", np.array([True, False, True]), "|b1")


if __name__ == "__main__":
    main()
