//! The machine's state: on-chip memory with its initialised shadow, HBM, registers,
//! per-channel DVE scalar flops, the hidden DVE lane state, the PE weights, the ACT
//! accumulator, semaphores and events. It is what a fault must leave untouched
//! (decisions §3.9): the executors (`crate::exec`) plan against it and commit to it, and
//! [`crate::Machine`] owns one.

mod dve_state;
pub(crate) mod events;
pub(crate) mod hbm;
mod memory;
mod per_channel;
mod zero_pages;

pub use dve_state::{DveLane, DveState};
pub(crate) use memory::{Memory, Shadow};
pub use per_channel::PerChannel;

use crate::assumptions::{FLOP_SLOTS, INITIAL_WORD};
use tpb_isa::geometry::{NUM_CHANNELS, NUM_REGISTERS};

/// Semaphores per core (`NEURON_ISA_TPB_NUM_SEMAPHORES`).
pub const NUM_SEMAPHORES: usize = 256;
/// One-bit events per core.
pub const NUM_EVENTS: usize = 256;

/// Which kind of ImmLd last loaded a channel's flops.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FlopKind {
    /// TensorScalarImmLdArith (0x70): FP32 bits of the converted values.
    Arith,
    /// TensorScalarImmLdBitvec (0x71): zero-extended raw bits.
    Bitvec,
}

/// One channel's DVE scalar flops (decisions §3.5; assumption `flop-layout`). Channels are
/// relative (the DVE lane `c` of an instruction, touching partition `start + c`), so an
/// ImmLd and the PtrMulti that consumes its scalars pair up channel by channel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Flops {
    /// The 8 × 32-bit slots.
    pub slots: [u32; FLOP_SLOTS],
    /// How many slots the last ImmLd on this channel loaded (0: never loaded).
    pub loaded: u8,
    /// Which ImmLd loaded them (`None`: never loaded).
    pub kind: Option<FlopKind>,
}

impl Flops {
    /// A channel's flops before any ImmLd: zero, never loaded.
    pub const INITIAL: Flops = Flops {
        slots: [0; FLOP_SLOTS],
        loaded: 0,
        kind: None,
    };
}

impl Default for Flops {
    fn default() -> Flops {
        Flops::INITIAL
    }
}

/// Every channel's flops before any ImmLd.
const INITIAL_FLOPS: &[Flops] = &[Flops::INITIAL; NUM_CHANNELS as usize];

/// Everything a fault must leave untouched.
#[derive(Clone, PartialEq, Eq)]
pub(crate) struct State {
    pub(crate) mem: Memory,
    pub(crate) hbm: hbm::Hbm,
    pub(crate) regs: [u32; NUM_REGISTERS as usize],
    pub(crate) flops: PerChannel<Flops>,
    pub(crate) sems: [i32; NUM_SEMAPHORES],
    pub(crate) events: [bool; NUM_EVENTS],
    pub(crate) retired: u64,
    /// Elements processed by the retired instructions (for [`Config::max_run_elements`]).
    pub(crate) elements_run: u64,
    /// The PE array's stationary weights, loaded by LoadWeights (isa-facts-pe-act-dma §1.2).
    pub(crate) pe: Option<PeWeights>,
    /// The ACT accumulator: one fp32 per lane, as bits (isa-facts-pe-act-dma §2.3).
    pub(crate) act_acc: [u32; NUM_CHANNELS as usize],
    /// The hidden per-lane DVE state (accumulators, search flops, mask table).
    pub(crate) dve: DveState,
}

impl State {
    /// The initial state (assumption `initial-state`) around `mem` and `hbm`, which must be
    /// zero and uninitialised.
    pub(crate) fn initial(mem: Memory, hbm: hbm::Hbm) -> State {
        State {
            mem,
            hbm,
            regs: [INITIAL_WORD; NUM_REGISTERS as usize],
            flops: PerChannel::new(INITIAL_FLOPS),
            sems: [INITIAL_WORD as i32; NUM_SEMAPHORES],
            events: [false; NUM_EVENTS],
            retired: 0,
            elements_run: 0,
            pe: None,
            act_acc: [0; NUM_CHANNELS as usize],
            dve: DveState::default(),
        }
    }
}

/// The stationary tile held by the PE array after LoadWeights (isa-facts-pe-act-dma §1.2,
/// §8 item 6): `rows` (the contraction depth, one per source partition) × `cols` (one per
/// output partition), row-major.
#[derive(Clone, Debug)]
pub(crate) struct PeWeights {
    pub(crate) rows: u32,
    pub(crate) cols: u32,
    pub(crate) dtype: tpb_isa::Dtype,
    /// The fp32 values the multipliers see (tf32-rounded for fp32_mode low).
    pub(crate) values: Vec<f32>,
    /// The elements' raw bits (the transpose path copies them unchanged).
    pub(crate) raw: Vec<u32>,
    /// Loaded with transpose_mode = 1 (the bit-accurate transpose, §1.8).
    pub(crate) transpose: bool,
}

impl PartialEq for PeWeights {
    /// The same shape and the same bits (a NaN weight equals itself).
    fn eq(&self, other: &PeWeights) -> bool {
        let (a, b) = (&self.values, &other.values);
        (self.rows, self.cols, self.dtype, self.transpose)
            == (other.rows, other.cols, other.dtype, other.transpose)
            && self.raw == other.raw
            && a.len() == b.len()
            && a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits())
    }
}

impl Eq for PeWeights {}
