"""The type stubs (python/tpb/_tpb.pyi, with py.typed) declare exactly what the native
module exports, so editors complete and type-check the real API (issue 9 item 4)."""

from __future__ import annotations

import ast
import inspect
import pathlib

import pytest

import tpb
import tpb._tpb as native
import tpb.nki

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
    assert top - runtime == set(), "in the stub but not in tpb._tpb"
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


def stub_signatures():
    """{qualified name: [(parameter, default or NO_DEFAULT), ...]} for every stub def."""
    tree = ast.parse(STUB.read_text(encoding="utf-8"))

    def params(fn: ast.FunctionDef):
        args = fn.args.posonlyargs + fn.args.args + fn.args.kwonlyargs
        defaults = [None] * (len(fn.args.posonlyargs + fn.args.args) - len(fn.args.defaults))
        defaults += fn.args.defaults + fn.args.kw_defaults
        out = []
        for a, d in zip(args, defaults):
            if a.arg == "self":
                continue
            try:
                value = NO_DEFAULT if d is None else ast.literal_eval(d)
            except ValueError:
                value = UNKNOWN
            out.append((a.arg, value))
        return out

    sigs = {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            sigs[node.name] = params(node)
        elif isinstance(node, ast.ClassDef):
            for item in node.body:
                decorators = {getattr(d, "id", None) for d in item.decorator_list} if isinstance(item, ast.FunctionDef) else set()
                if isinstance(item, ast.FunctionDef) and "property" not in decorators and not (
                    item.name.startswith("__") and item.name != "__init__"
                ):
                    sigs[f"{node.name}.{item.name}"] = params(item)
    return sigs


NO_DEFAULT, UNKNOWN = object(), object()
SIGNATURES = stub_signatures()


@pytest.mark.parametrize("qualname", sorted(SIGNATURES))
def test_stub_signature_matches_the_runtime(qualname):
    """Keyword names are API (the issue fixes them, e.g. `gen=`, `validate=`, `cmp_op=`)."""
    owner, _, attr = qualname.rpartition(".")
    obj = getattr(native, owner) if owner else native
    target = obj if attr == "__init__" else getattr(obj, attr)
    runtime = [
        (p.name, NO_DEFAULT if p.default is inspect.Parameter.empty else p.default)
        for p in inspect.signature(target).parameters.values()
        if p.name != "self"
    ]
    stub = SIGNATURES[qualname]
    assert [n for n, _ in stub] == [n for n, _ in runtime]
    for (name, want), (_, got) in zip(stub, runtime):
        if want is UNKNOWN or got is Ellipsis or want is NO_DEFAULT or got is NO_DEFAULT:
            assert (want is NO_DEFAULT) == (got is NO_DEFAULT) or want is UNKNOWN, name
            continue
        assert want == got, f"{qualname}({name}=...): stub {want!r}, runtime {got!r}"
