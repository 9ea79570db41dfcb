//! The machine: per-generation SBUF/PSUM with the initialised shadow, 64 registers,
//! per-channel DVE scalar flops, 256 semaphores and 256 event bits; the host API (the
//! simulator's DMA); and [`Machine::step`] / [`Machine::run`].
//!
//! Guarantees:
//! - [`Machine::step`] validates the instruction for the machine's generation first; an
//!   invalid instruction is a [`Fault`] listing every failing rule, never a guess.
//! - A fault changes no state at all: memory, shadow, registers, flops, semaphores, events
//!   and the retired-instruction count are exactly as before (decisions §3.9).
//! - Results are bit-exact and do not depend on the host (see [`crate::numerics`]).
//! - No input (instruction bytes, host requests) makes the library panic.

pub use crate::config::{
    Config, DEFAULT_MAX_ELEMENTS, DEFAULT_MAX_RUN_ELEMENTS, DEFAULT_MIN_PARALLEL_ELEMENTS,
};
pub use crate::report::{
    CostShape, Fault, FaultCause, HostError, HostTensor, InstId, MemAccess, OperandShape, Region,
    RunReport, StepReport, Warning, WarningKind, MAX_ACCESS_RUNS,
};
pub use crate::state::hbm::{DEFAULT_HBM_BYTES, MAX_HBM_BYTES};
pub use crate::state::{
    DveLane, DveState, FlopKind, Flops, PerChannel, NUM_EVENTS, NUM_SEMAPHORES,
};

pub use crate::state::hbm::{DEFAULT_MAX_HBM_HELD_BYTES, SEGMENT_MIN};

use crate::assumptions::{firmware_stub_log, firmware_stubs_apply};
use crate::exec::{self, Outcome, Scratch};
use crate::state::{events, hbm, Memory, State};
use std::borrow::Cow;
use std::fmt;
use tpb_isa::geometry::{Geometry, Space, NUM_CHANNELS, NUM_REGISTERS};
use tpb_isa::validate::{is_valid, validate};
use tpb_isa::{Gen, Instruction};

/// The most bytes one host read ([`Machine::read_tensor`]) returns: a simulator limit (the
/// default [`DEFAULT_MAX_HBM_HELD_BYTES`]), so that reading a region of a large HBM is
/// refused with an error instead of exhausting the host's memory. Larger regions are read in parts
/// ([`Machine::read_tensor_into`] on pieces, as `tpb run` streams `.out`).
pub const MAX_HOST_TRANSFER_BYTES: u64 = DEFAULT_MAX_HBM_HELD_BYTES;

/// The most bytes of HBM [`Machine::read_tensor_pieces`] hands over at once.
pub const READ_PIECE_BYTES: u64 = 1 << 20;

/// A zero-length buffer with room for `total` bytes, or the reason it cannot be had.
fn host_buffer(total: u64) -> Result<Vec<u8>, HostError> {
    let too_large = |why: String| HostError::TooLarge { bytes: total, why };
    if total > MAX_HOST_TRANSFER_BYTES {
        return Err(too_large(format!(
            "past the simulator's limit of {MAX_HOST_TRANSFER_BYTES} bytes per host read"
        )));
    }
    let mut v = Vec::new();
    v.try_reserve_exact(usize::try_from(total).unwrap_or(usize::MAX))
        .map_err(|e| too_large(format!("the host could not allocate it ({e})")))?;
    Ok(v)
}

/// A simulated NeuronCore slice: on-chip memory, registers, flops, semaphores and events
/// of one generation, executing one in-order instruction stream.
///
/// `Clone` copies the whole state; `==` compares configuration and state (every byte of
/// memory and of the initialised shadow, registers, flops, semaphores, events and the
/// retired count).
#[derive(Clone)]
pub struct Machine {
    config: Config,
    state: State,
    scratch: Scratch,
    /// Whether step reports list each operand's footprint (for race detection).
    record_accesses: bool,
    /// A cleared footprint list to reuse (see [`Machine::recycle_accesses`]).
    spare_accesses: Vec<MemAccess>,
}

