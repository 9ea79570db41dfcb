//! One execute function per instruction, each reading like its seed pseudo-code.
//!
//! Every executor follows the same order, which is what makes faults atomic (decisions
//! §3.9):
//! 1. *plan*: resolve every operand ([`Cx::tensor`], [`Cx::pointer`]), check bounds, the
//!    element limit and that the ALU ops evaluate; any problem is a [`FaultCause`];
//! 2. *diagnose*: collect warnings (uninitialised reads, loader mismatches);
//! 3. [`Cx::gate`]: in strict mode the first warning becomes a fault;
//! 4. *commit*: compute and write. Nothing in this step can fail. Inputs that overlap the
//!    output are read from a snapshot taken before the first write (assumption
//!    `reads-before-writes`).
//!
//! Operands and their walks live in `access`, the chunked (and threaded) engine in
//! `engine`, the vectorisable stage loops in `kernels`; the per-instruction files hold the
//! semantics.

mod access;
// Issue 18a: PE and ACT (plain executors).
mod act;
mod affine_select;
pub(crate) mod dma;
mod engine;
mod event_semaphore;
mod imm_ld;
mod iota;
mod kernels;
mod pe;
mod ptr_multi;
mod range_select;
mod tensor_scalar;
mod ts_select;
// Issue 17b executors (DVE per-lane state).
mod cache_reduce;
mod cross_lane;
mod dense;
mod lanes;
mod pair_kernels;
mod search;
mod stt;
// Issue 17a (isa-facts-dve-pool).
mod copy_cast;
mod elements;
mod memset;
mod predicated;
mod reduce;
mod stream_shuffle;
mod stream_transpose;
mod tensor_tensor;

use crate::assumptions::register_address;
use crate::config::Config;
use crate::formula::Formula;
use crate::numerics::{datapath_size, NumError};
use crate::report::{
    CostShape, FaultCause, InstId, MemAccess, Region, StepReport, Warning, WarningKind,
    MAX_ACCESS_RUNS,
};
use crate::spare::{self, Spares};
use crate::state::{Flops, Memory, State};
use access::{Access, Dims};
use engine::{Lane, Threads};
use tpb_isa::geometry::Space;
use tpb_isa::opcode::{sem, Exec, OpcodeInfo, Sem};
use tpb_isa::wire::{
    visit_owned, Addr4, AddrForm, D4Iota, EventSemaphore, FamilyVisitor, Owned, S2Bn, S2d2Ac,
    S2d2Rs, S2d2TsAs, S3Lw, S3d3Ac, S3d3Aq, S3d3Mm, S3d3Ts, S3d3TsSelect, S4d4Tsm, Tensor,
};
use tpb_isa::wire::{
    CtrlIm, D1Rd, D4Mr, S2s2d2Stt, S3d3CpPredScalar, S3s3d3Tt, S4d2Bn, S4d4Cr, S4d4Mr, S4d4Tr,
};
use tpb_isa::wire::{
    DmaCopy2d, DmaDirect2d, DmaDirect2dXpose, DmaGatherXpose, DmaImmediate, DmaIndirect1d, Mem2d,
    PseudoDmaDirect2d, PseudoDmaExt,
};
use tpb_isa::wire::{PeRegWrite, S2Convlut, S2s1d2PeSeed, S3Lt, S4d3Mm, Smx1Lw, Smx1d3Mm};
use tpb_isa::{Dtype, Gen, Instruction};

/// Reusable buffers, so that executing an instruction allocates nothing in the common case.
#[derive(Clone)]
pub(crate) struct Scratch {
    /// The input snapshot (see `engine`).
    snap: Vec<u8>,
    /// One set of engine buffers per thread (grown on demand).
    lanes: Vec<Lane>,
    /// Per-channel scalars.
    pub(crate) work: Work,
    /// The PE's operand and result buffers (`pe`).
    pub(crate) pe: PeBuffers,
}

