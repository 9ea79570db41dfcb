//! The timing model's values: [`TIMING_CONSTANTS`] with the user's overrides, and the
//! cost of one instruction (assumption `engine-timing`).

use super::queue::{EngineId, NUM_ENGINES};
use crate::assumptions::{TimingConstant, TIMING_CONSTANTS};
use crate::machine::CostShape;
use tpb_isa::Gen;

/// The largest cycle-count constant (2^20): with clocks of at least 1 MHz, four million
/// instructions and the default run budget the schedule stays far below 2^64 ps.
pub const MAX_CYCLES: u64 = 1 << 20;

/// The fastest clock a constant may name, in MHz.
pub const MAX_CLOCK_MHZ: u64 = 100_000;

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

    /// Sets one constant: a clock is 1..=[`MAX_CLOCK_MHZ`] MHz, any other constant at most
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
        Costs {
            min_ii: [
                self.value("PE_MIN_II"),
                self.value("ACT_MIN_II"),
                0,
                self.value("DVE_MIN_II"),
                self.value("SYNC_CYCLES"),
                0,
                0,
                0,
            ],
            dma_issue_ns: self.value("DMA_ISSUE_NS"),
            dma_latency_ns: self.value("DMA_LATENCY_NS"),
            dma_queue_mb_per_s: self
                .value("DMA_ENGINE_MB_PER_S")
                .saturating_mul(self.value("DMA_ENGINES_PER_QUEUE"))
                .max(1),
            pool_start: self.value("POOL_START"),
            dependent: self.value("DEPENDENT_OVERHEAD"),
            access: self.value("TENSOR_ACCESS_OVERHEAD"),
            pe_fp32_factor: self.value("PE_FP32_FACTOR").max(1),
            exp_dve_speedup: self.value("EXP_DVE_SPEEDUP").max(1),
            sync: self.value("SYNC_CYCLES").max(1),
            read_drain: self.value("READ_DRAIN"),
            mhz: EngineId::ALL.map(|e| self.clock_mhz(e, gen)),
        }
    }
}

/// The timing model for one generation (see [`Timing::costs`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Costs {
    min_ii: [u64; NUM_ENGINES],
    pool_start: u64,
    dependent: u64,
    access: u64,
    pe_fp32_factor: u64,
    exp_dve_speedup: u64,
    sync: u64,
    read_drain: u64,
    mhz: [u64; NUM_ENGINES],
    dma_issue_ns: u64,
    dma_latency_ns: u64,
    dma_queue_mb_per_s: u64,
}

