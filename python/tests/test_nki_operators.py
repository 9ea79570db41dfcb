"""Tile operators and ``nl.divide`` (issue 27 item 5; nki-api §2.8, nki-semantics §3).

An operator is the ``nl`` call of the same meaning, so each test compares the operator's
bits with that call's and with NumPy. Division is "multiply by reciprocal" (assumption
``divide-lowering`` in docs/reference/assumptions.md), so its reference computes the same.
"""

from __future__ import annotations

import numpy as np
import pytest

import tpb
import tpb.nki as nki
import tpb.nki.language as nl

from conftest import assert_bits_equal

RNG = np.random.default_rng(27)
A = RNG.standard_normal((128, 64)).astype(np.float32)
B = (RNG.standard_normal((128, 64)) + 3.0).astype(np.float32)
COL = (RNG.standard_normal((128, 1)) + 3.0).astype(np.float32)


def run(body, *arrays):
    def kernel(*hbm):
        tiles = [nl.load(h) for h in hbm]
        res = body(*tiles)
        out = nl.ndarray(res.shape, res.dtype, buffer=nl.shared_hbm)
        nl.store(out, value=res)
        return out

    return nki.simulate_kernel(kernel, *arrays)


@pytest.mark.parametrize("body, want", [
    (lambda a, b: a + b, A + B),
    (lambda a, b: a - b, A - B),
    (lambda a, b: a * b, A * B),
    (lambda a, b: a + 2.0, A + np.float32(2.0)),
    (lambda a, b: 2.0 - a, np.float32(2.0) - A),
    (lambda a, b: -1 * a, -A),
    (lambda a, b: -a, -A),
    (lambda a, b: abs(a), np.abs(A)),
    (lambda a, b: a * np.float32(0.5), A * np.float32(0.5)),
])
def test_arithmetic_operators_are_the_nl_calls(body, want):
    assert_bits_equal(run(body, A, B), want)


def test_operators_with_a_column_operand():
    got = run(lambda a, c: a * c + 1.0, A, COL)
    assert_bits_equal(got, (A * COL + np.float32(1.0)).astype(np.float32))


@pytest.mark.parametrize("body, want", [
    (lambda a, b: a < 0.0, (A < 0).astype(np.float32)),
    (lambda a, b: a >= b, (A >= B).astype(np.float32)),
    (lambda a, b: a > 0.5, (A > 0.5).astype(np.float32)),
])
def test_comparisons_give_one_and_zero_in_the_input_dtype(body, want):
    assert_bits_equal(run(body, A, B), want)


def _recip(x):
    return (np.float32(1.0) / x.astype(np.float32)).astype(np.float32)


@pytest.mark.parametrize("body, want", [
    (lambda a, b: a / b, A * _recip(B)),
    (lambda a, b: 1.0 / b, _recip(B)),
    (lambda a, b: 3.0 / b, _recip(B) * np.float32(3.0)),
    (lambda a, b: a / 4.0, A * (np.float32(1.0) / np.float32(4.0))),
    (lambda a, b: nl.divide(a, 3.0), A * (np.float32(1.0) / np.float32(3.0))),
])
def test_division_multiplies_by_the_reciprocal(body, want):
    assert_bits_equal(run(body, A, B), want)


def test_division_by_a_column_tile():
    assert_bits_equal(run(lambda a, c: a / c, A, COL), A * _recip(COL))


def test_integer_bitwise_operators():
    x = RNG.integers(0, 1 << 30, (128, 16), dtype=np.int32)
    y = RNG.integers(0, 1 << 30, (128, 16), dtype=np.int32)
    assert_bits_equal(run(lambda a, b: (a & b) | (a ^ b), x, y), (x & y) | (x ^ y))


@pytest.mark.parametrize("other", ["2", None, [1, 2], np.ones((128, 64), np.float32)])
def test_an_operand_that_is_not_a_tile_or_number_is_a_usage_error(other):
    with pytest.raises(tpb.UsageError, match="operand"):
        run(lambda a, b: a + other, A, B)


def test_tiles_keep_identity_equality():
    def body(a, b):
        assert (a == a) is True and (a == b) is False and len({a, b}) == 2
        return a

    assert_bits_equal(run(body, A, B), A)


def test_scalar_kernel_arguments_pass_through_unchanged():
    # Issue 27 item 9: Python numbers are compile-time values, not HBM tensors.
    seen = []

    def kernel(x, eps, n, flag):
        seen.append((type(eps), type(n), type(flag)))
        out = nl.ndarray(x.shape, x.dtype, buffer=nl.shared_hbm)
        nl.store(out, value=nl.load(x) * eps + float(n))
        return out

    got = nki.simulate_kernel(kernel, A, 0.5, 3, True)
    assert seen == [(float, int, bool)]
    assert_bits_equal(got, A * np.float32(0.5) + np.float32(3.0))
