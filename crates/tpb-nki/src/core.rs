//! The core: a simulated machine, a tile allocator and the program the calls emitted.

use crate::alloc::Arena;
use crate::build::{self, Scalar};
use crate::dma::{dma_copy_instruction, DmaOptions, DmaPlace, DmaView};
use crate::error::NkiError;
use crate::names::Cmp;
use crate::sync::{sync_semaphore, NeededWait, Tracker};
use crate::tape::{self, Effect, Tape};
use crate::tile::Tile;
use crate::Operand;
use std::sync::Arc;
use tpb_isa::geometry::Space;
use tpb_isa::text::disasm;
use tpb_isa::wire::{encode_program, op, EventSemaphore, ImmVal};
use tpb_isa::{AluOp, Dtype, Gen, ImmSrc, Instruction, UpdateMode, WaitMode};
use tpb_sim::engines::queue::default_dma_issuer;
use tpb_sim::engines::{home, run_engines_with, EngineId, EngineOptions, EngineRun, Home};
use tpb_sim::numerics::from_f32;
use tpb_sim::{Config, FaultCause, HostError, HostTensor, Machine, StepReport};

/// Registers for constants are allocated from here downwards (our choice), at most
/// [`MAX_CONSTANT_REGISTERS`] of them; registers below stay the user's.
const FIRST_CONSTANT_REGISTER: u8 = 63;
const MAX_CONSTANT_REGISTERS: usize = 32;

/// A simulated NeuronCore for NKI-shaped calls.
#[derive(Clone, Debug)]
pub struct Core {
    machine: Machine,
    program: Vec<Instruction>,
    /// Constants placed in registers, in the order they were set: (register, bits).
    constants: Vec<(u8, u32)>,
    /// Next free HBM address (HBM tensors are bump-allocated; see [`Core::free`]).
    hbm_next: u64,
    /// Free space per partition: [sbuf, psum].
    arenas: [Arena; 2],
    /// The engine queue of each emitted instruction.
    engines: Vec<EngineId>,
    /// Where each emitted instruction came from.
    labels: Vec<Label>,
    /// The call being emitted: its origin, name and engine request.
    call: Label,
    /// Footprints and what each engine is ordered after.
    tracker: Tracker,
    /// DMA requests issued without an engine so far ([`crate::sync::dma_issuer`]).
    dma_turn: usize,
    /// Everything that changed the machine, in order ([`crate::replay`]): the scheduled
    /// re-run replays the host writes before the first instruction onto a fresh machine (a
    /// clone of the whole machine, 24 MiB of SBUF and more, cost about 10 ms per kernel),
    /// and a kernel's [`crate::Replay`] all of it.
    tape: Tape,
    /// The host read device data mid-run ([`Core::mark_host_read`]).
    host_read: bool,
    /// The machine as it was before the first instruction, kept only when `machine_mut`
    /// allowed writes the core cannot record.
    start: Option<Box<Machine>>,
    /// `machine_mut` was called before the first instruction.
    opaque_start: bool,
    /// Host writes made after the first instruction (the re-run cannot replay them).
    late_host_writes: usize,
    /// On-chip bytes a mask declared don't-care ([`Core::mark_masked_out`]); the re-run
    /// marks them before its first instruction.
    masked_out: Vec<tpb_sim::HostTensor>,
    /// Whether emission adds the waits footprints need (off: the kernel synchronises by
    /// hand, and the scheduled re-run checks it).
    auto_sync: bool,
    /// Whether out-of-bounds views are clipped with a warning (else refused).
    clip_views: bool,
    /// Inside [`Core::all_or_nothing`] (a nested one does not save the core again).
    atomic: bool,
    /// The PSUM views a matmul wrote, for `nc_matmul(accumulate=None)` ([`crate::pe`]).
    pub(crate) matmul_groups: crate::matmul_groups::MatmulGroups,
    /// The 128 × 128 identities the PE transpose multiplies by, one per dtype.
    pub(crate) identities: Vec<Tile>,
    /// The number of allocations made ([`Tile::alloc`] of the last one).
    allocations: u64,
}

/// Where an emitted instruction came from: the kernel source line and `name=` of the call,
/// and the engine the call asked for.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Label {
    /// `file:line` of the kernel source that made the call.
    pub origin: Option<Arc<str>>,
    /// The call's `name=`.
    pub name: Option<Arc<str>>,
    /// The call's `engine=`.
    pub engine: Option<EngineId>,
    /// Why the instruction's result is approximate when the call is a composition tpb
    /// chose (`bn_stats`, `bn_aggr`: assumption `bn-stats-lowering`); profiles list it with
    /// the approximate activation functions.
    pub approximate: Option<&'static str>,
}

impl Label {
    /// `name at file:line`, or what of it is known.
    pub fn describe(&self) -> String {
        match (&self.name, &self.origin) {
            (Some(n), Some(o)) => format!("{n:?} at {o}"),
            (None, Some(o)) => format!("at {o}"),
            (Some(n), None) => format!("{n:?}"),
            (None, None) => String::new(),
        }
    }
}

/// The arena of an on-chip space (HBM is bump-allocated apart: [`Core::hbm_place`]).
fn space_index(space: Space) -> Option<usize> {
    match space {
        Space::Sbuf => Some(0),
        Space::Psum => Some(1),
        Space::Hbm => None,
    }
}

impl Core {
    /// A core of `gen` with the default machine configuration.
    pub fn new(gen: Gen) -> Core {
        Core::with_config(Config::new(gen))
    }

    /// A core with an explicit machine configuration (strict mode, FP8 variants, limits).
    ///
    /// A strict core's machine is made for a strict run ([`Machine::new_for_strict_run`]):
    /// a pooled memory's old bytes are not zeroed, as no strict instruction can read them
    /// and the host reads never-written bytes as zero.
    pub fn with_config(config: Config) -> Core {
        let mut machine = Machine::new_for_strict_run(config);
        machine.set_access_recording(true);
        Core::around(machine)
    }

    /// A core with nothing emitted around a new machine.
    fn around(machine: Machine) -> Core {
        let gen = machine.gen();
        Core {
            machine,
            program: Vec::new(),
            constants: Vec::new(),
            hbm_next: 0,
            arenas: [
                Arena::new(build::space_bytes(gen, Space::Sbuf), false),
                Arena::new(build::space_bytes(gen, Space::Psum), true),
            ],
            engines: Vec::new(),
            labels: Vec::new(),
            call: Label::default(),
            tracker: Tracker::default(),
            dma_turn: 0,
            tape: Tape::default(),
            host_read: false,
            start: None,
            opaque_start: false,
            late_host_writes: 0,
            masked_out: Vec::new(),
            auto_sync: true,
            clip_views: false,
            atomic: false,
            matmul_groups: crate::matmul_groups::MatmulGroups::default(),
            identities: Vec::new(),
            allocations: 0,
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
        if self.program.is_empty() {
            self.opaque_start = true;
        }
        self.tape.note_direct_change();
        &mut self.machine
    }

    /// What changed the machine so far ([`crate::Replay::of`]).
    pub(crate) fn tape(&self) -> &Tape {
        &self.tape
    }

    /// Why the run so far cannot be replayed from its tape, if it cannot: the tape's own
    /// reason, or a host read of device data (the kernel's code may have decided on it).
    pub(crate) fn not_replayable(&self) -> Option<&'static str> {
        self.tape.opaque().or(self
            .host_read
            .then_some("the kernel read device data back to the host (Tile.numpy)"))
    }

