//! What a step returns: reports, warnings and faults.

use crate::numerics::NumError;
use std::fmt;
use std::ops::Range;
use tpb_isa::geometry::Space;
use tpb_isa::validate::Report;
use tpb_isa::{Dtype, Gen, Opcode};

/// Names an instruction in reports: its index in the stream, opcode and mnemonic.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InstId {
    /// Index in the program (for [`Machine::step`](crate::Machine::step): the number of
    /// instructions retired before it).
    pub index: usize,
    /// The opcode byte.
    pub opcode: Opcode,
    /// The assembler mnemonic, or `"unknown"` for an opcode not modelled on the generation.
    pub mnemonic: &'static str,
}

impl fmt::Display for InstId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "instruction #{} ({:#04x} {})",
            self.index, self.opcode.0, self.mnemonic
        )
    }
}

/// A rectangle of on-chip memory: a partition range and a byte range inside each
/// partition. For an instruction's writes it is the hull of the written elements.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Region {
    /// SBUF or PSUM.
    pub space: Space,
    /// Partitions touched.
    pub partitions: Range<u32>,
    /// Byte offsets inside each partition (end exclusive).
    pub bytes: Range<u64>,
}

impl fmt::Display for Region {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}[p{}..{}]+{:#x}..{:#x}",
            self.space.name(),
            self.partitions.start,
            self.partitions.end,
            self.bytes.start,
            self.bytes.end
        )
    }
}

/// What a warning is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum WarningKind {
    /// An element read had bytes never written (decisions §5.2).
    Uninitialised,
    /// PtrMulti read flops ImmLd did not load, or loaded with the other kind (decisions §3.6).
    LoaderMismatch,
    /// The instruction ran as the shipped log-only firmware stub (decisions §3.7).
    FirmwareStub,
    /// The result is exact per our documented choice, not known to be the hardware's bits
    /// (the PE summation order, decisions §6.2). `strict_exact` makes it a fault.
    ExactPerOurChoice,
    /// The result comes from a function the hardware evaluates from unpublished tables,
    /// computed here from its definition (decisions §6.2). `strict_exact` makes it a fault.
    Approximate,
    /// A DVE state consumer (DveReadAccumulator, FindIndex8, DveReadIndices, …) read
    /// hidden per-lane state no instruction has written (assumption `dve-lane-state`).
    DveStateUnset,
}

impl WarningKind {
    /// Whether the warning labels how exact a result is (decisions §6.2) rather than a
    /// hazard: `Config::strict_exact` decides about these, `Config::strict` about the rest.
    pub const fn is_exactness(self) -> bool {
        matches!(
            self,
            WarningKind::ExactPerOurChoice | WarningKind::Approximate
        )
    }

    /// A short lowercase tag.
    pub const fn tag(self) -> &'static str {
        match self {
            WarningKind::Uninitialised => "uninitialised-read",
            WarningKind::LoaderMismatch => "loader-mismatch",
            WarningKind::FirmwareStub => "firmware-stub",
            WarningKind::ExactPerOurChoice => "exact-per-our-order",
            WarningKind::Approximate => "approximate",
            WarningKind::DveStateUnset => "dve-state-unset",
        }
    }
}

/// A condition the hardware does not trap but a user wants to know about. In strict mode
/// ([`Config::strict`](crate::Config::strict)) it becomes a [`FaultCause::Strict`] fault.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Warning {
    /// The instruction.
    pub inst: InstId,
    /// The kind.
    pub kind: WarningKind,
    /// What happened, naming operands, partitions and offsets.
    pub message: String,
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: warning [{}]: {}",
            self.inst,
            self.kind.tag(),
            self.message
        )
    }
}

