"""The NKI call registry: every ``nki.isa`` / ``nki.language`` name tpb knows, each defined
once.

A call is one Python definition: its name, its current (NKI 0.6.0) signature with precise
parameter types, its docstring with an example, and its status. The decorators register it:

- :func:`lowered`: the call's Rust lowering (``crates/tpb-nki``, a row of its module's
  ``LOWERINGS``) emits the instructions; the definition's body is its docstring. Each
  argument is converted by the kind its type declares (:mod:`tpb.nki._types`), by the same
  converters for every call, in the native module.
- :func:`composed`: a call written in Python over other calls (the ``nl`` functions).
- :func:`legacy`: a legacy (``neuronxcc.nki``) form of a call — its parameter names, order
  and defaults — which returns a new tile instead of writing ``dst``.
- :func:`refused` and :func:`constant`: names that raise :class:`tpb.NotSupported` when
  called, and names that are values (``nl.sbuf``).

From the registry come the public callables (a call that does not bind, or binds an
argument of the wrong kind, tries the declared legacy forms and then raises
:class:`tpb.UsageError` naming the parameter), :func:`tpb.nki.api_support`, and
``docs/nki-support.md`` (:func:`support_markdown`, checked by regenerating it).
"""

from __future__ import annotations

import difflib
import enum
import functools
import inspect
import linecache
import numbers
import os
import typing
from typing import (
    Callable,
    Dict,
    Iterator,
    List,
    NamedTuple,
    Optional,
    Sequence,
    Tuple,
    TypeVar,
    Union,
)

import numpy as np

from .. import _tpb
from .._errors import KindError, NotSupported, UsageError
from . import _context
from ._mask import IndexExpr, MaskedOut, Predicate, apply_mask
from ._types import Kind, Tile

F = TypeVar("F", bound=Callable[..., object])


class Status(NamedTuple):
    """How far tpb runs a name: ``tag`` is ``supported``, ``partial``, ``not yet`` or
    ``not supported``; ``detail`` says which forms run, or what is missing."""

    tag: str
    detail: str


SUPPORTED = Status("supported", "")


def partial(detail: str) -> Status:
    """Runs in part; ``detail`` says which forms."""
    return Status("partial", detail)


def not_yet(detail: str) -> Status:
    """Waits for an instruction or lowering tpb does not have yet (``detail`` names it)."""
    return Status("not yet", detail)


def not_supported(detail: str) -> Status:
    """Refused: the semantics are not public, or tpb does not model the feature."""
    return Status("not supported", detail)


MODULES = {"language": "nki.language", "isa": "nki.isa"}


# --- parameter kinds ----------------------------------------------------------------------
class Param(NamedTuple):
    """A parameter of a definition: its name and, when its type declares one, the kind its
    argument is converted as (``optional``: ``None`` is accepted)."""

    name: str
    kind: Optional[str]
    optional: bool


_PLAIN_KINDS: Dict[object, str] = {Tile: "tile", bool: "bool", int: "int", float: "float",
                                   Predicate: "mask", IndexExpr: "expr"}


def _kind_of(hint: object) -> Tuple[Optional[str], bool]:
    """The kind a parameter type declares, and whether it admits ``None``."""
    optional = False
    if typing.get_origin(hint) is Union:
        members = [a for a in typing.get_args(hint) if a is not type(None)]
        optional = len(members) < len(typing.get_args(hint))
        if len(members) != 1:
            return (None, optional)
        hint = members[0]
    if typing.get_origin(hint) is typing.Annotated:
        kinds = [m for m in getattr(hint, "__metadata__", ()) if isinstance(m, Kind)]
        base = typing.get_args(hint)[0]
        if typing.get_origin(base) is Union and type(None) in typing.get_args(base):
            optional = True
        return (str(kinds[0]) if kinds else None, optional)
    return (_PLAIN_KINDS.get(hint), optional)


def _params(fn: Callable[..., object]) -> List[Param]:
    hints = typing.get_type_hints(fn, include_extras=True)
    out = []
    for p in inspect.signature(fn).parameters.values():
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            out.append(Param(p.name, None, True))
            continue
        kind, optional = _kind_of(hints.get(p.name))
        out.append(Param(p.name, kind, optional or p.default is None))
    return out


def _is_number(v: object) -> bool:
    return isinstance(v, numbers.Real) and not isinstance(v, (bool, np.bool_))


def _is_int(v: object) -> bool:
    return isinstance(v, numbers.Integral) and not isinstance(v, (bool, np.bool_))


