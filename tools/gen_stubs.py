#!/usr/bin/env python3
"""Keeps the signatures of python/tpb/_tpb.pyi equal to the native module's (issue 16 item 4).

The one source of a signature is its pyo3 definition (`#[pyo3(signature = ...)]` or the Rust
parameters); the compiled module exposes it as each function's `__text_signature__`. This
tool reads those from the built `tpb._tpb` and compares them with every `def` of the stub:
parameter names, order, kinds (positional-only, keyword-only) and defaults.

    python tools/gen_stubs.py            rewrite drifted `def` headers (annotations, return
                                         types and docstrings kept; a new parameter is
                                         annotated `Any`) and append native functions the
                                         stub lacks
    python tools/gen_stubs.py --check    exit 1, naming each drift, if the stub is stale

Run by tools/bless.sh (when a Python with `tpb` built is found) and checked by
python/tests/test_stubs.py. Types are the stub's own: pyo3 does not publish them.
"""

from __future__ import annotations

import argparse
import ast
import inspect
import pathlib
import sys

STUB = pathlib.Path(__file__).resolve().parent.parent / "python" / "tpb" / "_tpb.pyi"
LINE_WIDTH = 100
EMPTY = inspect.Parameter.empty


def runtime_parameters(target) -> list[inspect.Parameter] | None:
    """The pyo3 signature of a native function, method or class constructor (no `self`), or
    None for a class constructor under Python 3.9: an abi3 module gets its class docs (and so
    `__text_signature__`) into the type only from Python 3.10's limited API, so 3.9 cannot
    tell a constructor's parameters; 3.10 and later check them."""
    if inspect.isclass(target) and target.__text_signature__ is None and sys.version_info < (3, 10):
        return None
    return [p for p in inspect.signature(target).parameters.values() if p.name != "self"]


def runtime_target(native, qualname: str):
    owner, _, attr = qualname.rpartition(".")
    obj = getattr(native, owner) if owner else native
    return obj if attr == "__init__" else getattr(obj, attr, None)