/// Why an instruction faulted. A fault changes no state (decisions §3.9).
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum FaultCause {
    /// The instruction fails validation for the machine's generation; every failing rule.
    Invalid {
        /// The validator's report (its failures are the rules that did not hold).
        report: Report,
    },
    /// A semaphore or event wait that one in-order stream can never satisfy (decisions §3.8).
    WaitUnsatisfied {
        /// What was waited for, e.g. `semaphore 3 >= 5 (semaphore is 2)`.
        detail: String,
    },
    /// An event update that conflicts with the event's state, or a `_REG` form naming a
    /// register that does not exist.
    Event {
        /// What went wrong.
        detail: String,
    },
    /// A form whose semantics are not public (decisions §3.10).
    Unsupported {
        /// What is not supported.
        what: String,
    },
    /// An opcode the headers define but disable (sunda 0x88).
    Disabled {
        /// Why.
        why: &'static str,
    },
    /// An element address leaves the active bytes of its partition, a partition leaves the
    /// machine, or a space does not exist on this generation (decisions §3.1).
    OutOfRange {
        /// The operand, e.g. `dst_mem_pattern`.
        operand: &'static str,
        /// Where and by how much.
        detail: String,
    },
    /// A register-resolved address that breaks the address rules (alignment, space).
    BadAddress {
        /// The operand.
        operand: &'static str,
        /// What is wrong.
        detail: String,
    },
    /// The ALU cannot evaluate the op (e.g. integer divide by zero, decisions §4.12).
    Numeric(NumError),
    /// More elements than [`Config::max_elements`](crate::Config::max_elements).
    Limit {
        /// Elements the instruction would process (all channels).
        elements: u128,
        /// The configured limit.
        limit: u64,
    },
    /// The instruction would take the run past [`Config::max_run_elements`](crate::Config::max_run_elements).
    Budget {
        /// Elements the instruction would process (all channels).
        elements: u128,
        /// Elements the run has processed so far.
        used: u64,
        /// The configured budget.
        budget: u64,
    },
    /// A write to HBM that would take the pages the machine holds past
    /// [`Config::max_hbm_held_bytes`](crate::Config::max_hbm_held_bytes).
    HbmPages {
        /// The operand.
        operand: &'static str,
        /// Bytes of HBM pages held before the instruction.
        held: u64,
        /// Bytes of new pages it needs (at least).
        more: u64,
        /// The limit.
        limit: u64,
    },
    /// A warning turned into an error by strict mode.
    Strict(WarningKind, String),
}

impl fmt::Display for FaultCause {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FaultCause::Invalid { report } => {
                let fails: Vec<String> = report.failures().map(|x| x.to_string()).collect();
                write!(
                    f,
                    "invalid on {}: {} failing rule{}",
                    report.gen,
                    fails.len(),
                    if fails.len() == 1 { "" } else { "s" }
                )?;
                for x in fails {
                    write!(f, "\n  {x}")?;
                }
                Ok(())
            }
            FaultCause::WaitUnsatisfied { detail } => write!(
                f,
                "wait can never be satisfied in one in-order stream: {detail}"
            ),
            FaultCause::Event { detail } => write!(f, "event/semaphore update: {detail}"),
            FaultCause::Unsupported { what } => {
                write!(f, "not supported: semantics not public: {what}")
            }
            FaultCause::Disabled { why } => write!(f, "disabled: {why}"),
            FaultCause::OutOfRange { operand, detail } => {
                write!(f, "{operand} out of range: {detail}")
            }
            FaultCause::BadAddress { operand, detail } => {
                write!(f, "{operand}: bad register-resolved address: {detail}")
            }
            FaultCause::Numeric(e) => write!(f, "{e}"),
            FaultCause::Limit { elements, limit } => write!(
                f,
                "{elements} elements exceed the simulator's per-instruction limit {limit} \
                 (Config::max_elements)"
            ),
            FaultCause::Budget {
                elements,
                used,
                budget,
            } => write!(
                f,
                "run budget exceeded: {elements} more elements after {used} would pass the \
                 budget of {budget} elements per run (`tpb run --max-run-elements`, \
                 Config::max_run_elements)"
            ),
            FaultCause::HbmPages {
                operand,
                held,
                more,
                limit,
            } => write!(
                f,
                "{operand}: writing it needs {more} or more bytes of new HBM blocks (1 KiB of data \
                 and its shadow per block written) on top of the {held} held, past the \
                 simulator's limit of {limit} bytes of HBM per machine \
                 (Config::max_hbm_held_bytes; a pattern scattered over a large HBM)"
            ),
            FaultCause::Strict(kind, msg) => write!(f, "strict mode: [{}] {msg}", kind.tag()),
        }
    }
}

/// A faulting instruction: which one, and why. The machine's state is unchanged.
#[derive(Clone, Debug, PartialEq)]
pub struct Fault {
    /// The instruction.
    pub inst: InstId,
    /// The cause.
    pub cause: FaultCause,
}

impl fmt::Display for Fault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.inst, self.cause)
    }
}

impl std::error::Error for Fault {}

impl Fault {
    /// Whether the fault is a [`FaultCause::Unsupported`].
    pub fn is_unsupported(&self) -> bool {
        matches!(self.cause, FaultCause::Unsupported { .. })
    }
}

