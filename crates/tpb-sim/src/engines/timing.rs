//! The timing model's values: [`TIMING_CONSTANTS`] with the user's overrides, and the
//! cost of one instruction (assumption `engine-timing`).

use super::cost::{self, Formula, Priced};
use super::queue::{EngineId, NUM_ENGINES};
use crate::assumptions::{TimingConstant, TIMING_CONSTANTS};
use crate::machine::CostShape;
use tpb_isa::Gen;

/// The largest cycle-count constant (2^20): with clocks of at least 1 MHz, four million
/// instructions and the default run budget the schedule stays far below 2^64 ps.
pub const MAX_CYCLES: u64 = 1 << 20;

/// The fastest clock a constant may name, in MHz.
pub const MAX_CLOCK_MHZ: u64 = 100_000;

/// The largest bandwidth (MB/s) or peak (GFLOP/s) a constant may name.
pub const MAX_RATE: u64 = 1_000_000_000;

fn is_rate(unit: &str) -> bool {
    matches!(unit, "MB/s" | "GFLOP/s")
}

/// Picoseconds per microsecond: the schedule's time unit is the picosecond.
const PS_PER_US: u64 = 1_000_000;

/// An override that names no constant, or a value that is not a positive integer.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TimingError {
    /// No such constant.
    #[error("unknown timing constant `{0}`; expected one of {names}", names = names())]
    Unknown(String),
    /// Not `NAME=VALUE` with VALUE a non-negative integer (clocks: positive).
    #[error("timing `{0}`: {1}")]
    Value(String, &'static str),
}

fn names() -> String {
    TIMING_CONSTANTS
        .iter()
        .map(|c| c.name)
        .collect::<Vec<_>>()
        .join(", ")
}

/// The timing model's constants, each its default unless overridden.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Timing {
    values: Vec<u64>,
}

impl Default for Timing {
    fn default() -> Timing {
        Timing {
            values: TIMING_CONSTANTS.iter().map(|c| c.default).collect(),
        }
    }
}

impl Timing {
    /// The value of a constant of [`TIMING_CONSTANTS`] (`None`: no such name).
    pub fn get(&self, name: &str) -> Option<u64> {
        position(name).map(|i| self.values[i])
    }

