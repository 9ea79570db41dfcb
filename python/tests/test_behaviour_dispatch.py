"""Every layer dispatches on the row's behaviour variant, exhaustively (issue 26 item 1).

The full check is `tools/scratch_change.py variant` (a `Scratch` variant in every family in a
scratch copy: every handler of the validator, the simulator, the plain reference and the test
generators must refuse to build; a few minutes). This is its fast guard, over the source: each
`FamilyVisitor` handler (the validator's, the simulator's and the plain reference's: one file
per family, which the generated impl calls) binds its family's variant with an irrefutable pattern (a one-behaviour
family, `sem::Iota::Iota: sem::Iota`) or by a name it `match`es without a catch-all arm (or
hands to the family's chain, which matches it), and no library or reference module compares
opcode bytes (`row.value == …`).
"""

from __future__ import annotations

import pathlib
import re

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]

# A visitor impl written out (`fn <family>(&mut self, …)` methods), or a directory of
# one file per family (`<family>.rs` defining `check` / `execute` / `reference`; the impl
# calling them is generated from the family list).
VISITORS = [
    "crates/tpb-isa/src/validate/chains/family",
    "crates/tpb-sim/src/exec/family",
    "crates/tpb-sim/tests/family",
]

# Library and reference code that must not compare an opcode byte.
NO_BYTES = [
    "crates/tpb-isa/src/validate",
    "crates/tpb-sim/src",
    "crates/tpb-nki/src",
    "crates/tpb-sim/tests/reference",
    "crates/tpb-sim/tests/family",
    "crates/tpb-sim/tests/gen",
]

VARIANT = r"((?:sem::\w+::\w+(?:\s*\|\s*sem::\w+::\w+)*)|\w+): sem::(\w+),[^)]*\)\s*->\s*\w+\s*\{"
HANDLER = re.compile(r"fn (\w+)\(\s*&mut self,\s*\w+: Row,\s*" + VARIANT, re.S)
# A family file's handler: the context (and the validator's instruction view), the row, the
# variant, the body.
FILE_HANDLER = re.compile(
    r"fn (check|execute|reference)(?:<[^>]*>)?\(\s*\w+: [^,]*,\s*(?:\w+: &InstView<'_>,\s*)?\w+: Row,\s*" + VARIANT,
    re.S,
)


def handlers_of(path: pathlib.Path) -> list[tuple[str, str, str, str]]:
    """(family method, variant pattern, family, source from the body on) per handler."""
    if path.is_dir():
        out = []
        for f in sorted(path.glob("*.rs")):
            text = f.read_text()
            out += [(f.stem, m.group(2).strip(), m.group(3), text[m.end():]) for m in FILE_HANDLER.finditer(text)]
        return out
    text = path.read_text()
    return [(m.group(1), m.group(2).strip(), m.group(3), text[m.end():]) for m in HANDLER.finditer(text)]


def body(text: str, start: int) -> str:
    """The braces-balanced body that opens just before `start`."""
    depth, i = 1, start
    while depth:
        depth += {"{": 1, "}": -1}.get(text[i], 0)
        i += 1
    return text[start:i]


def problems(handlers: list[tuple[str, str, str, str]]) -> list[str]:
    found = []
    for method, pattern, family, rest in handlers:
        if re.fullmatch(rf"sem::{family}::\w+(\s*\|\s*sem::{family}::\w+)*", pattern):
            continue  # irrefutable: every variant named
        if not re.fullmatch(r"[a-z]\w*", pattern):
            found.append(f"{method}: binds its variant as `{pattern}` (ignored)")
            continue
        code = body(rest, 0)
        arms = re.search(rf"match {pattern} \{{(.*?)\n\s*\}}", code, re.S)
        if not arms and re.search(rf"\(([^()]*,\s*)?{pattern}\s*,", code):
            continue  # handed to the family's chain or kernel, which matches it
        if not arms:
            found.append(f"{method}: does not `match {pattern}` on its variant")
        elif re.search(r"^\s*_\s*(if .*)?=>", arms.group(1), re.M):
            found.append(f"{method}: `match {pattern}` has a catch-all arm")
    return found


def families() -> list[str]:
    """The families of `for_each_family!` (crates/tpb-isa/src/opcode.rs), one row each."""
    text = (ROOT / "crates/tpb-isa/src/opcode.rs").read_text()
    block = text[text.index("macro_rules! for_each_family"):]
    block = block[: block.index("\n    };")]
    return re.findall(r"^\s+[A-Z]\w*, (\w+), \w+, \"", block, re.M)


def test_the_family_list_is_read():
    names = families()
    assert len(names) >= 46 and "tensor_scalar" in names and "matmul" in names


@pytest.mark.parametrize("path", VISITORS)
def test_every_handler_matches_its_variant_exhaustively(path):
    handlers = handlers_of(ROOT / path)
    assert sorted(h[0] for h in handlers) == sorted(families()), f"{path}: one handler per family"
    assert problems(handlers) == []


def test_the_guard_can_fail(tmp_path):
    ignored = "fn search(&mut self, row: Row, _: sem::Search, s: &'a S4d2Bn) -> Executed {\n x\n}\n"
    caught = "fn search(&mut self, _: Row, v: sem::Search, s: &'a S4d2Bn) -> Flow {\n match v {\n  sem::Search::Max8 => a,\n  _ => b,\n }\n}\n"
    fine = "fn iota(&mut self, _: Row, sem::Iota::Iota: sem::Iota, s: View<'a, D4Iota>) -> Flow {\n x\n}\n"
    for text, want in [
        (ignored, ["search: binds its variant as `_` (ignored)"]),
        (caught, ["search: `match v` has a catch-all arm"]),
        (fine, []),
    ]:
        (tmp_path / "visitor.rs").write_text(text)
        assert problems(handlers_of(tmp_path / "visitor.rs")) == want
    # The same handlers as family files.
    (tmp_path / "family").mkdir()
    (tmp_path / "family" / "search.rs").write_text(
        "fn execute(cx: &mut Cx<'_>, _: Row, v: sem::Search, s: &S4d2Bn) -> Executed {\n"
        " match v {\n  sem::Search::Max8 => a,\n  _ => b,\n }\n}\n"
    )
    (tmp_path / "family" / "iota.rs").write_text(
        "fn check<const M: u8>(cx: &mut Ctx<M>, _: &InstView<'_>, _: Row, sem::Iota::Iota: sem::Iota, "
        "s: View<'_, D4Iota>) -> Flow {\n x\n}\n"
    )
    found = handlers_of(tmp_path / "family")
    assert sorted(h[0] for h in found) == ["iota", "search"]
    assert problems(found) == ["search: `match v` has a catch-all arm"]


def test_no_layer_compares_opcode_bytes():
    byte_compare = re.compile(
        r"(\.value\s*[=!]=\s*(0x|Opcode::)|opcode\(\)\s*[=!]=|header\.opcode\.0\b|header\.opcode\s*[=!]=|"
        r"matches!\([^,]*\.value,\s*0x|match (info|row)\.value\b|Opcode\(0x[0-9A-Fa-f]{2}\))"
    )
    found = []
    for folder in NO_BYTES:
        for f in sorted((ROOT / folder).rglob("*.rs")):
            text = f.read_text()
            # Unit tests may build a named opcode; only non-test code is checked.
            text = text.split("#[cfg(test)]")[0]
            for n, line in enumerate(text.splitlines(), 1):
                if byte_compare.search(line.split("//")[0]):
                    found.append(f"{f.relative_to(ROOT)}:{n}: {line.strip()}")
    assert found == []