def _is_operator(v: object) -> bool:
    return isinstance(v, str) or (callable(v) and not isinstance(v, Tile))


# What an argument of each kind may be, for dispatching between forms (the native
# converters are the ones that convert).
_ACCEPTS: Dict[str, Callable[[object], bool]] = {
    "tile": lambda v: isinstance(v, Tile),
    "operand": lambda v: isinstance(v, Tile) or _is_number(v),
    "alu": _is_operator,
    "cmp": _is_operator,
    "act": _is_operator,
    "bool": lambda v: isinstance(v, (bool, np.bool_)),
    "int": _is_int,
    "float": _is_number,
    "pattern": lambda v: isinstance(v, (list, tuple)),
    "ints": lambda v: isinstance(v, (list, tuple, range)),
    "axes": lambda v: _is_int(v) or isinstance(v, (list, tuple)),
    "reduce_cmd": lambda v: isinstance(v, (str, enum.Enum)),
    "engine": lambda v: isinstance(v, (str, enum.Enum)) or _is_int(v),
    "choice": lambda v: isinstance(v, (str, enum.Enum)) or _is_int(v),
    "name": lambda v: isinstance(v, str),
    "mask": lambda v: isinstance(v, (Predicate, bool, np.bool_)),
    "expr": lambda v: hasattr(v, "__tpb_index__"),
    "tile_or_number": lambda v: isinstance(v, Tile) or _is_number(v),
}

_WHAT = {
    "tile": "a tile",
    "operand": "a number or a (P, 1) tile",
    "alu": "an ALU operator (nl.add, numpy.multiply or a name)",
    "cmp": "a comparison (nl.greater_equal, numpy.equal or a name)",
    "act": "an activation function (nl.exp, numpy.tanh or a name)",
    "bool": "True or False",
    "int": "an int",
    "float": "a number",
    "pattern": "[step, num] pairs",
    "ints": "a list of ints",
    "axes": "an int or a list of ints",
    "reduce_cmd": "a reduce_cmd member or its name",
    "engine": "an engine member or its name",
    "choice": "an enumeration member or its name",
    "name": "a str",
    "mask": "an affine predicate over nl.arange indices (or True / False)",
    "expr": "an nl.arange index expression",
    "tile_or_number": "a tile or a number",
}


def _type_name(v: object) -> str:
    t = type(v)
    return t.__name__ if t.__module__ == "builtins" else f"{t.__module__}.{t.__qualname__}"


def _accepts(p: Param, v: object) -> bool:
    if p.kind is None:
        return True
    if v is None:
        return p.optional
    return _ACCEPTS[p.kind](v)


def kind_error(qualname: str, p: Param, v: object) -> KindError:
    """The error for an argument of the wrong kind (nothing ran)."""
    what = "None" if v is None else _type_name(v)
    return KindError(
        f"{qualname}: {p.name}: expected {_WHAT[p.kind or 'tile']}, not {what}",
        call=qualname, parameter=p.name,
    )


# --- the registry ---------------------------------------------------------------------------
class Form(NamedTuple):
    """A legacy form of a call."""

    signature: inspect.Signature
    params: List[Param]
    run: Callable[[inspect.BoundArguments], object]