/// What an instruction's handler tells the timing model beyond its operands (assumption
/// `engine-timing`; the formulas live in `engines::cost`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum CostShape {
    /// Priced from its opcode's formula and its operands alone.
    #[default]
    Elementwise,
    /// Matmul (isa-facts-pe-act-dma §1.13): `max(min(PE_MIN_II, stationary), moving)` cycles,
    /// × `PE_FP32_FACTOR` when the inputs are full fp32 (fp32_mode other than low/tf32) and
    /// it is not a transpose.
    Matmul {
        /// Moving elements per partition (the matmul's N).
        moving: u64,
        /// Stationary columns (the loaded weights' free size).
        stationary: u64,
        /// Full fp32 inputs.
        fp32: bool,
        /// transpose_mode 1: bits moved, no arithmetic (nc_transpose on the PE).
        transpose: bool,
    },
    /// LoadWeights (LoadStationary): the weights' free size (array columns).
    LoadWeights {
        /// Array columns loaded (elements per partition of the stationary tile).
        columns: u64,
        /// Full fp32 weights.
        fp32: bool,
    },
}

/// What one executed instruction did.
#[derive(Clone, Debug, PartialEq)]
pub struct StepReport {
    /// The instruction.
    pub inst: InstId,
    /// Elements processed, over all channels (for ImmLd: scalars loaded).
    pub elements: u64,
    /// The hull of the memory written, if any.
    pub written: Option<Region>,
    /// Bytes stored to memory (elements written × element size; repeated writes count).
    pub bytes_written: u64,
    /// Flop slots written: (channels, slots per channel), for ImmLd.
    pub flops_loaded: Option<(u32, u32)>,
    /// Warnings, in the order they were found.
    pub warnings: Vec<Warning>,
    /// The firmware's log line when the instruction ran as a stub.
    pub log: Option<&'static str>,
    /// Every memory operand it read or wrote, when access recording is on
    /// ([`Machine::set_access_recording`](crate::Machine::set_access_recording)); else empty.
    pub accesses: Vec<MemAccess>,
    /// How the timing model prices it.
    pub cost: CostShape,
}

/// One operand's memory footprint, for race detection: the same byte ranges in each of
/// `region.partitions`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MemAccess {
    /// The operand, e.g. `src_mem_pattern`.
    pub operand: &'static str,
    /// A write (else a read).
    pub write: bool,
    /// The hull: space, partitions, and the byte range the runs span.
    pub region: Region,
    /// The bytes touched inside each partition when they are more than one run: sorted,
    /// disjoint, non-empty ranges. Empty when the hull `region.bytes` is all of them (one
    /// contiguous run, or a walk of more than [`MAX_ACCESS_RUNS`] runs summarised by its hull,
    /// `exact` false, which may cover bytes the walk skips). [`MemAccess::byte_runs`] gives
    /// the list either way.
    pub runs: Vec<Range<u64>>,
    /// Whether the runs are exactly the bytes touched.
    pub exact: bool,
    /// The operand's walk as the timing model prices it (a tensor operand of a compute
    /// engine); `None` for DMA buffers and scalar pointers.
    pub shape: Option<OperandShape>,
}

/// A compute-engine tensor operand as the published cost formulas see it: N (its elements
/// per partition), its dtype, and the byte stride of its most-minor free dimension.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OperandShape {
    /// Elements per partition (the docs' N for this operand).
    pub elements: u64,
    /// The element type.
    pub dtype: Dtype,
    /// Bytes per element.
    pub elem_bytes: u64,
    /// Bytes between consecutive elements of the most-minor dimension (the element size
    /// when contiguous; 0 for a broadcast).
    pub stride_bytes: u64,
}

impl OperandShape {
    /// Physically contiguous elements in the most-minor free dimension (ARCH2's
    /// performance-mode condition 1c; also a single element).
    pub fn contiguous(&self) -> bool {
        self.elements <= 1 || self.stride_bytes == self.elem_bytes
    }
}

impl MemAccess {
    /// The bytes touched inside each partition as sorted, disjoint ranges.
    pub fn byte_runs(&self) -> &[Range<u64>] {
        if self.runs.is_empty() {
            std::slice::from_ref(&self.region.bytes)
        } else {
            &self.runs
        }
    }
}

/// The most byte runs a [`MemAccess`] lists before it is summarised by its hull.
pub const MAX_ACCESS_RUNS: usize = 4096;

