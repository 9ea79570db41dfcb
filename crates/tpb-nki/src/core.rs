//! The core: a simulated machine, a tile allocator and the program the calls emitted.

use crate::build::{self, Scalar};
use crate::names::Cmp;
use crate::tile::Tile;
use crate::Operand;
use tpb_isa::geometry::Space;
use tpb_isa::text::disasm;
use tpb_isa::validate::Report;
use tpb_isa::wire::{encode_program, ImmVal};
use tpb_isa::{AluOp, Dtype, Gen, ImmSrc, Instruction};
use tpb_sim::dma::{dma_copy_instruction, DmaOptions, DmaPlace, DmaView};
use tpb_sim::engines::queue::default_dma_issuer;
use tpb_sim::engines::EngineId;
use tpb_sim::numerics::from_f32;
use tpb_sim::{Config, Fault, FaultCause, HostError, Machine, StepReport};

/// Tiles are placed at offsets aligned to this many bytes (our choice; see the crate docs).
const TILE_ALIGN: u64 = 64;
/// Registers for constants are allocated from here downwards (our choice), at most
/// [`MAX_CONSTANT_REGISTERS`] of them; registers below stay the user's.
const FIRST_CONSTANT_REGISTER: u8 = 63;
const MAX_CONSTANT_REGISTERS: usize = 32;

/// Why an NKI-shaped call could not be emitted or run. Nothing was emitted and no state
/// changed.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum NkiError {
    /// A tile or operand shape the call cannot take.
    #[error("{operand}: {detail}")]
    Shape {
        /// The argument.
        operand: &'static str,
        /// What is wrong.
        detail: String,
    },
    /// The compiler's packer refused the operand's access pattern.
    #[error("{operand}: {detail}")]
    Pack {
        /// The argument.
        operand: &'static str,
        /// The packer's error.
        detail: String,
    },
    /// A `pattern` argument that no DATA4D holds.
    #[error("pattern: {detail}")]
    Pattern {
        /// What is wrong.
        detail: String,
    },
    /// An operator name that is not known, or not usable in this call.
    #[error("{argument}: {detail}")]
    Operator {
        /// The argument.
        argument: &'static str,
        /// What is wrong.
        detail: String,
    },
    /// A scalar value the instruction cannot carry.
    #[error("{argument}: {detail}")]
    Value {
        /// The argument.
        argument: &'static str,
        /// What is wrong.
        detail: String,
    },
    /// No room for a tile.
    #[error(
        "cannot allocate {want} bytes per partition in {space}: {free} of {total} bytes are free",
        space = space.name()
    )]
    OutOfMemory {
        /// The space.
        space: Space,
        /// Bytes per partition asked for.
        want: u64,
        /// Bytes per partition still free.
        free: u64,
        /// Active bytes per partition.
        total: u64,
    },
    /// No register left for a constant.
    #[error("no register left for constant {bits:#010x}: registers 0..={lowest} are the user's")]
    Registers {
        /// The constant's bits.
        bits: u32,
        /// The lowest register tpb may use.
        lowest: u8,
    },
    /// A form tpb refuses because its semantics are not public, or the ISA has no encoding.
    #[error("not supported: {what}")]
    NotSupported {
        /// What is not supported.
        what: String,
    },
    /// The instruction the call built fails validation on the core's generation.
    #[error("{mnemonic} is invalid on {}: {}", report.gen, first_failure(report))]
    Invalid {
        /// The instruction's mnemonic.
        mnemonic: String,
        /// The instruction as built.
        inst: Box<Instruction>,
        /// Every failing rule.
        report: Report,
    },
    /// The simulator faulted (state unchanged).
    #[error("{0}")]
    Fault(Fault),
    /// A host read or write the machine cannot serve.
    #[error("{0}")]
    Host(#[from] HostError),
}

fn first_failure(report: &Report) -> String {
    let mut fails = report.failures();
    match (fails.next(), fails.count()) {
        (Some(f), 0) => format!(
            "{}: {} (`{}` = {})",
            f.rule.name, f.rule.clause, f.field, f.value
        ),
        (Some(f), more) => format!(
            "{}: {} (`{}` = {}) and {more} more",
            f.rule.name, f.rule.clause, f.field, f.value
        ),
        (None, _) => "no failing rule".into(),
    }
}

