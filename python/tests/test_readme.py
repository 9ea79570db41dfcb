"""The README's Python quick start and docs/python.md's example run as written (from the
repository root): the NKI-style call, the kernel test a kernel author would copy, and the
package tour."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def python_blocks(path: Path, after: str) -> list[str]:
    """The ```python blocks of `path` in the section that starts with heading `after`."""
    text = path.read_text(encoding="utf-8")
    section = text.split(after, 1)[1]
    section = re.split(r"\n## ", section, maxsplit=1)[0]
    return re.findall(r"```python\n(.*?)```", section, flags=re.S)


def run_block(block: str, name: str) -> dict:
    namespace: dict = {"__name__": "readme_example"}
    cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        exec(compile(block, name, "exec"), namespace)
    finally:
        os.chdir(cwd)
    return namespace


def test_readme_quick_start_call_runs(capsys):
    call, _ = python_blocks(ROOT / "README.md", "## Python quick start")
    run_block(call, "README.md")
    out = capsys.readouterr().out
    assert out.startswith(".gen cayman\n")
    assert "affine_select" in out and "fill_mode=ge" in out


@pytest.mark.parametrize("gen", ["cayman", "mariana", "maverick"])
def test_readme_kernel_test_passes(gen):
    _, kernel_test = python_blocks(ROOT / "README.md", "## Python quick start")
    namespace = run_block(kernel_test, "README.md")
    namespace["test_causal_mask_is_bit_exact"](gen)


def test_readme_whole_kernel_runs(capsys):
    (block,) = python_blocks(ROOT / "README.md", "## Running a whole NKI kernel")
    run_block(block, "README.md")
    out = capsys.readouterr().out
    assert " us " in out and "dma_memcpy" in out and "tt_arith" in out


def test_docs_python_example_runs(capsys):
    (block,) = python_blocks(ROOT / "docs" / "python.md", "# Python: `import tpb`")
    run_block(block, "docs/python.md")
    out = capsys.readouterr().out
    assert "affine_select" in out
    assert "sbuf[p0]+0x400:[[1,64],[64,2],[1,1],[1,1]]" in out


def test_docs_kernel_guide_runs(tmp_path, capsys, monkeypatch):
    """docs/python.md's kernel author's guide: the worked kernel and its pytest file."""
    kernel, tests = python_blocks(ROOT / "docs" / "python.md", "## Writing and testing NKI kernels")
    monkeypatch.chdir(tmp_path)
    namespace: dict = {"__name__": "guide_example"}
    exec(compile(kernel, "docs/python.md", "exec"), namespace)
    assert (tmp_path / "k.json").is_file() and (tmp_path / "k.svg").is_file()
    assert "origin" not in capsys.readouterr().out  # prints values, not dicts of the path
    exec(compile(tests, "docs/python.md", "exec"), namespace)
    namespace["test_scale_add"]()
    namespace["test_missing_instruction_is_named"]()
