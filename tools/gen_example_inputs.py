#!/usr/bin/env python3
"""Regenerate the .npy inputs and expected outputs of the example programs in examples/.

Each example program (examples/*.tpb) loads its inputs with `.in` and checks its outputs
with `.expect` against the files written here. The expected values are computed here with
numpy + ml_dtypes straight from the documented semantics (decisions §4, isa-facts §6-§9),
independently of the simulator; the simulator must reproduce them bit for bit.

CI has no Python: the files are committed. Rerun this (written with numpy 2.4.6 and
ml_dtypes 0.6.0) only to change an example:

    python3 tools/gen_example_inputs.py

Every input is deterministic (fixed seeds). The files use a mix of the encodings tpb run
reads, so the examples exercise them: numpy's own dtypes (<f4, <i4, <u4), ml_dtypes raw
blobs (bfloat16 as <V2, float8_e5m2 as <f1) and unsigned-integer bit views (<u2).
"""

import io
import pathlib

import ml_dtypes
import numpy as np

EX = pathlib.Path(__file__).resolve().parent.parent / "examples"
F32 = np.float32
BF16 = ml_dtypes.bfloat16
E5M2 = ml_dtypes.float8_e5m2
FLT_MAX = np.finfo(F32).max  # -3.4028235e38 is the nki-library fill


def header_descr(raw: bytes) -> str:
    start = raw.index(b"'descr': '") + len(b"'descr': '")
    return raw[start : raw.index(b"'", start)].decode()


def save(name: str, arr, descr: str) -> None:
    """np.save, asserting the header descr so a numpy/ml_dtypes change fails loudly."""
    buf = io.BytesIO()
    np.save(buf, arr)
    raw = buf.getvalue()
    got = header_descr(raw)
    assert got == descr, f"{name}: expected descr {descr!r}, numpy wrote {got!r}"
    (EX / name).write_bytes(raw)
    print(f"{name:32} {descr:4} shape={arr.shape}")


def causal_mask() -> None:
    """Iota + AffineSelect, the nki-library causal mask (nki-semantics §1.1).

    Partition q, element k: the affine value is q*1 + k*(-1) (pattern [[-1, 512]], channel
    multiplier 1, base 0). AffineSelect keeps the score where q - k >= 0, else writes the
    fp32 fill -FLT_MAX converted to bf16 (RNE: -inf, decisions §4.10). Iota writes the same
    affine value as int32.
    """
    rng = np.random.default_rng(2024)
    scores = rng.standard_normal((128, 512), dtype=F32) * F32(4.0)
    save("causal_scores.npy", scores, "<f4")

    q = np.arange(128, dtype=np.int32)[:, None]
    k = np.arange(512, dtype=np.int32)[None, :]
    offsets = (q - k).astype(np.int32)
    fill = F32(-FLT_MAX)
    masked = np.where(offsets >= 0, scores, fill).astype(BF16)  # fp32 -> bf16, RNE
    assert masked.view(np.uint16)[0, 1] == 0xFF80  # the fill became -inf
    save("causal_mask.expected.npy", masked, "<V2")
    save("causal_offsets.expected.npy", offsets, "<i4")


def per_slice_scale() -> None:
    """ImmLd(Arith) of 4 fp32 scales per partition, then PtrMultiArith MULT (seed 000).

    The bf16 data is [128, W=4, 64]: slice i of partition p is multiplied by scale[p, i] in
    fp32 (decisions §4.1, §4.11: t op scalar, reverse None) and rounded to bf16.
    """
    rng = np.random.default_rng(7)
    data = rng.uniform(-8, 8, (128, 4, 64)).astype(F32).astype(BF16)
    scales = (F32(2.0) ** rng.integers(-3, 4, (128, 4)).astype(F32)) * rng.uniform(
        0.5, 1.5, (128, 4)
    ).astype(F32)
    scales = scales.astype(F32)
    save("scale_data.npy", data, "<V2")
    save("scale_factors.npy", scales, "<f4")
    out = (data.astype(F32) * scales[:, :, None]).astype(F32).astype(BF16)
    save("scale.expected.npy", out.view(np.uint16), "<u2")


def bitvec_mask() -> None:
    """ImmLd(Bitvec) of 2 uint32 masks per partition, then PtrMultiBitvec AND on raw bits.

    Data: fp32 values seen as uint32 bits, [128, W=2, 64]. Slice 0 ANDs 0x7FFFFFFF (clears
    the sign: |x|); slice 1 ANDs 0xFFFFFFFF << (p % 24) (drops p % 24 low mantissa bits).
    """
    rng = np.random.default_rng(11)
    data = rng.standard_normal((128, 2, 64), dtype=F32).view(np.uint32)
    p = np.arange(128, dtype=np.uint64)
    masks = np.stack(
        [
            np.full(128, 0x7FFFFFFF, np.uint64),
            (np.uint64(0xFFFFFFFF) << (p % np.uint64(24))) & np.uint64(0xFFFFFFFF),
        ],
        axis=1,
    ).astype(np.uint32)
    save("bitvec_data.npy", data, "<u4")
    save("bitvec_masks.npy", masks, "<u4")
    save("bitvec.expected.npy", data & masks[:, :, None], "<u4")


def sunda_dual() -> None:
    """sunda TensorScalarPtrMultiDualArith (0x87): two ops per W slice (decisions §4.11).

    ImmLd(Arith) loads 8 fp32 scalars per partition: pairs (mean_i, rstd_i) for W=4 slices
    (pair layout flop[2i], flop[2i+1], ASSUMED). With op=SUBTRACT and reverse None the
    result is (x - mean_i) * rstd_i in fp32, rounded to bf16. The data is float8_e5m2
    (ml_dtypes writes it as '<f1').
    """
    rng = np.random.default_rng(3)
    data = rng.uniform(-4, 4, (128, 4, 64)).astype(F32).astype(E5M2)
    means = rng.uniform(-1, 1, (128, 4)).astype(F32)
    rstds = rng.uniform(0.25, 2, (128, 4)).astype(F32)
    pairs = np.stack([means, rstds], axis=2).reshape(128, 8)
    save("dual_data.npy", data, "<f1")
    save("dual_scalars.npy", pairs, "<f4")
    x = data.astype(F32)
    out = ((x - means[:, :, None]).astype(F32) * rstds[:, :, None]).astype(F32)
    save("dual.expected.npy", out.astype(BF16).view(np.uint16), "<u2")


def main() -> None:
    causal_mask()
    per_slice_scale()
    bitvec_mask()
    sunda_dual()


if __name__ == "__main__":
    main()
