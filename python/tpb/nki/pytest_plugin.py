"""``pytest -p tpb.nki.pytest_plugin``: NKI kernels and their tests run on tpb unmodified.

The plugin installs the drop-in imports (:mod:`tpb.nki.dropin`) before test collection, so
test modules that ``import nki`` or ``neuronxcc.nki`` get tpb. Each pytest-xdist worker is
its own process and installs its own. Put ``-p tpb.nki.pytest_plugin`` in ``addopts`` to make
it the default for a project.

Example::

    pytest -p tpb.nki.pytest_plugin tests/test_my_kernels.py
"""

from __future__ import annotations

from typing import Any

from . import dropin


def pytest_configure(config: Any) -> None:
    """Installs the drop-in imports for the session."""
    dropin.install()