/// A simulated NeuronCore for NKI-shaped calls.
#[derive(Clone, Debug)]
pub struct Core {
    machine: Machine,
    program: Vec<Instruction>,
    /// Constants placed in registers, in the order they were set: (register, bits).
    constants: Vec<(u8, u32)>,
    /// Next free byte per partition: [sbuf, psum]; for HBM, the next free address.
    next_free: [u64; 3],
    /// `.engine` placements of DMA requests (program index, engine).
    placements: Vec<(usize, Option<EngineId>)>,
}

fn space_index(space: Space) -> usize {
    match space {
        Space::Sbuf => 0,
        Space::Psum => 1,
        Space::Hbm => 2,
    }
}

impl Core {
    /// A core of `gen` with the default machine configuration.
    pub fn new(gen: Gen) -> Core {
        Core::with_config(Config::new(gen))
    }

    /// A core with an explicit machine configuration (strict mode, FP8 variants, limits).
    pub fn with_config(config: Config) -> Core {
        Core {
            machine: Machine::new(config),
            program: Vec::new(),
            constants: Vec::new(),
            next_free: [0; 3],
            placements: Vec::new(),
        }
    }

    /// The generation.
    pub fn gen(&self) -> Gen {
        self.machine.gen()
    }

    /// The simulated machine (read-only).
    pub fn machine(&self) -> &Machine {
        &self.machine
    }

    /// The simulated machine, for host writes the calls do not cover (it bypasses the
    /// constant-register reservation of [`Core::set_register`]).
    pub fn machine_mut(&mut self) -> &mut Machine {
        &mut self.machine
    }

    /// The instructions emitted so far, in order.
    pub fn program(&self) -> &[Instruction] {
        &self.program
    }

    /// The emitted program as bundles (64 bytes each).
    pub fn bundles(&self) -> Vec<u8> {
        encode_program(&self.program)
    }

    /// The emitted program as `tpb run` program text: the generation, `.reg` lines for the
    /// registers the calls placed constants in (each is set once and never changes, so they
    /// all come first), then one canonical line per instruction.
    pub fn disasm(&self) -> String {
        let mut s = format!(".gen {}\n", self.gen());
        for &(r, bits) in &self.constants {
            s.push_str(&format!(".reg {r} = {bits:#010x}\n"));
        }
        let mut placed = self.placements.iter().peekable();
        for (k, i) in self.program.iter().enumerate() {
            while let Some((_, e)) = placed.next_if(|p| p.0 == k) {
                s.push_str(&format!(".engine {}\n", e.map_or("auto", |e| e.name())));
            }
            s.push_str(&disasm(i, self.gen()));
            s.push('\n');
        }
        s
    }

    /// Allocates a tile of `shape` (partition dimension first, at most 128) in `space`.
    pub fn ndarray(
        &mut self,
        shape: &[usize],
        dtype: Dtype,
        space: Space,
    ) -> Result<Tile, NkiError> {
        let (tile, next) = self.place(shape, dtype, space)?;
        self.next_free[space_index(space)] = next;
        Ok(tile)
    }

    /// Whether [`Core::ndarray`] would allocate such a tile now (nothing is allocated): a
    /// caller can check a shape before gathering the data for it.
    pub fn check_ndarray(
        &self,
        shape: &[usize],
        dtype: Dtype,
        space: Space,
    ) -> Result<(), NkiError> {
        self.place(shape, dtype, space).map(|_| ())
    }

