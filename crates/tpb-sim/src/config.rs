//! How a machine behaves: its generation, FP8 configuration, strictness and the
//! simulator's own limits ([`Config`]).

use crate::numerics::Fp8Config;
use crate::state::hbm::DEFAULT_HBM_BYTES;
use tpb_isa::Gen;

/// The default for [`Config::max_elements`]: 2^28 elements per instruction (all channels),
/// four times a full 128-partition tile of the largest SBUF (512 KiB of bytes).
pub const DEFAULT_MAX_ELEMENTS: u64 = 1 << 28;

/// The default for [`Config::max_run_elements`]: 2^32 elements over a whole run, sixteen
/// maximum-size instructions (tens of seconds of simulation; real kernels use far fewer).
pub const DEFAULT_MAX_RUN_ELEMENTS: u64 = 1 << 32;

/// The default for [`Config::min_parallel_elements`]: with the vectorised kernels an
/// instruction below 256 Ki elements takes well under 100 µs on one core (a 128 × 512 tile,
/// 64 Ki elements, about 5–30 µs), the order of waking other threads on a busy machine, so
/// splitting it could only make it slower.
pub const DEFAULT_MIN_PARALLEL_ELEMENTS: u64 = 1 << 18;

/// How a machine behaves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Config {
    /// The generation: geometry, opcode set and validator chains (default cayman).
    pub gen: Gen,
    /// The FP8 conversion configuration (the model-load CSRs, decisions §4.5).
    pub fp8: Fp8Config,
    /// Turn every warning (uninitialised read, loader mismatch, firmware stub) into a fault.
    pub strict: bool,
    /// Refuse any result that is not exact: a matmul (exact only per our summation order)
    /// or an approximate ACT/DVE table function (decisions §6.2; `tpb run --strict-exact`).
    pub strict_exact: bool,
    /// Mirror the shipped firmware: ImmLd and PtrMulti are log-only stubs on cayman+
    /// (decisions §3.7; assumption `firmware-stub-scope`).
    pub firmware_stubs: bool,
    /// Refuse an instruction that would process more elements than this (all channels):
    /// a simulator limit against runaway broadcast patterns, not a machine behaviour.
    pub max_elements: u64,
    /// Threads one large instruction is spread over, by groups of channels: 0 (the default)
    /// for every core (the size of rayon's global pool), 1 for the calling thread only.
    /// Results are bit-identical whatever the count.
    pub threads: usize,
    /// Instructions with fewer elements than this (all channels) stay on the calling thread.
    pub min_parallel_elements: u64,
    /// The run's budget: refuse an instruction that would take the elements processed since
    /// the machine was created past this (all instructions, all channels), so that a hostile
    /// program's cost is bounded. A simulator limit, not a machine behaviour.
    pub max_run_elements: u64,
    /// The size of device memory (HBM) in bytes (decisions §6.4: default
    /// [`DEFAULT_HBM_BYTES`], at most [`MAX_HBM_BYTES`]; pages are allocated when written).
    /// An access past it is refused.
    pub hbm_bytes: u64,
}

impl Default for Config {
    fn default() -> Config {
        Config::new(Gen::default())
    }
}

impl Config {
    /// The default configuration for `gen`: ml_dtypes FP8, not strict, documented contract
    /// for ImmLd/PtrMulti, [`DEFAULT_MAX_ELEMENTS`], [`DEFAULT_MAX_RUN_ELEMENTS`].
    pub const fn new(gen: Gen) -> Config {
        Config {
            gen,
            fp8: Fp8Config {
                ocp_sat: false,
                e4m3: crate::numerics::E4m3Variant::Ieee,
            },
            strict: false,
            strict_exact: false,
            firmware_stubs: false,
            max_elements: DEFAULT_MAX_ELEMENTS,
            max_run_elements: DEFAULT_MAX_RUN_ELEMENTS,
            threads: 0,
            min_parallel_elements: DEFAULT_MIN_PARALLEL_ELEMENTS,
            hbm_bytes: DEFAULT_HBM_BYTES,
        }
    }

    /// The threads an instruction may use: [`Config::threads`], or every core for 0.
    pub fn thread_count(&self) -> usize {
        match self.threads {
            0 => rayon::current_num_threads(),
            t => t,
        }
    }
}