def stub_functions(tree: ast.Module) -> dict[str, tuple[ast.FunctionDef, int]]:
    """Every checked `def` of the stub by qualified name, with its indentation: top-level
    functions and class methods, not properties and not dunders other than `__init__`
    (pyo3 gives those no signature)."""
    out = {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            out[node.name] = (node, 0)
        elif isinstance(node, ast.ClassDef):
            for item in node.body:
                if not isinstance(item, ast.FunctionDef):
                    continue
                decorators = {getattr(d, "id", None) for d in item.decorator_list}
                dunder = item.name.startswith("__") and item.name != "__init__"
                if "property" not in decorators and not dunder:
                    out[f"{node.name}.{item.name}"] = (item, item.col_offset)
    return out


def stub_parameters(fn: ast.FunctionDef) -> list[tuple[str, object, str]]:
    """(name, default source text or EMPTY, kind) of a stub `def`, without `self`."""
    a = fn.args
    positional = a.posonlyargs + a.args
    defaults = [EMPTY] * (len(positional) - len(a.defaults)) + list(a.defaults)
    out = []
    for i, (p, d) in enumerate(zip(positional, defaults)):
        kind = "POSITIONAL_ONLY" if i < len(a.posonlyargs) else "POSITIONAL_OR_KEYWORD"
        out.append((p.arg, EMPTY if d is EMPTY else d, kind))
    for p, d in zip(a.kwonlyargs, a.kw_defaults):
        out.append((p.arg, EMPTY if d is None else d, "KEYWORD_ONLY"))
    return [(n, d, k) for n, d, k in out if n != "self"]


def default_matches(stub_default, runtime_default) -> bool:
    if stub_default is EMPTY or runtime_default is EMPTY:
        return stub_default is runtime_default
    if runtime_default is Ellipsis:  # pyo3 prints a non-literal default as `...`
        return True
    try:
        return ast.literal_eval(stub_default) == runtime_default
    except ValueError:  # a name such as `None` written another way: trust the stub
        return True


def drift(fn: ast.FunctionDef, runtime: list[inspect.Parameter]) -> str | None:
    """Why the stub `def` differs from the runtime signature, or None."""
    stub = stub_parameters(fn)
    if [n for n, _, _ in stub] != [p.name for p in runtime]:
        return f"parameters {[n for n, _, _ in stub]} != runtime {[p.name for p in runtime]}"
    for (name, d, kind), p in zip(stub, runtime):
        if kind != p.kind.name and not (kind == "POSITIONAL_OR_KEYWORD" and p.kind.name == "POSITIONAL_ONLY"):
            return f"`{name}` is {kind.lower()} in the stub, {p.kind.name.lower()} at runtime"
        if not default_matches(d, p.default):
            return f"`{name}` defaults to {ast.unparse(d) if d is not EMPTY else 'nothing'} in the stub, {p.default!r} at runtime"
    return None


def literal(value) -> str:
    """A default as the stub writes it (double-quoted strings)."""
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"' if isinstance(value, str) else repr(value)


def render_header(fn: ast.FunctionDef, runtime: list[inspect.Parameter], indent: int) -> str:
    """A `def NAME(...) -> RET:` header with the runtime parameters, keeping the stub's
    annotations (and default spellings) by parameter name."""
    old = {a.arg: a for a in fn.args.posonlyargs + fn.args.args + fn.args.kwonlyargs}
    old_defaults = {n: d for n, d, _ in stub_parameters(fn)}
    parts = ["self"] if "self" in old else []
    keyword_only = False
    for p in runtime:
        if p.kind is p.KEYWORD_ONLY and not keyword_only:
            parts.append("*")
            keyword_only = True
        a = old.get(p.name)
        text = p.name + (f": {ast.unparse(a.annotation)}" if a is not None and a.annotation else ": Any")
        if p.default is not EMPTY:
            d = old_defaults.get(p.name, EMPTY)
            if d is EMPTY or not default_matches(d, p.default):
                d = "..." if p.default is Ellipsis else literal(p.default)
            else:
                try:
                    d = literal(ast.literal_eval(d))
                except ValueError:
                    d = ast.unparse(d)
            text += f" = {d}"
        parts.append(text)
    ret = f" -> {ast.unparse(fn.returns)}" if fn.returns else ""
    pad = " " * indent
    one_line = f"{pad}def {fn.name}({', '.join(parts)}){ret}:"
    if len(one_line) + 4 <= LINE_WIDTH:
        return one_line
    inner = "".join(f"{pad}    {p},\n" for p in parts)
    return f"{pad}def {fn.name}(\n{inner}{pad}){ret}:"


def regenerate(text: str, native) -> tuple[str, list[str]]:
    """The stub with every drifted header rewritten and missing native functions appended,
    and the list of drifts found (empty: the stub is current)."""
    tree = ast.parse(text)
    lines = text.splitlines(keepends=True)
    problems, edits = [], []
    defs = stub_functions(tree)
    for qualname, (fn, indent) in defs.items():
        target = runtime_target(native, qualname)
        if target is None:
            problems.append(f"{qualname}: in the stub but not in tpb._tpb")
            continue
        runtime = runtime_parameters(target)
        if runtime is None:
            continue
        why = drift(fn, runtime)
        if why is None:
            continue
        problems.append(f"{qualname}: {why}")
        body = fn.body[0]
        start, body_line = fn.lineno - 1, body.lineno - 1
        header = render_header(fn, runtime, indent)
        if lines[body_line][: body.col_offset].strip():
            # `def …: ...`: the body shares the header's last line.
            edits.append((start, body_line + 1, f"{header} {lines[body_line][body.col_offset:]}"))
        else:
            edits.append((start, body_line, header + "\n"))
    for start, end, new in sorted(edits, reverse=True):
        lines[start:end] = [new]
    out = "".join(lines)
    missing = [
        name
        for name in sorted(dir(native))
        if not name.startswith("_")
        and callable(getattr(native, name))
        and not inspect.isclass(getattr(native, name))
        and name not in defs
    ]
    for name in missing:
        problems.append(f"{name}: in tpb._tpb but not in the stub")
        params = ", ".join(
            f"{p.name}: Any" + ("" if p.default is EMPTY else f" = {literal(p.default)}")
            for p in runtime_parameters(getattr(native, name))
        )
        out += f"def {name}({params}) -> Any: ...\n"
    return out, problems


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="fail if the stub is stale")
    parser.add_argument("--stub", type=pathlib.Path, default=STUB)
    args = parser.parse_args(argv)
    import tpb._tpb as native

    text = args.stub.read_text(encoding="utf-8")
    new, problems = regenerate(text, native)
    if args.check:
        for p in problems:
            print(f"{args.stub}: {p}", file=sys.stderr)
        if problems:
            print("stale stub: run tools/gen_stubs.py (or tools/bless.sh)", file=sys.stderr)
        return 1 if problems else 0
    if new != text:
        tmp = args.stub.with_suffix(".pyi.tmp")
        tmp.write_text(new, encoding="utf-8")
        tmp.replace(args.stub)  # atomic
    for p in problems:
        print(f"updated: {p}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