/// A dropped machine's memory goes back to a pool, so that the next [`Machine::new`] of the
/// generation reuses its pages after zeroing only what was written (issue 30 item 1), and
/// its scratch buffers to its thread.
impl Drop for Machine {
    fn drop(&mut self) {
        let stand_in = self.state.mem.placeholder();
        std::mem::replace(&mut self.state.mem, stand_in).give();
        if let Some(w) = self.state.pe.take() {
            self.scratch.pe.weights = (w.values, w.raw);
        }
        std::mem::replace(&mut self.scratch, Scratch::placeholder()).give();
    }
}

impl PartialEq for Machine {
    fn eq(&self, other: &Machine) -> bool {
        self.config == other.config && self.state == other.state
    }
}

impl fmt::Debug for Machine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Machine")
            .field("config", &self.config)
            .field("retired", &self.state.retired)
            .finish_non_exhaustive()
    }
}

/// One in-order stream (step mode): a DMA request's data has landed when it retires, so its
/// semaphore update applies then (assumption `dma-completion`; the multi-engine scheduler
/// applies it when the DMA queue finishes the transfer instead).
fn dma_completes(inst: &Instruction, st: &mut State) {
    if let tpb_isa::Body::DmaDirect2d(s) = &inst.body {
        let sem = &mut st.sems[usize::from(s.semaphore)];
        *sem = sem.wrapping_add(i32::from(s.sem_increment));
    }
}

impl Machine {
    /// A fresh machine (assumption `initial-state`): memory zero and uninitialised,
    /// registers and flops 0, nothing loaded, semaphores 0, events clear.
    pub fn new(config: Config) -> Machine {
        Machine::around(config, Memory::new(config.gen, false))
    }

    /// A machine of `config` in its initial state around `mem` (reset by the caller).
    fn around(config: Config, mem: Memory) -> Machine {
        Machine {
            state: State::initial(
                mem,
                hbm::Hbm::new(config.hbm_bytes, config.max_hbm_held_bytes),
            ),
            scratch: Scratch::take(),
            config,
            record_accesses: false,
            spare_accesses: Vec::new(),
        }
    }

    /// As [`Machine::new`], for a strict run ([`Config::strict`]; otherwise exactly
    /// [`Machine::new`]): a pooled memory is reset as [`Machine::reset_for_strict_run`]
    /// leaves it, saving the zeroing of what the last machine wrote.
    pub fn new_for_strict_run(config: Config) -> Machine {
        if !config.strict {
            return Machine::new(config);
        }
        Machine::around(config, Memory::new(config.gen, true))
    }

    /// As [`Machine::reset`], for a machine that stays strict ([`Config::strict`];
    /// otherwise exactly [`Machine::reset`]): the SBUF and PSUM bytes written since become
    /// uninitialised but keep their values ("stale"), so the reset costs an eighth of
    /// zeroing them (docs/library.md, "Reuse for strict runs"). No reader can tell: a
    /// strict instruction faults before it commits anything it read from an
    /// uninitialised byte, the host reads uninitialised bytes as zero, and a clone, a
    /// [`Machine::reset`] and [`Machine::set_strict`]`(false)` zero them. Only `==`, which
    /// compares every stored byte, sees them.
    pub fn reset_for_strict_run(&mut self) {
        if !self.config.strict {
            return self.reset();
        }
        let stand_in = self.state.mem.placeholder();
        let mut mem = std::mem::replace(&mut self.state.mem, stand_in);
        mem.reset_for_strict_run();
        let hbm = hbm::Hbm::new(self.config.hbm_bytes, self.config.max_hbm_held_bytes);
        self.state = State::initial(mem, hbm);
    }

