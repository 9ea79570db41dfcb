#!/usr/bin/env python3
"""Fails when the modules of a crate or of the Python package import each other in a ring.

    tools/check_module_cycles.py            # every crate under crates/ and python/tpb
    tools/check_module_cycles.py --graph    # also print each parent's sibling edges

The rule (docs/contributing.md, "Module layering"): the child modules of any one module form
a directed acyclic graph. A module may use its parent's and its descendants' items; a use of
a sibling (or of anything inside a sibling) is an edge from this child to that sibling, and
no set of siblings may reach each other. `#[cfg(test)]` inline modules are left out: a unit
test may drive the whole crate. Rust references are read from `use` trees and from inline
`crate::` / `super::` / `self::` paths; Python ones from `import` / `from … import` lines
(relative or `tpb.…`), including imports inside functions.

Limitations (kept small on purpose): a re-export is attributed to the re-exporting module,
and `#[path]` attributes are not followed (the project uses none).

Standard library only; runs in well under a second.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# Cycles that exist today and are owned by another piece of work; each entry must still be
# a cycle (the check fails when one is gone, so the list cannot go stale). Keyed by
# (package, parent module, sorted members).
KNOWN_CYCLES: dict[tuple[str, str, tuple[str, ...]], str] = {
}

Module = tuple[str, ...]


# ---- Rust -------------------------------------------------------------------------------


def rust_module_of(src: Path, file: Path) -> Module:
    rel = file.relative_to(src).with_suffix("")
    parts = list(rel.parts)
    if parts in (["lib"], ["main"]):
        return ()
    if parts[-1] == "mod":
        parts.pop()
    return tuple(parts)


def strip_rust(text: str) -> str:
    """Comments, strings and char literals blanked (so paths in them are not read)."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            depth, i = 1, i + 2
            while i < n and depth:
                if text.startswith("/*", i):
                    depth, i = depth + 1, i + 2
                elif text.startswith("*/", i):
                    depth, i = depth - 1, i + 2
                else:
                    i += 1
        elif c == "r" and re.match(r'r#*"', text[i : i + 10]) and not text[i - 1 : i].isalnum():
            hashes = re.match(r"r(#*)\"", text[i:]).group(1)
            end = text.find('"' + hashes, i + 2 + len(hashes))
            i = n if end < 0 else end + 1 + len(hashes)
            out.append('""')
        elif c == '"':
            i += 1
            while i < n and text[i] != '"':
                i += 2 if text[i] == "\\" else 1
            i += 1
            out.append('""')
        elif c == "'" and re.match(r"'(\\.|[^\\'])'", text[i : i + 4]):
            i = text.find("'", i + 2) + 1
            out.append("' '")
        else:
            out.append(c)
            i += 1
    return "".join(out)


def drop_test_modules(code: str) -> str:
    """Removes every `#[cfg(test)] mod name { … }` block."""
    pattern = re.compile(r"#\[cfg\(test\)\]\s*(pub(\([^)]*\))?\s+)?mod\s+\w+\s*\{")
    while True:
        m = pattern.search(code)
        if not m:
            return code
        depth, i = 1, m.end()
        while i < len(code) and depth:
            depth += {"{": 1, "}": -1}.get(code[i], 0)
            i += 1
        code = code[: m.start()] + code[i:]


def expand_use_tree(tree: str) -> list[str]:
    """`a::{b, c::{d, e}}` → [`a::b`, `a::c::d`, `a::c::e`]."""
    tree = re.sub(r"\s+", "", tree)
    if "{" not in tree:
        return [tree]
    open_ = tree.index("{")
    prefix, body = tree[:open_], tree[open_ + 1 : tree.rindex("}")]
    parts, depth, start = [], 0, 0
    for i, c in enumerate(body):
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
        elif c == "," and depth == 0:
            parts.append(body[start:i])
            start = i + 1
    parts.append(body[start:])
    return [p for part in parts if part for p in expand_use_tree(prefix + part)]


def rust_paths(code: str) -> list[str]:
    paths = []
    for m in re.finditer(r"\buse\s+([^;]*);", code):
        paths += expand_use_tree(m.group(1))
    for m in re.finditer(r"(?<![\w:$])((?:crate|super|self)(?:::\w+)+)", code):
        paths.append(m.group(1))
    return paths


def resolve_rust(path: str, here: Module, modules: set[Module]) -> Module | None:
    """The deepest module a path names, absolute; None for extern crates and child uses."""
    segs = [s for s in path.split(" as ")[0].split("::") if s]
    if not segs:
        return None
    if segs[0] == "crate":
        base, rest = (), segs[1:]
    elif segs[0] in ("super", "self"):
        base = here
        while segs and segs[0] in ("super", "self"):
            if segs.pop(0) == "super":
                base = base[:-1]
        rest = segs
    else:
        return None  # an extern crate, or a child of `here` (never a sibling)
    target = base
    for s in rest:
        if base + (s,) in modules or target + (s,) in modules:
            target = target + (s,)
        else:
            break
    return target


