#!/usr/bin/env bash
# Installs a built wheel as a user would and runs it: a fresh virtual environment made by
# PYTHON, the wheel's dependencies from requirements.lock (hashes checked) but none of the
# build tools, and no cargo or rustc on PATH; then the README's Python quick start,
# `tpb --version`, `python -m tpb --version` and `tpb validate` on an example. With --suite it
# also installs pytest from the lock and runs the Python suite and the doctests against the
# installed package (the CLI comparisons use $TPB_CLI, the cargo-built binary).
#
#   tools/test-wheel.sh WHEEL [PYTHON] [--suite]     # PYTHON: default python3
set -euo pipefail
cd "$(dirname "$0")/.."
root="$(pwd)"
wheel="$(realpath "${1:?usage: tools/test-wheel.sh WHEEL [PYTHON] [--suite]}")"
python="${2:-python3}"
suite="${3:-}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

# PATH without any folder that holds cargo or rustc: the wheel must need no Rust.
no_rust_path="$tmp/venv/bin"
IFS=: read -r -a dirs <<<"$PATH"
for d in "${dirs[@]}"; do
    [ -n "$d" ] && [ ! -e "$d/cargo" ] && [ ! -e "$d/rustc" ] && no_rust_path="$no_rust_path:$d"
done
"$python" -m venv "$tmp/venv"
export PATH="$no_rust_path"
if command -v cargo >/dev/null || command -v rustc >/dev/null; then
    echo "test-wheel: cargo or rustc still on PATH" >&2
    exit 1
fi
py="$tmp/venv/bin/python"
echo "test-wheel: $("$py" -VV | head -n 1), no cargo on PATH: $(basename "$wheel")"

# The lock's entries for the named packages (every other one dropped), hashes included.
lock_only() {
    awk -v keep=" $* " '/^[A-Za-z0-9]/ { split($1, a, "=="); on = index(keep, " " a[1] " ") > 0 } on' \
        "$root/requirements.lock"
}
if [ "$suite" = --suite ]; then
    lock_only numpy ml-dtypes pytest pytest-xdist execnet pluggy iniconfig packaging pygments \
        exceptiongroup tomli typing-extensions colorama >"$tmp/deps.txt"
else
    lock_only numpy ml-dtypes >"$tmp/deps.txt"
fi
"$py" -m pip install --quiet --disable-pip-version-check --require-hashes -r "$tmp/deps.txt"
"$py" -m pip install --quiet --disable-pip-version-check --no-deps "$wheel"
"$py" -m pip check --disable-pip-version-check

# The README's first Python block, run from an empty folder as a user's script would be.
cd "$tmp"
"$py" - "$root/README.md" >"$tmp/quick_start.out" <<'PY'
import re, sys
text = open(sys.argv[1], encoding="utf-8").read()
section = text.split("## Python quick start", 1)[1].split("\n## ", 1)[0]
first = re.findall(r"```python\n(.*?)```", section, flags=re.S)[0]
exec(compile(first, "README.md (Python quick start)", "exec"), {"__name__": "__main__"})
PY
grep -q "affine_select" "$tmp/quick_start.out" || {
    echo "test-wheel: the quick start printed no affine_select" >&2
    cat "$tmp/quick_start.out" >&2
    exit 1
}
version="$(tpb --version)"
if [ "${version#tpb }" = "$version" ] || [ "$version" != "$("$py" -m tpb --version)" ]; then
    echo "test-wheel: tpb --version printed '$version', python -m tpb another" >&2
    exit 1
fi
tpb validate "$root/examples/causal_mask.bin" >/dev/null
echo "test-wheel: quick start, '$version', python -m tpb and tpb validate ran"

if [ "$suite" = --suite ]; then
    pkg="$(cd / && "$py" -c 'import os, tpb; print(os.path.dirname(tpb.__file__))')"
    case "$pkg" in "$tmp"/venv/*) ;; *) echo "test-wheel: tpb imported from $pkg" >&2; exit 1 ;; esac
    cd "$root/python/tests"
    "$py" -m pytest -q -p no:cacheprovider -n 2 --rootdir "$root" -c "$root/pyproject.toml" \
        "$root/python/tests" --doctest-modules "$pkg"
fi
