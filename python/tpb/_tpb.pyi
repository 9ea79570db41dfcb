"""Type stubs for the native module ``tpb._tpb`` (re-exported by ``tpb`` and ``tpb.nki``)."""

import os
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple, Union

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
        strict_exact: bool = False,
        hbm_bytes: int = 1073741824,
    ) -> None:
        """``strict_exact=True`` makes every result that is not exact a fault: a Matmul
        (exact only per tpb's documented summation order) or an ACT/DVE function the hardware
        computes from unpublished tables (``tpb run --strict-exact``). ``hbm_bytes`` sizes
        device memory (default 1 GiB)."""
        ...
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
    """A tile of one Core (partition dimension first), or an HBM tensor."""

    @property
    def shape(self) -> Tuple[int, ...]: ...
    @property
    def dtype(self) -> np.dtype: ...
    @property
    def buffer(self) -> str: ...
    @property
    def offset(self) -> int: ...
    @property
    def region(self) -> str: ...
    @property
    def start_partition(self) -> int: ...
    @property
    def strides(self) -> List[int]: ...
    @property
    def ndim(self) -> int: ...
    @property
    def core(self) -> Core: ...
    @property
    def base(self) -> Optional[Tile]: ...
    def numpy(self) -> np.ndarray: ...
    def __getitem__(self, key: Any) -> Tile: ...
    def __setitem__(self, key: Any, value: Any) -> None: ...
    def __iadd__(self, value: Any) -> "Tile": ...
    def reshape(self, shape: Sequence[int]) -> Tile: ...
    def view(self, dtype: Any) -> Tile: ...
    def broadcast(self, dim: int, size: int) -> Tile: ...
    def broadcast_to(self, shape: Sequence[int]) -> Tile: ...
    def ap(
        self,
        pattern: Pattern,
        offset: Optional[int] = None,
        scalar_offset: Any = None,
        vector_offset: Any = None,
        indirect_dim: Optional[int] = None,
        dtype: Any = None,
    ) -> Tile: ...
    def permute(self, order: Sequence[int]) -> Tile: ...
    def is_contiguous(self) -> bool: ...

class Core:
    """A simulated NeuronCore for tpb.nki calls: machine, allocator, emitted program."""

    def __init__(
        self,
        gen: Gen = "cayman",
        strict: bool = False,
        fp8_e4m3: str = "ieee",
        fp8_ocp_sat: bool = False,
        strict_exact: bool = False,
    ) -> None: ...
    @property
    def gen(self) -> str: ...
    def ndarray(
        self, shape: Sequence[int], dtype: Any, buffer: str = "sbuf", name: str = ""
    ) -> Tile: ...
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

class Profile:
    """A kernel's emitted program re-run on the engine scheduler."""

    @property
    def engines(self) -> List[Dict[str, Any]]: ...
    @property
    def estimated_time_us(self) -> float: ...
    @property
    def roofline(self) -> Dict[str, Any]:
        """The estimate beside the physical bound (PE peak, HBM bandwidth) of the work."""
        ...
    @property
    def critical_path(self) -> List[Dict[str, Any]]: ...
    @property
    def instruction_counts(self) -> Dict[str, int]: ...
    @property
    def races(self) -> List[Dict[str, Any]]: ...
    @property
    def exact_per_our_order(self) -> List[Dict[str, Any]]:
        """Each instruction exact only per tpb's documented order (a Matmul)."""
        ...
    @property
    def approximate(self) -> List[Dict[str, Any]]:
        """Each instruction that ran an approximate (table) function."""
        ...
    def write_timeline(self, path: Union[str, "os.PathLike[str]"]) -> None: ...

# Issue 17b calls (NKI 0.6.0 signatures; `name` is accepted and ignored).
ReduceCmd = Union[str, int, Any]  # "idle" | "reset" | "reduce" | "reset_reduce" | "load_reduce"