/// Buffers the PE's instructions fill whole before reading (see [`whole`]): the moving
/// tile's values, the sums and a transpose. Reused from instruction to instruction:
/// allocating and zeroing them was a twentieth of a tiled matmul's replay
/// (docs/benchmarks.md, "Fifth pass").
#[derive(Default)]
pub(crate) struct PeBuffers {
    pub(crate) moving: Vec<f32>,
    pub(crate) sums: Vec<f32>,
    pub(crate) transposed: Vec<u32>,
    /// The buffers of the last machine's weights (`PeWeights`), for this thread's next
    /// first LoadWeights (docs/benchmarks.md, "Seventh pass").
    pub(crate) weights: (Vec<f32>, Vec<u32>),
}

impl Clone for PeBuffers {
    /// Empty buffers: their contents carry nothing from one instruction to the next.
    fn clone(&self) -> PeBuffers {
        PeBuffers::default()
    }
}

impl PeBuffers {
    /// Frees the buffers past [`SPARE_SNAPSHOT_MAX`] bytes (kept for the thread otherwise).
    fn trim(&mut self) {
        let big = |bytes: usize| bytes > SPARE_SNAPSHOT_MAX;
        for v in [&mut self.moving, &mut self.sums, &mut self.weights.0] {
            if big(v.capacity() * 4) {
                *v = Vec::new();
            }
        }
        for v in [&mut self.transposed, &mut self.weights.1] {
            if big(v.capacity() * 4) {
                *v = Vec::new();
            }
        }
    }
}

/// The first `n` elements of `v`, grown (zero) to hold them. Elements left from an earlier
/// use stay until overwritten: only for a caller that writes all `n` before it reads any.
pub(crate) fn whole<T: Copy + Default>(v: &mut Vec<T>, n: usize) -> &mut [T] {
    if v.len() < n {
        v.resize(n, T::default());
    }
    &mut v[..n]
}

/// Per-channel scalars, shared by every thread of an instruction.
#[derive(Clone)]
pub(crate) struct Work {
    /// First scalar per channel.
    pub(crate) s0: Vec<u32>,
    /// Second scalar per channel.
    pub(crate) s1: Vec<u32>,
    /// A per-channel choice.
    pub(crate) sel: Vec<bool>,
}

thread_local! {
    /// The scratch of the last machine dropped on this thread, for the next one made on it:
    /// a replayed kernel makes a machine per call, and zeroing a new scratch's buffers was a
    /// tenth of the smallest replay (docs/benchmarks.md, "Fourth pass"). Scratch carries
    /// nothing from one instruction to the next (a byte table is keyed per instruction).
    static SPARE_SCRATCH: Spares<Scratch> = const { Spares::new(Vec::new()) };
}

/// A kept scratch's input snapshot buffer is freed above this capacity (one large
/// instruction would otherwise hold its copy for the thread's life).
const SPARE_SNAPSHOT_MAX: usize = 1 << 20;

impl Scratch {
    /// This thread's spare scratch, or a new one.
    pub(crate) fn take() -> Scratch {
        spare::take(&SPARE_SCRATCH).unwrap_or_else(Scratch::new)
    }

    /// Keeps this scratch for the thread's next [`Scratch::take`].
    pub(crate) fn give(mut self) {
        if self.snap.capacity() > SPARE_SNAPSHOT_MAX {
            self.snap = Vec::new();
        }
        self.pe.trim();
        spare::give(&SPARE_SCRATCH, [self], 1);
    }

    /// A scratch of no buffers, to stand in for one given back.
    pub(crate) fn placeholder() -> Scratch {
        Scratch {
            snap: Vec::new(),
            lanes: Vec::new(),
            work: Work {
                s0: Vec::new(),
                s1: Vec::new(),
                sel: Vec::new(),
            },
            pe: PeBuffers::default(),
        }
    }

    pub(crate) fn new() -> Scratch {
        Scratch {
            snap: Vec::new(),
            lanes: vec![Lane::new()],
            work: Work {
                s0: vec![0; 128],
                s1: vec![0; 128],
                sel: vec![false; 128],
            },
            pe: PeBuffers::default(),
        }
    }
}