    /// Returns the machine to the state of [`Machine::new`] with the same configuration
    /// (memory zero and uninitialised, HBM unwritten, registers, flops, semaphores, events,
    /// the PE weights, the accumulators and the retired count as new), at the cost of what
    /// was written since: only the written blocks of SBUF and PSUM are zeroed (and those a
    /// [`Machine::reset_for_strict_run`] left stale).
    pub fn reset(&mut self) {
        let stand_in = self.state.mem.placeholder();
        let mut mem = std::mem::replace(&mut self.state.mem, stand_in);
        mem.reset();
        let hbm = hbm::Hbm::new(self.config.hbm_bytes, self.config.max_hbm_held_bytes);
        self.state = State::initial(mem, hbm);
    }

    /// The configuration.
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// Sets [`Config::strict`]: whether a read of never-written bytes faults or warns.
    pub fn set_strict(&mut self, strict: bool) {
        if !strict {
            // A lenient run reads uninitialised bytes: they must be zero again.
            self.state.mem.settle();
        }
        self.config.strict = strict;
    }

    /// Sets how instructions use threads ([`Config::threads`],
    /// [`Config::min_parallel_elements`]); results do not depend on it.
    pub fn set_threading(&mut self, threads: usize, min_parallel_elements: u64) {
        self.config.threads = threads;
        self.config.min_parallel_elements = min_parallel_elements;
    }

    /// The generation.
    pub fn gen(&self) -> Gen {
        self.config.gen
    }

    /// The generation's address map.
    pub fn geometry(&self) -> Geometry {
        *self.state.mem.geometry()
    }

    /// Instructions retired so far (the index [`Machine::step`] gives the next one).
    pub fn retired(&self) -> u64 {
        self.state.retired
    }

    // ---- host API ---------------------------------------------------------------------

    /// Checks a host tensor and returns (row bytes, total bytes).
    pub(crate) fn host_check(&self, t: &HostTensor) -> Result<(u64, u64), HostError> {
        t.check(self.config.gen).map_err(|e| match e {
            HostError::HbmSpan { start, .. } => HostError::HbmSpan {
                start,
                size: Some(self.hbm_size()),
            },
            e => e,
        })
    }

    /// Writes a tensor (host → device DMA): `bytes` holds `partitions` rows of
    /// `elems_per_partition` little-endian elements. The bytes become initialised.
    pub fn write_tensor(&mut self, t: &HostTensor, bytes: &[u8]) -> Result<(), HostError> {
        let (row, total) = self.host_check(t)?;
        if bytes.len() as u64 != total {
            return Err(HostError::Length {
                got: bytes.len() as u64,
                want: total,
            });
        }
        if row == 0 {
            return Ok(());
        }
        if t.space == Space::Hbm {
            self.hbm_for_host(t, total)?.write(t.byte_offset, bytes);
            return Ok(());
        }
        let mem = &mut self.state.mem;
        let row = row as usize;
        for (i, chunk) in bytes.chunks_exact(row).enumerate() {
            let start =
                mem.part_base(t.space, t.start_partition + i as u32) + t.byte_offset as usize;
            let (data, init) = mem.parts_mut(t.space);
            data[start..start + row].copy_from_slice(chunk);
            init.set_range(start, row);
        }
        Ok(())
    }

    /// A hint that HBM tensor `t` will be written and read whole (an NKI kernel's input,
    /// output or scratch tensor): when it is at least [`SEGMENT_MIN`](crate::SEGMENT_MIN)
    /// bytes and none of its bytes was written or marked yet, the machine holds its bytes in
    /// one piece (allocated, and counted against
    /// [`Config::max_hbm_held_bytes`](crate::Config::max_hbm_held_bytes), at its first
    /// write), so that host writes, DMA runs and [`Machine::into_tensors`] move it in one
    /// copy or none. Nothing a program or the host reads changes. Returns whether the tensor
    /// is now held so (an SBUF or PSUM tensor never is).
    pub fn place_tensor(&mut self, t: &HostTensor) -> Result<bool, HostError> {
        let (_, total) = self.host_check(t)?;
        if t.space != Space::Hbm {
            return Ok(false);
        }
        self.hbm_check(t, total)?;
        Ok(self.state.hbm.place(t.byte_offset, total))
    }