def scalar_tensor_tensor(
    dst: Tile,
    data: Tile,
    op0: Op,
    operand0: Scalar,
    op1: Op,
    operand1: Tile,
    reverse0: bool = False,
    reverse1: bool = False,
    name: Optional[str] = None,
) -> RunReport: ...
def tensor_tensor_scan(
    dst: Tile,
    data0: Tile,
    data1: Tile,
    initial: Scalar,
    op0: Op,
    op1: Op,
    reverse0: bool = False,
    reverse1: bool = False,
    name: Optional[str] = None,
) -> RunReport: ...
def select_reduce(
    dst: Tile,
    predicate: Tile,
    on_true: Tile,
    on_false: Scalar,
    reduce_res: Optional[Tile] = None,
    reduce_cmd: Optional[ReduceCmd] = None,
    reduce_op: Optional[Op] = None,
    reverse_pred: bool = False,
    name: Optional[str] = None,
) -> RunReport: ...
def tensor_scalar_reduce(
    dst: Tile,
    data: Tile,
    op0: Op,
    operand0: Scalar,
    reduce_op: Op,
    reduce_res: Optional[Tile] = None,
    reverse0: bool = False,
    reduce_cmd: Optional[ReduceCmd] = None,
    reduce_init: Optional[Scalar] = None,
    reduce_res_negate: bool = False,
    name: Optional[str] = None,
) -> RunReport: ...
def tensor_scalar_cumulative(
    dst: Tile,
    src: Tile,
    op0: Op,
    op1: Op,
    imm0: Scalar,
    imm1: Optional[Scalar] = None,
    reduce_cmd: Optional[ReduceCmd] = None,
    name: Optional[str] = None,
) -> RunReport: ...
# Issue 17a: the DVE/POOL calls.
Engine = Union[str, int, Any, None]

def tensor_tensor(
    dst: Tile,
    data1: Tile,
    data2: Tile,
    op: Op,
    engine: Engine = None,
    name: Optional[str] = None,
) -> RunReport:
    """``dst = data1 op data2`` (TensorTensor 0x41/0x51); float32 math, int band on GpSimd."""
    ...

def tensor_copy(
    dst: Tile, src: Tile, engine: Engine = None, name: Optional[str] = None
) -> RunReport:
    """Copy (bit-exact, equal dtypes) or Cast through float32 (Copy 0x46 / Cast 0x47)."""
    ...

def nc_matmul(
    dst: Tile,
    stationary: Tile,
    moving: Tile,
    is_stationary_onezero: bool = False,
    is_moving_onezero: bool = False,
    is_transpose: bool = False,
    accumulate: Optional[bool] = None,
    tile_position: Any = (),
    tile_size: Any = (),
    perf_mode: Any = None,
    name: Optional[str] = None,
) -> RunReport:
    """``dst = stationary.T @ moving`` into PSUM (LoadWeights 0x01 then Matmul 0x02).

    Parameters: ``stationary`` [K, M] and ``moving`` [K, N] in SBUF share the partition
    (contraction) size K <= 128; M <= 128; N <= 512; ``dst`` [M, N] is fp32 in PSUM inside
    one 2 KiB bank. ``accumulate=True`` adds to dst, ``False`` overwrites it, ``None``
    overwrites the first time a matmul writes this PSUM view and adds after that.
    ``is_transpose=True`` is the bit-accurate fp32 transpose (moving = K x K identity).

    Semantics: the sum is exact per tpb's documented order (products rounded once to fp32,
    summed in fp32 sequentially over K), not the hardware's bits; the run report says so
    (``Core(strict_exact=True)`` raises ``tpb.Fault``). Tiling and a ``perf_mode`` other
    than none raise ``tpb.NotSupported``.

    Example::

        core = tpb.nki.Core("cayman")
        a = core.from_numpy(np.ones((64, 32), np.float32), "sbuf")
        b = core.from_numpy(np.ones((64, 16), np.float32), "sbuf")
        out = core.ndarray((32, 16), np.float32, "psum")
        nisa.nc_matmul(out, a, b)
    """
    ...

def memset(
    dst: Tile, value: float, engine: Engine = None, name: Optional[str] = None
) -> RunReport:
    """Fill ``dst`` with ``value`` converted to its dtype (Memset 0x49)."""
    ...

def reciprocal(dst: Tile, data: Tile, name: Optional[str] = None) -> RunReport:
    """``dst = 1 / data`` in float32 (Reciprocal 0x48)."""
    ...

def tensor_reduce(
    dst: Tile,
    op: Op,
    data: Tile,
    axis: Union[int, Sequence[int]],
    negate: bool = False,
    keepdims: bool = False,
    name: Optional[str] = None,
) -> RunReport:
    """Reduce trailing free axes with ``op`` (TensorReduce 0x42/0x52)."""
    ...

