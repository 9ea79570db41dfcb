"""Element-wise addition of two [M, N] tensors in 128×512 tiles, one SPMD instance per tile.

Follows the nki-samples tutorial "tensor_addition" (SPMD form). Run with a grid:
``tensor_add[m // 128, n // 512](a, b)``.
"""

import tpb.nki as nki
import tpb.nki.language as nl


@nki.jit
def tensor_add(a_input, b_input):
    c_output = nl.ndarray(a_input.shape, dtype=a_input.dtype, buffer=nl.shared_hbm)
    offset_x = nl.program_id(0) * 128
    offset_y = nl.program_id(1) * 512
    ix = offset_x + nl.arange(128)[:, None]
    iy = offset_y + nl.arange(512)[None, :]
    a_tile = nl.load(a_input[ix, iy])
    b_tile = nl.load(b_input[ix, iy])
    c_tile = nl.add(a_tile, b_tile)
    nl.store(c_output[ix, iy], value=c_tile)
    return c_output


def reference(a, b):
    return a + b
