"""Tile operators: ``a + b``, ``1.0 / t``, ``-1 * t``, ``x < 0``, ``-t`` in kernels.

Each operator is the ``nl`` function of the same meaning (``+`` is :func:`nl.add`, ``/`` is
:func:`nl.divide`, ``<`` is :func:`nl.less`, unary ``-`` is :func:`nl.negative`), so it
emits what that call emits, as the compiler lowers an operator to the same instruction. A
reflected form (``2.0 - t``) swaps the operands. ``==`` and ``!=`` keep Python's identity
meaning (tiles are used as dictionary keys); use ``nl.equal`` / ``nl.not_equal``. An operand
that is neither a tile nor a number raises :class:`tpb.UsageError`.

Example::

    y = (x - mean) * inv_std + 1.0
"""

from __future__ import annotations

from typing import Any, Callable

from .. import _tpb
from .._errors import UsageError
from . import language as nl

_NUMBER = (int, float)


def _operand(op: str, other: Any) -> Any:
    if isinstance(other, _tpb.Tile) or (isinstance(other, _NUMBER) and not isinstance(other, bool)):
        return other
    try:
        import numpy as np

        if isinstance(other, (np.integer, np.floating)):
            return other.item()
    except ImportError:  # pragma: no cover - numpy is a dependency
        pass
    raise UsageError(f"tile {op} {type(other).__name__}: an operand is a tile or a number")


def _binary(op: str, fn: Callable[..., Any], reflected: bool) -> Callable[[Any, Any], Any]:
    def method(self: Any, other: Any) -> Any:
        other = _operand(op, other)
        return fn(other, self) if reflected else fn(self, other)

    return method


_BINARY = {
    "+": ("add", nl.add), "-": ("sub", nl.subtract), "*": ("mul", nl.multiply),
    "/": ("truediv", nl.divide), "&": ("and", nl.bitwise_and), "|": ("or", nl.bitwise_or),
    "^": ("xor", nl.bitwise_xor), "<<": ("lshift", nl.left_shift),
    ">>": ("rshift", nl.right_shift),
}
_COMPARE = {"<": ("lt", nl.less), "<=": ("le", nl.less_equal), ">": ("gt", nl.greater),
            ">=": ("ge", nl.greater_equal)}


def install() -> None:
    """Binds the operators to :class:`tpb.nki.Tile` (done once, at import of ``tpb.nki``)."""
    tile = _tpb.Tile
    for op, (name, fn) in _BINARY.items():
        setattr(tile, f"__{name}__", _binary(op, fn, False))
        setattr(tile, f"__r{name}__", _binary(op, fn, True))
    for op, (name, fn) in _COMPARE.items():
        setattr(tile, f"__{name}__", _binary(op, fn, False))
    setattr(tile, "__neg__", lambda self: nl.negative(self))
    setattr(tile, "__abs__", lambda self: nl.abs(self))
