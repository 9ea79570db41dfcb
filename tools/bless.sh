#!/bin/sh
# Regenerates every generated or golden file from the one opcode/field/rule lists, in one
# command (issue 16 item 4). Each file below is also checked by the same test without
# TPB_BLESS, so CI fails with the test's name when one is stale:
#   README.md opcode table            tpb-isa tests/readme_opcodes.rs
#   docs/syntax.md field reference and shared-behaviours list   tpb-isa tests/text_docs.rs
#   validate_outcomes.txt (rules)      tpb-isa tests/validate_fast.rs
#   CLI goldens, examples/*.bin        tpb tests/cli_isa.rs, tests/cli_run.rs
#   python/tpb/_tpb.pyi signatures     python/tests/test_stubs.py (tools/gen_stubs.py --check)
#   docs/nki-support.md                python/tests/test_nki_api.py (tools/gen_nki_support.py --check)
# Review `git diff` afterwards: a changed golden says which rule or output moved.
set -eu
cd "$(dirname "$0")/.."
TPB_BLESS=1 cargo test -p tpb-isa --test readme_opcodes --test text_docs --test validate_fast
TPB_BLESS=1 cargo test -p tpb --test cli_isa --test cli_run
# The stub's signatures come from the built native module (pyo3 publishes no types, so the
# stub keeps its annotations): TPB_PYTHON, or the .venv .ci/test-all builds, with tpb
# installed from this tree (rebuild it first after changing a pyo3 signature).
py="${TPB_PYTHON:-.venv/bin/python}"
if [ -x "$py" ] || command -v "$py" >/dev/null 2>&1; then
    "$py" tools/gen_stubs.py
    "$py" tools/gen_nki_support.py
else
    echo "bless: no Python with tpb built ($py): python/tpb/_tpb.pyi and docs/nki-support.md not regenerated" >&2
fi
git status --short
