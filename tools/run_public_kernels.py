#!/usr/bin/env python3
"""Runs public NKI kernel files unmodified on tpb, through the drop-in imports.

Each file runs in its own subprocess (bounded time) as ``python FILE`` would run it — its
``if __name__ == "__main__":`` block builds NumPy inputs, launches the kernel and checks the
result against NumPy — after ``tpb.nki.dropin.install()``. Files without a main block are
imported (every module must import). Prints one line per file and a summary; ``--json``
prints the results as JSON. Nothing here is part of the test suite: the public repositories
are not vendored (fetch them, then point this script at the checkouts).

    python tools/run_public_kernels.py CHECKOUT/src/nki_samples/tutorials/*/*_nki_kernel*.py
    python tools/run_public_kernels.py --import-only --root LIB/src LIB/src/nkilib_src/**/*.py
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import subprocess
import sys
import time

RUNNER = r'''
import os, runpy, sys, warnings
import tpb.nki.dropin
tpb.nki.dropin.install()
path, mode, root = sys.argv[1], sys.argv[2], sys.argv[3]
# A package module is imported by its dotted name under --root (its own folder on sys.path
# would shadow the standard library with modules such as nkilib's logging.py).
sys.path.insert(0, root or os.path.dirname(path))
warnings.simplefilter("ignore")
sys.argv = [path]
if mode == "import":
    rel = os.path.relpath(path, root or os.path.dirname(path))
    name = rel[:-3].replace(os.sep, ".")
    if name.endswith(".__init__"):
        name = name[: -len(".__init__")]
    __import__(name)
else:
    runpy.run_path(path, run_name="__main__")
'''


def run(path: pathlib.Path, import_only: bool, root: str, timeout: float) -> dict:
    mode = "import" if import_only or b"__main__" not in path.read_bytes() else "main"
    t0 = time.monotonic()
    try:
        r = subprocess.run([sys.executable, "-c", RUNNER, str(path), mode, root],
                           capture_output=True, text=True, timeout=timeout,
                           cwd=root or path.parent, env={**os.environ, "MPLBACKEND": "Agg"})
        ok, tail = r.returncode == 0, (r.stderr.strip().splitlines() or [""])[-1]
    except subprocess.TimeoutExpired:
        ok, tail = False, f"timeout after {timeout:.0f} s"
    return {"file": str(path), "mode": mode, "ok": ok, "seconds": round(time.monotonic() - t0, 2),
            "error": "" if ok else tail[:300]}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("files", nargs="+", type=pathlib.Path)
    ap.add_argument("--import-only", action="store_true", help="import each file, run nothing")
    ap.add_argument("--root", default="", help="sys.path root for package imports")
    ap.add_argument("--timeout", type=float, default=300.0, help="seconds per file")
    ap.add_argument("--json", action="store_true", help="print the results as JSON")
    args = ap.parse_args()
    results = [run(p.resolve(), args.import_only, args.root, args.timeout) for p in args.files]
    if args.json:
        print(json.dumps(results, indent=1))
    else:
        for r in results:
            status = "ok  " if r["ok"] else "FAIL"
            print(f"{status} {r['mode']:6} {r['seconds']:7.2f}s {r['file']}  {r['error']}")
    passed = sum(r["ok"] for r in results)
    print(f"{passed} passed, {len(results) - passed} failed")
    return 0 if passed == len(results) else 1


if __name__ == "__main__":
    sys.exit(main())
