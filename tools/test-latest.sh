#!/usr/bin/env bash
# Runs the whole suite (.ci/test-all) against the newest releases of the Python dependencies
# instead of requirements.lock, in its own virtual environment (default .venv-latest). Not part
# of CI: it shows what the next tools/lock-python.sh would bring, so that an upgrade of numpy,
# ml_dtypes, maturin or pytest is a deliberate commit rather than a surprise on a fresh machine.
#
#   tools/test-latest.sh
#   TPB_VENV=DIR tools/test-latest.sh
set -euo pipefail
cd "$(dirname "$0")/.."
TPB_VENV="${TPB_VENV:-.venv-latest}" TPB_PYTHON_DEPS=latest exec .ci/test-all