impl Costs {
    /// Cycles of an instruction on `engine` (assumption `engine-timing`): `n` elements per
    /// partition, `shape` what its handler reported, `memory` whether it has memory
    /// operands, `dependent` whether it reads what the engine's previous instruction wrote,
    /// `exposed` whether its engine's pipeline was empty (the first instruction of its queue,
    /// or one that starts after its engine waited or sat idle).
    ///
    /// * PE Matmul: `max(min(PE_MIN_II, stationary columns), moving N)`, × `PE_FP32_FACTOR`
    ///   for full fp32 (isa-facts-pe-act-dma §1.13); LoadWeights and the rest of PE, ACT and
    ///   DVE: `max(MIN_II, N)` (NKI's `activation_reduce` note, `max(MIN_II, N) + MIN_II`
    ///   (§2.13), is the Activate plus the 0x24 drain it emits); DVE Exponential: `max(DVE_MIN_II, ⌈N / EXP_DVE_SPEEDUP⌉)`
    ///   (§4.2); POOL: `POOL_START + N`.
    /// * Plus, on PE and ACT, `TENSOR_ACCESS_OVERHEAD` when `exposed` (a back-to-back
    ///   instruction hides it behind the previous one), else `DEPENDENT_OVERHEAD` when
    ///   `dependent`; on the other engines `DEPENDENT_OVERHEAD` when `dependent`.
    pub fn cycles(
        &self,
        engine: EngineId,
        n: u64,
        shape: CostShape,
        memory: bool,
        dependent: bool,
        exposed: bool,
    ) -> u64 {
        if !memory {
            return self.sync;
        }
        let min_ii = self.min_ii[engine.index()];
        let base = match (engine, shape) {
            (EngineId::Pool, _) => self.pool_start.saturating_add(n),
            (
                _,
                CostShape::Matmul {
                    moving,
                    stationary,
                    fp32,
                },
            ) => {
                let factor = if fp32 { self.pe_fp32_factor } else { 1 };
                min_ii.min(stationary).max(moving).saturating_mul(factor)
            }
            (_, CostShape::DveExp) => min_ii.max(n.div_ceil(self.exp_dve_speedup)),
            (_, CostShape::Elementwise) => min_ii.max(n),
        };
        let extra = if exposed && matches!(engine, EngineId::Pe | EngineId::Act) {
            self.access
        } else if dependent {
            self.dependent
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

    /// Nanoseconds (a DMA queue's cycles) to move `bytes`: DMA_LATENCY_NS plus the bytes at
    /// the queue's bandwidth (DMA_ENGINE_MB_PER_S × DMA_ENGINES_PER_QUEUE).
    pub fn dma_transfer_cycles(&self, bytes: u64) -> u64 {
        let move_ns = (u128::from(bytes) * 1000).div_ceil(u128::from(self.dma_queue_mb_per_s));
        (u128::from(self.dma_latency_ns) + move_ns).clamp(1, u128::from(u64::MAX)) as u64
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

    // nki-semantics §1.3: DVE max(MIN_II, N); §1.1: POOL GPSIMD_START + N.
    #[test]
    fn cost_formulas() {
        let t = Timing::default().costs(Gen::Cayman);
        let e = CostShape::Elementwise;
        assert_eq!(t.cycles(EngineId::Dve, 10, e, true, false, false), 64);
        assert_eq!(t.cycles(EngineId::Dve, 512, e, true, false, false), 512);
        assert_eq!(t.cycles(EngineId::Dve, 512, e, true, true, false), 612);
        // DVE pays no access overhead; its dependent overhead stays.
        assert_eq!(t.cycles(EngineId::Dve, 512, e, true, true, true), 612);
        assert_eq!(t.cycles(EngineId::Pool, 512, e, true, false, false), 662);
        assert_eq!(t.cycles(EngineId::Sp, 0, e, false, false, false), 64);
        // 960 cycles at 960 MHz are 1 µs.
        assert_eq!(t.ps(EngineId::Dve, 960), 1_000_000);
        assert_eq!(t.cycles_in(EngineId::Dve, 1_000_000), 960);
        assert_eq!(Timing::default().clock_mhz(EngineId::Dve, Gen::Sunda), 1120);
    }

    // isa-facts-pe-act-dma §1.13, §2.13, §4.2: the PE/ACT/DVE-exp formulas and the ~60-cycle
    // tensor access overhead of an instruction that starts with its engine's pipeline empty.
    #[test]
    fn pe_act_cost_formulas() {
        let t = Timing::default().costs(Gen::Cayman);
        let mm = |moving, stationary, fp32| CostShape::Matmul {
            moving,
            stationary,
            fp32,
        };
        let pe = |shape, exposed| t.cycles(EngineId::Pe, 0, shape, true, false, exposed);
        assert_eq!(pe(mm(512, 128, false), false), 512);
        assert_eq!(pe(mm(16, 128, false), false), 64);
        // max(min(64, N_stationary), N_moving): a narrow stationary tile lowers the floor.
        assert_eq!(pe(mm(16, 32, false), false), 32);
        assert_eq!(pe(mm(512, 128, true), false), 2048);
        assert_eq!(pe(mm(512, 128, false), true), 572);
        let act = |n, shape, dep, exposed| t.cycles(EngineId::Act, n, shape, true, dep, exposed);
        assert_eq!(act(512, CostShape::Elementwise, false, false), 512);
        assert_eq!(act(512, CostShape::Elementwise, true, false), 612);
        // An exposed instruction pays the access overhead instead of the dependent one.
        assert_eq!(act(512, CostShape::Elementwise, true, true), 572);
        let dve = |n| t.cycles(EngineId::Dve, n, CostShape::DveExp, true, false, false);
        assert_eq!(dve(512), 128);
        assert_eq!(dve(100), 64);
        let mut slow = Timing::default();
        slow.set_text("PE_FP32_FACTOR=0").unwrap();
        slow.set_text("EXP_DVE_SPEEDUP=0").unwrap();
        let s = slow.costs(Gen::Cayman);
        // A zero factor counts as 1 (never a division by zero or a free instruction).
        assert_eq!(
            s.cycles(EngineId::Pe, 0, mm(512, 128, true), true, false, false),
            512
        );
        assert_eq!(
            s.cycles(EngineId::Dve, 512, CostShape::DveExp, true, false, false),
            512
        );
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