    /// The tile [`Core::ndarray`] allocates, and the next free offset after it.
    fn place(&self, shape: &[usize], dtype: Dtype, space: Space) -> Result<(Tile, u64), NkiError> {
        let bad = |detail: String| NkiError::Shape {
            operand: "shape",
            detail,
        };
        if space == Space::Hbm {
            return self.hbm_place(shape, dtype);
        }
        let (&p, free) = shape
            .split_first()
            .ok_or_else(|| bad("a tile needs at least the partition dimension".into()))?;
        if !(1..=128).contains(&p) {
            return Err(bad(format!("partition dimension {p} is not in 1..=128")));
        }
        let size = dtype
            .size()
            .ok_or_else(|| bad(format!("dtype {dtype} has no byte size")))?;
        let row = free
            .iter()
            .try_fold(size as u64, |acc, &d| acc.checked_mul(d as u64))
            .ok_or_else(|| bad(format!("shape {shape:?} overflows")))?;
        if row == 0 {
            return Err(bad(format!("shape {shape:?} has no elements")));
        }
        let total = build::space_bytes(self.gen(), space);
        let at = self.next_free[space_index(space)];
        let free_bytes = total.saturating_sub(at);
        if total == 0 || row > free_bytes {
            return Err(NkiError::OutOfMemory {
                space,
                want: row,
                free: free_bytes,
                total,
            });
        }
        let tile = Tile {
            space,
            start_partition: 0,
            offset: at,
            dtype,
            shape: shape.to_vec(),
        };
        Ok((tile, (at + row).div_ceil(TILE_ALIGN) * TILE_ALIGN))
    }

    /// The HBM tensor of `shape` (any rank, C order, contiguous) [`Core::place`] allocates
    /// and the next free address: addresses are bump-allocated at 64-byte alignment within
    /// the machine's HBM (`Config::hbm_bytes`).
    fn hbm_place(&self, shape: &[usize], dtype: Dtype) -> Result<(Tile, u64), NkiError> {
        let bad = |detail: String| NkiError::Shape {
            operand: "shape",
            detail,
        };
        let size = dtype
            .size()
            .ok_or_else(|| bad(format!("dtype {dtype} has no byte size")))?;
        let bytes = shape
            .iter()
            .try_fold(size as u64, |acc, &d| acc.checked_mul(d as u64))
            .filter(|&b| b > 0)
            .ok_or_else(|| bad(format!("shape {shape:?} has no elements or overflows")))?;
        let total = self.machine.hbm_size();
        let at = self.next_free[space_index(Space::Hbm)];
        let free_bytes = total.saturating_sub(at);
        if bytes > free_bytes {
            return Err(NkiError::OutOfMemory {
                space: Space::Hbm,
                want: bytes,
                free: free_bytes,
                total,
            });
        }
        let tile = Tile {
            space: Space::Hbm,
            start_partition: 0,
            offset: at,
            dtype,
            shape: shape.to_vec(),
        };
        Ok((tile, (at + bytes).div_ceil(TILE_ALIGN) * TILE_ALIGN))
    }

    /// `nki.isa.dma_copy(dst, src, engine=…)`: copies `src` to `dst` (HBM ↔ SBUF, HBM ↔ HBM,
    /// SBUF ↔ SBUF; equal element counts; a dtype change converts through fp32) with one
    /// DMAMEMCPY issued on `engine` (SP or ACT with the hardware DGE, POOL with the software
    /// DGE; `None`: the default issuer, SP — POOL on sunda). The request bumps semaphore
    /// `semaphore` when its data has landed (0 = no semaphore). The data is moved at once
    /// (the kernel's eager run); [`Core::placements`] records the queue for a scheduled rerun.
    pub fn dma_copy(
        &mut self,
        dst: &Tile,
        src: &Tile,
        engine: Option<EngineId>,
        semaphore: Option<u8>,
    ) -> Result<StepReport, NkiError> {
        self.dma_copy_with(dst, src, engine, semaphore, 0)
    }

    /// [`Core::dma_copy`] with a `priority_class` (NKI `priority`, 0..=3 on NC-v4+; tpb
    /// writes it to `DMA_CONFIGS.priority_class` as it is).
    pub fn dma_copy_with(
        &mut self,
        dst: &Tile,
        src: &Tile,
        engine: Option<EngineId>,
        semaphore: Option<u8>,
        priority: u8,
    ) -> Result<StepReport, NkiError> {
        let mut opts = semaphore.map_or(DmaOptions::default(), DmaOptions::signal);
        opts.priority = priority;
        self.dma_copy_opts(&dst.dma_view(), &src.dma_view(), engine, opts)
    }

