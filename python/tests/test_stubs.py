"""The type stubs (python/tpb/_tpb.pyi, with py.typed) declare exactly what the native
module exports, so editors complete and type-check the real API (issue 9 item 4)."""

from __future__ import annotations

import ast
import importlib.util
import inspect
import pathlib
import sys

import pytest

import tpb
import tpb._tpb as native
import tpb.nki

ROOT = pathlib.Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("gen_stubs", ROOT / "tools" / "gen_stubs.py")
gen_stubs = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(gen_stubs)

PACKAGE = pathlib.Path(tpb.__file__).parent
STUB = PACKAGE / "_tpb.pyi"



def stub_tree():
    """(top-level names, {class: member names}, type aliases) declared by the stub."""
    tree = ast.parse(STUB.read_text(encoding="utf-8"))
    top, classes, aliases = set(), {}, set()
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            members = set()
            for item in node.body:
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    members.add(item.name)
                elif isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
                    members.add(item.target.id)
            classes[node.name] = members
            top.add(node.name)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            top.add(node.name)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            top.add(node.target.id)
        elif isinstance(node, ast.Assign):  # `Gen = str`: an alias for annotations only
            aliases.update(t.id for t in node.targets if isinstance(t, ast.Name))
    return top, classes, aliases


def public(names):
    return {n for n in names if not n.startswith("_")}


def test_py_typed_marker_ships():
    assert (PACKAGE / "py.typed").is_file()


def test_stub_declares_every_native_name_and_no_other():
    top, _, aliases = stub_tree()
    runtime = public(dir(native)) | {"__version__"}
    assert runtime - top == set(), "missing from the stub"
    # The package's own (private) native helpers may be declared too, for its type checks.
    assert top - set(dir(native)) - {"__version__"} == set(), "in the stub but not in tpb._tpb"
    assert aliases & runtime == set()


STUB_CLASSES = sorted(stub_tree()[1])


@pytest.mark.parametrize(
    "name", STUB_CLASSES
)
def test_stub_class_declares_every_public_member(name):
    members = stub_tree()[1][name]
    cls = getattr(native, name)
    assert inspect.isclass(cls), name
    runtime = public(dir(cls))
    assert runtime - members == set(), f"{name}: missing from the stub"
    assert public(members) - runtime == set(), f"{name}: in the stub but not at runtime"


def test_every_native_class_has_a_stub_class():
    classes = {n for n in public(dir(native)) if inspect.isclass(getattr(native, n))}
    assert classes == set(STUB_CLASSES)


def test_package_all_lists_resolve():
    for module in (tpb, tpb.nki, tpb.nki.isa):
        for name in module.__all__:
            assert hasattr(module, name), f"{module.__name__}.{name}"
    errors = ["AsmError", "DtypeError", "Fault", "InvalidInstruction", "NotSupported",
              "RegionError", "UsageError"]
    for name in errors:
        assert issubclass(getattr(tpb, name), tpb.Error)
    assert issubclass(tpb.AsmError, ValueError)
    assert issubclass(tpb.RegionError, ValueError)
    assert issubclass(tpb.UsageError, ValueError)
    assert issubclass(tpb.InvalidInstruction, ValueError)
    assert issubclass(tpb.DtypeError, TypeError)
    assert issubclass(tpb.Fault, RuntimeError)
    assert issubclass(tpb.NotSupported, NotImplementedError)


def test_stub_signatures_are_the_runtime_ones():
    """Keyword names are API (the issue fixes them, e.g. `gen=`, `validate=`, `cmp_op=`):
    every `def` of the stub has the pyo3 signature's parameters, kinds and defaults, and
    every native function has a `def` (tools/gen_stubs.py --check; tools/bless.sh
    regenerates)."""
    _, problems = gen_stubs.regenerate(STUB.read_text(encoding="utf-8"), native)
    assert problems == [], "\n".join(problems)


def test_stub_generator_finds_and_repairs_drift():
    """A stub that drifted (a parameter missing, one too many, a default changed) is named
    by the check and repaired by the generator, annotations kept."""
    text = STUB.read_text(encoding="utf-8")
    stale = text.replace(
        'def asm(text: str, gen: Gen = "cayman", validate: bool = True) -> bytes: ...',
        'def asm(text: str, gen: Gen = "sunda") -> bytes: ...',
    ).replace(
        "    def run(self, program: Program) -> RunReport: ...",
        "    def run(self, program: Program, fast: bool = True) -> RunReport: ...",
    )
    assert stale != text
    repaired, problems = gen_stubs.regenerate(stale, native)
    assert sorted(p.split(":")[0] for p in problems) == ["Machine.run", "asm"]
    assert 'def asm(text: str, gen: Gen = "cayman", validate: Any = True) -> bytes: ...' in repaired
    assert "    def run(self, program: Program) -> RunReport: ..." in repaired
    assert gen_stubs.regenerate(repaired, native)[1] == []


def test_constructors_are_checked_wherever_the_interpreter_knows_them():
    """The signature check skips a class constructor only on Python 3.9, where an abi3
    module's classes carry no `__text_signature__` (the limited API puts class docs in the
    type from 3.10); from 3.10 every `__init__` of the stub is compared (issue 31 item 4)."""
    defs = gen_stubs.stub_functions(ast.parse(STUB.read_text(encoding="utf-8")))
    inits = [name.split(".")[0] for name in defs if name.endswith(".__init__")]
    assert inits, "the stub declares constructors"
    for name in inits:
        known = gen_stubs.runtime_parameters(getattr(native, name)) is not None
        assert known == (sys.version_info >= (3, 10)), name