    /// Every constant with its current value.
    pub fn iter(&self) -> impl Iterator<Item = (&'static TimingConstant, u64)> + '_ {
        TIMING_CONSTANTS.iter().zip(self.values.iter().copied())
    }

    /// Sets one constant: a clock is 1..=[`MAX_CLOCK_MHZ`] MHz, a bandwidth or peak
    /// 1..=[`MAX_RATE`], any other constant at most
    /// [`MAX_CYCLES`] cycles, so that no schedule of a bounded run overflows its picosecond
    /// clock (see [`Timing::check`] for the rule between constants).
    pub fn set(&mut self, name: &str, value: u64) -> Result<(), TimingError> {
        let i = position(name).ok_or_else(|| TimingError::Unknown(name.to_string()))?;
        let name = TIMING_CONSTANTS[i].name;
        if name.starts_with("CLOCK_") {
            if value == 0 {
                return Err(TimingError::Value(name.into(), "a clock must be positive"));
            }
            if value > MAX_CLOCK_MHZ {
                return Err(TimingError::Value(
                    format!("{name}={value}"),
                    "a clock is at most 100000 MHz",
                ));
            }
        } else if is_rate(TIMING_CONSTANTS[i].unit) {
            if value == 0 || value > MAX_RATE {
                return Err(TimingError::Value(
                    format!("{name}={value}"),
                    "a bandwidth or peak is 1..=10^9 (MB/s or GFLOP/s)",
                ));
            }
        } else if value > MAX_CYCLES {
            return Err(TimingError::Value(
                format!("{name}={value}"),
                "a cycle count is at most 2^20 = 1048576",
            ));
        }
        self.values[i] = value;
        Ok(())
    }

    /// Checks the rule between constants: `READ_DRAIN` (how long before an instruction's end
    /// its `_READ` updates fire) is at most the shortest instruction, the least of the
    /// `*_MIN_II` constants, `POOL_START` and `SYNC_CYCLES`.
    pub fn check(&self) -> Result<(), TimingError> {
        let shortest = [
            "PE_MIN_II",
            "ACT_MIN_II",
            "DVE_MIN_II",
            "POOL_START",
            "SYNC_CYCLES",
        ]
        .iter()
        .map(|n| self.value(n))
        .min()
        .unwrap_or(0)
        .max(1);
        let drain = self.value("READ_DRAIN");
        if drain > shortest {
            return Err(TimingError::Value(
                format!("READ_DRAIN={drain} (the shortest instruction takes {shortest} cycles)"),
                "READ_DRAIN is at most the shortest instruction (the least of the *_MIN_II \
                 constants, POOL_START and SYNC_CYCLES)",
            ));
        }
        Ok(())
    }

    /// Applies `NAME=VALUE`.
    pub fn set_text(&mut self, text: &str) -> Result<(), TimingError> {
        let Some((n, v)) = text.split_once('=') else {
            return Err(TimingError::Value(text.into(), "expected NAME=VALUE"));
        };
        let v: u64 =
            v.trim().replace('_', "").parse().map_err(|_| {
                TimingError::Value(text.into(), "VALUE is not a non-negative integer")
            })?;
        self.set(&n.trim().to_ascii_uppercase(), v)
    }

    /// Applies a timing file: one `NAME = VALUE` per line, `#` comments, blank lines. Errors
    /// carry the 1-based line number.
    pub fn apply_file(&mut self, text: &str) -> Result<(), (usize, TimingError)> {
        for (i, line) in text.lines().enumerate() {
            let line = line.split('#').next().unwrap_or("").trim();
            if !line.is_empty() {
                self.set_text(line).map_err(|e| (i + 1, e))?;
            }
        }
        Ok(())
    }

    fn value(&self, name: &str) -> u64 {
        self.get(name).unwrap_or(0)
    }

    /// The clock of `engine` on `gen`, in MHz.
    pub fn clock_mhz(&self, engine: EngineId, gen: Gen) -> u64 {
        if engine.is_dma_queue() {
            // A DMA queue's "cycle" is a nanosecond: its costs are times and bandwidths.
            return 1000;
        }
        let g = gen.name().to_ascii_uppercase();
        let key = format!("CLOCK_MHZ_{}_{g}", engine.label());
        self.value(&key).max(1)
    }

    /// The values the scheduler needs for `gen`, looked up once.
    pub fn costs(&self, gen: Gen) -> Costs {
        let g = gen.name().to_ascii_uppercase();
        let per_gen = |name: &str| self.value(&format!("{name}_{g}")).max(1);
        Costs {
            gen,
            min_ii: [
                self.value("PE_MIN_II"),
                self.value("ACT_MIN_II"),
                self.value("POOL_MIN_II"),
                self.value("DVE_MIN_II"),
                self.value("SYNC_CYCLES"),
                0,
                0,
                0,
            ],
            dma_issue_ns: self.value("DMA_ISSUE_NS"),
            dma_latency_ns: self.value("DMA_LATENCY_NS"),
            dma_engine_mb_per_s: per_gen("DMA_ENGINE_MB_PER_S"),
            dma_engines: self.value("DMA_ENGINES").clamp(1, MAX_DMA_ENGINES as u64) as usize,
            dma_partitions_per_engine: self.value("DMA_PARTITIONS_PER_ENGINE").max(1),
            hbm_mb_per_s: per_gen("HBM_MB_PER_S"),
            pe_peak_gflops: per_gen("PE_PEAK_GFLOPS"),
            pe_peak_fp32_gflops: per_gen("PE_PEAK_FP32_GFLOPS"),
            pool_start: self.value("POOL_START"),
            dependent: self.value("DEPENDENT_OVERHEAD"),
            small_tile: self.value("SMALL_TILE_OVERHEAD"),
            access: self.value("TENSOR_ACCESS_OVERHEAD"),
            stride_limit: self.value("ACCESS_STRIDE_LIMIT_BYTES"),
            pe_fp32_factor: self.value("PE_FP32_FACTOR").max(1),
            pe_fast_load: self.value("PE_FAST_LOAD_SPEEDUP").max(1),
            exp_dve_speedup: self.value("EXP_DVE_SPEEDUP").max(1),
            sync: self.value("SYNC_CYCLES").max(1),
            read_drain: self.value("READ_DRAIN"),
            mhz: EngineId::ALL.map(|e| self.clock_mhz(e, gen)),
        }
    }
}

/// The most DMA engines a core may be given (`DMA_ENGINES`).
pub const MAX_DMA_ENGINES: usize = 64;

/// The timing model for one generation (see [`Timing::costs`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Costs {
    gen: Gen,
    min_ii: [u64; NUM_ENGINES],
    pool_start: u64,
    dependent: u64,
    small_tile: u64,
    access: u64,
    stride_limit: u64,
    pe_fp32_factor: u64,
    pe_fast_load: u64,
    exp_dve_speedup: u64,
    sync: u64,
    read_drain: u64,
    mhz: [u64; NUM_ENGINES],
    dma_issue_ns: u64,
    dma_latency_ns: u64,
    dma_engine_mb_per_s: u64,
    dma_engines: usize,
    dma_partitions_per_engine: u64,
    hbm_mb_per_s: u64,
    pe_peak_gflops: u64,
    pe_peak_fp32_gflops: u64,
}

