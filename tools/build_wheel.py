#!/usr/bin/env python3
"""Builds tpb-neuroncore's source distribution and, from it, the portable wheel to share.

    .venv/bin/python tools/build_wheel.py [--out DIR]    # default DIR: dist/

Run it with a Python that has the locked build tools (`pip install --require-hashes -r
requirements.lock`: maturin, and ziglang for the linker). It writes to DIR:

* `tpb_neuroncore-VERSION.tar.gz`, the sdist (`maturin sdist`: the crates, Cargo.lock and the
  Python package), which builds anywhere a Rust toolchain does;
* `tpb_neuroncore-VERSION-cp39-abi3-manylinux2014_x86_64.manylinux_2_17_x86_64.whl`, built
  from that sdist (so a broken sdist fails here), one wheel for CPython 3.9 and every later
  version (the stable ABI) on any x86_64 Linux with glibc 2.17 or newer;

and prints the wheel's path last. The wheel is linked by zig against glibc 2.17's symbols
(`maturin build --zig`): the system linker would bind this machine's glibc (2.36 here,
`pthread_create@GLIBC_2.34` and more), and maturin's own audit (the auditwheel rules) would
then refuse the manylinux2014 tag. The build shares `target/` with the workspace, in the
triple's own folder, and the sdist is unpacked at a fixed place writing only files whose
bytes changed, so cargo rebuilds what changed and nothing else.
"""

from __future__ import annotations

import argparse
import os
import pathlib
import shutil
import subprocess
import sys
import tarfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
DIST_NAME = "tpb_neuroncore"
# glibc 2.17 (CentOS 7 and everything since): the oldest tag maturin's zig linker targets.
COMPATIBILITY = "manylinux2014"
UNPACKED = ROOT / "target" / "sdist-build"


def run(cmd: list[str], **kwargs) -> None:
    print("+", " ".join(cmd), file=sys.stderr, flush=True)
    subprocess.run(cmd, check=True, **kwargs)


def sync_sdist(sdist: pathlib.Path, dest: pathlib.Path) -> pathlib.Path:
    """Unpack `sdist` into `dest`, rewriting only files whose bytes differ (cargo compares
    modification times, and the sdist stamps every file with one fixed old date) and removing
    files the sdist no longer has. Returns the project folder inside `dest`."""
    kept: set[pathlib.Path] = set()
    with tarfile.open(sdist) as tar:
        members = [m for m in tar.getmembers() if m.isfile()]
        (top,) = {pathlib.PurePosixPath(m.name).parts[0] for m in members}
        for m in members:
            rel = pathlib.PurePosixPath(m.name)
            if rel.is_absolute() or ".." in rel.parts:
                raise SystemExit(f"{sdist}: unsafe member name {m.name!r}")
            data = tar.extractfile(m).read()
            path = dest.joinpath(*rel.parts)
            kept.add(path)
            if path.is_file() and not path.is_symlink() and path.read_bytes() == data:
                continue
            path.parent.mkdir(parents=True, exist_ok=True)
            path.unlink(missing_ok=True)
            path.write_bytes(data)
    for path in sorted(dest.rglob("*"), reverse=True):
        if path.is_file() and path not in kept:
            path.unlink()
    return dest / top


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=pathlib.Path, default=ROOT / "dist")
    args = parser.parse_args(argv)
    out = args.out.resolve()
    out.mkdir(parents=True, exist_ok=True)
    for old in [*out.glob(f"{DIST_NAME}-*.tar.gz"), *out.glob(f"{DIST_NAME}-*.whl")]:
        old.unlink()
    # maturin and zig from this interpreter's environment (maturin finds zig through
    # `python3 -m ziglang` on PATH).
    bin_dir = pathlib.Path(sys.executable).parent
    maturin = shutil.which("maturin", path=str(bin_dir)) or "maturin"
    env = dict(os.environ, PATH=f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}")
    env["CARGO_TARGET_DIR"] = str(ROOT / "target")
    run([maturin, "sdist", "--out", str(out)], cwd=ROOT, env=env)
    (sdist,) = out.glob(f"{DIST_NAME}-*.tar.gz")
    project = sync_sdist(sdist, UNPACKED)
    run([maturin, "build", "--release", "--locked", "--compatibility", COMPATIBILITY, "--zig",
         "--out", str(out)], cwd=project, env=env)
    (wheel,) = out.glob(f"{DIST_NAME}-*.whl")
    print(wheel)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