    /// [`Core::dma_copy`] on explicit views (NKI `.ap()` patterns, [`tpb_sim::dma::DmaView`]).
    pub fn dma_copy_view(
        &mut self,
        dst: &DmaView,
        src: &DmaView,
        engine: Option<EngineId>,
        semaphore: Option<u8>,
    ) -> Result<StepReport, NkiError> {
        let opts = semaphore.map_or(DmaOptions::default(), DmaOptions::signal);
        self.dma_copy_opts(dst, src, engine, opts)
    }

    /// [`Core::dma_copy_view`] with every DMA option ([`DmaOptions`]).
    pub fn dma_copy_opts(
        &mut self,
        dst: &DmaView,
        src: &DmaView,
        engine: Option<EngineId>,
        opts: DmaOptions,
    ) -> Result<StepReport, NkiError> {
        if matches!(
            src.place,
            DmaPlace::OnChip {
                space: Space::Psum,
                ..
            }
        ) {
            return Err(NkiError::Shape {
                operand: "src",
                detail: "a PSUM source is not supported by dma_copy (NKI 0.3.0+); copy to \
                         SBUF first"
                    .into(),
            });
        }
        let gen = self.gen();
        let engine = engine.unwrap_or(default_dma_issuer(gen));
        if !engine.issues_dma(gen) {
            return Err(NkiError::Value {
                argument: "engine",
                detail: format!(
                    "{engine} does not issue DMA on {gen}: SP or ACT (hardware DGE, cayman+) \
                     or POOL (software DGE)"
                ),
            });
        }
        let inst = dma_copy_instruction(gen, dst, src, opts).map_err(|e| NkiError::Shape {
            operand: "dma_copy",
            detail: e.to_string(),
        })?;
        let at = self.program.len();
        let r = self.emit(inst, &[])?;
        // `.engine NAME` before the request, `.engine auto` after it.
        self.placements.push((at, Some(engine)));
        self.placements.push((at + 1, None));
        Ok(r)
    }

    /// `nl.load(src)`: a new SBUF tile of `src`'s shape (its first dim the partitions) and
    /// `dtype` (default `src`'s), filled by one DMA from HBM.
    pub fn load(&mut self, src: &Tile, dtype: Option<Dtype>) -> Result<Tile, NkiError> {
        let t = self.ndarray(&src.shape, dtype.unwrap_or(src.dtype), Space::Sbuf)?;
        self.dma_copy(&t, src, None, None)?;
        Ok(t)
    }

    /// `nl.store(dst, value)`: one DMA from an SBUF tile to HBM (a PSUM value is refused, as
    /// NKI does: copy it to SBUF first).
    pub fn store(&mut self, dst: &Tile, value: &Tile) -> Result<StepReport, NkiError> {
        self.dma_copy(dst, value, None, None)
    }

    /// The `.engine` placements of the emitted program (program index, engine), for
    /// [`tpb_sim::engines::place`]: every DMA request's issuing queue.
    pub fn placements(&self) -> &[(usize, Option<EngineId>)] {
        &self.placements
    }

    /// Sets register `n` for instructions the caller builds. Registers
    /// `FIRST_CONSTANT_REGISTER - 31 ..= 63` hold the calls' constants and are refused.
    pub fn set_register(&mut self, n: usize, bits: u32) -> Result<(), NkiError> {
        let reserved = usize::from(FIRST_CONSTANT_REGISTER) + 1 - MAX_CONSTANT_REGISTERS;
        if n >= reserved && n <= usize::from(FIRST_CONSTANT_REGISTER) {
            return Err(NkiError::Value {
                argument: "register",
                detail: format!(
                    "register {n} is reserved for the constants tpb.nki calls place \
                     (registers {reserved}..={FIRST_CONSTANT_REGISTER}); use 0..{reserved}"
                ),
            });
        }
        Ok(self.machine.set_register(n, bits)?)
    }

    /// Writes a tile's elements (raw little-endian element bytes, C order).
    pub fn write(&mut self, tile: &Tile, bytes: &[u8]) -> Result<(), NkiError> {
        Ok(self.machine.write_tensor(&tile.host(), bytes)?)
    }

    /// Reads a tile's elements (raw little-endian element bytes, C order).
    pub fn read(&self, tile: &Tile) -> Result<Vec<u8>, NkiError> {
        Ok(self.machine.read_tensor(&tile.host())?)
    }