/// What an instruction did, before it is named in a [`StepReport`].
#[derive(Default)]
pub(crate) struct Outcome {
    pub(crate) elements: u64,
    pub(crate) written: Option<Region>,
    pub(crate) bytes_written: u64,
    pub(crate) flops_loaded: Option<(u32, u32)>,
    pub(crate) warnings: Vec<(WarningKind, String)>,
    pub(crate) log: Option<&'static str>,
    /// The memory footprint, when recording (`None`: not recording).
    pub(crate) accesses: Option<Vec<MemAccess>>,
    /// How the timing model prices it.
    pub(crate) cost: CostShape,
}

impl Outcome {
    /// Records a warning.
    pub(crate) fn warn(&mut self, kind: WarningKind, message: String) {
        self.warnings.push((kind, message));
    }

    /// Records an operand's footprint over `n` channels, when recording.
    #[inline]
    pub(crate) fn touch(&mut self, a: &Access, n: u32, write: bool) {
        if let Some(list) = &mut self.accesses {
            let runs = a.byte_runs(MAX_ACCESS_RUNS);
            list.push(MemAccess {
                operand: a.name,
                write,
                region: a.region(n),
                exact: runs.is_some(),
                // One run is the hull itself: no list (see `MemAccess::runs`).
                runs: runs.filter(|r| r.len() > 1).unwrap_or_default(),
                shape: a.shape(),
            });
        }
    }

    /// Strict mode: the first warning becomes a fault. Called before any state change.
    pub(crate) fn gate(&self, cfg: &Config) -> Result<(), FaultCause> {
        let fatal = |k: &WarningKind| {
            if k.is_exactness() {
                cfg.strict_exact
            } else {
                cfg.strict
            }
        };
        match self.warnings.iter().find(|(k, _)| fatal(k)) {
            Some((k, m)) => Err(FaultCause::Strict(*k, m.clone())),
            None => Ok(()),
        }
    }

    pub(crate) fn into_report(self, inst: InstId) -> StepReport {
        StepReport {
            inst,
            elements: self.elements,
            written: self.written,
            bytes_written: self.bytes_written,
            flops_loaded: self.flops_loaded,
            warnings: if self.warnings.is_empty() {
                Vec::new()
            } else {
                self.warnings
                    .into_iter()
                    .map(|(kind, message)| Warning {
                        inst,
                        kind,
                        message,
                    })
                    .collect()
            },
            log: self.log,
            accesses: self.accesses.unwrap_or_default(),
            cost: self.cost,
        }
    }
}

/// Which memories an operand may live in, and whether it is written.
#[derive(Clone, Copy)]
pub(crate) struct Role {
    pub(crate) write: bool,
    pub(crate) psum: bool,
}

impl Role {
    /// A source that may be in SBUF or PSUM.
    pub(crate) const READ: Role = Role {
        write: false,
        psum: true,
    };
    /// A destination that may be in SBUF or PSUM.
    pub(crate) const WRITE: Role = Role {
        write: true,
        psum: true,
    };
}

/// A scalar read through a pointer immediate, resolved.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Pointer {
    name: &'static str,
    space: Space,
    part0: u32,
    offset: u64,
    size: usize,
}

/// The execution context of one instruction.
pub(crate) struct Cx<'a> {
    pub(crate) cfg: &'a Config,
    pub(crate) gen: Gen,
    pub(crate) st: &'a mut State,
    pub(crate) scratch: &'a mut Scratch,
    pub(crate) out: &'a mut Outcome,
}

/// Maps a numerics error to a fault: not-supported ops are "semantics not public"
/// (decisions §3.10), the rest numeric faults.
pub(crate) fn num_fault(e: NumError) -> FaultCause {
    match e {
        NumError::Unsupported { op, path, why } => FaultCause::Unsupported {
            what: format!("ALU op {op} on the {path} path ({why})"),
        },
        e => FaultCause::Numeric(e),
    }
}

