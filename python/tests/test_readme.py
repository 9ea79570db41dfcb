"""The README's Python section runs as written (from the repository root)."""

from __future__ import annotations

import os
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_readme_python_example_runs(capsys):
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("## Python: `import tpb`", 1)[1]
    block = section.split("```python", 1)[1].split("```", 1)[0]
    cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        exec(compile(block, "README.md", "exec"), {})
    finally:
        os.chdir(cwd)
    out = capsys.readouterr().out
    assert "affine_select" in out
    assert "sbuf[p0]+0x400:[[1,64],[64,2],[1,1],[1,1]]" in out
