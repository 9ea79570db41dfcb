"""``nki.compiler``: the compiler directives public kernels carry.

None of them changes what a kernel computes, so tpb accepts each and runs the kernel as
written (docs/python.md, "Compiler directives"):

- decorators ``skip_middle_end_transformations``, ``enable_stack_allocator(...)``,
  ``force_auto_alloc`` return the kernel unchanged;
- loop directives ``no_reorder()`` and ``multi_buffer(n)`` (``directives=`` of the ``nl``
  loops, or ``with nki.compiler.no_reorder():``) are accepted and ignored — tpb runs calls
  in program order;
- placement allocators ``sbuf.alloc(fn)``, ``sbuf.mod_alloc(base_addr=...)``,
  ``sbuf.auto_alloc()`` (and ``psum.*``) name the buffer; tpb places the tile with its own
  allocator (a capacity error names the tile). ``mod_alloc`` with tile counts
  (``num_free_tiles=`` / ``num_bank_tiles=``) keeps the compiler's modulo placement of
  block dims: block ``i`` is physical block ``i % count``, so blocks share storage as on
  the device. Assumption ``explicit-placement``: a kernel
  whose result depended on two tiles sharing bytes by placement would race on hardware, so
  distinct storage gives the same results.

Example::

    @nki.compiler.skip_middle_end_transformations
    @nki.jit
    def kernel(a): ...

    t = nl.ndarray((2, nl.par_dim(128), 512), nl.float32,
                   buffer=nki.compiler.sbuf.mod_alloc(base_addr=0, num_free_tiles=(2,)))
"""

from __future__ import annotations

from typing import Any, Callable, Optional

from ._surface import ModAlloc

__all__ = ["ModAlloc", "enable_stack_allocator", "force_auto_alloc", "multi_buffer",
           "no_reorder", "psum", "sbuf", "skip_middle_end_transformations"]


def skip_middle_end_transformations(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Decorator: returns ``fn`` unchanged (a compiler pass switch)."""
    return fn


def _decorator(fn: Optional[Callable[..., Any]], **options: Any) -> Any:
    if fn is not None and callable(fn):
        return fn
    return lambda f: f


def enable_stack_allocator(fn: Optional[Callable[..., Any]] = None, **options: Any) -> Any:
    """Decorator (with or without options such as ``log_level=``): returns the kernel
    unchanged; tpb's allocator places every tile."""
    return _decorator(fn, **options)


def force_auto_alloc(fn: Optional[Callable[..., Any]] = None, **options: Any) -> Any:
    """Decorator: returns the kernel unchanged; tpb's allocator places every tile."""
    return _decorator(fn, **options)


class _Directive:
    """A loop directive (``directives=`` of ``nl.affine_range`` / ``sequential_range``), also
    usable as a ``with`` block. Ignored: tpb runs calls in program order."""

    def __init__(self, name: str, *args: Any) -> None:
        self.name = name
        self.args = args

    def __enter__(self) -> "_Directive":
        return self

    def __exit__(self, *exc: Any) -> None:
        return None

    def __repr__(self) -> str:
        return f"nki.compiler.{self.name}{self.args!r}"


def no_reorder() -> _Directive:
    """``no_reorder()``: keep the calls of a loop or block in order (tpb always does)."""
    return _Directive("no_reorder")


def multi_buffer(n: int) -> _Directive:
    """``multi_buffer(n)``: the loop's tiles rotate over ``n`` buffers (a placement choice)."""
    return _Directive("multi_buffer", n)


class _Allocators:
    """``nki.compiler.sbuf`` / ``psum``: placement allocators. Each returns the buffer
    (``nl.sbuf`` / ``nl.psum``); tpb places the tile itself (assumption
    ``explicit-placement``)."""

    def __init__(self, buffer: str) -> None:
        self._buffer = buffer

    def _region(self) -> Any:
        from . import language

        return getattr(language, self._buffer)

    def alloc(self, fn: Any = None, *args: Any, **kwargs: Any) -> Any:
        return self._region()

    def mod_alloc(self, *args: Any, **kwargs: Any) -> Any:
        """``mod_alloc(base_addr=/base_bank=, num_free_tiles=/num_bank_tiles=, ...)``: the
        tensor's block dims wrap modulo the tile counts (block ``i`` of a dim with count
        ``m`` is physical block ``i % m``, as the compiler places them); without counts, the
        buffer."""
        counts = kwargs.get("num_bank_tiles", kwargs.get("num_free_tiles"))
        if counts is None:
            return self._region()
        return ModAlloc(self._buffer, tuple(int(c) for c in counts))

    def auto_alloc(self, *args: Any, **kwargs: Any) -> Any:
        return self._region()

    def __repr__(self) -> str:
        return f"nki.compiler.{self._buffer}"


sbuf = _Allocators("sbuf")
psum = _Allocators("psum")