    /// `nki.isa.iota(dst, pattern, offset=0, channel_multiplier=0)`:
    /// `dst[c, …] = offset + c·channel_multiplier + Σ index·step` in int32, cast to dst's dtype.
    pub fn iota(
        &mut self,
        dst: &Tile,
        pattern: &[[i64; 2]],
        offset: i64,
        channel_multiplier: i64,
    ) -> Result<StepReport, NkiError> {
        gpsimd_sbuf(dst, "dst")?;
        let d = build::data4d(pattern, offset)?;
        let cm = int32("channel_multiplier", channel_multiplier)?;
        let i = build::iota(self.gen(), dst, d, cm)?;
        self.emit(i, &[])
    }

    /// `nki.isa.affine_select(dst, pattern, channel_multiplier, on_true_tile, on_false_value,
    /// cmp_op=equal, offset=0)`: keep `on_true_tile` where the affine value compares true
    /// with 0, else the FP32 `on_false_value`.
    #[allow(clippy::too_many_arguments)]
    pub fn affine_select(
        &mut self,
        dst: &Tile,
        pattern: &[[i64; 2]],
        channel_multiplier: i64,
        on_true_tile: &Tile,
        on_false_value: f64,
        cmp_op: Cmp,
        offset: i64,
    ) -> Result<StepReport, NkiError> {
        same_partitions(dst, on_true_tile, "on_true_tile")?;
        let cmp = cmp_op
            .affine_select_cmp()
            .ok_or_else(|| NkiError::NotSupported {
                what: format!(
                    "affine_select cmp_op={cmp_op}: AFFINE_SELECT_CMP encodes only greater, \
                 greater_equal, equal and not_equal (negate pattern, offset and \
                 channel_multiplier and use greater / greater_equal)"
                ),
            })?;
        let d = build::data4d(pattern, offset)?;
        let cm = int32("channel_multiplier", channel_multiplier)?;
        let fill = fp32("on_false_value", on_false_value)?;
        let reg = self.constant_register(fill.to_bits())?;
        let i = build::affine_select(self.gen(), dst, on_true_tile, d, cm, cmp, reg.register);
        let i = match i {
            Ok(i) => i,
            Err(e) => {
                self.emit_failed(&[reg]);
                return Err(e);
            }
        };
        self.emit(i, &[reg])
    }

    /// `nki.isa.tensor_scalar(dst, data, op0, operand0, reverse0=False, op1=None,
    /// operand1=None, reverse1=False)`: `(data op0 operand0) op1 operand1`, both ops of one
    /// class (arithmetic in FP32, or bitvec on integer bits).
    #[allow(clippy::too_many_arguments)]
    pub fn tensor_scalar(
        &mut self,
        dst: &Tile,
        data: &Tile,
        op0: AluOp,
        operand0: Option<&Operand>,
        reverse0: bool,
        op1: Option<AluOp>,
        operand1: Option<&Operand>,
        reverse1: bool,
    ) -> Result<StepReport, NkiError> {
        same_partitions(dst, data, "data")?;
        if op1.is_none() && operand1.is_some() {
            return Err(NkiError::Operator {
                argument: "operand1",
                detail: "given without op1 (NKI: both must be None when unused)".into(),
            });
        }
        if op1.is_some() && operand1.is_none() {
            return Err(NkiError::Operator {
                argument: "op1",
                detail: "given without operand1 (NKI: op1 needs its operand)".into(),
            });
        }
        let op1v = op1.unwrap_or(AluOp::BYPASS);
        let bitvec = op0.is_bitvec_op() && op0 != AluOp::BYPASS
            || op1.is_some_and(|o| o.is_bitvec_op() && o != AluOp::BYPASS);
        let gen = self.gen();
        let s0 = scalar(gen, operand0, bitvec, "operand0", dst)?;
        let s1 = scalar(gen, operand1, bitvec, "operand1", dst)?;
        let i = build::tensor_scalar(
            gen,
            dst,
            data,
            bitvec,
            [op0, op1v],
            [s0, s1],
            [reverse0, reverse1],
        )?;
        self.emit(i, &[])
    }