impl Costs {
    /// The generation.
    pub fn gen(&self) -> Gen {
        self.gen
    }

    /// Cycles of one executed instruction on its engine (assumption `engine-timing`): its
    /// opcode's published formula ([`Formula`], docs/engines.md "Published figures") over N,
    /// the elements per partition of its input, then the overheads:
    ///
    /// * on PE and ACT, `TENSOR_ACCESS_OVERHEAD` when `exposed` (its engine's pipeline was
    ///   empty: first in its queue, or after a wait or idle time);
    /// * else `DEPENDENT_OVERHEAD` when `dependent` (it reads what its engine's previous
    ///   instruction wrote), plus, on DVE/ACT/POOL, `SMALL_TILE_OVERHEAD` when N is below
    ///   the engine's MIN_II.
    ///
    /// A LoadWeights pays neither (it runs in the background of the previous Matmul).
    pub fn instruction_cycles(&self, p: &Priced<'_>, dependent: bool, exposed: bool) -> u64 {
        let formula = p.info.map_or(Formula::Assumed, |i| Formula::of(i.sem));
        if formula == Formula::Sync || p.accesses.is_empty() {
            return self.sync;
        }
        let engine = p.engine;
        let min_ii = self.min_ii[engine.index()];
        let n_doc = cost::doc_n(p, formula);
        let mut n = n_doc;
        if engine != EngineId::Pe && cost::strided(p, self.stride_limit) {
            n = n.saturating_mul(2);
        }
        if let Formula::MinIi { perf_mode: true } = formula {
            n = n.div_ceil(cost::perf_mode_speedup(p, self.gen));
        }
        let twice = n.saturating_mul(2);
        let base = match formula {
            Formula::MinIi { .. } | Formula::Assumed | Formula::Dma | Formula::Linear => {
                min_ii.max(n)
            }
            Formula::TensorTensor => min_ii.max(if cost::tensor_tensor_single_pass(p, self.gen) {
                n
            } else {
                twice
            }),
            Formula::Scan => min_ii.max(twice),
            Formula::ScalarTensorTensor => min_ii.max(if cost::stt_single_pass(p, n_doc) {
                n
            } else {
                twice
            }),
            Formula::Predicated => min_ii.max(if cost::predicated_single_pass(p) {
                n
            } else {
                twice
            }),
            Formula::Reciprocal => min_ii.max(n.saturating_mul(8)),
            Formula::Memset => min_ii.max(if cost::memset_half(p) {
                n.div_ceil(2)
            } else {
                n
            }),
            Formula::Reduce => min_ii.max(if cost::reduce_half(p) {
                n.div_ceil(2)
            } else {
                n
            }),
            Formula::GpsimdStart => self.pool_start.saturating_add(n),
            Formula::ReadAccumulator => min_ii,
            Formula::DveExp => min_ii.max(n.div_ceil(self.exp_dve_speedup)),
            Formula::Matmul => match p.shape {
                CostShape::Matmul {
                    moving,
                    stationary,
                    fp32,
                    transpose,
                } => {
                    let factor = if fp32 && !transpose {
                        self.pe_fp32_factor
                    } else {
                        1
                    };
                    min_ii.min(stationary).max(moving).saturating_mul(factor)
                }
                _ => min_ii.max(n),
            },
            Formula::LoadWeights => {
                return match p.shape {
                    CostShape::LoadWeights { columns, fp32 } => {
                        let factor = if fp32 { self.pe_fp32_factor } else { 1 };
                        columns.saturating_mul(factor).div_ceil(self.pe_fast_load)
                    }
                    _ => n.div_ceil(self.pe_fast_load),
                }
                .saturating_add(if exposed { self.access } else { 0 })
                .max(1);
            }
            Formula::Sync => self.sync,
        };
        let pe_or_act = matches!(engine, EngineId::Pe | EngineId::Act);
        let extra = if exposed && pe_or_act {
            self.access
        } else if dependent {
            let small = engine != EngineId::Pe && n_doc < min_ii;
            self.dependent
                .saturating_add(if small { self.small_tile } else { 0 })
        } else {
            0
        };
        base.saturating_add(extra).max(1)
    }

