"""The nki-library causal attention mask, run bit-exactly with tpb.nki and checked against NumPy.

nki-library's attention kernels (attention_cte.py) mask scores with

    nki.isa.affine_select(dst, pattern=[[-1, F]], channel_multiplier=1, on_true_tile=scores,
                          on_false_value=-3.4028235e38, cmp_op=nl.greater_equal)

With queries on the partitions (q = 0..128) and keys on the free axis (k = 0..F), the affine
value is q - k: a score is kept where q >= k, else replaced by -FLT_MAX, which rounds to -inf
in the bf16 output. This script builds that call on a simulated cayman core, compares the
result bit for bit with NumPy + ml_dtypes, and prints the bundle the call emitted.

    python examples/python/causal_mask.py
"""

from __future__ import annotations

import sys

import ml_dtypes
import numpy as np

import tpb
import tpb.nki as nki

P, F = 128, 512
FILL = -3.4028235e38  # -FLT_MAX, nki-library's on_false_value


def reference(scores: np.ndarray) -> np.ndarray:
    """NumPy: keep where q - k >= 0, else the fill; fp32 -> bf16 rounds to nearest even."""
    q = np.arange(P)[:, None]
    k = np.arange(F)[None, :]
    return np.where(q - k >= 0, scores, np.float32(FILL)).astype(ml_dtypes.bfloat16)


def main() -> int:
    rng = np.random.default_rng(2024)
    scores = (rng.standard_normal((P, F)) * 4).astype(np.float32)

    core = nki.Core(gen="cayman")
    scores_tile = core.from_numpy(scores)
    masked = core.ndarray((P, F), ml_dtypes.bfloat16)
    nki.isa.affine_select(masked, [[-1, F]], 1, scores_tile, FILL, cmp_op=np.greater_equal)

    got = masked.numpy()
    want = reference(scores)
    differ = int(np.count_nonzero(got.view(np.uint16) != want.view(np.uint16)))
    masked_count = int(np.isneginf(got.astype(np.float32)).sum())

    print(f"causal mask {P}x{F} fp32 -> bf16 on {core.gen}: "
          f"{'OK' if differ == 0 else 'MISMATCH'}, {differ} of {got.size} elements differ "
          f"from NumPy; {masked_count} masked to -inf")
    print(f"emitted {len(core.bundles()) // 64} bundle(s); valid on {core.gen}: "
          f"{tpb.validate(core.bundles()[:64], gen=core.gen) == []}")
    print(core.disasm(), end="")
    return 0 if differ == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
