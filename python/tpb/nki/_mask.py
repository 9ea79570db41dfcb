"""Index expressions (``nl.arange``, ``nl.mgrid``, ``nl.ds``) and masks.

An unplaced ``nl.arange(n)`` or ``nl.ds(start, size)`` is a range: it subscripts one dim as
``start:start+size`` would. Placed (``nl.arange(n)[:, None]``, ``nl.mgrid[0:P, 0:F]``) it is
an axis of an index grid, and arithmetic builds affine forms over the grid's axes:
``i * 128 + i_p``, ``i_f1 * F2 + i_f2``, ``i_h + i_kh``. A tile subscripted with such forms is
a view of the grid's shape whose axis 0 is the partitions (``tpb_nki::affine``); transposed
placement (``out[jf, ip]``) follows the forms.

A comparison of a form with an integer is a predicate; ``&`` joins predicates. A ``mask=``
whose terms each bound one grid axis is a box: the call runs on the box (the compiler
shrinks the instruction to it), so an out-of-bounds view of a ragged last tile comes back in
bounds, and the elements of the call's on-chip destination the mask leaves out are declared
don't-care (later unmasked reads of them are not uninitialised reads). A predicate that is
not a box (``i_p >= i_f``, ``|``) raises :class:`tpb.NotSupported` (``nisa.affine_select``
applies such masks). A Python bool mask (``mask=j + 1 < n``, computed from loop indices) is
all or nothing: ``True`` masks nothing, ``False`` runs nothing and declares the whole
destination don't-care.
"""

from __future__ import annotations

import operator
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np

from .._errors import NotSupported, UsageError


def _int(k: Any, what: str) -> int:
    try:
        return operator.index(k)
    except TypeError:
        raise UsageError(f"{what}: {k!r} is not an integer (index expressions are affine in "
                         "integers)") from None


