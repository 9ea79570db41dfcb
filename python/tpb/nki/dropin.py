"""Drop-in imports: public NKI kernels run on tpb with no edit.

:func:`install` makes the NKI module names resolve to tpb's modules, in every dialect public
kernels import them:

========================================  ===============================
``nki``, ``neuronxcc.nki``                :mod:`tpb.nki`
``nki.language``, ``neuronxcc.nki.language``  :mod:`tpb.nki.language`
``nki.isa`` (``.constants``)              :mod:`tpb.nki.isa` (:mod:`tpb.nki.constants`)
``nki.typing``, ``nki.tensor``, ``nki.dtype``, ``nki.language.dtypes`` / ``.constants``  annotations, dtypes
``nki.compiler``, ``nki.collectives``     :mod:`tpb.nki.compiler`, :mod:`tpb.nki.collectives`
``nki_cpu_simulator.nki.*``               the same (nki-library's test utilities alias it)
========================================  ===============================

It is opt-in and reversible: :func:`uninstall` (or leaving ``with installed():``) removes
exactly the names it added, and it refuses to shadow a real ``nki`` or ``neuronxcc``
package that is already imported (:class:`tpb.UsageError`). In pytest,
``pytest -p tpb.nki.pytest_plugin`` installs it for the whole session (each pytest-xdist
worker installs its own).

Example::

    import tpb.nki.dropin
    tpb.nki.dropin.install()
    import neuronxcc.nki.language as nl          # tpb.nki.language
    from my_kernels import tensor_add_kernel      # a public kernel file, unmodified
"""

from __future__ import annotations

import contextlib
import importlib
import sys
import types
from typing import Dict, Iterator, List

from .._errors import UsageError

__all__ = ["ALIASES", "install", "installed", "is_installed", "uninstall"]

# NKI module name (below each root) → the tpb module it resolves to.
_BELOW_ROOT: Dict[str, str] = {
    "": "tpb.nki",
    ".language": "tpb.nki.language",
    ".language.dtypes": "tpb.nki.dtypes",
    ".language.constants": "tpb.nki.dtypes",
    ".isa": "tpb.nki.isa",
    ".isa.constants": "tpb.nki.constants",
    ".typing": "tpb.nki.typing",
    ".tensor": "tpb.nki.tensor",
    ".dtype": "tpb.nki.dtypes",
    ".compiler": "tpb.nki.compiler",
    ".collectives": "tpb.nki.collectives",
    ".nccl": "tpb.nki.collectives",
}
# The roots: NKI 0.2.0+ (`nki`), the legacy namespace (`neuronxcc.nki`) and the CPU
# simulator nki-library's test utilities alias (`nki_cpu_simulator.nki`).
_ROOTS = ("nki", "neuronxcc.nki", "nki_cpu_simulator.nki")

ALIASES: Dict[str, str] = {root + below: target
                           for root in _ROOTS for below, target in _BELOW_ROOT.items()}

_added: List[str] = []


def is_installed() -> bool:
    """Whether :func:`install` is in effect."""
    return bool(_added)


def install() -> None:
    """Makes ``import nki``, ``import neuronxcc.nki.language as nl`` and the other NKI
    module names resolve to tpb (idempotent).

    Raises :class:`tpb.UsageError` when a different ``nki`` / ``neuronxcc`` module is already
    imported: tpb does not replace a real Neuron installation behind its back.

    Example::

        tpb.nki.dropin.install()
        import nki.isa as nisa
        assert nisa is tpb.nki.isa
    """
    if _added:
        return
    targets = {name: importlib.import_module(target) for name, target in ALIASES.items()}
    parents = {"neuronxcc", "nki_cpu_simulator"}
    for name in [*targets, *parents]:
        have = sys.modules.get(name)
        if have is not None and have is not targets.get(name):
            raise UsageError(
                f"tpb.nki.dropin.install: a module {name!r} is already imported "
                f"({getattr(have, '__file__', have)!r}); drop-in imports would shadow it — "
                "install them before anything imports the Neuron packages, or import "
                "tpb.nki directly")
    added: List[str] = []
    try:
        for parent in sorted(parents):
            pkg = types.ModuleType(parent, f"tpb drop-in namespace for {parent} (tpb.nki.dropin)")
            pkg.__path__ = []  # a package: its submodules are the aliases below
            sys.modules[parent] = pkg
            added.append(parent)
        for name, module in targets.items():
            sys.modules[name] = module
            added.append(name)
        for root in ("neuronxcc", "nki_cpu_simulator"):
            setattr(sys.modules[root], "nki", sys.modules[root + ".nki"])
    except BaseException:
        for name in added:
            sys.modules.pop(name, None)
        raise
    _added.extend(added)


def uninstall() -> None:
    """Removes exactly the module names :func:`install` added.

    Example::

        tpb.nki.dropin.uninstall()
    """
    while _added:
        sys.modules.pop(_added.pop(), None)


@contextlib.contextmanager
def installed() -> Iterator[None]:
    """``with tpb.nki.dropin.installed(): ...`` — the drop-in imports inside the block only
    (when they were not installed before).

    Example::

        with tpb.nki.dropin.installed():
            import nki.language as nl
    """
    was = is_installed()
    install()
    try:
        yield
    finally:
        if not was:
            uninstall()