class Call:
    """One registered NKI name."""

    def __init__(self, module: str, name: str, status: Status,
                 definition: Optional[Callable[..., object]]) -> None:
        if module not in MODULES:
            raise ValueError(f"module {module!r}: language or isa")
        self.module = module
        self.name = name
        self.qualname = f"{MODULES[module]}.{name}"
        self.status = status
        self.definition = definition
        self.signature = inspect.signature(definition) if definition is not None else None
        self.params = _params(definition) if definition is not None else []
        self.legacy: List[Form] = []
        self.lowering: Optional[_tpb.Lowering] = None
        self.impl: Callable[..., object] = _unset
        self.public: Optional[Callable[..., object]] = None

    def __repr__(self) -> str:
        return f"<nki call {self.qualname} ({self.status.tag})>"

    # The slow path: a call that did not bind, or bound an argument of the wrong kind.
    def retry(self, args: Tuple[object, ...], kwargs: Dict[str, object],
              first: BaseException) -> object:
        if self.signature is None:
            raise first
        if "mask" in kwargs and "mask" not in self.signature.parameters:
            # The legacy mask= on the current form: shrink the tiles to its box.
            rest = dict(kwargs)
            mask = rest.pop("mask")
            bound = _bind(self.signature, self.params, args, rest)
            if bound is not None:
                masked = _masked(self.params, bound.arguments)
                shrunk = apply_mask(mask, *(bound.arguments[n] for n in masked))
                for n, t in zip(masked, shrunk):
                    bound.arguments[n] = t
                return self.impl(*bound.args, **bound.kwargs)
        for form in self.legacy:
            bound = _bind(form.signature, form.params, args, kwargs)
            if bound is not None:
                return form.run(bound)
        raise self.usage_error(args, kwargs, first)

    def usage_error(self, args: Tuple[object, ...], kwargs: Dict[str, object],
                    first: BaseException) -> UsageError:
        """The clearest single reason the call does not bind."""
        sig = self.signature
        assert sig is not None
        head = f"{self.qualname}{_plain(sig)}"
        names = list(sig.parameters)
        unknown = [k for k in kwargs if k not in sig.parameters]
        if unknown and not any(k in f.signature.parameters for f in self.legacy for k in unknown):
            k = unknown[0]
            known = set(names) | {n for f in self.legacy for n in f.signature.parameters}
            close = difflib.get_close_matches(k, sorted(known), n=1)
            hint = f" (did you mean {close[0]}?)" if close else ""
            return UsageError(f"{self.qualname}: unexpected keyword argument {k!r}{hint}; "
                              f"the call is {head}", call=self.qualname, parameter=k)
        if names and names[0] == "dst" and "dst" not in kwargs:
            # A 0.6.0 call that left dst out: do the other arguments fit after it?
            shifted = _bind(sig, self.params, (_NO_TILE,) + tuple(args), kwargs)
            if shifted is not None or not args:
                forms = "".join(f"; legacy form {self.name}{_plain(f.signature)} returns "
                                "a new tile" for f in self.legacy)
                return UsageError(
                    f"{self.qualname}: dst comes first: NKI 0.6.0 calls write their result "
                    f"into the tile given as the first argument, {head}; this call gives no "
                    f"dst{forms}", call=self.qualname, parameter="dst")
        if isinstance(first, KindError):
            return UsageError(f"{first} (the call is {head})", call=self.qualname,
                              parameter=getattr(first, "parameter", None))
        try:
            sig.bind(*args, **kwargs)
        except TypeError as e:
            return UsageError(f"{self.qualname}: {e}; the call is {head}", call=self.qualname)
        return UsageError(f"{self.qualname}: {first}; the call is {head}", call=self.qualname)


def _masked(params: List[Param], arguments: Dict[str, object]) -> List[str]:
    """The arguments a legacy ``mask=`` shrinks: the call's tiles (``dst`` first) and its
    ``(P, 1)`` tile operands (on the partition axis only)."""
    return [p.name for p in params
            if p.name in arguments and isinstance(arguments[p.name], Tile)
            and (p.kind == "operand" or (p.kind == "tile" and not p.optional))]


class _NoTile:
    """Stands for a missing ``dst`` while checking whether the rest of a call fits."""


_NO_TILE = _NoTile()


def _bind(sig: inspect.Signature, params: List[Param], args: Tuple[object, ...],
          kwargs: Dict[str, object]) -> Optional[inspect.BoundArguments]:
    """``args``/``kwargs`` bound to ``sig`` with every argument of its declared kind, or
    ``None``."""
    try:
        bound = sig.bind(*args, **kwargs)
    except TypeError:
        return None
    for p in params:
        if p.name in bound.arguments:
            v = bound.arguments[p.name]
            if v is _NO_TILE:
                continue
            if not _accepts(p, v):
                return None
    return bound


def _unset(*args: object, **kwargs: object) -> object:
    raise UsageError("an NKI call used before its definition was registered")


REGISTRY: Dict[Tuple[str, str], Call] = {}


def _register(call: Call) -> None:
    key = (call.module, call.name)
    if key in REGISTRY:
        raise ValueError(f"{call.qualname} is defined twice")
    REGISTRY[key] = call


def _raised_inside(e: BaseException) -> bool:
    """Whether ``e`` was raised inside the called function rather than by binding its
    arguments (no traceback local: see :func:`_public`)."""
    return e.__traceback__ is None or e.__traceback__.tb_next is not None