def tensor_copy_predicated(
    dst: Tile,
    src: Union[Tile, float],
    predicate: Tile,
    reverse_pred: bool = False,
    name: Optional[str] = None,
) -> RunReport:
    """Where ``predicate != 0`` write ``src``, else keep ``dst`` (0x72/0x99/0xe8)."""
    ...

def nc_transpose(
    dst: Tile, data: Tile, engine: Engine = None, name: Optional[str] = None
) -> RunReport:
    """``dst[i, j] = data[j, i]``: StreamTranspose 0x6b on whole 32 × 32 tiles
    (``engine="vector"``), or the PE (``"tensor"``: LoadWeights + Matmul with an identity,
    dst in PSUM; bit-accurate for fp32 on cayman/mariana, else an fp32 dst)."""
    ...

def nc_stream_shuffle(
    dst: Tile, src: Tile, shuffle_mask: Sequence[int], name: Optional[str] = None
) -> RunReport:
    """Per 32-partition quadrant, dst partition ``i`` takes src partition
    ``shuffle_mask[i]`` (32 ints, 0..31 or 255 = keep): LoadMaskSelect 0x69 then
    StreamShuffle 0x6a."""
    ...
def max8(dst: Tile, src: Tile, name: Optional[str] = None) -> RunReport: ...
def nc_find_index8(
    dst: Tile, data: Tile, vals: Tile, name: Optional[str] = None
) -> RunReport: ...
def nc_match_replace8(
    dst: Tile,
    data: Tile,
    vals: Tile,
    imm: float,
    dst_idx: Optional[Tile] = None,
    name: Optional[str] = None,
) -> RunReport: ...

# Issue 18: the activation engine (NKI 0.6.0 signatures; `name` is accepted and ignored).
def activation(
    dst: Tile,
    op: Op,
    data: Tile,
    bias: Optional[Scalar] = None,
    scale: Scalar = 1.0,
    reduce_op: Optional[Op] = None,
    reduce_res: Optional[Tile] = None,
    reduce_cmd: ReduceCmd = "idle",
    name: Optional[str] = None,
) -> RunReport:
    """``dst = op(data * scale + bias)`` in fp32 (Activate 0x21); with ``reduce_res``, the
    per-partition accumulator (``reduce_cmd``) is read out by ActivationReadAccumulator 0x24.

    Parameters: ``op`` an activation function (``numpy.exp``, ``"tanh"``, ...); ``bias`` a
    number or a ``(P, 1)`` tile; ``scale`` a number or a ``(P, 1)`` float32 tile;
    ``reduce_op`` ``None`` or add; ``reduce_cmd`` idle, reset, reduce or reset_reduce.

    Semantics: hardwired functions (copy, identity, relu, square, sign, abs) are exact; table
    functions are computed from their definition and labelled approximate.

    Example::

        nisa.activation(out, np.exp, x, bias=neg_max, scale=1.0)
    """
    ...

def activation_reduce(
    dst: Tile,
    op: Op,
    data: Tile,
    reduce_op: Op,
    reduce_res: Tile,
    bias: Optional[Scalar] = None,
    scale: Scalar = 1.0,
    name: Optional[str] = None,
) -> RunReport:
    """``activation`` with ``reduce_cmd="reset_reduce"``: the row sums go to ``reduce_res``.

    Example::

        nisa.activation_reduce(out, np.exp, x, np.add, row_sum)
    """
    ...

def exponential(
    dst: Tile,
    src: Tile,
    max_value: Scalar = 0.0,
    reduce_res: Optional[Tile] = None,
    reduce_cmd: ReduceCmd = "idle",
    reduce_init: Scalar = 0.0,
    name: Optional[str] = None,
) -> RunReport:
    """``dst = exp(src - max_value)`` on the Vector engine (Exponential 0x30, mariana+);
    approximate. ``reduce_cmd`` sums the fp32 outputs per partition in the Vector
    accumulator (``load_reduce`` from ``reduce_init``); ``reduce_res`` receives it (0x9b).

    Example::

        nisa.exponential(out, x, max_value=row_max)
    """
    ...