    /// Whether the HBM tensor `t` was written after the host placed it (a kernel's writes
    /// to its input land in the caller's array): by an instruction, or by a host write
    /// other than the first that covered it. `None` when the core cannot tell: its record
    /// was cut at its size limit, or its machine was changed directly.
    pub fn written_after_placed(&self, t: &HostTensor) -> Option<bool> {
        let bytes = tape::hbm_range(t)?;
        if self.tape.direct_changes() {
            return None;
        }
        let by_instructions = self.tape.wrote_hbm(&bytes)?;
        Some(by_instructions || self.tape.host_writes_over(&bytes)? > 1)
    }

    /// The host is reading device data while the kernel runs: the kernel's code may decide
    /// on it, so the run is not replayable ([`crate::Replay::of`]).
    pub fn mark_host_read(&mut self) {
        self.host_read = true;
    }

    /// HBM bytes allocated so far (the tensors live below this address).
    pub(crate) fn hbm_used(&self) -> u64 {
        self.hbm_next
    }

    /// A core whose machine a [`crate::Replay`] fills: nothing emitted, `hbm_used` bytes of
    /// HBM tensors, access recording off (nothing is emitted on it); strict, its machine is
    /// made for a strict run, as [`Core::with_config`]'s.
    pub(crate) fn replaying(config: Config, hbm_used: u64) -> Core {
        let mut core = Core::around(Machine::new_for_strict_run(config));
        core.hbm_next = hbm_used;
        core
    }