    /// `nki.isa.range_select(dst, on_true_tile, comp_op0, comp_op1, bound0, bound1,
    /// range_start=0, on_false_value=-3.4028235e38, reduce_cmd="idle")`: keep element `k`
    /// where `(range_start + k) comp_op0 bound0` and `… comp_op1 bound1` (FP32), else fill.
    /// Only `reduce_cmd = "idle"` runs: the running max's read-out is not public.
    #[allow(clippy::too_many_arguments)]
    pub fn range_select(
        &mut self,
        dst: &Tile,
        on_true_tile: &Tile,
        comp_op0: Cmp,
        comp_op1: Cmp,
        bound0: &Operand,
        bound1: &Operand,
        range_start: f64,
        on_false_value: f64,
        reduce_cmd: &str,
    ) -> Result<StepReport, NkiError> {
        if reduce_cmd != "idle" {
            return Err(NkiError::NotSupported {
                what: format!(
                    "range_select reduce_cmd={reduce_cmd:?}: the running max's read-out is not \
                     public; only \"idle\" runs"
                ),
            });
        }
        same_partitions(dst, on_true_tile, "on_true_tile")?;
        let gen = self.gen();
        let b0 = scalar(gen, Some(bound0), false, "bound0", dst)?;
        let b1 = scalar(gen, Some(bound1), false, "bound1", dst)?;
        let base = fp32("range_start", range_start)?;
        let fill = fp32("on_false_value", on_false_value)?;
        let comps = [comp_op0.alu_op(), comp_op1.alu_op()];
        let i = build::range_select(gen, dst, on_true_tile, comps, [b0, b1], base, fill)?;
        self.emit(i, &[])
    }

    /// TensorScalarSelect as a call: `dst = predicate ? on_true_tile : on_false_value`
    /// (swapped with `reverse_pred`). The predicate is one value per partition — an integer
    /// `(P, 1)` tile of the data's width — or a constant 0/1; `on_false_value` is a scalar
    /// (encoded in the data's dtype) or a `(P, 1)` tile. A copy: no cast, one dtype.
    pub fn select(
        &mut self,
        dst: &Tile,
        predicate: &Operand,
        on_true_tile: &Tile,
        on_false_value: &Operand,
        reverse_pred: bool,
    ) -> Result<StepReport, NkiError> {
        same_partitions(dst, on_true_tile, "on_true_tile")?;
        if dst.dtype != on_true_tile.dtype {
            // TensorScalarSelect has one dtype for src0, src1 and dst (a copy, no cast).
            return Err(NkiError::Shape {
                operand: "dst",
                detail: format!(
                    "select copies without a cast: dst is {} but on_true_tile is {}",
                    dst.dtype, on_true_tile.dtype
                ),
            });
        }
        let gen = self.gen();
        let dtype = on_true_tile.dtype;
        let (pred, pred_dtype) = match predicate {
            Operand::Tile(t) => (
                scalar(gen, Some(predicate), true, "predicate", dst)?,
                t.dtype,
            ),
            Operand::Imm(v) if *v == 0.0 || *v == 1.0 => (
                Scalar {
                    src: ImmSrc::INSTRUCTION,
                    imm: ImmVal(*v as u32),
                },
                same_width_int(dtype),
            ),
            Operand::Bits(b @ (0 | 1)) => (
                Scalar {
                    src: ImmSrc::INSTRUCTION,
                    imm: ImmVal(*b),
                },
                same_width_int(dtype),
            ),
            _ => {
                return Err(NkiError::Value {
                    argument: "predicate",
                    detail: "an inline predicate must be 0 or 1 (or a (P, 1) integer tile)".into(),
                })
            }
        };
        let src1 = match on_false_value {
            Operand::Imm(v) => Scalar {
                src: ImmSrc::INSTRUCTION,
                imm: ImmVal(element_bits(self, dtype, *v)?),
            },
            other => scalar(gen, Some(other), true, "on_false_value", dst)?,
        };
        let i = build::select(gen, dst, on_true_tile, src1, pred, pred_dtype, reverse_pred)?;
        self.emit(i, &[])
    }

