"""The Python examples in examples/python run: the causal-mask script (nki-semantics §1.1)
prints its verdict and bundle, and the kernel author's pytest file passes."""

from __future__ import annotations

import subprocess
import sys

import tpb
from conftest import EXAMPLES

PYTHON_EXAMPLES = EXAMPLES / "python"


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, *args],
        cwd=PYTHON_EXAMPLES.parent.parent,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_causal_mask_script():
    r = run(str(PYTHON_EXAMPLES / "causal_mask.py"))
    assert r.returncode == 0, r.stdout + r.stderr
    lines = r.stdout.splitlines()
    assert lines[0].startswith("causal mask 128x512 fp32 -> bf16 on cayman: OK, 0 of 65536")
    # 128*512 - 128*129/2 elements lie above the diagonal and become -inf.
    assert "57280 masked to -inf" in lines[0]
    text = "\n".join(line for line in lines if not line.startswith(("causal", "emitted")))
    assert ".reg 63 = 0xff7fffff" in text
    bundle = [line for line in lines if line.startswith("affine_select")]
    assert len(bundle) == 1
    code = tpb.asm(".gen cayman\n" + bundle[0])
    inst = tpb.decode(code)[0]
    assert inst.mnemonic == "affine_select" and tpb.validate(inst) == []
    assert "mask_pattern=0:[[-1,512]" in bundle[0] and "fill_mode=ge" in bundle[0]


def test_kernel_author_pytest_file_passes():
    r = run("-m", "pytest", "-q", "-p", "no:cacheprovider",
            str(PYTHON_EXAMPLES / "test_my_kernel.py"))
    assert r.returncode == 0, r.stdout + r.stderr
    assert " passed" in r.stdout and "failed" not in r.stdout
