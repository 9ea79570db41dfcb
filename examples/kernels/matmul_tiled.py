"""``lhsT.T @ rhs`` in 128×128×512 tiles with PSUM accumulation over K (follows the
nki-samples tutorial "matrix_multiplication", tiled form)."""

import tpb.nki as nki
import tpb.nki.language as nl


@nki.jit
def matmul_tiled(lhsT, rhs):
    k, m = lhsT.shape
    _, n = rhs.shape
    out = nl.ndarray((m, n), dtype=lhsT.dtype, buffer=nl.shared_hbm)
    for mi in nl.affine_range(m // 128):
        for ni in nl.affine_range(n // 512):
            acc = nl.zeros((128, 512), nl.float32, buffer=nl.psum)
            for ki in nl.affine_range(k // 128):
                lt = nl.load(lhsT[ki * 128:(ki + 1) * 128, mi * 128:(mi + 1) * 128])
                rt = nl.load(rhs[ki * 128:(ki + 1) * 128, ni * 512:(ni + 1) * 512])
                acc += nl.matmul(lt, rt, transpose_x=True)
            res = nl.copy(acc, dtype=out.dtype)
            nl.store(out[mi * 128:(mi + 1) * 128, ni * 512:(ni + 1) * 512], value=res)
    return out


def reference(lhsT, rhs):
    return (lhsT.T.astype("float32") @ rhs.astype("float32")).astype(lhsT.dtype)