    /// The machine a replay writes to.
    pub(crate) fn machine_for_replay(&mut self) -> &mut Machine {
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
    /// all come first), then one canonical line per instruction, with `.engine NAME` before
    /// the instructions the opcode table lets run on more than one queue (and `.engine
    /// auto` after them).
    pub fn disasm(&self) -> String {
        let mut s = format!(".gen {}\n", self.gen());
        for &(r, bits) in &self.constants {
            s.push_str(&format!(".reg {r} = {bits:#010x}\n"));
        }
        let mut directives = self.placements().into_iter().peekable();
        for (k, i) in self.program.iter().enumerate() {
            while let Some((_, e)) = directives.next_if(|p| p.0 == k) {
                s.push_str(&format!(".engine {}\n", e.map_or("auto", |e| e.name())));
            }
            s.push_str(&disasm(i, self.gen()));
            s.push('\n');
        }
        s
    }

    /// The engine queue of every emitted instruction, in program order.
    pub fn engines(&self) -> &[EngineId] {
        &self.engines
    }

    /// Where every emitted instruction came from, in program order.
    pub fn labels(&self) -> &[Label] {
        &self.labels
    }

    /// The `.engine` directives that place the program as emitted (program index, engine;
    /// `None` = `.engine auto`), for [`tpb_sim::engines::place`] and `tpb run`.
    pub fn placements(&self) -> Vec<(usize, Option<EngineId>)> {
        let gen = self.gen();
        let mut out = Vec::new();
        let mut current: Option<EngineId> = None;
        for (k, (inst, &e)) in self.program.iter().zip(&self.engines).enumerate() {
            let want = match home(inst, gen) {
                Home::Only(_) => None,
                Home::Either(first, _) => (e != first).then_some(e),
                Home::Dma => (e != default_dma_issuer(gen)).then_some(e),
                Home::Any => Some(e),
            };
            if want != current && (want.is_some() || current.is_some()) {
                out.push((k, want));
                current = want;
            }
        }
        out
    }

    /// Turns the emitted synchronisation on (the default) or off. Off, every instruction
    /// still counts on its engine's semaphore but no wait is added: a kernel that
    /// synchronises by hand is checked by [`Core::schedule`], not fixed.
    pub fn set_auto_sync(&mut self, on: bool) {
        self.auto_sync = on;
    }

    /// Whether views that run past their tile are clipped with a warning
    /// ([`Tile::index_clipped`]) rather than refused (the default).
    pub fn set_clip_views(&mut self, on: bool) {
        self.clip_views = on;
    }

    /// See [`Core::set_clip_views`].
    pub fn clip_views(&self) -> bool {
        self.clip_views
    }

    /// Sets what the next emitted instructions are labelled with (the kernel source line,
    /// `name=`) and the engine the call asks for (`engine=`), until the next call.
    pub fn set_call(&mut self, call: Label) {
        self.call = call;
    }

    /// Clears the engine the current call asked for (for helper instructions a call emits
    /// on other engines) and returns it for [`Core::restore_call_engine`].
    pub(crate) fn take_call_engine(&mut self) -> Option<EngineId> {
        self.call.engine.take()
    }

    /// Runs `f`, putting the whole core back as it was if it fails: a call that emits
    /// several instructions (a split view, a split DMA) changes nothing on a fault in any of
    /// them. The saved copy costs a clone of the machine (its SBUF, PSUM and written HBM
    /// pages), so only calls that split use it.
    pub(crate) fn all_or_nothing<T>(
        &mut self,
        f: impl FnOnce(&mut Core) -> Result<T, NkiError>,
    ) -> Result<T, NkiError> {
        if self.atomic {
            return f(self);
        }
        let saved = self.clone();
        self.atomic = true;
        let r = f(self);
        self.atomic = false;
        if r.is_err() {
            *self = saved;
        }
        r
    }

    /// Sets why the current call's next instructions are approximate (see
    /// [`Label::approximate`]) and returns the previous setting.
    pub(crate) fn call_approximate(&mut self, why: Option<&'static str>) -> Option<&'static str> {
        std::mem::replace(&mut self.call.approximate, why)
    }

    /// Puts back what [`Core::take_call_engine`] took.
    pub(crate) fn restore_call_engine(&mut self, engine: Option<EngineId>) {
        self.call.engine = engine;
    }

    /// Allocates a tile of `shape` (partition dimension first, at most 128) in `space`.
    pub fn ndarray(
        &mut self,
        shape: &[usize],
        dtype: Dtype,
        space: Space,
    ) -> Result<Tile, NkiError> {
        self.ndarray_named(shape, dtype, space, "")
    }

    /// [`Core::ndarray`] naming the tile (NKI `name=`) in a capacity error.
    pub fn ndarray_named(
        &mut self,
        shape: &[usize],
        dtype: Dtype,
        space: Space,
        name: &str,
    ) -> Result<Tile, NkiError> {
        let Some(k) = space_index(space) else {
            let (tile, next) = self.hbm_place(shape, dtype)?;
            self.hbm_next = next;
            let t = tile.host();
            if self.machine.place_tensor(&t)? {
                self.tape.push(Effect::Place(t));
            }
            return Ok(self.numbered(tile));
        };
        self.space_exists(k, space)?;
        let tile = allocate(&mut self.arenas[k], shape, dtype, space, name)?;
        self.end_matmul_groups(&tile);
        Ok(self.numbered(tile))
    }

    /// `tile` as the core's next allocation ([`Tile::alloc`]).
    fn numbered(&mut self, tile: Tile) -> Tile {
        self.allocations += 1;
        Tile {
            alloc: self.allocations,
            ..tile
        }
    }

    /// `nl.ndarray(shape, dtype, buffer, name, address=(partition, offset))`: an on-chip
    /// tile placed by the kernel at `partition` and byte `offset` (NKI 0.3.0+). Its bytes
    /// must be free or held by other placed tiles (which it then overlaps, as the kernel
    /// chose), never by a tile the allocator placed.
    pub fn ndarray_at(
        &mut self,
        shape: &[usize],
        dtype: Dtype,
        space: Space,
        name: &str,
        (partition, offset): (u32, u64),
    ) -> Result<Tile, NkiError> {
        let Some(k) = space_index(space) else {
            return Err(NkiError::Value {
                argument: "address",
                detail: "placement applies to SBUF and PSUM tiles, not HBM".into(),
            });
        };
        let mut probe = Arena::new(self.arenas[k].total(), false);
        let tile = allocate(&mut probe, shape, dtype, space, name)?;
        let bad = |detail: String| NkiError::Value {
            argument: "address",
            detail,
        };
        let size = dtype.size().unwrap_or(1) as u64;
        let (parts, row) = (tile.partitions(), tile.row_bytes());
        if u64::from(partition) + u64::from(parts) > 128 || !offset.is_multiple_of(size) {
            return Err(bad(format!(
                "({partition}, {offset}): {parts} partitions from {partition} pass partition 128, \
                 or byte {offset} is not on a {dtype} element"
            )));
        }
        if offset + row > self.arenas[k].total() {
            return Err(bad(format!(
                "({partition}, {offset}): {row} bytes per partition pass the {} bytes of {}",
                self.arenas[k].total(),
                space.name()
            )));
        }
        self.arenas[k].pin(offset, row).map_err(|used| {
            bad(format!(
                "({partition}, {offset}): bytes {:#x}..{:#x} of each partition hold a tile tpb \
                 placed (placed tiles may overlap only each other)",
                used.start, used.end
            ))
        })?;
        let tile = Tile {
            start_partition: partition,
            offset,
            ..tile
        };
        self.end_matmul_groups(&tile);
        Ok(self.numbered(tile))
    }

    /// Whether [`Core::ndarray`] would allocate such a tile now (nothing is allocated): a
    /// caller can check a shape before gathering the data for it.
    pub fn check_ndarray(
        &self,
        shape: &[usize],
        dtype: Dtype,
        space: Space,
    ) -> Result<(), NkiError> {
        let Some(k) = space_index(space) else {
            return self.hbm_place(shape, dtype).map(|_| ());
        };
        self.space_exists(k, space)?;
        let mut probe = self.arenas[k].clone();
        allocate(&mut probe, shape, dtype, space, "").map(|_| ())
    }

    /// Refuses tiles in a space the generation does not have (maverick has no PSUM).
    fn space_exists(&self, k: usize, space: Space) -> Result<(), NkiError> {
        if self.arenas[k].total() == 0 {
            return Err(NkiError::NotSupported {
                what: format!(
                    "a {} tile on {}: the generation has no {} (PSUM_BUF_SZ is 0)",
                    space.name(),
                    self.gen(),
                    space.name()
                ),
            });
        }
        Ok(())
    }

    /// Returns an allocated tile's space (when the kernel no longer references it; its
    /// bytes keep their values, and the dependency tracker still orders a later reuse).
    /// HBM tensors are bump-allocated and keep their space.
    pub fn free(&mut self, tile: &Tile) {
        if let Some(k) = space_index(tile.space) {
            if self.arenas[k].is_pinned(tile.offset) {
                self.arenas[k].unpin(tile.offset, tile.row_bytes());
            } else {
                self.arenas[k].release(tile.offset, tile.row_bytes());
            }
        }
        self.end_matmul_groups(tile);
    }

    /// A new or freed PSUM tile starts no accumulation group a matmul opened before.
    fn end_matmul_groups(&mut self, tile: &Tile) {
        if tile.space == Space::Psum {
            let parts = tile.start_partition..tile.start_partition + tile.partitions();
            let start = tile.offset;
            self.matmul_groups
                .end_overlapping(parts, start, start + tile.row_bytes());
        }
    }

    /// Bytes per partition still free in `space` (for HBM, bytes still free).
    pub fn free_bytes(&self, space: Space) -> u64 {
        match space_index(space) {
            Some(k) => self.arenas[k].free_bytes(),
            None => self.machine.hbm_size().saturating_sub(self.hbm_next),
        }
    }

    /// The HBM tensor of `shape` (any rank, C order, contiguous) [`Core::ndarray`] allocates
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
        let at = self.hbm_next;
        let free_bytes = total.saturating_sub(at);
        if bytes > free_bytes {
            return Err(NkiError::OutOfMemory {
                name: String::new(),
                largest: free_bytes,
                space: Space::Hbm,
                want: bytes,
                free: free_bytes,
                total,
            });
        }
        let tile = Tile::contiguous(Space::Hbm, 0, at, dtype, shape.to_vec());
        Ok((
            tile,
            (at + bytes).next_multiple_of(crate::alloc::TILE_ALIGN),
        ))
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
        self.dma_copy_opts(&dst.dma_view()?, &src.dma_view()?, engine, opts)
    }

    /// [`Core::dma_copy`] on explicit views (NKI `.ap()` patterns, [`crate::dma::DmaView`]).
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

    /// `nki.isa.dma_transpose(dst, src, axes)` of an on-chip source: one copy (split into
    /// requests as [`Core::dma_copy_opts`] splits) whose source walks `src`'s dims in the
    /// order `axes` (kernel order, the partition dim being 0), so that `dst` (shaped like
    /// the permuted source) gets `src` transposed: the documented result (nki-api §3
    /// `dma_transpose`), as an element-strided DMAMEMCPY over tpb's on-chip DMA address
    /// map (assumption `dma-address-map`), not the DMA_TRANSPOSE instruction, whose tile
    /// order is not public.
    pub fn dma_transpose_on_chip(
        &mut self,
        dst: &Tile,
        src: &Tile,
        axes: &[usize],
    ) -> Result<StepReport, NkiError> {
        for (t, operand) in [(src, "src"), (dst, "dst")] {
            if t.space == Space::Hbm || t.blocks > 0 {
                return Err(NkiError::Shape {
                    operand,
                    detail: format!(
                        "{t}: an on-chip transpose reads an SBUF tile without block dims and                          writes one"
                    ),
                });
            }
        }
        let from = src
            .dma_view()?
            .permuted(axes)
            .ok_or_else(|| NkiError::Value {
                argument: "axes",
                detail: format!(
                    "{axes:?} is not a permutation of the source's {} dims",
                    src.shape.len()
                ),
            })?;
        self.dma_copy_opts(&dst.dma_view()?, &from, None, DmaOptions::default())
    }

    /// [`Core::dma_copy_view`] with every DMA option ([`DmaOptions`]).
    ///
    /// A copy that does not fit one DMA_DIRECT2D is split into several requests (one per
    /// index of an outer dim, as a DMA encoder splits it); all are built and validated before
    /// the first is emitted, and they run all or nothing: one that
    /// faults when it runs (an uninitialised source under the strict sanitizer) leaves the
    /// core as it was.
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
        let engine = match engine {
            Some(e) => e,
            None => {
                self.dma_turn += 1;
                crate::sync::dma_issuer(gen, self.dma_turn - 1)
            }
        };
        if !engine.issues_dma(gen) {
            return Err(NkiError::Value {
                argument: "engine",
                detail: format!(
                    "{engine} does not issue DMA on {gen}: SP or ACT (hardware DGE, cayman+) \
                     or POOL (software DGE)"
                ),
            });
        }
        let opts = self.dma_signal(engine, opts)?;
        let mut insts = Vec::new();
        dma_requests(gen, dst, src, opts, &mut insts).map_err(|e| NkiError::Shape {
            operand: "dma_copy",
            detail: e.to_string(),
        })?;
        let n_requests = insts.len();
        // The requests go on the issuing queue; [`Core::placements`] names it when it is
        // not the default issuer. Several run all or nothing.
        let emit_all = |core: &mut Core| {
            let mut last = None;
            for inst in insts {
                last = Some(core.emit_on(inst, &[], engine)?);
            }
            last.ok_or_else(|| NkiError::Shape {
                operand: "dma_copy",
                detail: "nothing to copy".into(),
            })
        };
        if n_requests > 1 {
            self.all_or_nothing(emit_all)
        } else {
            emit_all(self)
        }
    }

