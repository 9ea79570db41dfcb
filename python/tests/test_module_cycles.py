"""No module of a crate or of the Python package uses a sibling that uses it back
(tools/check_module_cycles.py; docs/contributing.md "Module layering", issue 26 item 4)."""

from __future__ import annotations

import importlib.util
import pathlib
import textwrap

ROOT = pathlib.Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location(
    "check_module_cycles", ROOT / "tools" / "check_module_cycles.py"
)
checker = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(checker)


def tree(tmp_path: pathlib.Path, files: dict[str, str]) -> pathlib.Path:
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    return tmp_path


def test_the_project_has_no_module_cycle():
    failures, _ = checker.check()
    assert failures == []


def test_a_ring_of_sibling_modules_fails_by_name(tmp_path):
    root = tree(
        tmp_path,
        {
            "crates/x/src/lib.rs": "mod machine;\nmod exec;\n",
            "crates/x/src/machine/mod.rs": "use crate::exec::run;\npub struct State;\n",
            "crates/x/src/exec/mod.rs": "mod kernel;\n",
            # A use from deep inside a sibling counts for the sibling.
            "crates/x/src/exec/kernel.rs": "fn f(_: &crate::machine::State) {}\n",
        },
    )
    failures, _ = checker.check(root, known={})
    assert failures == ["x, in the root: exec, machine (exec -> machine -> exec)"]


def test_super_paths_and_use_groups_are_read(tmp_path):
    root = tree(
        tmp_path,
        {
            "crates/x/src/lib.rs": "mod run;\n",
            "crates/x/src/run/mod.rs": "mod a;\nmod b;\n",
            "crates/x/src/run/a.rs": "use super::{b::{self, Thing}, Other};\n",
            "crates/x/src/run/b.rs": "fn g() { super::super::run::a::h() }\n",
        },
    )
    failures, _ = checker.check(root, known={})
    assert failures == ["x, in run: a, b (a -> b -> a)"]


def test_parent_child_uses_tests_and_comments_are_not_edges(tmp_path):
    root = tree(
        tmp_path,
        {
            "crates/x/src/lib.rs": "mod a;\nmod b;\npub struct Shared;\n",
            # a uses b; b's use of a is only in a unit test, a comment and a string.
            "crates/x/src/a.rs": "use crate::b::Thing;\nmod inner;\n",
            "crates/x/src/a/inner.rs": "use super::super::Shared;\nuse crate::a::X;\n",
            "crates/x/src/b.rs": (
                "// crate::a::X\nconst S: &str = \"crate::a::X\";\n"
                "#[cfg(test)]\nmod tests {\n    use crate::a::X;\n    fn f() { { } }\n}\n"
            ),
        },
    )
    failures, _ = checker.check(root, known={})
    assert failures == []


def test_python_imports_are_read(tmp_path):
    root = tree(
        tmp_path,
        {
            "python/tpb/__init__.py": "from . import nki\n",
            "python/tpb/nki/__init__.py": "from . import isa, language\n",
            "python/tpb/nki/isa.py": "def f():\n    from . import language as nl\n",
            "python/tpb/nki/language.py": "from tpb.nki.isa import f\n",
        },
    )
    failures, _ = checker.check(root, known={})
    assert failures == ["python/tpb, in nki: isa, language (isa -> language -> isa)"]


def test_a_known_cycle_that_is_gone_fails(tmp_path):
    root = tree(tmp_path, {"crates/x/src/lib.rs": "mod a;\n", "crates/x/src/a.rs": ""})
    failures, _ = checker.check(root, known={("x", "", ("a", "b")): "fixed elsewhere"})
    assert len(failures) == 1 and "the known cycle a / b is gone" in failures[0]