    /// The bytes of each tensor of `ts`, as [`Machine::read_tensor`] reads them, the machine
    /// consumed: a tensor held in one piece ([`Machine::place_tensor`]) that overlaps no other
    /// of `ts` is moved out without a copy (a kernel's outputs, after its run).
    pub fn into_tensors(mut self, ts: &[HostTensor]) -> Result<Vec<Vec<u8>>, HostError> {
        let overlaps = |i: usize| {
            let a = &ts[i];
            let end = |t: &HostTensor| t.byte_offset.saturating_add(t.len().unwrap_or(u64::MAX));
            ts.iter().enumerate().any(|(j, b)| {
                j != i && b.space == a.space && b.byte_offset < end(a) && a.byte_offset < end(b)
            })
        };
        let mut out = Vec::with_capacity(ts.len());
        for (i, t) in ts.iter().enumerate() {
            let (_, total) = self.host_check(t)?;
            let taken = match t.space == Space::Hbm && !overlaps(i) {
                true => {
                    self.hbm_check(t, total)?;
                    self.state.hbm.take_segment(t.byte_offset, total)
                }
                false => None,
            };
            out.push(match taken {
                Some(bytes) => bytes,
                None => self.read_tensor(t)?,
            });
        }
        Ok(out)
    }

    /// The HBM for a host write of `total` bytes at the tensor's address, once the bytes fit
    /// the configured HBM and holding them keeps under the held-bytes limit.
    fn hbm_for_host(&mut self, t: &HostTensor, total: u64) -> Result<&mut hbm::Hbm, HostError> {
        self.hbm_check(t, total)?;
        let hbm = &mut self.state.hbm;
        hbm.check_growth(std::iter::once((t.byte_offset, total)))
            .map_err(|e| HostError::HbmPages {
                held: e.held,
                more: e.more,
                limit: e.limit,
            })?;
        Ok(hbm)
    }

    /// Marks a tensor's bytes initialised without changing them: what the strict sanitizer
    /// ([`Config::strict`]) then reads is whatever the memory holds (a kernel's masked
    /// instruction leaves the elements its mask skips as they were, and declares them
    /// don't-care; tpb-nki's masks).
    pub fn mark_initialised(&mut self, t: &HostTensor) -> Result<(), HostError> {
        let (row, total) = self.host_check(t)?;
        if row == 0 {
            return Ok(());
        }
        if t.space == Space::Hbm {
            self.hbm_for_host(t, total)?.mark(t.byte_offset, total);
            return Ok(());
        }
        let mem = &mut self.state.mem;
        for i in 0..t.partitions {
            let start = mem.part_base(t.space, t.start_partition + i) + t.byte_offset as usize;
            mem.mark_initialised(t.space, start, row as usize);
        }
        Ok(())
    }

    /// Reads a tensor (device → host DMA) into a new buffer laid out as for
    /// [`Machine::write_tensor`]. Uninitialised bytes read as they are stored (zero unless
    /// written); see [`Machine::uninitialised_bytes`].
    pub fn read_tensor(&self, t: &HostTensor) -> Result<Vec<u8>, HostError> {
        let (row, total) = self.host_check(t)?;
        if t.space == Space::Hbm {
            self.hbm_check(t, total)?;
        }
        let mut out = host_buffer(total)?;
        if row == 0 {
            out.resize(total as usize, 0);
            return Ok(out);
        }
        if t.space == Space::Hbm {
            // Appended piece by piece: no zero fill of the buffer first.
            self.state.hbm.read_append(t.byte_offset, total, &mut out);
            return Ok(out);
        }
        // Partition rows appended as they are read: no zero fill of the buffer first.
        for r in self.tensor_rows(t, row as usize, total as usize) {
            out.extend_from_slice(&r);
        }
        Ok(out)
    }