impl Cx<'_> {
    /// Resolves an ADDR4 to (space, partition, offset) for an operand of `size` bytes:
    /// immediates as decoded; register forms through the register (assumption
    /// `register-pointer`), re-checking the address rules the validator could not.
    #[inline]
    fn locate(
        &self,
        a: Addr4,
        name: &'static str,
        size: usize,
        role: Role,
    ) -> Result<(Space, u32, u64), FaultCause> {
        let (addr, via_reg) = match a.form() {
            AddrForm::Immediate => {
                // The validator has checked region, alignment and the operand's spaces
                // (tensor_start_addr_valid); bounds are checked by `Access::new`.
                if let Some((space, p, off)) = a.locate(self.gen) {
                    if self.st.mem.has(space) {
                        return Ok((space, p, u64::from(off)));
                    }
                }
                (a, None)
            }
            AddrForm::Register(r) => {
                let v = *self.st.regs.get(r as usize).ok_or(FaultCause::BadAddress {
                    operand: name,
                    detail: format!("register {r} is outside 0..64"),
                })?;
                let ra = register_address(v);
                if ra.form() != AddrForm::Immediate {
                    return Err(FaultCause::Unsupported {
                        what: format!(
                            "{name}: register {r} holds {v:#010x}, not an immediate SBUF/PSUM \
                             address"
                        ),
                    });
                }
                (ra, Some(r))
            }
            AddrForm::Indirect => {
                return Err(FaultCause::Unsupported {
                    what: format!("{name}: indirect address (marker {:#04x})", a.marker()),
                })
            }
            AddrForm::ShapeFromRegister => {
                return Err(FaultCause::Unsupported {
                    what: format!(
                        "{name}: shape-from-register address (marker {:#04x})",
                        a.marker()
                    ),
                })
            }
            AddrForm::Malformed => {
                return Err(FaultCause::BadAddress {
                    operand: name,
                    detail: format!("malformed ADDR4 {:#010x}", a.0),
                })
            }
        };
        let bad = |detail: String| match via_reg {
            Some(r) => FaultCause::BadAddress {
                operand: name,
                detail: format!("register {r} = {:#010x}: {detail}", addr.0),
            },
            None => FaultCause::OutOfRange {
                operand: name,
                detail,
            },
        };
        let Some((space, p, off)) = addr.locate(self.gen) else {
            return Err(bad(format!(
                "address {:#010x} is in neither SBUF nor PSUM of {}",
                addr.0, self.gen
            )));
        };
        if !self.st.mem.has(space) {
            return Err(bad(format!("{} has no {}", self.gen, space.name())));
        }
        if addr.byte_addr() as usize & (size - 1) != 0 {
            return Err(bad(format!("not aligned to {size} bytes")));
        }
        if space == Space::Psum && !role.psum {
            return Err(bad("PSUM is not allowed for this operand".into()));
        }
        if space == Space::Psum && role.write && size != 4 {
            return Err(bad("a PSUM write needs a 4-byte dtype".into()));
        }
        if u64::from(off) >= self.st.mem.active(space) {
            return Err(bad(format!(
                "offset {off:#x} is outside the {:#x} active bytes",
                self.st.mem.active(space)
            )));
        }
        Ok((space, p, u64::from(off)))
    }

    /// Resolves the source and destination of an elementwise instruction (both may be in
    /// SBUF or PSUM), checks that they pair element by element (decisions §3.3) and applies
    /// the element limit; returns them with the per-channel element count.
    #[inline(always)]
    pub(crate) fn elementwise<const A: usize, const B: usize>(
        &self,
        src: (&Tensor<A>, &'static str, Dtype),
        dst: (&Tensor<B>, &'static str, Dtype),
        n: u32,
    ) -> Result<(Access, Access, u64), FaultCause> {
        let s = self.tensor(src.0, src.1, src.2, Role::READ, n)?;
        let d = self.tensor(dst.0, dst.1, dst.2, Role::WRITE, n)?;
        let count = s.count();
        if d.count() != count {
            return Err(FaultCause::OutOfRange {
                operand: dst.1,
                detail: format!("{} outputs for {count} inputs", d.count()),
            });
        }
        self.limit(count, n)?;
        Ok((s, d, count))
    }

    /// Resolves a tensor operand for `n` channels and checks its bounds.
    #[inline(always)]
    pub(crate) fn tensor<const N: usize>(
        &self,
        t: &Tensor<N>,
        name: &'static str,
        dtype: Dtype,
        role: Role,
        n: u32,
    ) -> Result<Access, FaultCause> {
        // INT64/UINT64 elements exist only for the issue-17a 64-bit path (their validators
        // are the only ones that admit them).
        let size = datapath_size(dtype)
            .or_else(|| elements::wide_int_size(dtype))
            .ok_or_else(|| FaultCause::Unsupported {
                what: format!("{name}: dtype {dtype}"),
            })?;
        let (space, p, off) = self.locate(t.start_addr, name, size, role)?;
        let dims = Dims::new(&t.step_elem, &t.num_elem).ok_or_else(|| FaultCause::Unsupported {
            what: format!("{name}: a zero element count"),
        })?;
        let mut a = Access::new(
            name,
            space,
            p,
            off,
            size,
            dims,
            self.st.mem.active(space),
            n,
        )?;
        a.dtype = Some(dtype);
        Ok(a)
    }

    /// Resolves a pointer immediate (or, with `via_register`, a register pointer holding
    /// one) to a scalar of `dtype` in each of `n` channels' partitions.
    pub(crate) fn pointer(
        &self,
        imm: u32,
        via_register: bool,
        name: &'static str,
        dtype: Dtype,
        n: u32,
    ) -> Result<Pointer, FaultCause> {
        let size = datapath_size(dtype).ok_or_else(|| FaultCause::Unsupported {
            what: format!("{name}: dtype {dtype}"),
        })?;
        let a = if via_register {
            Addr4::register(imm.min(255) as u8)
        } else {
            Addr4(imm)
        };
        if via_register && imm >= 64 {
            return Err(FaultCause::BadAddress {
                operand: name,
                detail: format!("register {imm} is outside 0..64"),
            });
        }
        let role = Role::READ;
        let (space, p, off) = self.locate(a, name, size, role)?;
        let dims = Dims::new(&[1], &[1]).ok_or(FaultCause::OutOfRange {
            operand: name,
            detail: String::new(),
        })?;
        Access::new(
            name,
            space,
            p,
            off,
            size,
            dims,
            self.st.mem.active(space),
            n,
        )?;
        Ok(Pointer {
            name,
            space,
            part0: p,
            offset: off,
            size,
        })
    }

    /// Warns if `a` reads uninitialised elements on the channels where `chan` holds.
    #[inline]
    pub(crate) fn check_reads(&mut self, a: &Access, n: u32, chan: impl Fn(u32) -> bool) {
        self.out.touch(a, n, false);
        if let Some((count, p, b)) = access::uninitialised(&self.st.mem, a, n, chan) {
            self.warn_uninitialised(a, count, p, b);
        }
    }

    #[cold]
    fn warn_uninitialised(&mut self, a: &Access, count: u64, p: u32, b: u64) {
        self.out.warn(
            WarningKind::Uninitialised,
            format!(
                "{} reads {count} uninitialised element{} (first at {} partition {p} byte \
                 {b:#x})",
                a.name,
                if count == 1 { "" } else { "s" },
                a.space.name()
            ),
        );
    }

    /// Checks the per-instruction element limit and the run's budget.
    pub(crate) fn limit(&self, per_channel: u64, n: u32) -> Result<(), FaultCause> {
        let total = u128::from(per_channel) * u128::from(n);
        if total > u128::from(self.cfg.max_elements) {
            return Err(FaultCause::Limit {
                elements: total,
                limit: self.cfg.max_elements,
            });
        }
        let used = self.st.elements_run;
        if total > u128::from(self.cfg.max_run_elements.saturating_sub(used)) {
            return Err(FaultCause::Budget {
                elements: total,
                used,
                budget: self.cfg.max_run_elements,
            });
        }
        Ok(())
    }

    /// Strict mode gate (see the module docs, step 3).
    pub(crate) fn gate(&self) -> Result<(), FaultCause> {
        self.out.gate(self.cfg)
    }

    /// Splits the context for the commit step (see [`Parts`]).
    pub(crate) fn parts(&mut self) -> Parts<'_> {
        let st = &mut *self.st;
        let threads = Threads {
            count: self.cfg.thread_count(),
            min_elements: self.cfg.min_parallel_elements,
        };
        Parts {
            driver: Driver {
                mem: &mut st.mem,
                snap: &mut self.scratch.snap,
                lanes: &mut self.scratch.lanes,
                out: &mut *self.out,
                threads,
            },
            flops: &st.flops,
            work: &self.scratch.work,
        }
    }

    /// Fills `dst[..n]` with a scalar per channel: the instruction immediate `imm`, or the
    /// element `ptr` points at in each channel's partition (raw, zero-extended), warning
    /// about uninitialised bytes.
    #[inline]
    pub(crate) fn scalars(&mut self, ptr: Option<&Pointer>, imm: u32, n: u32, which: Which) {
        match ptr {
            None => {
                let work = &mut self.scratch.work;
                let dst = match which {
                    Which::S0 => &mut work.s0,
                    Which::S1 => &mut work.s1,
                };
                dst[..n as usize].fill(imm);
            }
            Some(p) => self.scalars_from_pointer(p, n, which),
        }
    }

    /// [`Cx::scalars`] through a pointer.
    fn scalars_from_pointer(&mut self, ptr: &Pointer, n: u32, which: Which) {
        let work = &mut self.scratch.work;
        let dst = match which {
            Which::S0 => &mut work.s0,
            Which::S1 => &mut work.s1,
        };
        if let Some(list) = &mut self.out.accesses {
            let bytes = ptr.offset..ptr.offset + ptr.size as u64;
            // One run: the hull (see `MemAccess::runs`).
            list.push(MemAccess {
                operand: ptr.name,
                write: false,
                region: Region {
                    space: ptr.space,
                    partitions: ptr.part0..ptr.part0 + n,
                    bytes,
                },
                runs: Vec::new(),
                exact: true,
                shape: None,
            });
        }
        let mem = &self.st.mem;
        let mut bad = Vec::new();
        for (c, slot) in dst.iter_mut().enumerate().take(n as usize) {
            let i = mem.part_base(ptr.space, ptr.part0 + c as u32) + ptr.offset as usize;
            let b = &mem.data(ptr.space)[i..i + ptr.size];
            let mut raw = [0u32; 1];
            access::bytes_to_raw(ptr.size, b, &mut raw);
            *slot = raw[0];
            if !mem.init(ptr.space).elem_set(i, ptr.size) {
                bad.push(ptr.part0 + c as u32);
            }
        }
        if let Some(&first) = bad.first() {
            self.out.warn(
                WarningKind::Uninitialised,
                format!(
                    "{} reads uninitialised bytes at {}+{:#x} in {} partition{} (first {first})",
                    ptr.name,
                    ptr.space.name(),
                    ptr.offset,
                    bad.len(),
                    if bad.len() == 1 { "" } else { "s" }
                ),
            );
        }
    }
}