class IndexExpr:
    """``constant + Σ coeffs[a]·i_a`` over the axes of an index grid (``sizes[a]`` indices
    on axis ``a``), or, unplaced (``rank`` is None), the range ``start + step·arange(size)``.
    """

    __slots__ = ("constant", "coeffs", "sizes", "rank")

    def __init__(self, constant: int, coeffs: Sequence[int], sizes: Sequence[int],
                 rank: Optional[int] = None) -> None:
        self.constant = constant
        self.coeffs = tuple(coeffs)
        self.sizes = tuple(sizes)
        self.rank = rank

    @classmethod
    def range(cls, start: int, size: int, step: int = 1) -> "IndexExpr":
        """The unplaced range ``start + step·arange(size)``."""
        if size < 1:
            raise UsageError(f"an index range of {size} elements (at least 1)")
        return cls(start, (step,), (size,), None)

    # ---- the two subscript forms --------------------------------------------------------
    def __tpb_index__(self) -> Tuple[int, int, int]:
        """``(start, size, step)`` of an unplaced range."""
        if self.rank is not None:
            raise UsageError("a placed index expression is not a range")
        return (self.constant, self.sizes[0], self.coeffs[0])

    def __getattr__(self, name: str) -> Any:
        if name == "__tpb_affine__" and self.rank is not None:
            return lambda: (self.constant, list(self.coeffs), list(self.sizes))
        raise AttributeError(name)

    # ---- placement ----------------------------------------------------------------------
    def __getitem__(self, key: Any) -> "IndexExpr":
        if self.rank is not None:
            raise UsageError("this index expression is placed already")
        key = key if isinstance(key, tuple) else (key,)
        slots = [i for i, k in enumerate(key) if k is not None]
        if len(slots) != 1 or key[slots[0]] != slice(None):
            raise UsageError("place an arange with exactly one ':' and None elsewhere "
                             "(e.g. nl.arange(128)[:, None])")
        rank = len(key)
        coeffs = [0] * rank
        sizes = [1] * rank
        coeffs[slots[0]] = self.coeffs[0]
        sizes[slots[0]] = self.sizes[0]
        return IndexExpr(self.constant, coeffs, sizes, rank)

    # ---- arithmetic ---------------------------------------------------------------------
    def _scaled(self, k: int) -> "IndexExpr":
        return IndexExpr(self.constant * k, [c * k for c in self.coeffs], self.sizes, self.rank)

    def __add__(self, other: Any) -> "IndexExpr":
        if not isinstance(other, IndexExpr):
            k = _int(other, "index expression + value")
            return IndexExpr(self.constant + k, self.coeffs, self.sizes, self.rank)
        if self.rank is None or other.rank is None:
            raise NotSupported(
                "not supported: the sum of an unplaced nl.arange / nl.ds with another index "
                "expression: place both (nl.arange(n)[:, None], nl.arange(n)[None, :]) or "
                "use nl.mgrid")
        if self.rank != other.rank:
            raise UsageError(f"index expressions over {self.rank} and {other.rank} axes "
                             "cannot be added")
        sizes = []
        for a, (m, n) in enumerate(zip(self.sizes, other.sizes)):
            if m != 1 and n != 1 and m != n:
                raise UsageError(f"index expressions of sizes {m} and {n} on axis {a} do not "
                                 "broadcast")
            sizes.append(m if m != 1 else n)
        coeffs = [a + b for a, b in zip(self.coeffs, other.coeffs)]
        return IndexExpr(self.constant + other.constant, coeffs, sizes, self.rank)

    __radd__ = __add__

    def __neg__(self) -> "IndexExpr":
        return self._scaled(-1)

    def __pos__(self) -> "IndexExpr":
        return self

    def __sub__(self, other: Any) -> "IndexExpr":
        if isinstance(other, IndexExpr):
            return self + (-other)
        return self + (-_int(other, "index expression - value"))

    def __rsub__(self, other: Any) -> "IndexExpr":
        return (-self) + other

    def __mul__(self, k: Any) -> "IndexExpr":
        if isinstance(k, IndexExpr):
            raise NotSupported("not supported: the product of two index expressions (not "
                               "affine)")
        return self._scaled(_int(k, "index expression * value"))

    __rmul__ = __mul__

    def _not_affine(self, *args: Any) -> Any:
        raise NotSupported("not supported: division or modulo of an index expression (an "
                           "access pattern is affine in its indices)")

    __floordiv__ = __rfloordiv__ = __truediv__ = __rtruediv__ = _not_affine
    __mod__ = __rmod__ = _not_affine

    # ---- predicates ---------------------------------------------------------------------
    def _cmp(self, op: str, k: Any) -> "Predicate":
        if isinstance(k, IndexExpr):
            return (self - k)._cmp(op, 0)
        return Predicate([(self, op, _int(k, f"index expression {op} value"))])

    def __lt__(self, k: Any) -> "Predicate":  # type: ignore[override]
        return self._cmp("<", k)

    def __le__(self, k: Any) -> "Predicate":  # type: ignore[override]
        return self._cmp("<=", k)

    def __gt__(self, k: Any) -> "Predicate":  # type: ignore[override]
        return self._cmp(">", k)

    def __ge__(self, k: Any) -> "Predicate":  # type: ignore[override]
        return self._cmp(">=", k)

    def __repr__(self) -> str:
        if self.rank is None:
            return (f"IndexExpr(start={self.constant}, size={self.sizes[0]}, "
                    f"step={self.coeffs[0]})")
        terms = " + ".join(f"{c}*i{a}[{n}]" for a, (c, n) in
                           enumerate(zip(self.coeffs, self.sizes)) if c)
        return f"IndexExpr({self.constant}{' + ' + terms if terms else ''})"


def arange_axis(start: int, size: int, step: int, axis: int, sizes: Sequence[int]) -> IndexExpr:
    """Axis ``axis`` of the grid ``sizes`` (one ``nl.mgrid`` output)."""
    coeffs = [0] * len(sizes)
    coeffs[axis] = step
    return IndexExpr(start, coeffs, sizes, len(sizes))


