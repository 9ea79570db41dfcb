#!/usr/bin/env python3
"""Regenerate the inputs and expected outputs of the multi-engine examples (examples/engines/).

The pipeline of examples/engines/mask_pipeline.tpb, computed here with numpy + ml_dtypes
straight from the documented semantics, independently of the simulator:

* POOL: Iota writes limit[p] = p + 1 (fp32); AffineSelect keeps it where (L-1) - p >= 0 and
  writes L elsewhere, so limit[p] = min(p + 1, L): a causal mask over L valid keys.
* DVE: ImmLd loads 4 fp32 scales per partition, PtrMulti multiplies slice i (128 keys) of
  each row by scale i (fp32), and RangeSelect keeps key k where 0 <= k < limit[p] (the FP32
  value 0 + k compared with the bounds) and writes the fill -FLT_MAX elsewhere, converting to
  bf16 (RNE: the fill becomes -inf).

CI has no Python: the files are committed. Written with numpy 2.4.6 and ml_dtypes 0.6.0:

    python3 tools/gen_engine_examples.py
"""

import pathlib

import ml_dtypes
import numpy as np

EX = pathlib.Path(__file__).resolve().parent.parent / "examples" / "engines"
F32 = np.float32
BF16 = ml_dtypes.bfloat16
FLT_MAX = np.finfo(F32).max
VALID_KEYS = 100  # L: register 7 holds it as fp32


def save(name: str, arr) -> None:
    np.save(EX / name, arr)
    print(f"{name:32} {arr.dtype} shape={arr.shape}")


def main() -> None:
    rng = np.random.default_rng(10)
    scores = rng.standard_normal((128, 512), dtype=F32) * F32(4.0)
    scales = (F32(2.0) ** rng.integers(-3, 1, (128, 4)).astype(F32)).astype(F32)
    save("scores.npy", scores)
    save("scales.npy", scales)

    p = np.arange(128, dtype=F32)
    limit = np.where(F32(VALID_KEYS - 1) - p >= 0, p + F32(1), F32(VALID_KEYS)).astype(F32)
    save("limits.expected.npy", limit[:, None])

    scaled = (scores.reshape(128, 4, 128) * scales[:, :, None]).reshape(128, 512).astype(F32)
    k = np.arange(512, dtype=F32)[None, :]
    keep = (k >= F32(0)) & (k < limit[:, None])
    out = np.where(keep, scaled, F32(-FLT_MAX)).astype(BF16)
    assert out.view(np.uint16)[0, 1] == 0xFF80  # the fill became -inf
    save("masked.expected.npy", out.view(np.uint16))

    # dma_pipeline.tpb: HBM -> SBUF -> x 1/8 -> HBM (exact: a power-of-two scale).
    save("dma_scaled.expected.npy", (scores * F32(0.125)).astype(F32))

    pe_act_pipeline(np.random.default_rng(18))


def matmul_in_our_order(w, x):
    """psum[m][j] = sum_k w[k][m] * x[k][j] in tpb's documented order (assumption
    pe-summation-order): exact products added in fp32 sequentially over k = 0..K-1, one
    rounding per step, the first product the start value. For bf16 inputs every product is
    exact in fp32, so an fp32 multiply then add is that step (full fp32 inputs would need
    the fused multiply-add of tools/gen_pe_act_fixtures.py)."""
    w32, x32 = w.astype(F32), x.astype(F32)
    acc = w32[0][:, None] * x32[0][None, :]
    for k in range(1, w.shape[0]):
        acc = (acc + w32[k][:, None] * x32[k][None, :]).astype(F32)
    return acc


def pe_act_pipeline(rng) -> None:
    """pe_act_pipeline.tpb: W (128 x 128) and X (128 x 512) bf16 in HBM; two 256-column
    chunks of X go DMA-in -> Matmul into PSUM -> Activate exp -> DMA-out."""
    w = rng.standard_normal((128, 128), dtype=F32).astype(BF16)
    x = rng.standard_normal((128, 512), dtype=F32).astype(BF16)
    save("pe_weights.npy", w.view(np.uint16))
    save("pe_moving.npy", x.view(np.uint16))
    psum = matmul_in_our_order(w, x)
    # Chunk c's result sits in PSUM bank c (2 KiB per partition), one expected file each.
    save("pe_psum0.expected.npy", psum[:, :256].copy())
    save("pe_psum1.expected.npy", psum[:, 256:].copy())
    # Activate: t = fma(acc, 1/16, -0.5) in fp32 (exact product: a power-of-two scale), then
    # exp of its definition in float64 rounded once to fp32. Approximate on the hardware (its
    # tables are not public): the test compares within a tolerance, not bit for bit.
    t = (psum.astype(np.float64) * 0.0625 - 0.5).astype(F32)
    save("pe_exp.reference.npy", np.exp(t.astype(np.float64)).astype(F32))


if __name__ == "__main__":
    main()