def _public(call: Call) -> Callable[..., object]:
    """The callable users call: the fast path is the definition's own signature binding;
    a binding error or an argument of the wrong kind goes to :meth:`Call.retry`."""
    impl = call.impl
    qualname = call.qualname

    def public(*args: object, **kwargs: object) -> object:
        try:
            return impl(*args, **kwargs)
        except TypeError as e:
            if _raised_inside(e):
                raise  # raised inside the call, not by binding its arguments
            first: BaseException = e
        except KindError as e:
            if getattr(e, "call", None) != qualname:
                raise  # an inner call's argument
            first = e
        except MaskedOut as m:
            return m.dst  # mask=False: nothing ran (module docs of _mask)
        # Retried without the traceback: it holds this frame, whose locals hold it and the
        # argument tiles, a reference cycle that kept their space allocated until the
        # garbage collector ran (a loop of legacy calls ran out of SBUF).
        first.__traceback__ = None
        try:
            return call.retry(args, kwargs, first)
        except MaskedOut as m:
            return m.dst

    assert call.definition is not None
    functools.update_wrapper(public, call.definition)
    public.__signature__ = call.signature  # type: ignore[attr-defined]
    public.__nki_call__ = call  # type: ignore[attr-defined]
    return public


_GENERATED = os.path.join(os.path.dirname(os.path.abspath(__file__)), "<generated {}>")


def _generate(call: Call, body: List[str], namespace: Dict[str, object]) -> Callable[..., object]:
    """A function with the definition's exact parameters (defaults included) and ``body``,
    compiled as a file of the package (so that kernel source lines skip it)."""
    assert call.signature is not None
    parts, star = [], False
    for p in call.signature.parameters.values():
        if p.kind is p.VAR_POSITIONAL:
            parts.append(f"*{p.name}")
            star = True
            continue
        if p.kind is p.VAR_KEYWORD:
            parts.append(f"**{p.name}")
            continue
        if p.kind is p.KEYWORD_ONLY and not star:
            parts.append("*")
            star = True
        if p.default is p.empty:
            parts.append(p.name)
        else:
            namespace[f"_default_{p.name}"] = p.default
            parts.append(f"{p.name}=_default_{p.name}")
    src = f"def {call.name}({', '.join(parts)}):\n" + "".join(f"    {line}\n" for line in body)
    filename = _GENERATED.format(call.qualname)
    # Tracebacks show the generated lines.
    linecache.cache[filename] = (len(src), None, src.splitlines(keepends=True), filename)
    code = compile(src, filename, "exec")
    exec(code, namespace)  # noqa: S102 - our own generated source, from a signature
    fn = namespace[call.name]
    assert callable(fn)
    return fn


def _flush_for(tile: object) -> None:
    core = getattr(tile, "core", None)
    if core is not None:
        _context.flush(core)


def lowered(module: str = "isa", status: Status = SUPPORTED) -> Callable[[F], F]:
    """Registers a call whose Rust lowering of the same name emits its instructions. The
    definition's parameters (in order) are the lowering's arguments; its body is only its
    docstring."""

    def register(fn: F) -> F:
        call = Call(module, fn.__name__, status, fn)
        untyped = [p.name for p in call.params if p.kind is None]
        if untyped:
            raise TypeError(f"{call.qualname}: parameters {untyped} declare no kind (annotate "
                            "them with a type of tpb.nki._types)")
        kinds = [(p.name, f"{p.kind}?" if p.optional else str(p.kind)) for p in call.params]
        call.lowering = _tpb.Lowering(call.name, call.qualname, kinds)
        first_tile = next((p.name for p in call.params if p.kind == "tile"), None)
        names = ", ".join(p.name for p in call.params)
        body = []
        if first_tile is not None:
            body.append(f"if _pending: _flush_for({first_tile})")
        body.append(f"return _lower(_origin(), {names})")
        call.impl = _generate(call, body, {
            "_pending": _context.pending_matmuls(), "_flush_for": _flush_for,
            "_lower": call.lowering, "_origin": _context.origin,
        })
        _register(call)
        call.public = _public(call)
        return typing.cast(F, call.public)

    return register