    /// The options a DMA request issued on `issuer` goes out with. Under the emitted
    /// synchronisation its transfer counts on the DMA queue's semaphore
    /// ([`sync_semaphore`] of the queue) when its data has landed, which is what a consumer
    /// of the data waits for ([`crate::sync`]); a request that asks for its own semaphore is
    /// then refused (the DMA has one semaphore field). Without it, the options stay as given.
    fn dma_signal(&self, issuer: EngineId, opts: DmaOptions) -> Result<DmaOptions, NkiError> {
        if !self.auto_sync {
            return Ok(opts);
        }
        if opts.sem_increment != 0 {
            return Err(NkiError::NotSupported {
                what: format!(
                    "a DMA request with its own semaphore ({}) under the emitted \
                     synchronisation: the request's one semaphore field signals its data \
                     landing to the emitted waits (turn the synchronisation off to \
                     synchronise by hand)",
                    opts.semaphore
                ),
            });
        }
        let queue = issuer.dma_queue().unwrap_or(EngineId::DmaSp);
        Ok(DmaOptions {
            semaphore: sync_semaphore(queue),
            sem_increment: 1,
            ..opts
        })
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

    /// `nl.broadcast_to` over the partition dim: `dst[p, …] = src[0, …]` for every
    /// partition of `dst`, with one DMA whose source walks `src`'s single partition with a
    /// partition step of 0 (engines cannot read one partition into many; a DMA can). `src`
    /// has one partition and `dst`'s free elements (SBUF, dtype converted as `dma_copy`).
    pub fn broadcast_partitions(&mut self, dst: &Tile, src: &Tile) -> Result<StepReport, NkiError> {
        if src.partitions() != 1 || src.free_elements() != dst.free_elements() {
            return Err(NkiError::Shape {
                operand: "src",
                detail: format!(
                    "{src}: a partition broadcast reads one partition with dst's {} elements",
                    dst.free_elements()
                ),
            });
        }
        let mut from = src.dma_view()?;
        from.pattern[0] = [0, i64::from(dst.partitions())];
        self.dma_copy_opts(&dst.dma_view()?, &from, None, DmaOptions::default())
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
        self.machine.set_register(n, bits)?;
        self.tape.push(Effect::Register(n, bits));
        Ok(())
    }

    /// Writes a tile's (or a view's) elements (raw little-endian element bytes, C order of
    /// the view).
    pub fn write(&mut self, tile: &Tile, bytes: &[u8]) -> Result<(), NkiError> {
        tile.check()?;
        if !self.program.is_empty() {
            self.late_host_writes += 1;
        }
        if tile.is_contiguous() {
            return self.host_write(tile.host(), bytes);
        }
        if tile.space == Space::Hbm {
            let (hull, mut flat, offs) = self.hbm_hull(tile)?;
            let size = tile.dtype.size().unwrap_or(1);
            if bytes.len() != offs.len() * size {
                return Err(NkiError::Host(HostError::Length {
                    want: (offs.len() * size) as u64,
                    got: bytes.len() as u64,
                }));
            }
            for (k, &o) in offs.iter().enumerate() {
                let at = o as usize * size;
                flat[at..at + size].copy_from_slice(&bytes[k * size..(k + 1) * size]);
            }
            return self.host_write(hull, &flat);
        }
        let (hull, mut rows) = self.read_hull(tile)?;
        let size = tile.dtype.size().unwrap_or(1);
        let offs = tile.element_offsets();
        let row_len = hull.elems_per_partition as usize;
        let want = offs.len() * size * tile.partitions() as usize;
        if bytes.len() != want {
            return Err(NkiError::Host(HostError::Length {
                want: want as u64,
                got: bytes.len() as u64,
            }));
        }
        let base = (tile.offset - hull.byte_offset) as i64;
        for (p, chunk) in bytes.chunks(offs.len() * size).enumerate() {
            for (k, &o) in offs.iter().enumerate() {
                let at = p * row_len + (base + o * size as i64) as usize;
                rows[at..at + size].copy_from_slice(&chunk[k * size..(k + 1) * size]);
            }
        }
        self.host_write(hull, &rows)
    }

    /// Declares an on-chip tile's elements written, keeping their bytes: a masked call
    /// leaves the elements its mask skips as they were (the compiler shrinks the
    /// instruction), and the kernel has said it does not care about them, so later unmasked
    /// reads of them (a ragged last tile's rows) are not uninitialised reads. An HBM tensor
    /// is left alone: its unwritten elements stay visible.
    pub fn mark_masked_out(&mut self, tile: &Tile) -> Result<(), NkiError> {
        tile.check()?;
        if tile.space == Space::Hbm {
            return Ok(());
        }
        let size = tile.dtype.size().unwrap_or(1) as i64;
        let mut offs = tile.element_offsets();
        offs.sort_unstable();
        offs.dedup();
        let p = tile.start_partition;
        let mut runs: Vec<(i64, i64)> = Vec::new();
        for o in offs {
            match runs.last_mut() {
                Some((start, len)) if *start + *len == o => *len += 1,
                _ => runs.push((o, 1)),
            }
        }
        for (start, len) in runs {
            let t = tpb_sim::HostTensor::at(tile.space, p..p + tile.partitions())
                .offset((tile.offset as i64 + start * size) as u64)
                .elements(Dtype::UINT8, (len * size) as u64);
            self.machine.mark_initialised(&t)?;
            self.tape.push(Effect::Initialised(t));
            self.masked_out.push(t);
        }
        Ok(())
    }

    /// One host write, recorded for the re-run when no instruction has run yet.
    fn host_write(&mut self, t: tpb_sim::HostTensor, bytes: &[u8]) -> Result<(), NkiError> {
        self.machine.write_tensor(&t, bytes)?;
        self.tape.push(Effect::Write(t, bytes.to_vec()));
        Ok(())
    }

    /// Reads a tile's (or a view's) elements (raw little-endian element bytes, C order of
    /// the view).
    pub fn read(&self, tile: &Tile) -> Result<Vec<u8>, NkiError> {
        tile.check()?;
        if tile.is_contiguous() {
            return Ok(self.machine.read_tensor(&tile.host())?);
        }
        if tile.space == Space::Hbm {
            let (_, flat, offs) = self.hbm_hull(tile)?;
            let size = tile.dtype.size().unwrap_or(1);
            let mut out = Vec::with_capacity(offs.len() * size);
            for &o in &offs {
                let at = o as usize * size;
                out.extend_from_slice(&flat[at..at + size]);
            }
            return Ok(out);
        }
        let (hull, rows) = self.read_hull(tile)?;
        let size = tile.dtype.size().unwrap_or(1);
        let row_len = hull.elems_per_partition as usize;
        let base = (tile.offset - hull.byte_offset) as i64;
        let offs = tile.element_offsets();
        let mut out = Vec::with_capacity(offs.len() * size * tile.partitions() as usize);
        for p in 0..tile.partitions() as usize {
            for &o in &offs {
                let at = p * row_len + (base + o * size as i64) as usize;
                out.extend_from_slice(&rows[at..at + size]);
            }
        }
        Ok(out)
    }

    /// The elements of each of `tiles`, as [`Core::read`] gives them, the core consumed: a
    /// whole HBM tensor placed in one piece that overlaps no other of `tiles` is moved out
    /// without a copy ([`tpb_sim::Machine::into_tensors`]; a replayed kernel's outputs).
    pub fn into_reads(self, tiles: &[&Tile]) -> Result<Vec<Vec<u8>>, NkiError> {
        let mut out: Vec<Option<Vec<u8>>> = Vec::with_capacity(tiles.len());
        let mut whole = Vec::new();
        for t in tiles {
            t.check()?;
            if t.space == Space::Hbm && t.is_contiguous() {
                whole.push(t.host());
                out.push(None);
            } else {
                out.push(Some(self.read(t)?));
            }
        }
        let mut taken = self.machine.into_tensors(&whole)?.into_iter();
        Ok(out
            .into_iter()
            .map(|r| r.or_else(|| taken.next()).unwrap_or_default())
            .collect())
    }

    /// The bytes a strided HBM view spans, as one host tensor of bytes, its contents, and
    /// the view's element offsets relative to the hull's start (in elements, C order).
    fn hbm_hull(&self, tile: &Tile) -> Result<(tpb_sim::HostTensor, Vec<u8>, Vec<i64>), NkiError> {
        let mut offs = tile.hbm_element_offsets();
        let size = tile.dtype.size().unwrap_or(1) as i64;
        let lo = offs.iter().copied().min().unwrap_or(0);
        let hi = offs.iter().copied().max().unwrap_or(0);
        for o in &mut offs {
            *o -= lo;
        }
        let start = (tile.offset as i64 + lo * size) as u64;
        let hull =
            tpb_sim::HostTensor::hbm(start).elements(Dtype::UINT8, ((hi - lo + 1) * size) as u64);
        let flat = self.machine.read_tensor(&hull)?;
        Ok((hull, flat, offs))
    }

    /// The bytes each partition of `tile` spans, as one host tensor of bytes, and its
    /// contents.
    /// The first element of an HBM tensor `tile` (C order of its shape) with a byte never
    /// written, if any: a kernel's output it left unwritten (issue 29 item 12). An on-chip
    /// tile answers `None` (outputs are HBM tensors).
    pub fn first_unwritten(&self, tile: &Tile) -> Result<Option<usize>, NkiError> {
        tile.check()?;
        if tile.space != Space::Hbm {
            return Ok(None);
        }
        let size = tile.dtype.size().unwrap_or(1) as u64;
        let unset = |start: u64, len: u64| {
            let bytes = tpb_sim::HostTensor::hbm(start).elements(Dtype::UINT8, len);
            self.machine.uninitialised_bytes(&bytes)
        };
        if !tile.is_contiguous() {
            let offs = tile.hbm_element_offsets();
            let lo = offs.iter().copied().min().unwrap_or(0);
            let hi = offs.iter().copied().max().unwrap_or(0);
            let start = (tile.offset as i64 + lo * size as i64) as u64;
            if unset(start, (hi - lo + 1) as u64 * size)? == 0 {
                return Ok(None); // every byte the view spans was written
            }
            // Element by element, in the view's order.
            for (i, &o) in offs.iter().enumerate() {
                let at = (tile.offset as i64 + o * size as i64) as u64;
                if unset(at, size)? > 0 {
                    return Ok(Some(i));
                }
            }
            return Ok(None);
        }
        let host = tile.host();
        if self.machine.uninitialised_bytes(&host)? == 0 {
            return Ok(None);
        }
        // The first unset byte, by halving the span that holds it.
        let total = host.len().unwrap_or(0);
        let (mut lo, mut hi) = (0u64, total);
        while hi - lo > 1 {
            let mid = lo + (hi - lo) / 2;
            if unset(host.byte_offset + lo, mid - lo)? > 0 {
                hi = mid;
            } else {
                lo = mid;
            }
        }
        Ok(Some((lo / size) as usize))
    }

    fn read_hull(&self, tile: &Tile) -> Result<(tpb_sim::HostTensor, Vec<u8>), NkiError> {
        let (start, len) = tile.hull();
        let p = tile.start_partition;
        let hull = tpb_sim::HostTensor::at(tile.space, p..p + tile.partitions())
            .offset(start)
            .elements(Dtype::UINT8, len);
        let rows = self.machine.read_tensor(&hull)?;
        Ok((hull, rows))
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
        self.elementwise(3, &[dst.clone(), data.clone()], &mut |core, v| {
            let i = build::tensor_scalar(
                gen,
                &v[0],
                &v[1],
                bitvec,
                [op0, op1v],
                [s0, s1],
                [reverse0, reverse1],
            )?;
            core.emit(i, &[])
        })
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

    /// Validates `inst` for the core's generation, runs it, and appends it to the program
    /// on its engine's queue with the synchronisation it needs ([`crate::sync`]).
    /// On any error nothing is appended and no state changes: the constant registers this
    /// call placed (`placed`) get their previous values back.
    /// The machine validates before anything runs, so an invalid instruction comes back as
    /// a fault carrying the validator's report.
    /// Validates, runs and records an instruction that uses no placed constants (the
    /// issue-17a calls in `dve_pool`).
    pub(crate) fn emit_instruction(&mut self, inst: Instruction) -> Result<StepReport, NkiError> {
        self.emit(inst, &[])
    }

    fn emit(&mut self, inst: Instruction, placed: &[Placed]) -> Result<StepReport, NkiError> {
        self.emit_on(inst, placed, EngineId::Dve)
    }

    /// [`Core::emit`] with the engine an instruction the opcode table lets run anywhere goes
    /// to when the call does not ask (`engine=`).
    ///
    /// A DMA request's `default_engine` is its issuing queue (chosen by `dma_copy`).
    fn emit_on(
        &mut self,
        mut inst: Instruction,
        placed: &[Placed],
        default_engine: EngineId,
    ) -> Result<StepReport, NkiError> {
        let gen = self.gen();
        let placement = home(&inst, gen);
        let engine = match (placement, self.call.engine) {
            (Home::Only(h), Some(a)) if a != h => {
                self.emit_failed(placed);
                return Err(NkiError::Value {
                    argument: "engine",
                    detail: format!(
                        "{} runs on {h} only (opcode table), not on {a}",
                        inst.info(gen).map_or("this instruction", |r| r.mnemonic)
                    ),
                });
            }
            (Home::Only(h), _) => h,
            (Home::Either(x, y), Some(a)) if a != x && a != y => {
                self.emit_failed(placed);
                return Err(NkiError::Value {
                    argument: "engine",
                    detail: format!(
                        "{} runs on {x} or {y} (opcode table), not on {a}",
                        inst.info(gen).map_or("this instruction", |r| r.mnemonic)
                    ),
                });
            }
            (Home::Either(_, _), Some(a)) => a,
            (Home::Either(x, _), None) => x,
            // A DMA request goes where its call placed it (`dma_copy` checks the issuer).
            (Home::Dma, _) => default_engine,
            (Home::Any, a) => a.unwrap_or(default_engine),
        };
        if self.program.is_empty() && self.opaque_start && self.start.is_none() {
            self.start = Some(Box::new(self.machine.clone()));
        }
        inst.events.update_mode = UpdateMode::SEM_INC_COMPLETE;
        inst.events.update_idx = sync_semaphore(engine);
        let mut report = match self.machine.step_at(self.program.len(), &inst) {
            Ok(r) => {
                self.tape.push(Effect::Step(self.program.len(), inst));
                self.tape.note_elements(r.elements);
                r
            }
            Err(fault) => {
                self.emit_failed(placed);
                return Err(match fault.cause {
                    FaultCause::Invalid { report } => NkiError::Invalid {
                        mnemonic: fault.inst.mnemonic.to_string(),
                        inst: Box::new(inst),
                        report,
                    },
                    _ => NkiError::Fault(fault),
                });
            }
        };
        let accesses = std::mem::take(&mut report.accesses);
        self.tape.note_writes(&accesses);
        // Any write but a matmul's (by behaviour, not byte) ends the groups it touches.
        let matmul = inst
            .info(self.machine.gen())
            .is_some_and(|r| matches!(r.sem, tpb_isa::opcode::Sem::Matmul(_)));
        if !matmul {
            self.matmul_groups.end_written(&accesses);
        }
        // A DMA request's data moves on its issuer's DMA queue.
        let dma_queue = match placement {
            Home::Dma => engine.dma_queue(),
            _ => None,
        };
        let waits = match (self.auto_sync, dma_queue) {
            (false, _) => Vec::new(),
            (true, Some(q)) => self.tracker.needed_dma(engine, q, &accesses),
            (true, None) => self.tracker.needed(engine, &accesses),
        };
        // The first wait rides in the preamble; the others go two by two into
        // EventSemaphore records just before it on the same queue.
        let (first, rest) = match waits.split_first() {
            Some((f, r)) => (Some(*f), r),
            None => (None, &[][..]),
        };
        for pair in rest.chunks(2) {
            let sem = event_semaphore_waits(pair);
            self.push(sem, engine);
        }
        if let Some(w) = first {
            set_wait(&mut inst, w);
        }
        let index = self.program.len();
        match dma_queue {
            Some(q) => self.tracker.commit_dma(engine, q, index, &waits, &accesses),
            None => self.tracker.commit(engine, index, &waits, &accesses),
        }
        self.push(inst, engine);
        self.machine.recycle_accesses(accesses);
        Ok(report)
    }

    fn push(&mut self, inst: Instruction, engine: EngineId) {
        self.program.push(inst);
        self.engines.push(engine);
        self.labels.push(self.call.clone());
    }

    /// Runs the emitted program again, from the machine as it was before the first
    /// instruction, on the multi-engine scheduler (one queue per engine, the timing model,
    /// race and deadlock detection). `on_step` sees each step as it starts. Returns the
    /// machine after the run and the run.
    pub fn schedule(
        &self,
        opts: &EngineOptions,
        on_step: impl FnMut(&tpb_sim::engines::ScheduledStep, &StepReport),
    ) -> Result<(Machine, EngineRun), NkiError> {
        self.schedule_with(opts, self.machine.config().strict, on_step)
    }

    /// [`Core::schedule`] with uninitialised reads warning instead of faulting: a read the
    /// engines reorder before its write (a missing wait) then runs on, so the write happens
    /// and the race detector sees both sides.
    pub fn schedule_lenient(&self, opts: &EngineOptions) -> Result<(Machine, EngineRun), NkiError> {
        self.schedule_with(opts, false, |_, _| {})
    }

    fn schedule_with(
        &self,
        opts: &EngineOptions,
        strict: bool,
        on_step: impl FnMut(&tpb_sim::engines::ScheduledStep, &StepReport),
    ) -> Result<(Machine, EngineRun), NkiError> {
        if self.late_host_writes > 0 {
            return Err(NkiError::NotSupported {
                what: format!(
                    "re-running the program on the engines: {} host write(s) were made between \
                     instructions, which a program cannot replay",
                    self.late_host_writes
                ),
            });
        }
        let mut m = match &self.start {
            Some(m) => (**m).clone(),
            None if self.program.is_empty() => self.machine.clone(),
            None => {
                let mut m = Machine::new(*self.machine.config());
                m.set_access_recording(true);
                for e in self.tape.before_first_step() {
                    match e {
                        Effect::Write(t, bytes) => m.write_tensor(t, bytes)?,
                        Effect::Place(t) => _ = m.place_tensor(t)?,
                        Effect::Register(n, bits) => m.set_register(*n, *bits)?,
                        // Marked again below, with the later marks.
                        Effect::Initialised(_) | Effect::Step(..) => {}
                    }
                }
                m
            }
        };
        for &(r, bits) in &self.constants {
            m.set_register(usize::from(r), bits)?;
        }
        for t in &self.masked_out {
            m.mark_initialised(t)?;
        }
        m.set_strict(strict);
        let run = run_engines_with(&mut m, &self.program, &self.engines, opts, on_step);
        Ok((m, run))
    }

    /// The first difference between this core's memory (SBUF, PSUM, the HBM it allocated)
    /// and semaphores and `other`'s, or `None` when they are equal.
    pub fn first_difference(&self, other: &Machine) -> Option<String> {
        let gen = self.gen();
        for space in [Space::Sbuf, Space::Psum] {
            let bytes = build::space_bytes(gen, space);
            if bytes == 0 {
                continue;
            }
            for p in 0..128u32 {
                let t = tpb_sim::HostTensor::at(space, p..p + 1).elements(Dtype::UINT8, bytes);
                let (Ok(a), Ok(b)) = (self.machine.read_tensor(&t), other.read_tensor(&t)) else {
                    return Some(format!("{} partition {p} cannot be read", space.name()));
                };
                // Slice equality first: a byte-by-byte search is slow in debug builds.
                if a == b {
                    continue;
                }
                if let Some(k) = (a != b)
                    .then(|| a.iter().zip(&b).position(|(x, y)| x != y))
                    .flatten()
                {
                    return Some(format!(
                        "{} partition {p} byte {k:#x}: {:#04x} here, {:#04x} there",
                        space.name(),
                        a[k],
                        b[k]
                    ));
                }
            }
        }
        // The HBM tensors this core allocated (inputs, outputs and scratch).
        if self.hbm_next > 0 {
            let len = self.hbm_next.min(self.machine.hbm_size());
            let (Ok(a), Ok(b)) = (self.machine.read_hbm(0, len), other.read_hbm(0, len)) else {
                return Some("HBM cannot be read".into());
            };
            if let Some(k) = (a != b)
                .then(|| a.iter().zip(&b).position(|(x, y)| x != y))
                .flatten()
            {
                return Some(format!(
                    "HBM byte {k:#x}: {:#04x} here, {:#04x} there",
                    a[k], b[k]
                ));
            }
        }
        let (a, b) = (self.machine.semaphores(), other.semaphores());
        (0..a.len())
            .find(|&k| a[k] != b[k])
            .map(|k| format!("semaphore {k}: {} here, {} there", a[k], b[k]))
    }

    /// Undoes the constant registers a failed call placed.
    fn emit_failed(&mut self, placed: &[Placed]) {
        for p in placed.iter().filter(|p| p.fresh) {
            // The register index came from this core's own allocation: always in range.
            let _ = self
                .machine
                .set_register(usize::from(p.register), p.previous);
            self.tape
                .push(Effect::Register(usize::from(p.register), p.previous));
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
        self.tape
            .push(Effect::Register(usize::from(register), bits));
        self.constants.push((register, bits));
        Ok(Placed {
            register,
            fresh: true,
            previous,
        })
    }
}

/// Allocates a tile of `shape` in `arena` (of `space`).
fn allocate(
    arena: &mut Arena,
    shape: &[usize],
    dtype: Dtype,
    space: Space,
    name: &str,
) -> Result<Tile, NkiError> {
    let bad = |detail: String| NkiError::Shape {
        operand: "shape",
        detail,
    };
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
    let Some(at) = arena.alloc(row) else {
        return Err(NkiError::OutOfMemory {
            name: name.to_string(),
            largest: arena.largest_free(),
            space,
            want: row,
            free: arena.free_bytes(),
            total: arena.total(),
        });
    };
    let mut shape = shape.to_vec();
    if shape.len() == 1 {
        shape.push(1);
    }
    Ok(Tile::contiguous(space, 0, at, dtype, shape))
}

/// Most DMA requests one copy may split into ([`dma_requests`]).
const MAX_DMA_SPLIT: usize = 4096;

/// The DMAMEMCPY requests that copy `src` to `dst`: one when the views fold into
/// DMA_DIRECT2D's two dims, else one per index of the outermost dim the two views share
/// (same rank, same counts), recursively, as a DMA encoder splits a copy; the innermost
/// dim (when it is the only one left) is cut into runs of [`DMA_RUN`] elements instead (at
/// most [`MAX_DMA_SPLIT`] requests in all).
fn dma_requests(
    gen: Gen,
    dst: &DmaView,
    src: &DmaView,
    opts: DmaOptions,
    out: &mut Vec<Instruction>,
) -> Result<(), crate::dma::DmaBuildError> {
    let err = match dma_copy_instruction(gen, dst, src, opts) {
        Ok(inst) => {
            out.push(inst);
            return Ok(());
        }
        Err(e @ crate::dma::DmaBuildError::Shape { .. }) => e,
        Err(e) => return Err(e),
    };
    let same_shape = dst.pattern.len() == src.pattern.len()
        && dst
            .pattern
            .iter()
            .zip(&src.pattern)
            .all(|(a, b)| a[1] == b[1]);
    let Some(d) = dst
        .pattern
        .iter()
        .position(|p| p[1] > 1)
        .filter(|_| same_shape)
    else {
        return Err(err);
    };
    let n = dst.pattern[d][1];
    let last = dst.pattern[d + 1..].iter().all(|p| p[1] == 1);
    let run = if last { DMA_RUN.min(n) } else { 1 };
    if run == n || out.len() + (n / run) as usize > MAX_DMA_SPLIT {
        return Err(err);
    }
    for start in (0..n).step_by(run as usize) {
        let len = run.min(n - start);
        dma_requests(
            gen,
            &sub_view(dst, d, start, len),
            &sub_view(src, d, start, len),
            opts,
            out,
        )?;
    }
    Ok(())
}

/// Elements per request when a copy's last dim is cut into runs: whole runs fit a count word
/// (at most 65535) however they fold.
const DMA_RUN: i64 = 1 << 15;

/// Indices `start..start + len` of dim `d` of a DMA view.
fn sub_view(v: &DmaView, d: usize, start: i64, len: i64) -> DmaView {
    let step = v.pattern[d][0] * start;
    let size = v.dtype.size().unwrap_or(1) as i64;
    let place = match v.place {
        DmaPlace::Hbm(a) => DmaPlace::Hbm((a as i64 + step * size) as u64),
        DmaPlace::OnChip {
            space,
            partition,
            offset,
        } if d == v.partition_dim => {
            DmaPlace::on_chip(space, (i64::from(partition) + step) as u32, offset)
        }
        DmaPlace::OnChip {
            space,
            partition,
            offset,
        } => DmaPlace::on_chip(space, partition, (offset as i64 + step * size) as u64),
    };
    let mut pattern = v.pattern.clone();
    pattern[d] = [v.pattern[d][0], len];
    DmaView {
        pattern,
        place,
        ..v.clone()
    }
}

/// The preamble wait `semaphore(w.engine) >= w.count`.
fn set_wait(inst: &mut Instruction, w: NeededWait) {
    inst.events.wait_mode = WaitMode::SEM_GE_IMM;
    inst.events.wait_idx = sync_semaphore(w.engine);
    inst.events.semaphore_value = w.count as u32;
}

/// An EventSemaphore record carrying one or two waits and no update.
fn event_semaphore_waits(waits: &[NeededWait]) -> Instruction {
    let mut body = EventSemaphore::default();
    if let Some(w) = waits.get(1) {
        body.wait1_mode = WaitMode::SEM_GE_IMM;
        body.wait1_idx = sync_semaphore(w.engine);
        body.wait1_value = w.count as u32;
    }
    let mut inst = Instruction::build(op::EVENT_SEMAPHORE, body);
    set_wait(&mut inst, waits[0]);
    inst
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

/// NKI's rule for the two-input Vector calls (nki-api §3.4): at most one input in PSUM.
pub(crate) fn not_both_psum(
    a: (&Tile, &'static str),
    b: (&Tile, &'static str),
) -> Result<(), NkiError> {
    if a.0.space == Space::Psum && b.0.space == Space::Psum {
        return Err(NkiError::Shape {
            operand: b.1,
            detail: format!(
                "{} and {} are both in PSUM; the Vector engine reads at most one input from \
                 PSUM (copy one to SBUF first)",
                a.1, b.1
            ),
        });
    }
    Ok(())
}

pub(crate) fn same_partitions(
    dst: &Tile,
    src: &Tile,
    operand: &'static str,
) -> Result<(), NkiError> {
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
pub(crate) fn fp32(argument: &'static str, v: f64) -> Result<f32, NkiError> {
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
pub(crate) fn scalar(
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

/// `dma_copy`'s `engine` and `dge_mode` (names of NKI's `engine` and `dge_mode` members):
/// the queue that issues the request, or `None` for the default issuer.
fn dma_issuer(engine: Option<&str>, dge_mode: Option<&str>) -> Result<Option<EngineId>, NkiError> {
    // Names, or NKI 0.6.0's member numbers (nki-api §3.1).
    let software_dge = match dge_mode.unwrap_or("unknown") {
        "unknown" | "0" | "none" | "3" | "hwdge" | "2" => false,
        "swdge" | "1" => true,
        other => {
            return Err(NkiError::Value {
                argument: "dge_mode",
                detail: format!("{other:?} is not one of unknown, swdge, hwdge, none"),
            })
        }
    };
    Ok(match engine.unwrap_or("unknown") {
        "unknown" | "0" | "dma" | "4" if software_dge => Some(EngineId::Pool),
        "unknown" | "0" | "dma" | "4" => None,
        "scalar" | "2" => Some(EngineId::Act),
        "gpsimd" | "3" => Some(EngineId::Pool),
        "sync" | "6" => Some(EngineId::Sp),
        "tensor" | "1" => Some(EngineId::Pe),
        "vector" | "5" => Some(EngineId::Dve),
        other => {
            return Err(NkiError::Value {
                argument: "engine",
                detail: format!(
                    "{other:?} is not one of unknown, sync, scalar, gpsimd, dma, vector, tensor"
                ),
            })
        }
    })
}

/// The lowerings of the calls this module defines ([`crate::call`]); argument positions
/// follow the calls' Python definitions (`python/tpb/nki/isa.py`).
pub(crate) const LOWERINGS: &[crate::Lowering] = {
    use crate::call::{one, Args};
    use crate::Lowering;
    &[
        // iota(dst, pattern, offset=0, channel_multiplier=0, name=None)
        Lowering {
            name: "iota",
            lower: |c, a: &Args<'_>| one(c.iota(a.tile(0)?, a.pattern(1)?, a.int(2)?, a.int(3)?)),
        },
        // affine_select(dst, pattern, channel_multiplier, on_true_tile, on_false_value,
        //               cmp_op=equal, offset=0, name=None)
        Lowering {
            name: "affine_select",
            lower: |c, a| {
                one(c.affine_select(
                    a.tile(0)?,
                    a.pattern(1)?,
                    a.int(2)?,
                    a.tile(3)?,
                    a.float(4)?,
                    a.comparison(5)?,
                    a.int(6)?,
                ))
            },
        },
        // tensor_scalar(dst, data, op0, operand0, reverse0=False, op1=None, operand1=None,
        //               reverse1=False, engine=engine.unknown, name=None)
        Lowering {
            name: "tensor_scalar",
            lower: |c, a| {
                one(c.tensor_scalar(
                    a.tile(0)?,
                    a.tile(1)?,
                    a.alu(2)?,
                    a.operand_opt(3)?,
                    a.flag(4)?,
                    a.alu_opt(5)?,
                    a.operand_opt(6)?,
                    a.flag(7)?,
                ))
            },
        },
        // range_select(dst, on_true_tile, comp_op0, comp_op1, bound0, bound1,
        //              reduce_cmd=idle, reduce_res=None, reduce_op=maximum, range_start=0,
        //              on_false_value=-3.4028235e38, name=None)
        Lowering {
            name: "range_select",
            lower: |c, a| {
                if a.tile_opt(7)?.is_some() {
                    return Err(NkiError::NotSupported {
                        what: "range_select reduce_res: the running max's read-out is not \
                               public; only reduce_cmd=idle runs"
                            .into(),
                    });
                }
                if a.alu(8)? != AluOp::MAX {
                    return Err(a.refuse(8, "range_select reduces with maximum only (NKI)"));
                }
                let cmd = a.reduce_cmd(6)?;
                one(c.range_select(
                    a.tile(0)?,
                    a.tile(1)?,
                    a.comparison(2)?,
                    a.comparison(3)?,
                    a.operand(4)?,
                    a.operand(5)?,
                    a.float(9)?,
                    a.float(10)?,
                    cmd.name(),
                ))
            },
        },
        // select(dst, predicate, on_true_tile, on_false_value, reverse_pred=False, name=None)
        Lowering {
            name: "select",
            lower: |c, a| {
                one(c.select(
                    a.tile(0)?,
                    a.operand(1)?,
                    a.tile(2)?,
                    a.operand(3)?,
                    a.flag(4)?,
                ))
            },
        },
        // dma_copy(dst, src, priority=None, oob_mode=error, dge_mode=unknown,
        //          engine=unknown, name=None)
        Lowering {
            name: "dma_copy",
            lower: |c, a| {
                let (dst, src) = (a.tile(0)?, a.tile(1)?);
                match a.choice_opt(3)?.unwrap_or("error") {
                    "error" | "0" | "skip" | "1" => {}
                    other => return Err(a.refuse(3, format!("{other:?} is not error or skip"))),
                }
                let dge = a.choice_opt(4)?;
                let engine = dma_issuer(a.choice_opt(5)?, dge)?;
                if matches!(dge, Some("hwdge" | "2")) && dst.dtype != src.dtype {
                    return Err(a.refuse(4, "hwdge needs equal dtypes (use .view(); NKI dma_copy)"));
                }
                let priority = match a.int_opt(2)? {
                    None => 0,
                    Some(p @ 0..=3) if matches!(c.gen(), Gen::Mariana | Gen::Maverick) => p as u8,
                    Some(p) => {
                        return Err(a.refuse(
                            2,
                            format!("{p}: 0..=3, and only on NeuronCore-v4+ (mariana)"),
                        ))
                    }
                };
                one(c.dma_copy_with(dst, src, engine, None, priority))
            },
        },
        // tpb's nisa.dma_transpose of an on-chip source (dst, src, axes).
        Lowering {
            name: "dma_transpose_on_chip",
            lower: |c, a| {
                let axes = a
                    .ints(2)?
                    .iter()
                    .map(|&k| usize::try_from(k).map_err(|_| a.refuse(2, format!("{k} < 0"))))
                    .collect::<Result<Vec<_>, _>>()?;
                one(c.dma_transpose_on_chip(a.tile(0)?, a.tile(1)?, &axes))
            },
        },
        // tpb's nl.broadcast_to over partitions (dst, src): one DMA with a partition step 0.
        Lowering {
            name: "broadcast_partitions",
            lower: |c, a| one(c.broadcast_partitions(a.tile(0)?, a.tile(1)?)),
        },
    ]
};