impl fmt::Display for StepReport {
    /// One trace line: index, mnemonic, elements, bytes written, warnings.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "#{:<4} {:<22} elements {:>10}  bytes written {:>10}",
            self.inst.index, self.inst.mnemonic, self.elements, self.bytes_written
        )?;
        if let Some(r) = &self.written {
            write!(f, "  -> {r}")?;
        }
        if let Some((c, s)) = self.flops_loaded {
            write!(f, "  -> flops {c}×{s}")?;
        }
        if let Some(l) = self.log {
            write!(f, "  log \"{l}\"")?;
        }
        if !self.warnings.is_empty() {
            write!(f, "  warnings {}", self.warnings.len())?;
        }
        Ok(())
    }
}

/// What a run did: one report per instruction.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct RunReport {
    /// The step reports, in program order.
    pub steps: Vec<StepReport>,
}

impl RunReport {
    /// Instructions executed.
    pub fn instructions(&self) -> usize {
        self.steps.len()
    }

    /// Every warning of the run, in order.
    pub fn warnings(&self) -> impl Iterator<Item = &Warning> {
        self.steps.iter().flat_map(|s| s.warnings.iter())
    }

    /// Total elements processed.
    pub fn elements(&self) -> u64 {
        self.steps.iter().map(|s| s.elements).sum()
    }

    /// Total bytes written.
    pub fn bytes_written(&self) -> u64 {
        self.steps.iter().map(|s| s.bytes_written).sum()
    }
}

/// A tensor for the host API (the simulator's DMA): `partitions` consecutive partitions from
/// `start_partition`, each holding `elems_per_partition` contiguous elements of `dtype` from
/// `byte_offset`. Host bytes are partition-major (row `p` = partition `start_partition + p`),
/// like a C-ordered `[partitions, elems_per_partition]` array.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HostTensor {
    /// SBUF or PSUM.
    pub space: Space,
    /// First partition.
    pub start_partition: u32,
    /// Number of partitions.
    pub partitions: u32,
    /// Byte offset inside each partition.
    pub byte_offset: u64,
    /// Element type (any dtype with a byte size).
    pub dtype: Dtype,
    /// Elements per partition.
    pub elems_per_partition: u64,
}

impl HostTensor {
    /// An empty tensor (no elements, byte offset 0) on `partitions` of `space`; name the rest
    /// with [`HostTensor::offset`] and [`HostTensor::elements`]:
    ///
    /// ```
    /// use tpb_isa::{geometry::Space, Dtype};
    /// use tpb_sim::HostTensor;
    /// let t = HostTensor::at(Space::Sbuf, 0..2).offset(0x100).elements(Dtype::FP32, 4);
    /// assert_eq!((t.partitions, t.byte_offset, t.len()), (2, 0x100, Some(32)));
    /// ```
    pub const fn at(space: Space, partitions: Range<u32>) -> HostTensor {
        HostTensor {
            space,
            start_partition: partitions.start,
            partitions: partitions.end.saturating_sub(partitions.start),
            byte_offset: 0,
            dtype: Dtype::UINT8,
            elems_per_partition: 0,
        }
    }

    /// An empty HBM tensor at byte address `addr`: HBM has no partitions, so the tensor is
    /// one row (partition 0) of contiguous bytes; name its elements with
    /// [`HostTensor::elements`]. A tensor of several rows in HBM lays them one after another.
    ///
    /// ```
    /// use tpb_isa::{geometry::Space, Dtype};
    /// use tpb_sim::HostTensor;
    /// let t = HostTensor::hbm(0x1000).elements(Dtype::FP32, 64);
    /// assert_eq!((t.space, t.byte_offset, t.len()), (Space::Hbm, 0x1000, Some(256)));
    /// ```
    pub const fn hbm(addr: u64) -> HostTensor {
        HostTensor::at(Space::Hbm, 0..1).offset(addr)
    }

    /// The same tensor starting at byte `byte_offset` of each partition.
    pub const fn offset(self, byte_offset: u64) -> HostTensor {
        HostTensor {
            byte_offset,
            ..self
        }
    }

    /// The same tensor holding `per_partition` elements of `dtype` in each partition.
    pub const fn elements(self, dtype: Dtype, per_partition: u64) -> HostTensor {
        HostTensor {
            dtype,
            elems_per_partition: per_partition,
            ..self
        }
    }

    /// The partition range.
    pub const fn partition_range(&self) -> Range<u32> {
        self.start_partition..self.start_partition.saturating_add(self.partitions)
    }

