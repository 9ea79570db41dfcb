#!/usr/bin/env bash
# Refreshes requirements.lock: every Python package that the build and the tests install
# (pip, the build backend from pyproject's [build-system], the package's dependencies, its
# `test` extra and the `wheel` dependency group (zig, the portable wheel's linker), and all they
# pull in), at exact versions with the hashes of every wheel and
# sdist of those versions, resolved for every platform and every Python that pyproject allows.
# .ci/test-all installs from it with `pip install --require-hashes`, as cargo uses Cargo.lock.
#
#   tools/lock-python.sh          # newest releases within pyproject's ranges
#
# Then run `.ci/test-all` (and tools/test-latest.sh to see what the next upgrade brings) and
# commit requirements.lock: an upgrade is a deliberate commit. The resolver (uv) runs from a
# throwaway virtual environment and is pinned here so that the lock's format does not drift.
set -euo pipefail
cd "$(dirname "$0")/.."
UV_VERSION=0.13.9
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
"${PYTHON:-python3}" -m venv "$tmp/venv"
"$tmp/venv/bin/python" -m pip install --quiet "uv==$UV_VERSION"
# The build backend is installed from the lock too (the build runs without isolation), so its
# requirement is read from pyproject's one list; pip is locked so that the installer is pinned.
"$tmp/venv/bin/python" - >"$tmp/build.in" <<'PY'
import tomllib
with open("pyproject.toml", "rb") as f:
    print(*tomllib.load(f)["build-system"]["requires"], "pip", sep="\n")
PY
"$tmp/venv/bin/uv" pip compile pyproject.toml "$tmp/build.in" --extra test --group pyproject.toml:wheel \
    --universal --python-version 3.9 --generate-hashes --quiet \
    --custom-compile-command tools/lock-python.sh --output-file requirements.lock
echo "requirements.lock refreshed; run .ci/test-all, then commit it"
