"""Type stubs for the native module ``tpb._tpb`` (re-exported by ``tpb`` and ``tpb.nki``)."""

from typing import Any, Callable, List, Optional, Sequence, Tuple, Union

import numpy as np
import numpy.typing as npt

__version__: str

Gen = str  # "sunda" | "cayman" | "mariana" | "maverick" (or "trn1", "trn2", "v3", …)
Op = Union[str, Callable[..., Any]]  # a numpy ufunc such as numpy.multiply, or its name
Pattern = Sequence[Sequence[int]]  # [[step, num], …], outermost first

class Instruction:
    """One 64-byte bundle decoded for a generation."""

    @staticmethod
    def decode(data: bytes, gen: Gen = "cayman") -> Instruction: ...
    @property
    def opcode(self) -> int: ...
    @property
    def mnemonic(self) -> str: ...
    @property
    def gen(self) -> str: ...
    def encode(self) -> bytes: ...
    def fields(self) -> List[Tuple[str, Tuple[int, int], str]]: ...
    def __bytes__(self) -> bytes: ...
    def __hash__(self) -> int: ...

class Finding:
    """One failing (or lint) rule of the validator."""

    rule: str
    clause: str
    field: str
    byte_range: Tuple[int, int]
    value: str
    allowed: str
    source: str
    confidence: str
    lint: bool
    text: str  # the one-line rendering, as str(finding)

class Packed:
    """A TENSOR{N}D packed by the compiler's packer (seed 001)."""

    bytes: bytes
    kind: str
    descriptor: str
    start_addr: int
    step_elem: List[int]
    num_elem: List[int]
    num_active_channels: int
    active_dims: int
    slots: List[Optional[int]]

Program = Union[str, bytes, Instruction, Sequence[Union[Instruction, bytes]]]

def cli(args: Sequence[str]) -> int: ...
def decode(data: bytes, gen: Gen = "cayman") -> List[Instruction]: ...
def validate(
    inst: Union[Instruction, bytes], gen: Gen = "cayman", lints: bool = False
) -> List[Finding]: ...
def asm(text: str, gen: Gen = "cayman", validate: bool = True) -> bytes: ...
def disasm(data: Program, gen: Gen = "cayman") -> str: ...
def pack(
    partitions: Union[int, Tuple[int, int], range],
    offset: int,
    dims: Pattern,
    nd: int = 4,
    space: str = "sbuf",
    gen: Gen = "cayman",
    explicit: bool = False,
    start_partition: int = 0,
    partition_step: int = 1,
) -> Packed: ...

class Warning:
    index: int
    mnemonic: str
    kind: str
    message: str

class RunReport:
    instructions: int
    warnings: List[Warning]
    elements: int
    bytes_written: int
    trace: List[str]

class Machine:
    """A simulated NeuronCore: SBUF/PSUM, device memory (HBM), registers, flops, semaphores,
    events. Regions: ``"sbuf[p0..128]+0x400:fp32:128x512"`` or ``"hbm+0x1000:fp32:4x8"``."""

    def __init__(
        self,
        gen: Gen = "cayman",
        strict: bool = False,
        fp8_e4m3: str = "ieee",
        fp8_ocp_sat: bool = False,
        hbm_bytes: int = 1073741824,
    ) -> None: ...
    @property
    def gen(self) -> str: ...
    @property
    def hbm_bytes(self) -> int: ...
    @property
    def retired(self) -> int: ...
    @property
    def registers(self) -> List[int]: ...
    def write(self, region_text: str, array: npt.ArrayLike) -> None: ...
    def read(self, region_text: str) -> np.ndarray: ...
    def set_register(self, n: int, value: Union[int, float]) -> None: ...
    def semaphore(self, i: int) -> int: ...
    def set_semaphore(self, i: int, value: int) -> None: ...
    def run(self, program: Program) -> RunReport: ...
    def step(self, inst: Union[Instruction, bytes, str]) -> RunReport: ...

class Tile:
    """A tile of one Core: partition dimension first."""

    @property
    def shape(self) -> List[int]: ...
    @property
    def dtype(self) -> np.dtype: ...
    @property
    def buffer(self) -> str: ...
    @property
    def offset(self) -> int: ...
    @property
    def region(self) -> str: ...
    def numpy(self) -> np.ndarray: ...

class Core:
    """A simulated NeuronCore for tpb.nki calls: machine, allocator, emitted program."""

    def __init__(
        self,
        gen: Gen = "cayman",
        strict: bool = False,
        fp8_e4m3: str = "ieee",
        fp8_ocp_sat: bool = False,
    ) -> None: ...
    @property
    def gen(self) -> str: ...
    def ndarray(self, shape: Sequence[int], dtype: Any, buffer: str = "sbuf") -> Tile: ...
    def from_numpy(self, array: npt.ArrayLike, buffer: str = "sbuf") -> Tile: ...
    def set_register(self, n: int, value: Union[int, float]) -> None: ...
    def bundles(self) -> bytes: ...
    def disasm(self) -> str: ...
    def instructions(self) -> List[Instruction]: ...

Scalar = Union[float, int, Tile]

def iota(
    dst: Tile, pattern: Pattern, offset: int = 0, channel_multiplier: int = 0
) -> RunReport: ...
def affine_select(
    dst: Tile,
    pattern: Pattern,
    channel_multiplier: int,
    on_true_tile: Tile,
    on_false_value: float,
    cmp_op: Optional[Op] = None,
    offset: int = 0,
) -> RunReport: ...
def tensor_scalar(
    dst: Tile,
    data: Tile,
    op0: Op,
    operand0: Optional[Scalar] = None,
    reverse0: bool = False,
    op1: Optional[Op] = None,
    operand1: Optional[Scalar] = None,
    reverse1: bool = False,
) -> RunReport: ...
def range_select(
    dst: Tile,
    on_true_tile: Tile,
    comp_op0: Op,
    comp_op1: Op,
    bound0: Scalar,
    bound1: Scalar,
    range_start: float = 0.0,
    on_false_value: float = -3.4028234663852886e38,
    reduce_cmd: str = "idle",
) -> RunReport: ...
def dma_copy(
    dst: Tile,
    src: Tile,
    priority: Optional[int] = None,
    oob_mode: Any = None,
    dge_mode: Any = None,
    engine: Any = None,
    name: Optional[str] = None,
) -> RunReport: ...
def select(
    dst: Tile,
    predicate: Scalar,
    on_true_tile: Tile,
    on_false_value: Scalar,
    reverse_pred: bool = False,
) -> RunReport: ...
