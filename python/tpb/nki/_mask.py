"""Index expressions (``nl.arange``, ``nl.mgrid``, ``nl.ds``) and affine masks.

An index expression is ``start + step·arange(size)`` on one axis of a subscript
(``[:, None]`` = the partition axis, ``[None, :]`` = the free axis); it subscripts a tile as
the equivalent range. A comparison of an index expression with an integer is a predicate;
``&`` joins predicates. A ``mask=`` that is a box (each axis bounded by comparisons) shrinks
the instruction's operands to the box, as the compiler does; any other predicate is refused.
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Tuple

from .._errors import NotSupported, UsageError


class IndexExpr:
    """``start + step·arange(size)`` on subscript axis ``axis`` (None: not placed yet)."""

    __slots__ = ("start", "size", "step", "axis")

    def __init__(self, start: int, size: int, step: int = 1, axis: Optional[int] = None) -> None:
        self.start, self.size, self.step, self.axis = start, size, step, axis

    def __tpb_index__(self) -> Tuple[int, int, int]:
        return (self.start, self.size, self.step)

    def _with(self, start: int, step: int) -> "IndexExpr":
        return IndexExpr(start, self.size, step, self.axis)

    def __add__(self, k: Any) -> "IndexExpr":
        if isinstance(k, IndexExpr):
            raise NotSupported("not supported: the sum of two index expressions as a subscript")
        return self._with(self.start + int(k), self.step)

    __radd__ = __add__

    def __sub__(self, k: Any) -> "IndexExpr":
        return self._with(self.start - int(k), self.step)

    def __mul__(self, k: Any) -> "IndexExpr":
        return self._with(self.start * int(k), self.step * int(k))

    __rmul__ = __mul__

    def __getitem__(self, key: Any) -> "IndexExpr":
        key = key if isinstance(key, tuple) else (key,)
        slots = [i for i, k in enumerate(key) if k is not None]
        if len(slots) != 1:
            raise UsageError("place an arange with exactly one ':' (e.g. nl.arange(128)[:, None])")
        return IndexExpr(self.start, self.size, self.step, slots[0])

    def _cmp(self, op: str, k: Any) -> "Predicate":
        if isinstance(k, IndexExpr):
            raise NotSupported(
                "not supported: a mask comparing two index expressions (not a box); "
                "use nisa.affine_select"
            )
        return Predicate([(self, op, int(k))])

    def __lt__(self, k: Any) -> "Predicate":  # type: ignore[override]
        return self._cmp("<", k)

    def __le__(self, k: Any) -> "Predicate":  # type: ignore[override]
        return self._cmp("<=", k)

    def __gt__(self, k: Any) -> "Predicate":  # type: ignore[override]
        return self._cmp(">", k)

    def __ge__(self, k: Any) -> "Predicate":  # type: ignore[override]
        return self._cmp(">=", k)

    def __repr__(self) -> str:
        return f"IndexExpr(start={self.start}, size={self.size}, step={self.step}, axis={self.axis})"


class Predicate:
    """A conjunction of ``index_expr <op> constant`` terms."""

    def __init__(self, terms: List[Tuple[IndexExpr, str, int]]) -> None:
        self.terms = terms

    def __and__(self, other: "Predicate") -> "Predicate":
        return Predicate(self.terms + other.terms)

    def __or__(self, other: Any) -> "Predicate":
        raise NotSupported("not supported: '|' in a mask (not a box)")

    def box(self) -> Dict[int, Tuple[int, int]]:
        """Per subscript axis, the kept positions ``[lo, hi)`` of the index expression."""
        out: Dict[int, Tuple[int, int]] = {}
        for e, op, k in self.terms:
            if e.axis is None or e.step <= 0:
                raise NotSupported("not supported: a mask over an unplaced or decreasing index")
            lo, hi = out.get(e.axis, (0, e.size))
            # value(i) = start + step·i; keep i with value op k.
            def first_at_least(v: int) -> int:
                return max(0, -(-(v - e.start) // e.step))

            if op == "<":
                hi = min(hi, first_at_least(k))
            elif op == "<=":
                hi = min(hi, first_at_least(k + 1))
            elif op == ">":
                lo = max(lo, first_at_least(k + 1))
            else:
                lo = max(lo, first_at_least(k))
            out[e.axis] = (lo, hi)
        return out


def apply_mask(mask: Any, *tiles: Any) -> Tuple[Any, ...]:
    """The tiles shrunk to the mask's box (each tile whose shape equals the first's; a
    ``(P, 1)`` operand is shrunk on the partition axis only)."""
    if mask is None:
        return tiles
    if not isinstance(mask, Predicate):
        raise NotSupported(f"not supported: mask={mask!r} (an affine predicate over nl.arange indices)")
    box = mask.box()
    ref = list(tiles[0].shape)
    out = []
    for t in tiles:
        if t is None or not hasattr(t, "shape"):
            out.append(t)
            continue
        shape = list(t.shape)
        key = []
        for axis, n in enumerate(shape):
            lo, hi = box.get(axis, (0, n))
            if shape != ref and axis > 0:
                lo, hi = 0, n
            if hi <= lo:
                raise NotSupported("not supported: a mask that selects no element (the instruction would be dropped)")
            key.append(slice(lo, hi))
        out.append(t[tuple(key)])
    return tuple(out)