/// Which per-channel scalar buffer [`Cx::scalars`] fills.
#[derive(Clone, Copy)]
pub(crate) enum Which {
    /// `Work::s0`.
    S0,
    /// `Work::s1`.
    S1,
}

/// The context split for the commit step, so that a kernel can borrow the work buffers and
/// the flops while the [`Driver`] drives memory.
pub(crate) struct Parts<'a> {
    pub(crate) driver: Driver<'a>,
    pub(crate) flops: &'a [Flops],
    pub(crate) work: &'a Work,
}

/// What a kernel run needs besides the kernel: memory, the engine's buffers, the outcome
/// and the thread setting.
pub(crate) struct Driver<'a> {
    mem: &'a mut Memory,
    snap: &'a mut Vec<u8>,
    lanes: &'a mut Vec<Lane>,
    out: &'a mut Outcome,
    threads: Threads,
}

impl Driver<'_> {
    /// Lowers the element count from which an instruction is split over threads by
    /// `weight`, the kernel's cost per element relative to a plain elementwise op (a kernel
    /// calling libm per element is worth splitting at far fewer elements).
    pub(crate) fn weighted(mut self, weight: u64) -> Self {
        self.threads.min_elements /= weight.max(1);
        self
    }

    /// Runs kernel `k` from `input` to `dst` over `n` channels of `count` elements (step 4
    /// of the module docs; `split` is the element count after which the kernel changes
    /// scalar, `u64::MAX` for none) and records the write in the outcome.
    pub(crate) fn run(
        self,
        input: Option<&Access>,
        dst: &Access,
        n: u32,
        count: u64,
        split: u64,
        k: &mut impl engine::Kernel,
    ) {
        let Driver {
            mem,
            snap,
            lanes,
            out,
            threads,
        } = self;
        engine::drive(mem, snap, lanes, input, dst, n, count, split, threads, k);
        out.touch(dst, n, true);
        out.elements = count * u64::from(n);
        out.bytes_written = out.elements * dst.size as u64;
        out.written = Some(dst.region(n));
    }
}

