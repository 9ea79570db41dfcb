"""The exceptions tpb raises: one hierarchy under :class:`tpb.Error`.

Each class is also the builtin exception a Python user would expect (``AsmError`` is a
``ValueError``, ``Fault`` a ``RuntimeError``, …), so generic handlers keep working.
"""

from __future__ import annotations

from typing import Any, List, Optional, Tuple


class Error(Exception):
    """Base class of every tpb error."""

    def __init__(self, message: str, **attrs: Any) -> None:
        super().__init__(message)
        for name, value in attrs.items():
            setattr(self, name, value)


class UsageError(Error, ValueError):
    """A bad argument: an unknown generation, a wrong length, a malformed pattern."""


class KindError(UsageError):
    """An argument of the wrong kind for its parameter (a number where a tile goes, a tile
    where an operator goes); nothing ran. ``call`` names the NKI call and ``parameter`` the
    parameter. A call that gets one tries its legacy forms before reporting it."""

    call: str
    parameter: str


class DtypeError(Error, TypeError):
    """An array or dtype argument that is not a TPB datapath dtype."""


class RegionError(Error, ValueError):
    """A region string (``sbuf[p0..128]+0x400:bf16:128x512``) that is malformed or does not fit."""


class AsmError(Error, ValueError):
    """Assembly text with errors; ``errors`` lists every one as ``(line, column, message)``."""

    errors: List[Tuple[int, int, str]]

    def __init__(self, message: str, errors: Optional[List[Tuple[int, int, str]]] = None) -> None:
        super().__init__(message, errors=list(errors or []))


class InvalidInstruction(Error, ValueError):
    """An instruction a ``tpb.nki`` call built fails validation on the core's generation.

    ``findings`` lists every failing rule; ``bundle`` holds the 64 bytes that were built.
    Nothing ran.
    """

    findings: list
    bundle: bytes


class Fault(Error, RuntimeError):
    """The simulator refused an instruction; that instruction changed no state.

    ``index`` is its position in the program, ``mnemonic`` its name, ``kind`` a short tag
    (``invalid``, ``unsupported``, ``out-of-range``, ``wait-unsatisfied``, ``strict``, …),
    ``cause`` the reason, and ``findings`` the failing rules when ``kind == "invalid"``.
    """

    index: int
    mnemonic: str
    kind: str
    cause: str
    findings: list


class NotSupported(Error, NotImplementedError):
    """A form whose semantics are not public, or that the ISA cannot encode."""


class _PickledFinding:
    """A :class:`tpb.Finding` after a pickle round trip: the same attributes and text."""

    __slots__ = ("rule", "clause", "field", "byte_range", "value", "allowed", "source",
                 "confidence", "lint", "text")
    rule: str
    clause: str
    field: str
    byte_range: Tuple[int, int]
    value: str
    allowed: str
    source: str
    confidence: str
    lint: bool
    text: str

    def __init__(self, **attrs: Any) -> None:
        for name, value in attrs.items():
            setattr(self, name, value)

    def __str__(self) -> str:
        return str(self.text)

    def __repr__(self) -> str:
        return f"<tpb.Finding {self.rule}: {self.text}>"

    def __reduce__(self) -> Tuple[Any, Tuple[dict]]:
        return (_finding, ({name: getattr(self, name) for name in self.__slots__},))


def _finding(attrs: dict) -> _PickledFinding:
    """Rebuilds a pickled finding (see ``tpb.Finding.__reduce__``)."""
    return _PickledFinding(**attrs)


class OutOfBoundsError(UsageError, IndexError):
    """A subscript outside its tile (``t[0:200]`` on 128 partitions): the out-of-bounds
    sanitizer of kernel runs."""


class CapacityError(UsageError, MemoryError):
    """A tile that does not fit in SBUF or PSUM; the message names the tile, its size and
    what is left."""


class RaceError(Error, RuntimeError):
    """Two accesses from different engines that overlap, one writing, unordered by
    happens-before.

    ``first`` and ``second`` describe the two instructions (``index``, ``mnemonic``,
    ``engine``, ``operand``, ``origin`` — the kernel source ``file:line`` — and ``name``).
    """

    first: dict
    second: dict


class UnwrittenOutputError(Error, RuntimeError):
    """A kernel output holds elements the kernel never wrote (they would read back as 0.0).

    ``output`` is the output's position in the kernel's returned tuple (``None`` for a single
    output) and ``index`` the first unwritten element's index (C order).
    ``simulate_kernel(..., uninitialized_reads="warn")`` warns instead.

    Example::

        def k(a):
            out = nl.ndarray((4, 8), nl.float32, buffer=nl.shared_hbm)
            nl.store(out[0:2, :], value=nl.load(a[0:2, :]))   # rows 2, 3 never written
            return out

        nki.simulate_kernel(k, a)   # raises UnwrittenOutputError, index (2, 0)
    """

    output: Optional[int]
    index: Tuple[int, ...]


class DeadlockError(Error, RuntimeError):
    """Every unfinished engine queue waits and no update can come; ``blocked`` lists each
    stuck instruction with its wait and kernel source line."""

    blocked: list
