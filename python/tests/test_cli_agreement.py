"""tpb.Machine agrees bit for bit with the Rust CLI (`tpb run`) on the shipped examples.

Each examples/*.tpb carries its bindings as directives (docs/cli-run.md): `.in FILE @ REGION`,
`.reg N = VALUE`, `.out REGION @ FILE`. Here the same program runs twice: through the CLI
(`tpb run PROGRAM --out-dir TMP`) and through the Python package (the inputs written with
Machine.write, the registers set, the instructions assembled with tpb.asm, the outputs read
with Machine.read); the output bits must agree, and agree with the example's `.expect` file.

The CLI is the binary `$TPB_CLI`, else {release,debug}/tpb in cargo's target directory when
built (cargo test builds debug/tpb; CARGO_TARGET_DIR is honoured, see cargo_target_dir), else
`cargo run --release --manifest-path <repo>/Cargo.toml -p tpb`; the test is skipped when none
is available.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

import tpb
from conftest import EXAMPLES, REPO, assert_bits_equal

# TPB region dtype names -> the NumPy dtype the Python package uses.
DTYPES = {
    "fp32": np.float32,
    "fp16": np.float16,
    "bf16": ml_dtypes.bfloat16,
    "bfloat16": ml_dtypes.bfloat16,
    "int8": np.int8,
    "uint8": np.uint8,
    "int16": np.int16,
    "uint16": np.uint16,
    "int32": np.int32,
    "uint32": np.uint32,
    "fp8_exp3": ml_dtypes.float8_e3m4,
    "fp8_exp4": ml_dtypes.float8_e4m3,
    "fp8_exp5": ml_dtypes.float8_e5m2,
}

PROGRAMS = sorted(p.name for p in EXAMPLES.glob("*.tpb"))


def cargo_target_dir() -> Path:
    """The directory cargo builds this repository into, found as cargo finds it: `cargo
    metadata` (which reads CARGO_TARGET_DIR and any `build.target-dir` in a cargo config),
    else CARGO_TARGET_DIR (relative to the working directory, as cargo reads it), else
    <repo>/target."""
    if shutil.which("cargo"):
        meta = subprocess.run(
            ["cargo", "metadata", "--format-version", "1", "--no-deps", "--offline",
             "--manifest-path", str(REPO / "Cargo.toml")],
            capture_output=True, timeout=120,
        )
        if meta.returncode == 0:
            return Path(json.loads(meta.stdout)["target_directory"])
    env = os.environ.get("CARGO_TARGET_DIR")
    return Path(env).resolve() if env else REPO / "target"


def cli_command() -> list[str] | None:
    """The `tpb` binary to compare with: $TPB_CLI, else the newest of release/debug `tpb`
    where cargo builds (cargo_target_dir), else `cargo run` on this repository's manifest
    (from any working directory), else None."""
    env = os.environ.get("TPB_CLI")
    if env:
        return [env]
    target = cargo_target_dir()
    built = [target / kind / "tpb" for kind in ("release", "debug")]
    built = [b for b in built if b.is_file() and os.access(b, os.X_OK)]
    if built:
        return [str(max(built, key=lambda b: b.stat().st_mtime))]
    if shutil.which("cargo"):
        return ["cargo", "run", "-q", "--release", "--manifest-path", str(REPO / "Cargo.toml"),
                "-p", "tpb", "--"]
    return None


def region_dtype(region: str):
    """The dtype and shape of `sbuf[p0..128]+0x0:fp32:128x512`."""
    parts = region.split(":")[1:]
    (name,) = [p for p in parts if not p[0].isdigit()]
    (shape,) = [p for p in parts if p[0].isdigit()]
    return np.dtype(DTYPES[name]), tuple(int(d) for d in shape.split("x"))


def load_as(path, dtype, shape) -> np.ndarray:
    """A .npy in any of the encodings the examples use (numpy dtypes, ml_dtypes blobs, bit
    views), reinterpreted as `dtype` of `shape`: the bytes are what the region holds."""
    raw = path.read_bytes()
    n = int(np.prod(shape)) * dtype.itemsize
    return np.frombuffer(raw[len(raw) - n :], dtype=dtype).reshape(shape)


def parse(program: str):
    """(text for tpb.asm, inputs, registers, outputs, expectations) of an example."""
    text, inputs, regs, outputs, expects = [], [], [], [], []
    for line in (EXAMPLES / program).read_text().splitlines():
        body = line.split("#", 1)[0].strip()
        if body.startswith(".in"):
            f, region = (s.strip() for s in body[3:].split("@"))
            inputs.append((f, region))
        elif body.startswith(".reg"):
            n, value = (s.strip() for s in body[4:].split("="))
            regs.append((int(n), value))
        elif body.startswith(".out"):
            region, f = (s.strip() for s in body[4:].split("@"))
            outputs.append((region, f))
        elif body.startswith(".expect"):
            region, f = (s.strip() for s in body[7:].split("=="))
            expects.append((region, f))
        elif body.startswith((".show", ".dtype")):
            continue
        else:
            text.append(line)
    return "\n".join(text), inputs, regs, outputs, expects


def run_in_python(program: str) -> dict:
    text, inputs, regs, outputs, _ = parse(program)
    gen = re.search(r"^\.gen (\w+)", text, re.M).group(1)
    m = tpb.Machine(gen=gen)
    for f, region in inputs:
        dtype, shape = region_dtype(region)
        m.write(region, load_as(EXAMPLES / f, dtype, shape))
    for n, value in regs:
        m.set_register(n, float(value) if re.search(r"[.eE]", value) else int(value, 0))
    report = m.run(tpb.asm(text, gen=gen))
    assert report.warnings == []
    return {f: m.read(region) for region, f in outputs}


def test_examples_parse():
    assert "causal_mask.tpb" in PROGRAMS
    text, inputs, regs, outputs, expects = parse("causal_mask.tpb")
    assert inputs == [("causal_scores.npy", "sbuf[p0..128]+0x0:fp32:128x512")]
    assert regs == [(7, "-3.4028235e38")]
    assert [f for _, f in outputs] == ["causal_mask.npy", "causal_offsets.npy"]
    assert len(tpb.decode(tpb.asm(text))) == 2


@pytest.mark.parametrize("program", PROGRAMS)
def test_python_matches_the_examples_expectations(program):
    """The `.expect` files were computed independently with numpy (tools/gen_example_inputs.py)."""
    _, _, _, outputs, expects = parse(program)
    got = run_in_python(program)
    by_region = {region: f for region, f in outputs}
    for region, expected_file in expects:
        dtype, shape = region_dtype(region)
        assert_bits_equal(got[by_region[region]], load_as(EXAMPLES / expected_file, dtype, shape))


@pytest.mark.parametrize("program", PROGRAMS)
def test_python_matches_the_cli(program, tmp_path):
    cmd = cli_command()
    if cmd is None:
        pytest.skip("no tpb CLI: set TPB_CLI, build target/debug/tpb, or put cargo on PATH")
    r = subprocess.run(
        cmd + ["run", str(EXAMPLES / program), "--out-dir", str(tmp_path)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert r.returncode == 0, r.stderr
    got = run_in_python(program)
    _, _, _, outputs, _ = parse(program)
    assert outputs
    for region, f in outputs:
        dtype, shape = region_dtype(region)
        cli = load_as(tmp_path / f, dtype, shape)
        assert_bits_equal(got[f], cli)