/// Executes a validated instruction (see the module docs for the order of work).
pub(crate) fn execute(
    cfg: &Config,
    st: &mut State,
    scratch: &mut Scratch,
    inst: &Instruction,
    out: &mut Outcome,
) -> Result<(), FaultCause> {
    let op = inst.header.opcode;
    let Some(info) = op.info(cfg.gen) else {
        return Err(FaultCause::Unsupported {
            what: format!("opcode {op} is not executed by the simulator"),
        });
    };
    match info.exec {
        Exec::Run => {}
        Exec::Disabled(why) => return Err(FaultCause::Disabled { why }),
        Exec::NotSupported(why) => {
            return Err(FaultCause::Unsupported {
                what: format!("{} ({op}): {why}", info.display),
            })
        }
        // A refusal kind added to the table later is refused here until modelled.
        _ => {
            return Err(FaultCause::Unsupported {
                what: format!("{} ({op}) is not executed by the simulator", info.display),
            })
        }
    }
    let mut cx = Cx {
        cfg,
        gen: cfg.gen,
        st,
        scratch,
        out,
    };
    // The family's handler (the visitor the family list generates: a family without one
    // does not build), which matches the row's semantics variant without a catch-all.
    visit_owned(&mut cx, info, &inst.body).unwrap_or_else(|| {
        Err(FaultCause::Unsupported {
            what: format!("{} ({op}) with a body of another struct", info.display),
        })
    })
}

