"""``out = x * scale + bias[p]`` on a [128, N] tensor: one TensorScalar with a per-partition
(P, 1) operand. Follows the tensor_addition tutorial's load / compute / store shape."""

import tpb.nki as nki
import tpb.nki.isa as nisa
import tpb.nki.language as nl


@nki.jit
def scale_bias(x, bias, scale=0.5):
    out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
    xt = nl.load(x)
    bt = nl.load(bias)
    yt = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.sbuf)
    nisa.tensor_scalar(yt, xt, nl.multiply, scale, op1=nl.add, operand1=bt)
    nl.store(out, value=yt)
    return out


def reference(x, bias, scale=0.5):
    return (x * scale + bias).astype(x.dtype)