    /// Cycles of `engine` to issue one DMA request (the DGE instruction time, assumption
    /// `dma-timing`): DMA_ISSUE_NS in the engine's clock.
    pub fn dma_issue_cycles(&self, engine: EngineId) -> u64 {
        (u128::from(self.dma_issue_ns) * u128::from(self.mhz(engine)))
            .div_ceil(1000)
            .clamp(1, u128::from(u64::MAX)) as u64
    }

    /// DMA_LATENCY_NS in picoseconds: from the trigger (the issue's end) to the first byte.
    pub fn dma_latency_ps(&self) -> u64 {
        self.dma_latency_ns.saturating_mul(1000)
    }

    /// The DMA engines per core.
    pub fn dma_engines(&self) -> usize {
        self.dma_engines
    }

    /// The engines a transfer with `partitions` on-chip partitions (0: HBM to HBM) spreads
    /// over, starting with partition `first`: one per DMA_PARTITIONS_PER_ENGINE partitions,
    /// at most DMA_ENGINES, each engine serving a fixed group of partitions (`(partition /
    /// DMA_PARTITIONS_PER_ENGINE) mod DMA_ENGINES`).
    pub fn dma_engine_set(&self, first: u32, partitions: u32) -> std::ops::Range<usize> {
        let e = self.dma_engines;
        if partitions == 0 {
            return 0..e;
        }
        let per = self.dma_partitions_per_engine;
        let g0 = (u64::from(first) / per) as usize;
        let g1 = (u64::from(first) + u64::from(partitions)).div_ceil(per) as usize;
        let count = (g1 - g0).clamp(1, e);
        let start = g0 % e;
        start..start + count
    }

    /// Picoseconds for one DMA engine to move `bytes` at DMA_ENGINE_MB_PER_S of the
    /// generation.
    pub fn dma_engine_ps(&self, bytes: u64) -> u64 {
        (u128::from(bytes) * 1_000_000)
            .div_ceil(u128::from(self.dma_engine_mb_per_s))
            .min(u128::from(u64::MAX)) as u64
    }

    /// Picoseconds for `bytes` of HBM traffic at one core's share of the device's HBM
    /// bandwidth (HBM_MB_PER_S of the generation).
    pub fn hbm_ps(&self, bytes: u64) -> u64 {
        (u128::from(bytes) * 1_000_000)
            .div_ceil(u128::from(self.hbm_mb_per_s))
            .min(u128::from(u64::MAX)) as u64
    }

    /// The core's aggregate DMA bandwidth, MB/s: DMA_ENGINES × DMA_ENGINE_MB_PER_S.
    pub fn dma_core_mb_per_s(&self) -> u64 {
        self.dma_engine_mb_per_s
            .saturating_mul(self.dma_engines as u64)
    }

    /// One core's HBM bandwidth, MB/s.
    pub fn hbm_mb_per_s(&self) -> u64 {
        self.hbm_mb_per_s
    }

    /// The tensor engine's peak, GFLOP/s: (bf16/fp16/tf32/fp8, fp32).
    pub fn pe_peak_gflops(&self) -> (u64, u64) {
        (self.pe_peak_gflops, self.pe_peak_fp32_gflops)
    }

    /// Cycles before the end at which `_READ` updates fire.
    pub fn read_drain(&self) -> u64 {
        self.read_drain
    }

    /// The clock of `engine` in MHz.
    pub fn mhz(&self, engine: EngineId) -> u64 {
        self.mhz[engine.index()]
    }

    /// Picoseconds for `cycles` of `engine` (rounded up: never zero for work).
    pub fn ps(&self, engine: EngineId, cycles: u64) -> u64 {
        (u128::from(cycles) * u128::from(PS_PER_US))
            .div_ceil(u128::from(self.mhz(engine)))
            .min(u128::from(u64::MAX)) as u64
    }