class Predicate:
    """A conjunction of ``index_expr <op> constant`` terms."""

    def __init__(self, terms: List[Tuple[IndexExpr, str, int]]) -> None:
        self.terms = terms

    def __and__(self, other: Any) -> "Predicate":
        if not isinstance(other, Predicate):
            raise NotSupported(f"not supported: '&' of a mask and {other!r}")
        return Predicate(self.terms + other.terms)

    def __or__(self, other: Any) -> "Predicate":
        raise NotSupported("not supported: '|' in a mask (not a box; use nisa.affine_select)")

    def __bool__(self) -> bool:
        raise UsageError("a mask is not a Python bool (pass it as mask=; join terms with &)")

    def box(self, shape: Sequence[int]) -> Dict[int, Tuple[int, int]]:
        """Per grid axis, the kept index range ``[lo, hi)`` within ``shape``."""
        out: Dict[int, Tuple[int, int]] = {}
        for e, op, k in self.terms:
            if e.rank is None:
                raise NotSupported("not supported: a mask over an unplaced nl.arange (place it: "
                                   "nl.arange(n)[:, None])")
            axes = [a for a, c in enumerate(e.coeffs) if c and e.sizes[a] > 1]
            # value = constant + c·i on one axis; keep i with value op k.
            if not axes:
                holds = {"<": e.constant < k, "<=": e.constant <= k,
                         ">": e.constant > k, ">=": e.constant >= k}[op]
                if not holds:
                    raise NotSupported(f"not supported: the mask term {e!r} {op} {k} selects "
                                       "nothing (the instruction would be dropped)")
                continue
            if len(axes) > 1:
                raise NotSupported(
                    f"not supported: the mask term {e!r} {op} {k} bounds several axes at once "
                    "(not a box; nisa.affine_select applies such masks)")
            a = axes[0]
            if a >= len(shape):
                raise UsageError(f"the mask bounds axis {a} of a {len(shape)}-dim view")
            c = e.coeffs[a]
            lo, hi = out.get(a, (0, int(shape[a])))
            # Integer bounds on i: c·i op (k - constant), as a closed range [lo_i, hi_i].
            rhs = k - e.constant
            if op == "<":
                rhs, op = rhs - 1, "<="
            elif op == ">":
                rhs, op = rhs + 1, ">="
            if (op == "<=") == (c > 0):   # i <= floor(rhs / c)
                hi = min(hi, rhs // c + 1)
            else:                         # i >= ceil(rhs / c)
                lo = max(lo, -(-rhs // c))
            out[a] = (lo, hi)
        return out


def _shrink(t: Any, box: Dict[int, Tuple[int, int]], ref: Tuple[int, ...]) -> Any:
    if t is None or not hasattr(t, "shape") or not hasattr(t, "ap"):
        return t
    shape = tuple(t.shape)
    if shape == ref:
        axes = range(len(shape))
    elif shape and ref and shape[0] == ref[0]:
        axes = range(1)   # a (P, 1) operand, or a result with other free dims
    else:
        return t
    key = []
    for axis, n in enumerate(shape):
        lo, hi = box.get(axis, (0, n)) if axis in axes else (0, n)
        if hi <= lo:
            raise NotSupported("not supported: a mask that selects no element (the "
                               "instruction would be dropped)")
        key.append(slice(lo, hi))
    return t[tuple(key)] if any(k != slice(0, n) for k, n in zip(key, shape)) else t


def mask_box(mask: Any, shape: Sequence[int]) -> Dict[int, Tuple[int, int]]:
    """The box ``mask`` keeps of a view of ``shape`` (axis → ``[lo, hi)``)."""
    if not isinstance(mask, Predicate):
        raise NotSupported(f"not supported: mask={mask!r} (an affine predicate over nl.arange "
                           "indices)")
    return mask.box(shape)


class MaskedOut(Exception):
    """``mask=False``: the call runs nothing. Raised by :func:`apply_mask` and caught by the
    call's public wrapper, which returns ``dst`` (a value-returning call's new tile, every
    element don't-care) instead of running anything."""

    def __init__(self, dst: Any) -> None:
        super().__init__("mask=False")
        self.dst = dst


def apply_mask(mask: Any, *tiles: Any, marks_dst: bool = True) -> Tuple[Any, ...]:
    """The tiles shrunk to the mask's box, in the coordinates of the first tile's shape
    (tiles of that shape shrink on every axis, a tile with its partitions on the partition
    axis only). With ``marks_dst`` the first tile is the call's destination: if it is on
    chip, the elements the mask leaves out are declared don't-care (module docs)."""
    if mask is None:
        return tiles
    if isinstance(mask, (bool, np.bool_)):
        # A Python bool (legacy kernels compute one from loop indices, `mask=j + 1 < n`):
        # True masks nothing; False masks everything, so the call runs nothing.
        if mask:
            return tiles
        first = tiles[0]
        if marks_dst and getattr(first, "buffer", "hbm") != "hbm":
            first._mark_masked_out()
        raise MaskedOut(first)
    ref = tuple(tiles[0].shape)
    box = mask_box(mask, ref)
    out = tuple(_shrink(t, box, ref) for t in tiles)
    first = tiles[0]
    if marks_dst and out[0] is not first and getattr(first, "buffer", "hbm") != "hbm":
        first._mark_masked_out()
    return out
