"""The ``tpb`` command installed by ``pip install .`` (and ``python -m tpb``): the same Rust
command line as the cargo-built binary, run in-process through the extension module, so the
output, exit statuses and files are the binary's.

    $ tpb run examples/causal_mask.tpb --timeline out/timeline.svg
    $ python -m tpb validate prog.bin --gen cayman
"""

from __future__ import annotations

import os
import signal
import sys
from typing import Optional, Sequence

from . import _tpb


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Runs ``tpb`` with ``argv`` (default ``sys.argv[1:]``) and returns its exit status:
    0 success, 1 a finding (an invalid bundle, a failed expectation), 2 an input error.

    Parameters:
        argv: the arguments after the program name.

    As a command, Ctrl-C ends the process at once as it ends the binary (the Rust code does
    not poll Python's signal handlers). Python's own buffered output is flushed first, since
    the command writes to file descriptors 1 and 2 directly.

    Example::

        >>> import tpb._cli
        >>> tpb._cli.main(["validate", "--gen", "nosuchgen", "x.bin"])
        2
    """
    args = list(sys.argv[1:] if argv is None else argv)
    # None when Python started with the descriptor closed (`tpb … >&-`).
    for stream in (sys.stdout, sys.stderr):
        if stream is not None:
            stream.flush()
    return _tpb.cli(args)


def _open_closed_standard_descriptors() -> None:
    """Opens /dev/null on each of descriptors 0, 1 and 2 that is closed, lowest first, as the
    Rust runtime does before the binary's ``main``: so ``tpb … >&-`` discards the report as
    the binary does, and no file the command opens can become its standard output."""
    for fd in (0, 1, 2):
        try:
            os.fstat(fd)
        except OSError:
            # The lowest free descriptor: this one, since those below it are open.
            os.open(os.devnull, os.O_RDWR)


def console() -> None:
    """Entry point of the ``tpb`` console script and ``python -m tpb``."""
    _open_closed_standard_descriptors()
    # Default SIGINT: Ctrl-C kills the process (status 130 from the shell), as with the binary.
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    sys.exit(main())