    /// Whole cycles of `engine` in `ps` picoseconds.
    pub fn cycles_in(&self, engine: EngineId, ps: u64) -> u64 {
        (u128::from(ps) * u128::from(self.mhz(engine)) / u128::from(PS_PER_US)) as u64
    }
}

fn position(name: &str) -> Option<usize> {
    TIMING_CONSTANTS
        .iter()
        .position(|c| c.name.eq_ignore_ascii_case(name))
}

#[cfg(test)]
mod tests {
    use super::*;

    // The clocks convert cycles to time (trainium2_arch.rst engine frequency table).
    #[test]
    fn clocks_convert_cycles_to_time() {
        let t = Timing::default().costs(Gen::Cayman);
        // 960 cycles at 960 MHz are 1 µs.
        assert_eq!(t.ps(EngineId::Dve, 960), 1_000_000);
        assert_eq!(t.cycles_in(EngineId::Dve, 1_000_000), 960);
        assert_eq!(Timing::default().clock_mhz(EngineId::Dve, Gen::Sunda), 1120);
    }

    // nki-dma-bandwidth-guide.rst L59-63: 16 engines × 17 / 23 / 33 B/ns per generation; a
    // transfer spreads over one engine per 8 partitions (nki-dma-overview.rst L46).
    #[test]
    fn dma_bandwidth_per_generation_and_engine_sets() {
        let mb = |g| Timing::default().costs(g).dma_core_mb_per_s();
        assert_eq!(mb(Gen::Sunda), 272_000);
        assert_eq!(mb(Gen::Cayman), 368_000);
        assert_eq!(mb(Gen::Mariana), 528_000);
        let t = Timing::default().costs(Gen::Cayman);
        assert_eq!(t.dma_engine_set(0, 128), 0..16);
        assert_eq!(t.dma_engine_set(0, 4), 0..1);
        assert_eq!(t.dma_engine_set(8, 16), 1..3);
        assert_eq!(t.dma_engine_set(0, 0), 0..16);
        // 23 bytes at 23 000 MB/s are 1 ns.
        assert_eq!(t.dma_engine_ps(23), 1000);
        assert_eq!(t.dma_latency_ps(), 1_300_000);
    }

    #[test]
    fn overrides() {
        let mut t = Timing::default();
        t.set_text("dve_min_ii=8").unwrap();
        assert_eq!(t.get("DVE_MIN_II"), Some(8));
        assert!(matches!(t.set_text("NOPE=1"), Err(TimingError::Unknown(_))));
        assert!(t.set_text("CLOCK_MHZ_DVE_CAYMAN=0").is_err());
        assert!(t.set_text("POOL_START=-1").is_err());
        // Issue 20 item 11: values that would overflow the schedule are refused.
        assert!(t.set_text("DVE_MIN_II=1099511627776").is_err());
        assert!(t.set_text("POOL_START=1048577").is_err());
        t.set_text("POOL_START=1048576").unwrap();
        assert!(t.set_text("CLOCK_MHZ_DVE_CAYMAN=100001").is_err());
        t.set_text("CLOCK_MHZ_DVE_CAYMAN=100000").unwrap();
        // Bandwidths are rates, not cycle counts: 1 TB/s is accepted, 0 is not.
        t.set_text("HBM_MB_PER_S_CAYMAN=1000000").unwrap();
        assert!(t.set_text("DMA_ENGINE_MB_PER_S_CAYMAN=0").is_err());
        assert!(t.set_text("PE_PEAK_GFLOPS_CAYMAN=1000000001").is_err());
        let e = t.apply_file("# c\nPOOL_START = 7\n\nBAD\n").unwrap_err();
        assert_eq!(e.0, 4);
        assert_eq!(t.get("POOL_START"), Some(7));
    }

    #[test]
    fn read_drain_is_at_most_the_shortest_instruction() {
        let mut t = Timing::default();
        t.check().unwrap();
        t.set_text("READ_DRAIN=64").unwrap();
        t.check().unwrap();
        t.set_text("READ_DRAIN=65").unwrap();
        assert!(t.check().is_err());
        t.set_text("READ_DRAIN=16").unwrap();
        t.set_text("DVE_MIN_II=8").unwrap();
        assert!(t.check().is_err());
    }
}
