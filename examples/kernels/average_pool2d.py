"""2×2 average pooling of [C, H, W] images, channels on partitions (follows the nki-samples
tutorial "average_pool2d": a strided view and a reduction over the pool window)."""

import tpb.nki as nki
import tpb.nki.language as nl


@nki.jit
def average_pool2d(x, pool=2):
    c, h, w = x.shape
    out = nl.ndarray((c, h // pool, w // pool), dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.load(x)
    win = t.reshape((c, h // pool, pool, w // pool, pool))
    s = nl.sum(nl.sum(win, axis=4), axis=2)
    nl.store(out, value=nl.multiply(s, 1.0 / (pool * pool)))
    return out


def reference(x, pool=2):
    c, h, w = x.shape
    return x.reshape(c, h // pool, pool, w // pool, pool).mean(axis=(2, 4)).astype(x.dtype)