/// A handler's result.
type Executed = Result<(), FaultCause>;
type Row = &'static OpcodeInfo;

/// The refusal of a semantics variant the simulator does not execute; the opcode table's
/// `exec` column refuses such rows before dispatch, so this is reached only if the column and
/// the handlers disagree (`tests/dispatch.rs` checks they do not).
fn not_executed(row: Row) -> FaultCause {
    FaultCause::Unsupported {
        what: format!(
            "{} ({:#04x}) is not executed by the simulator",
            row.display, row.value
        ),
    }
}

/// The simulator as a [`FamilyVisitor`]: one executor per family (`family/<method>.rs`), each
/// naming the semantics of every variant of its family without a catch-all (a one-behaviour
/// family by an irrefutable pattern), so nothing is inherited from the family silently and a
/// new variant does not build here. No executor reads the opcode byte: an alias row runs as
/// its twin.
/// The visitor impl and the module of each family's executor (`family/<method>.rs`, named
/// by the family list), generated: a new family does not build until its file exists and
/// defines `execute` over its struct and behaviour variant.
macro_rules! executors_by_family {
    ($( $F:ident, $method:ident, $S:ident, $doc:literal; )*) => {
        /// One file per family: its executor (or refusal), binding the behaviour variant.
        mod family {
            #[allow(unused_imports)]
            use super::*;
            #[allow(unused_imports)]
            use crate::exec;
            $( pub(super) mod $method; )*
        }

        impl<'a> FamilyVisitor<'a, Owned> for Cx<'_> {
            type Output = Executed;
            $(
                #[inline]
                fn $method(
                    &mut self,
                    row: Row,
                    sem: sem::$F,
                    s: &'a tpb_isa::wire::$S,
                ) -> Executed {
                    family::$method::execute(self, row, sem, s)
                }
            )*
        }

        impl Formula {
            /// The cost formula of an opcode's family: each family's `COST`, beside its
            /// executor (`family/<method>.rs`). Exhaustive by construction: a family without
            /// a `COST` does not build.
            pub const fn of(s: Sem) -> Formula {
                match s {
                    $( Sem::$F(_) => family::$method::COST, )*
                }
            }
        }
    };
}
tpb_isa::for_each_family!(executors_by_family);