def composed(module: str, status: Status = SUPPORTED) -> Callable[[F], F]:
    """Registers a call written in Python over other calls; the arguments of its parameters
    with a declared kind are checked before its body runs."""

    def register(fn: F) -> F:
        call = Call(module, fn.__name__, status, fn)
        checked = [p for p in call.params if p.kind is not None]
        if checked:
            body = []
            ns: Dict[str, object] = {"_fn": fn, "_call": call, "_accepts": _accepts,
                                     "_kind_error": kind_error}
            for i, p in enumerate(checked):
                ns[f"_p{i}"] = p
                body.append(f"if not _accepts(_p{i}, {p.name}): "
                            f"raise _kind_error(_call.qualname, _p{i}, {p.name})")
            assert call.signature is not None
            args = []
            for q in call.signature.parameters.values():
                if q.kind is q.VAR_POSITIONAL:
                    args.append(f"*{q.name}")
                elif q.kind is q.VAR_KEYWORD:
                    args.append(f"**{q.name}")
                elif q.kind is q.KEYWORD_ONLY:
                    args.append(f"{q.name}={q.name}")
                else:
                    args.append(q.name)
            body.append(f"return _fn({', '.join(args)})")
            call.impl = _generate(call, body, ns)
        else:
            call.impl = fn
        _register(call)
        call.public = _public(call)
        return typing.cast(F, call.public)

    return register


def legacy(current: Callable[..., object], like: Optional[str] = None,
           result: Optional[Callable[[Dict[str, object]], Tuple[Sequence[int], object]]] = None
           ) -> Callable[[F], F]:
    """Declares a legacy (``neuronxcc.nki``) form of ``current``: the definition's
    parameters are the legacy names, order and defaults.

    With ``like="data"`` the form returns a new SBUF tile shaped like that argument, in
    ``dtype=`` or its dtype (``result`` computes another shape and dtype from the
    arguments), which the current form writes as ``dst``; ``mask=`` shrinks the tiles; the
    other arguments pass by name. Without, the definition's body runs."""
    call = getattr(current, "__nki_call__", None)
    if not isinstance(call, Call):
        raise TypeError(f"{current!r} is not a registered NKI call")

    def register(fn: F) -> F:
        params = _params(fn)
        sig = inspect.signature(fn)
        if like is None and result is None:
            def run(bound: inspect.BoundArguments) -> object:
                return fn(*bound.args, **bound.kwargs)
        else:
            current = call.signature.parameters if call.signature is not None else {}
            extra = set(sig.parameters) - set(current) - {"dtype", "mask"}
            if extra:
                raise TypeError(f"{call.qualname} legacy form: {sorted(extra)} are not current "
                                "parameters: give the form a body")

            def run(bound: inspect.BoundArguments) -> object:
                return _returning(call, bound, like, result)

        call.legacy.append(Form(sig, params, run))
        return fn

    return register


def _returning(call: Call, bound: inspect.BoundArguments, like: Optional[str],
               result: Optional[Callable[[Dict[str, object]], Tuple[Sequence[int], object]]]
               ) -> object:
    bound.apply_defaults()
    a = dict(bound.arguments)
    dtype = a.pop("dtype", None)
    mask = a.pop("mask", None)
    if result is not None:
        shape, out_dtype = result(a)
    else:
        src = a[like]  # type: ignore[index]
        assert isinstance(src, Tile)
        shape, out_dtype = tuple(src.shape), src.dtype
    first = next(v for v in a.values() if isinstance(v, Tile))
    out = first.core.ndarray(list(shape), dtype if dtype is not None else out_dtype,
                             buffer="sbuf")
    dst = out
    if mask is not None:
        names = [n for n in _masked(call.params, a) if n != "dst"]
        shrunk = apply_mask(mask, out, *(a[n] for n in names))
        dst = shrunk[0]
        for n, t in zip(names, shrunk[1:]):
            a[n] = t
    call.impl(dst=dst, **a)
    return out


INTERNAL: Dict[str, _tpb.Lowering] = {}


def internal_lowering(name: str, params: List[Tuple[str, str]]) -> _tpb.Lowering:
    """A Rust lowering tpb's own calls use that is not an NKI name (``nl.matmul``'s operand
    check, ``nl.broadcast_to``'s partition broadcast): ``params`` are ``(name, kind)``; call
    it as ``lowering(origin, *args)``."""
    lowering = _tpb.Lowering(name, f"tpb.{name}", params)
    INTERNAL[name] = lowering
    return lowering


def refused(module: str, name: str, status: Status) -> Callable[..., object]:
    """Registers a name that raises :class:`tpb.NotSupported` when called."""
    call = Call(module, name, status, None)
    what = call.qualname

    def refuse(*args: object, **kwargs: object) -> object:
        raise not_supported_error(call)

    refuse.__name__ = refuse.__qualname__ = name
    refuse.__doc__ = (
        f"``{what}`` ({status.tag}: {status.detail}).\n\n"
        "Parameters: as NKI 0.6.0 documents them (docs/nki-support.md).\n\n"
        "Semantics: raises :class:`tpb.NotSupported` naming what is missing.\n\n"
        f"Example::\n\n    {name}(...)  # raises tpb.NotSupported\n"
    )
    refuse.__nki_call__ = call  # type: ignore[attr-defined]
    call.public = refuse
    _register(call)
    return refuse


