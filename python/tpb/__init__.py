"""tpb — an open, bit-exact toolkit and reference simulator for the NeuronCore TPB slice.

ISA::

    >>> import tpb
    >>> code = tpb.asm("iota out_dtype=fp32 src_data_pattern=0:[[1,8]] "
    ...                "dst_mem_pattern=sbuf[p0..4]+0x0:[[1,8]] channel_multiplier=8")
    >>> [i.mnemonic for i in tpb.decode(code)]
    ['iota']
    >>> tpb.validate(code)
    []

Simulator::

    >>> m = tpb.Machine(gen="cayman")
    >>> report = m.run(code)
    >>> row = m.read("sbuf[p0..4]+0x0:fp32:4x8")[1, :3]
    >>> row.tolist(), row.dtype == "float32"
    ([8.0, 9.0, 10.0], True)

NKI-shaped calls live in :mod:`tpb.nki`. ``tpb.Warning`` (a run's warning record) is not in
``__all__`` so that ``from tpb import *`` keeps Python's builtin ``Warning``.
"""

from __future__ import annotations

from . import _tpb
from ._errors import (
    AsmError,
    CapacityError,
    DeadlockError,
    DtypeError,
    Error,
    Fault,
    InvalidInstruction,
    NotSupported,
    OutOfBoundsError,
    RaceError,
    RegionError,
    UnwrittenOutputError,
    UsageError,
)
from ._tpb import (
    Finding,
    Instruction,
    Machine,
    Packed,
    RunReport,
    Warning,
    asm,
    decode,
    disasm,
    pack,
    validate,
)

from . import nki  # noqa: E402  (tpb.nki is part of `import tpb`)

__version__: str = _tpb.__version__

__all__ = [
    "AsmError",
    "CapacityError",
    "DeadlockError",
    "DtypeError",
    "Error",
    "Fault",
    "Finding",
    "Instruction",
    "InvalidInstruction",
    "Machine",
    "NotSupported",
    "OutOfBoundsError",
    "Packed",
    "RaceError",
    "RegionError",
    "RunReport",
    "UnwrittenOutputError",
    "UsageError",
    "asm",
    "decode",
    "disasm",
    "pack",
    "validate",
]