    /// Bytes per partition, if `dtype` has a byte size and the product fits.
    pub fn row_bytes(&self) -> Option<u64> {
        self.elems_per_partition
            .checked_mul(self.dtype.size()? as u64)
    }

    /// Total host bytes.
    pub fn len(&self) -> Option<u64> {
        self.row_bytes()?.checked_mul(u64::from(self.partitions))
    }

    /// Whether the tensor holds no bytes.
    pub fn is_empty(&self) -> bool {
        self.len() == Some(0)
    }
}

/// The end of [`HostError::HbmSpan`]'s message: the configured HBM it is outside, when known.
fn hbm_size_text(size: Option<u64>) -> String {
    match size {
        Some(size) => {
            format!("outside the {size:#x}-byte HBM (Config::hbm_bytes, `tpb run --hbm-bytes`)")
        }
        None => "more than any HBM".into(),
    }
}

/// A host-API request the machine cannot serve. Nothing is changed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum HostError {
    /// The generation has no such space (maverick has no PSUM).
    #[error("{gen} has no {}", space.name())]
    NoSuchSpace {
        /// The generation.
        gen: Gen,
        /// The space.
        space: Space,
    },
    /// The dtype has no byte size (sub-byte, packed or unknown).
    #[error("dtype {0} has no byte size")]
    Dtype(Dtype),
    /// Partitions outside 0..128.
    #[error("partitions {start}..{end} are outside 0..{max}")]
    Partitions {
        /// First partition.
        start: u64,
        /// End (exclusive).
        end: u64,
        /// Partition count.
        max: u32,
    },
    /// Bytes outside the active bytes of a partition.
    #[error("bytes {start:#x}..{end:#x} are outside the {active:#x} active bytes of a {space} partition", space = space.name())]
    Bytes {
        /// The space.
        space: Space,
        /// First byte.
        start: u64,
        /// End (exclusive).
        end: u64,
        /// Active bytes per partition.
        active: u64,
    },
    /// Bytes outside the configured HBM ([`Config::hbm_bytes`](crate::Config::hbm_bytes)).
    #[error("hbm bytes {start:#x}..{end:#x} are outside the {size:#x}-byte HBM (Config::hbm_bytes, `tpb run --hbm-bytes`)")]
    Hbm {
        /// First byte.
        start: u64,
        /// End (exclusive).
        end: u64,
        /// The HBM size.
        size: u64,
    },
    /// An HBM region that ends past 2^64 (its byte count, or its start plus that, overflows
    /// 64 bits, so no end address exists). `size` is the
    /// configured HBM when the check knew it (every [`Machine`](crate::Machine) method), else
    /// `None` (a generation-only check, [`HostTensor::check`](crate::HostTensor::check)).
    #[error("hbm bytes from {start:#x} end past 2^64, {}", hbm_size_text(*size))]
    HbmSpan {
        /// First byte.
        start: u64,
        /// The HBM size, when known.
        size: Option<u64>,
    },
    /// The host buffer has the wrong length.
    #[error("host buffer has {got} bytes, the tensor needs {want}")]
    Length {
        /// Bytes given.
        got: u64,
        /// Bytes needed.
        want: u64,
    },
    /// An index outside a register, semaphore, event or channel file.
    #[error("{what} index {index} is outside 0..{max}")]
    Index {
        /// Which file.
        what: &'static str,
        /// The index.
        index: usize,
        /// Its size.
        max: usize,
    },
    /// A host read or write of more bytes than one transfer may move
    /// ([`MAX_HOST_TRANSFER_BYTES`](crate::MAX_HOST_TRANSFER_BYTES)), or than the host could
    /// allocate.
    #[error("a host transfer of {bytes} bytes is too large: {why} (move it in parts)")]
    TooLarge {
        /// Bytes asked for.
        bytes: u64,
        /// Why it was refused.
        why: String,
    },
    /// A host write to HBM that would take the pages the machine holds past
    /// [`Config::max_hbm_held_bytes`](crate::Config::max_hbm_held_bytes).
    #[error("the write needs {more} or more bytes of new HBM blocks on top of the {held} held, past the simulator's limit of {limit} bytes of HBM per machine (Config::max_hbm_held_bytes)")]
    HbmPages {
        /// Bytes of HBM pages held before the write.
        held: u64,
        /// Bytes of new pages it needs (at least).
        more: u64,
        /// The limit.
        limit: u64,
    },
}
