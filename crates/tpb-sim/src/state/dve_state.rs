//! The hidden per-lane DVE state (isa-facts-dve-pool §0.3.3; reference
//! `docs/reference/isa-dve-state.md` "Hidden DVE state"): the reduce accumulator, the
//! search cluster's match keys with their matched flags, the 8 index flops, and the
//! LoadMaskSelect table. Lanes are relative channels, as for the scalar flops (assumption
//! `dve-lane-state`). Executors plan against a copy-free view and commit with one
//! assignment per lane, so a fault leaves this state untouched (decisions §3.9).

use crate::assumptions::{INDEX_FLOP_INITIAL, SEARCH_SLOTS};
use tpb_isa::geometry::NUM_CHANNELS;

use super::PerChannel;

/// One lane's hidden DVE state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DveLane {
    /// The fp32 reduce accumulator, as bits (written by 0x9a, 0xe6, 0xea, 0x9d; read by 0x9b).
    pub accumulator: u32,
    /// Whether an instruction has written the accumulator since the machine started
    /// (reading a never-written accumulator warns; assumption `accumulator-lifetime`).
    pub accumulator_written: bool,
    /// Match keys `mv[0..8]` as fp32 bits (written by MatchValueLoad 0x6d).
    pub match_keys: [u32; SEARCH_SLOTS],
    /// Whether MatchValueLoad has loaded this lane's keys.
    pub match_keys_loaded: bool,
    /// The matched flag of each key (FindIndex8 / MatchReplace8).
    pub matched: [bool; SEARCH_SLOTS],
    /// The 8 index flops (left by MatchReplace8 0x6f, drained by DveReadIndices 0xe9).
    pub index_flops: [u32; SEARCH_SLOTS],
    /// Whether a MatchReplace8 has written the index flops.
    pub index_flops_written: bool,
}

impl Default for DveLane {
    fn default() -> DveLane {
        DveLane::INITIAL
    }
}

impl DveLane {
    /// A lane's state when the machine starts.
    pub const INITIAL: DveLane = DveLane {
        accumulator: 0,
        accumulator_written: false,
        match_keys: [0; SEARCH_SLOTS],
        match_keys_loaded: false,
        matched: [false; SEARCH_SLOTS],
        index_flops: [INDEX_FLOP_INITIAL; SEARCH_SLOTS],
        index_flops_written: false,
    };

    /// The accumulator as an fp32 value.
    pub fn accumulator_f32(&self) -> f32 {
        f32::from_bits(self.accumulator)
    }
}

/// Every lane's state when the machine starts.
const INITIAL_LANES: &[DveLane] = &[DveLane::INITIAL; NUM_CHANNELS as usize];

/// The whole hidden DVE state of a core: 128 lanes and the mask-select table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DveState {
    /// Per lane (relative channel 0..128).
    pub lanes: PerChannel<DveLane>,
    /// The 32 lane-select bytes of the last LoadMaskSelect (0x69), if any.
    pub mask_select: Option<[u8; 32]>,
}

impl Default for DveState {
    fn default() -> DveState {
        DveState {
            lanes: PerChannel::new(INITIAL_LANES),
            mask_select: None,
        }
    }
}