def constant(module: str, name: str, status: Status = SUPPORTED) -> None:
    """Registers a name that is a value (``nl.sbuf``, ``nl.tile_size``)."""
    _register(Call(module, name, status, None))


def not_supported_error(call: Call, form: Optional[str] = None) -> NotSupported:
    """The error of a refused name or form: "not supported yet: nki.language.all needs …"
    or "not supported: …"."""
    what = call.qualname if form is None else f"{call.qualname} ({form})"
    tag, detail = call.status
    if tag == "not yet":
        return NotSupported(f"not supported yet: {what} needs {detail}")
    if tag == "partial":
        return NotSupported(f"not supported yet: {what}; tpb runs {detail}")
    if tag == "not supported":
        return NotSupported(f"not supported: {what}: {detail}")
    return NotSupported(f"not supported: {what}")


def refuse(module: str, name: str, form: Optional[str] = None) -> NotSupported:
    """The error for ``module.name`` (registered) used in an unsupported ``form``."""
    return not_supported_error(REGISTRY[(module, name)], form)


# --- what the registry generates ------------------------------------------------------------
def calls(module: Optional[str] = None) -> Iterator[Call]:
    """Every registered name, in definition order (``module``: only that module's)."""
    for c in REGISTRY.values():
        if module is None or c.module == module:
            yield c


def api_support() -> List[Tuple[str, str, str, str]]:
    """``(module, name, status, detail)`` for every registered name."""
    return [(c.module, c.name, c.status.tag, c.status.detail) for c in calls()]


def support_markdown() -> str:
    """``docs/nki-support.md``: every name with its status, and every call's signature and
    legacy forms."""
    lines = [
        "# NKI API support",
        "",
        "Generated from the call definitions in `python/tpb/nki/isa.py` and",
        "`python/tpb/nki/language.py` (`tpb.nki.api_support()`) by `tools/gen_nki_support.py`;",
        "`python/tests/test_nki_api.py` checks it is current. Statuses: **supported**, **partial**",
        "(the detail says which forms run), **not yet** (the detail names the instruction tpb",
        "does not have yet; the call raises `tpb.NotSupported` saying so), **not supported**",
        "(the detail says why).",
        "",
    ]
    for module, title in (("language", "`nki.language` (`tpb.nki.language`)"),
                          ("isa", "`nki.isa` (`tpb.nki.isa`)")):
        lines += [f"## {title}", "", "| name | status | detail |", "|---|---|---|"]
        for c in calls(module):
            lines.append(f"| `{c.name}` | {c.status.tag} | {c.status.detail} |")
        lines.append("")
    lines += [
        "## Signatures",
        "",
        "The current form of each call (NKI 0.6.0, `dst` first) and the legacy",
        "(`neuronxcc.nki`) forms tpb also accepts, which return a new tile.",
        "",
    ]
    for module in ("isa", "language"):
        for c in calls(module):
            if c.signature is None:
                continue
            lines.append(f"- `{MODULES[module]}.{c.name}{_plain(c.signature)}`")
            for f in c.legacy:
                lines.append(f"  - legacy: `{c.name}{_plain(f.signature)}`")
    lines.append("")
    return "\n".join(lines)


def _plain(sig: inspect.Signature) -> str:
    """A signature without annotations, defaults as NKI writes them."""
    parts, star = [], False
    for p in sig.parameters.values():
        if p.kind is p.KEYWORD_ONLY and not star:
            parts.append("*")
            star = True
        if p.kind is p.VAR_KEYWORD:
            parts.append(f"**{p.name}")
            continue
        if p.default is p.empty:
            parts.append(p.name)
        else:
            parts.append(f"{p.name}={_default(p.default)}")
    return f"({', '.join(parts)})"


def _default(v: object) -> str:
    if isinstance(v, enum.Enum):
        return f"{type(v).__name__}.{v.name}"
    if callable(v) and hasattr(v, "__name__"):
        mod = getattr(v, "__module__", None) or ""
        prefix = "numpy." if mod.startswith("numpy") or type(v).__name__ == "ufunc" else ""
        return f"{prefix}{getattr(v, '__name__')}"
    return repr(v)