def rust_graph(src: Path) -> dict[Module, set[Module]]:
    files = sorted(src.rglob("*.rs"))
    by_module = {rust_module_of(src, f): f for f in files}
    modules = set(by_module)
    refs: dict[Module, set[Module]] = {}
    for module, file in by_module.items():
        code = drop_test_modules(strip_rust(file.read_text()))
        targets = set()
        for p in rust_paths(code):
            t = resolve_rust(p, module, modules)
            if t is not None:
                targets.add(t)
        refs[module] = targets
    return refs


# ---- Python -----------------------------------------------------------------------------


def py_module_of(pkg: Path, file: Path) -> Module:
    parts = list(file.relative_to(pkg).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return tuple(parts)


def py_graph(pkg: Path) -> dict[Module, set[Module]]:
    files = sorted(pkg.rglob("*.py"))
    by_module = {py_module_of(pkg, f): f for f in files}
    modules = set(by_module) | {
        py_module_of(pkg, f.with_suffix(".py")) for f in pkg.rglob("*.pyi")
    }
    refs: dict[Module, set[Module]] = {}
    for module, file in by_module.items():
        package = module if file.name == "__init__.py" else module[:-1]
        targets: set[Module] = set()
        for line in file.read_text().splitlines():
            line = line.split("#")[0].strip()
            m = re.match(r"from\s+(\.*)([\w.]*)\s+import\s+(.+)", line)
            if m:
                dots, name, names = m.groups()
                if dots:
                    base = package[: len(package) - (len(dots) - 1)]
                elif name.split(".")[0] == pkg.name:
                    base, name = (), ".".join(name.split(".")[1:])
                else:
                    continue
                mod = base + tuple(s for s in name.split(".") if s)
                for imported in re.split(r"\s*,\s*", names.strip("() ")):
                    sub = mod + (imported.split(" as ")[0].strip(),)
                    targets.add(sub if sub in modules else mod)
                continue
            m = re.match(r"import\s+([\w.]+)", line)
            if m and m.group(1).split(".")[0] == pkg.name:
                targets.add(tuple(m.group(1).split(".")[1:]))
        refs[module] = targets
    return refs


# ---- the check --------------------------------------------------------------------------


def sibling_edges(refs: dict[Module, set[Module]]) -> dict[Module, dict[str, set[str]]]:
    """Per parent module, the edges between its children that the references imply."""
    edges: dict[Module, dict[str, set[str]]] = {}
    for here, targets in refs.items():
        for t in targets:
            common = 0
            while common < min(len(here), len(t)) and here[common] == t[common]:
                common += 1
            if common == len(here) or common == len(t):
                continue  # a use of an ancestor's or a descendant's items
            parent = here[:common]
            edges.setdefault(parent, {}).setdefault(here[common], set()).add(t[common])
    return edges


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one member (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def ring(graph: dict[str, set[str]], members: list[str]) -> str:
    """One closed path through the component, for the message."""
    inside = set(members)
    start = members[0]
    path, seen = [start], {start}
    v = start
    while True:
        nxt = sorted(w for w in graph.get(v, ()) if w in inside)
        back = [w for w in nxt if w == start]
        fresh = [w for w in nxt if w not in seen]
        if back and len(path) > 1:
            return " -> ".join(path + [start])
        if not fresh:
            return " -> ".join(path + [nxt[0]] if nxt else path)
        v = fresh[0]
        path.append(v)
        seen.add(v)


def packages(root: Path) -> list[tuple[str, dict[Module, set[Module]]]]:
    found = []
    for src in sorted((root / "crates").glob("*/src")):
        found.append((src.parent.name, rust_graph(src)))
    if (root / "python" / "tpb").is_dir():
        found.append(("python/tpb", py_graph(root / "python" / "tpb")))
    return found


def check(
    root: Path = ROOT,
    known: dict[tuple[str, str, tuple[str, ...]], str] | None = None,
    graph_out: list[str] | None = None,
) -> tuple[list[str], list[str]]:
    """(failures, notes): every cycle not in `known`, and every `known` cycle that is gone."""
    known = KNOWN_CYCLES if known is None else known
    failures, notes, seen_known = [], [], set()
    for name, refs in packages(root):
        for parent, graph in sorted(sibling_edges(refs).items()):
            where = ".".join(parent) if name.startswith("python/") else "::".join(parent)
            if graph_out is not None:
                for a in sorted(graph):
                    graph_out.append(f"{name} {where or '(root)'}: {a} -> {', '.join(sorted(graph[a]))}")
            for members in cycles(graph):
                key = (name, where, tuple(members))
                text = f"{name}, in {where or 'the root'}: {', '.join(members)} ({ring(graph, members)})"
                if key in known:
                    seen_known.add(key)
                    notes.append(f"known cycle ({known[key]}): {text}")
                else:
                    failures.append(text)
    for key in sorted(set(known) - seen_known):
        failures.append(
            f"{key[0]}, in {key[1] or 'the root'}: the known cycle {' / '.join(key[2])} is gone;"
            " remove it from KNOWN_CYCLES in tools/check_module_cycles.py"
        )
    return failures, notes


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--graph", action="store_true", help="print every sibling edge")
    args = parser.parse_args()
    graph: list[str] | None = [] if args.graph else None
    failures, notes = check(graph_out=graph)
    for line in (graph or []) + notes:
        print(line)
    for f in failures:
        print(f"module cycle: {f}", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