    /// The partition rows (`row` bytes each, `total` in all) of an SBUF or PSUM tensor that
    /// [`Machine::host_check`] accepted.
    fn tensor_rows<'a>(
        &'a self,
        t: &'a HostTensor,
        row: usize,
        total: usize,
    ) -> impl Iterator<Item = Cow<'a, [u8]>> + 'a {
        let mem = &self.state.mem;
        (0..total / row).map(move |i| {
            let start =
                mem.part_base(t.space, t.start_partition + i as u32) + t.byte_offset as usize;
            mem.host_row(t.space, start, row)
        })
    }

    /// Reads a tensor into `out`, which must have exactly the tensor's length.
    pub fn read_tensor_into(&self, t: &HostTensor, out: &mut [u8]) -> Result<(), HostError> {
        let (row, total) = self.host_check(t)?;
        if out.len() as u64 != total {
            return Err(HostError::Length {
                got: out.len() as u64,
                want: total,
            });
        }
        if row == 0 {
            return Ok(());
        }
        if t.space == Space::Hbm {
            self.hbm_check(t, total)?;
            self.state.hbm.read(t.byte_offset, out);
            return Ok(());
        }
        let row = row as usize;
        let rows = self.tensor_rows(t, row, total as usize);
        for (chunk, r) in out.chunks_exact_mut(row).zip(rows) {
            chunk.copy_from_slice(&r);
        }
        Ok(())
    }

    /// Reads a tensor piece by piece, in the order of [`Machine::read_tensor`], handing each
    /// piece to `f` (a partition row of SBUF/PSUM, or at most [`READ_PIECE_BYTES`] of HBM):
    /// a region of any size is read holding one piece at a time (`tpb run`'s `.out`).
    pub fn read_tensor_pieces<E: From<HostError>>(
        &self,
        t: &HostTensor,
        mut f: impl FnMut(&[u8]) -> Result<(), E>,
    ) -> Result<(), E> {
        let (row, total) = self.host_check(t)?;
        if row == 0 {
            return Ok(());
        }
        if t.space == Space::Hbm {
            self.hbm_check(t, total)?;
            let mut buf = vec![0u8; total.min(READ_PIECE_BYTES) as usize];
            let mut at = 0;
            while at < total {
                let n = (total - at).min(READ_PIECE_BYTES) as usize;
                self.state.hbm.read(t.byte_offset + at, &mut buf[..n]);
                f(&buf[..n])?;
                at += n as u64;
            }
            return Ok(());
        }
        for r in self.tensor_rows(t, row as usize, total as usize) {
            f(&r)?;
        }
        Ok(())
    }

    /// How many bytes of the tensor have never been written (decisions §5.2).
    pub fn uninitialised_bytes(&self, t: &HostTensor) -> Result<u64, HostError> {
        let (row, total) = self.host_check(t)?;
        if t.space == Space::Hbm {
            self.hbm_check(t, total)?;
            return Ok(self.state.hbm.count_unset(t.byte_offset, total));
        }
        let mem = &self.state.mem;
        Ok((0..t.partitions)
            .map(|i| {
                let start = mem.part_base(t.space, t.start_partition + i) + t.byte_offset as usize;
                mem.init(t.space).count_unset(start, row as usize)
            })
            .sum())
    }

    /// An HBM tensor's rows lie one after another from its byte offset (the HBM address):
    /// the whole span must fit the configured HBM.
    pub(crate) fn hbm_check(&self, t: &HostTensor, total: u64) -> Result<(), HostError> {
        self.state.hbm.check(t.byte_offset, total).map_err(|e| {
            match t.byte_offset.checked_add(total) {
                Some(_) => HostError::Hbm {
                    start: e.start,
                    end: e.end,
                    size: e.size,
                },
                None => HostError::HbmSpan {
                    start: e.start,
                    size: Some(e.size),
                },
            }
        })
    }

    /// The size of HBM in bytes ([`Config::hbm_bytes`]).
    pub fn hbm_size(&self) -> u64 {
        self.state.hbm.size()
    }

    /// Bytes of HBM pages allocated so far (only written pages are).
    pub fn hbm_allocated(&self) -> u64 {
        self.state.hbm.allocated()
    }

    /// Writes `bytes` to HBM at byte address `addr` (host → device); they become
    /// initialised. Refused, changing nothing, past the configured size.
    pub fn write_hbm(&mut self, addr: u64, bytes: &[u8]) -> Result<(), HostError> {
        let t = HostTensor::hbm(addr).elements(tpb_isa::Dtype::UINT8, bytes.len() as u64);
        self.write_tensor(&t, bytes)
    }

    /// Reads `len` bytes of HBM from byte address `addr` (device → host).
    pub fn read_hbm(&self, addr: u64, len: u64) -> Result<Vec<u8>, HostError> {
        let t = HostTensor::hbm(addr).elements(tpb_isa::Dtype::UINT8, len);
        self.read_tensor(&t)
    }

    /// The 64 registers.
    pub fn registers(&self) -> &[u32; NUM_REGISTERS as usize] {
        &self.state.regs
    }

    /// Sets register `index` (e.g. an AffineSelect fill value as FP32 bits, decisions §3.4).
    pub fn set_register(&mut self, index: usize, value: u32) -> Result<(), HostError> {
        let r = self.state.regs.get_mut(index).ok_or(HostError::Index {
            what: "register",
            index,
            max: NUM_REGISTERS as usize,
        })?;
        *r = value;
        Ok(())
    }

    /// The 256 semaphores.
    pub fn semaphores(&self) -> &[i32; NUM_SEMAPHORES] {
        &self.state.sems
    }

    /// Sets semaphore `index`.
    pub fn set_semaphore(&mut self, index: u8, value: i32) {
        self.state.sems[index as usize] = value;
    }

    /// The 256 event bits.
    pub fn events(&self) -> &[bool; NUM_EVENTS] {
        &self.state.events
    }

    /// Sets or clears event `index`.
    pub fn set_event(&mut self, index: u8, value: bool) {
        self.state.events[index as usize] = value;
    }

    /// The flops of every channel (128 entries, indexed by relative channel).
    pub fn flops(&self) -> &[Flops] {
        &self.state.flops
    }

    /// Replaces the flops of `channel` (to stage a PtrMulti without an ImmLd).
    pub fn set_flops(&mut self, channel: usize, flops: Flops) -> Result<(), HostError> {
        let f = self.state.flops.get_mut(channel).ok_or(HostError::Index {
            what: "channel",
            index: channel,
            max: NUM_CHANNELS as usize,
        })?;
        *f = flops;
        Ok(())
    }

    /// The hidden per-lane DVE state: reduce accumulators, match keys and flags, index
    /// flops and the mask-select table (isa-facts-dve-pool §0.3.3).
    pub fn dve_state(&self) -> &DveState {
        &self.state.dve
    }

    /// Replaces one lane's hidden DVE state (to stage an accumulator or search keys).
    pub fn set_dve_lane(&mut self, lane: usize, value: DveLane) -> Result<(), HostError> {
        let l = self.state.dve.lanes.get_mut(lane).ok_or(HostError::Index {
            what: "DVE lane",
            index: lane,
            max: NUM_CHANNELS as usize,
        })?;
        *l = value;
        Ok(())
    }

    // ---- execution --------------------------------------------------------------------

    /// Executes one instruction; its index in reports is [`Machine::retired`].
    pub fn step(&mut self, inst: &Instruction) -> Result<StepReport, Fault> {
        let index = usize::try_from(self.state.retired).unwrap_or(usize::MAX);
        self.step_at(index, inst)
    }

    /// Executes one instruction, naming it `index` in reports and faults.
    ///
    /// Order: validate for the generation; check the wait and plan the update (decisions
    /// §3.8); compute, with every fault and strict-mode error found before the first write;
    /// commit; apply the wait's effect and the update. On `Err` nothing has changed.
    pub fn step_at(&mut self, index: usize, inst: &Instruction) -> Result<StepReport, Fault> {
        self.run_one(index, inst, true)
    }

    /// As [`Machine::step_at`] without the EVENTS wait and update, and without the waits and
    /// update of an EventSemaphore record: for a scheduler that evaluates them itself (the
    /// multi-engine runner of [`crate::engines`]).
    pub fn execute_at(&mut self, index: usize, inst: &Instruction) -> Result<StepReport, Fault> {
        self.run_one(index, inst, false)
    }

    /// Makes step reports list every memory operand's footprint
    /// ([`StepReport::accesses`]), or stops it (the default: off).
    pub fn set_access_recording(&mut self, on: bool) {
        self.record_accesses = on;
    }

    /// Hands a [`StepReport::accesses`] list back for the next step to fill, saving an
    /// allocation per instruction.
    pub fn recycle_accesses(&mut self, mut list: Vec<MemAccess>) {
        list.clear();
        self.spare_accesses = list;
    }

    fn run_one(
        &mut self,
        index: usize,
        inst: &Instruction,
        events: bool,
    ) -> Result<StepReport, Fault> {
        let gen = self.config.gen;
        let id = InstId {
            index,
            opcode: inst.header.opcode,
            mnemonic: inst.info(gen).map_or("unknown", |r| r.mnemonic),
        };
        let fault = |cause| Fault { inst: id, cause };
        if !is_valid(inst, gen) {
            return Err(fault(FaultCause::Invalid {
                report: validate(inst, gen),
            }));
        }
        let plan = if events {
            events::plan(&inst.events, &self.state).map_err(fault)?
        } else {
            events::EventPlan::default()
        };
        let mut out = Outcome {
            accesses: self
                .record_accesses
                .then(|| std::mem::take(&mut self.spare_accesses)),
            ..Outcome::default()
        };
        let stub = match inst.info(gen).and_then(firmware_stub_log) {
            Some(line) if self.config.firmware_stubs && firmware_stubs_apply(gen) => Some(line),
            _ => None,
        };
        if let Some(line) = stub {
            out.log = Some(line);
            out.warn(
                WarningKind::FirmwareStub,
                format!(
                    "ran as the shipped log-only firmware stub (\"{line}\"): no state change; \
                     the documented contract would have executed"
                ),
            );
            out.gate(&self.config).map_err(fault)?;
        } else if !events && matches!(inst.body, tpb_isa::Body::EventSemaphore(_)) {
            // A sync record changes only semaphores and events: the caller's scheduler
            // evaluates its waits and update (`execute_at`).
        } else {
            exec::execute(
                &self.config,
                &mut self.state,
                &mut self.scratch,
                inst,
                &mut out,
            )
            .map_err(fault)?;
        }
        if events {
            dma_completes(inst, &mut self.state);
        }
        events::apply(plan, &mut self.state);
        self.state.retired += 1;
        let report = out.into_report(id);
        self.state.elements_run = self.state.elements_run.saturating_add(report.elements);
        Ok(report)
    }

    /// Runs a program in order; instruction `i` of `program` is reported as index `i`.
    /// Stops at the first fault (earlier instructions stay executed).
    pub fn run(&mut self, program: &[Instruction]) -> Result<RunReport, Fault> {
        self.run_with(program, |_| {})
    }

    /// As [`Machine::run`], calling `on_step` after each instruction (for traces).
    pub fn run_with(
        &mut self,
        program: &[Instruction],
        mut on_step: impl FnMut(&StepReport),
    ) -> Result<RunReport, Fault> {
        let mut report = RunReport::default();
        for (i, inst) in program.iter().enumerate() {
            let s = self.step_at(i, inst)?;
            on_step(&s);
            report.steps.push(s);
        }
        Ok(report)
    }

    /// Whether the space exists on this machine (maverick has no PSUM).
    pub fn has_space(&self, space: Space) -> bool {
        self.state.mem.has(space)
    }
}