    /// Validates `inst` for the core's generation, runs it, and appends it to the program.
    /// On any error nothing is appended and no state changes: the constant registers this
    /// call placed (`placed`) get their previous values back.
    /// The machine validates before anything runs, so an invalid instruction comes back as
    /// a fault carrying the validator's report.
    fn emit(&mut self, inst: Instruction, placed: &[Placed]) -> Result<StepReport, NkiError> {
        match self.machine.step_at(self.program.len(), &inst) {
            Ok(r) => {
                self.program.push(inst);
                Ok(r)
            }
            Err(fault) => {
                self.emit_failed(placed);
                Err(match fault.cause {
                    FaultCause::Invalid { report } => NkiError::Invalid {
                        mnemonic: fault.inst.mnemonic.to_string(),
                        inst: Box::new(inst),
                        report,
                    },
                    _ => NkiError::Fault(fault),
                })
            }
        }
    }

    /// Undoes the constant registers a failed call placed.
    fn emit_failed(&mut self, placed: &[Placed]) {
        for p in placed.iter().filter(|p| p.fresh) {
            // The register index came from this core's own allocation: always in range.
            let _ = self
                .machine
                .set_register(usize::from(p.register), p.previous);
            self.constants.retain(|&(r, _)| r != p.register);
        }
    }

    /// The register holding `bits`: one placed earlier, or a new one from 63 downwards.
    fn constant_register(&mut self, bits: u32) -> Result<Placed, NkiError> {
        if let Some(&(register, _)) = self.constants.iter().find(|&&(_, b)| b == bits) {
            return Ok(Placed {
                register,
                fresh: false,
                previous: bits,
            });
        }
        if self.constants.len() >= MAX_CONSTANT_REGISTERS {
            return Err(NkiError::Registers {
                bits,
                lowest: FIRST_CONSTANT_REGISTER - MAX_CONSTANT_REGISTERS as u8,
            });
        }
        let register = FIRST_CONSTANT_REGISTER - self.constants.len() as u8;
        let previous = self.machine.registers()[usize::from(register)];
        self.machine.set_register(usize::from(register), bits)?;
        self.constants.push((register, bits));
        Ok(Placed {
            register,
            fresh: true,
            previous,
        })
    }
}

/// A constant register used by one call.
#[derive(Clone, Copy, Debug)]
struct Placed {
    register: u8,
    /// Placed by this call (so undone if the call fails).
    fresh: bool,
    /// The register's value before.
    previous: u32,
}

/// NKI: `iota` and `affine_select` run on GpSimd, which cannot access PSUM (the ISA allows
/// Iota into PSUM, and AffineSelect on sunda; the NKI calls do not).
fn gpsimd_sbuf(tile: &Tile, operand: &'static str) -> Result<(), NkiError> {
    if tile.space != Space::Sbuf {
        return Err(NkiError::Shape {
            operand,
            detail: format!(
                "{} is in {}; NKI's GpSimd calls (iota, affine_select) take SBUF tiles only",
                tile,
                tile.space.name()
            ),
        });
    }
    Ok(())
}

fn same_partitions(dst: &Tile, src: &Tile, operand: &'static str) -> Result<(), NkiError> {
    if dst.partitions() != src.partitions() {
        return Err(NkiError::Shape {
            operand,
            detail: format!(
                "{} partitions, but dst has {} (NKI: partition sizes must be equal)",
                src.partitions(),
                dst.partitions()
            ),
        });
    }
    Ok(())
}

fn int32(argument: &'static str, v: i64) -> Result<i32, NkiError> {
    i32::try_from(v)
        .or_else(|_| u32::try_from(v).map(|u| u as i32))
        .map_err(|_| NkiError::Value {
            argument,
            detail: format!("{v} is not a 32-bit integer"),
        })
}

/// A finite float must stay finite as FP32 (NKI's scalars are float32).
fn fp32(argument: &'static str, v: f64) -> Result<f32, NkiError> {
    let f = v as f32;
    if v.is_finite() && !f.is_finite() {
        return Err(NkiError::Value {
            argument,
            detail: format!("{v} is outside the float32 range (write inf to mean infinity)"),
        });
    }
    Ok(f)
}

/// The integer dtype of the same width as `dtype` (TensorScalarSelect's `pred_imm_dtype`).
fn same_width_int(dtype: Dtype) -> Dtype {
    match dtype.size() {
        Some(1) => Dtype::UINT8,
        Some(2) => Dtype::UINT16,
        _ => Dtype::UINT32,
    }
}

/// `v` encoded as one element of `dtype` (RNE for floats, as the datapath converts). An
/// integer dtype takes only a whole number it holds: no silent saturation (issue 20 item 14).
fn element_bits(core: &Core, dtype: Dtype, v: f64) -> Result<u32, NkiError> {
    if let Some(range) = integer_range(dtype) {
        if v.fract() != 0.0 || !(range.0 as f64..=range.1 as f64).contains(&v) {
            return Err(NkiError::Value {
                argument: "on_false_value",
                detail: format!(
                    "{v} is not a {dtype} value (whole numbers {}..={}); the tile's dtype \
                     holds the fill as it is",
                    range.0, range.1
                ),
            });
        }
        // Two's complement bits of the element's width.
        let bits = (v as i64) as u32;
        let width = dtype.size().unwrap_or(4) * 8;
        return Ok(if width >= 32 {
            bits
        } else {
            bits & ((1u32 << width) - 1)
        });
    }
    let f = fp32("on_false_value", v)?;
    Ok(from_f32(dtype, f, &core.machine.config().fp8))
}

/// The values an integer dtype holds, or `None` for a float dtype.
fn integer_range(dtype: Dtype) -> Option<(i64, i64)> {
    Some(match dtype {
        Dtype::INT8 => (i8::MIN.into(), i8::MAX.into()),
        Dtype::UINT8 => (0, u8::MAX.into()),
        Dtype::INT16 => (i16::MIN.into(), i16::MAX.into()),
        Dtype::UINT16 => (0, u16::MAX.into()),
        Dtype::INT32 => (i32::MIN.into(), i32::MAX.into()),
        Dtype::UINT32 => (0, u32::MAX.into()),
        _ => return None,
    })
}

/// A scalar operand: an FP32 immediate (arith), integer bits (bitvec), or a pointer.
///
/// A `(P, 1)` tile gives one value per partition of `data`: it needs at least as many
/// partitions, and on the arithmetic path the engine reads its 32 bits as FP32, so it must
/// be float32 (another dtype would be read as FP32 bits; issue 20 item 14).
fn scalar(
    gen: Gen,
    operand: Option<&Operand>,
    bitvec: bool,
    argument: &'static str,
    data: &Tile,
) -> Result<Scalar, NkiError> {
    if let Some(Operand::Tile(t)) = operand {
        if t.partitions() < data.partitions() {
            return Err(NkiError::Shape {
                operand: argument,
                detail: format!(
                    "{} partitions, but the data has {}: a (P, 1) operand gives one value per \
                     partition",
                    t.partitions(),
                    data.partitions()
                ),
            });
        }
        if !bitvec && t.dtype != Dtype::FP32 {
            return Err(NkiError::Value {
                argument,
                detail: format!(
                    "a (P, 1) tile on the arithmetic path must be float32 (the engine reads its \
                     32 bits as FP32), not {}; copy it to a float32 tile first",
                    t.dtype
                ),
            });
        }
    }
    Ok(match operand {
        None => Scalar::ZERO,
        Some(Operand::Imm(v)) if bitvec => {
            if v.fract() != 0.0 || !(i32::MIN as f64..=u32::MAX as f64).contains(v) {
                return Err(NkiError::Value {
                    argument,
                    detail: format!("{v} is not a 32-bit integer (bitvec immediates are bits)"),
                });
            }
            Scalar {
                src: ImmSrc::INSTRUCTION,
                imm: ImmVal(if *v < 0.0 {
                    *v as i32 as u32
                } else {
                    *v as u32
                }),
            }
        }
        Some(Operand::Imm(v)) => Scalar {
            src: ImmSrc::INSTRUCTION,
            imm: ImmVal(fp32(argument, *v)?.to_bits()),
        },
        Some(Operand::Bits(b)) => Scalar {
            src: ImmSrc::INSTRUCTION,
            imm: ImmVal(*b),
        },
        Some(Operand::Tile(t)) => Scalar {
            src: ImmSrc::POINTER,
            imm: build::pointer(gen, t, argument)?,
        },
    })
}
