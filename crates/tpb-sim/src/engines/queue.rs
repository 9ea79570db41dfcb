//! Engines and queues: which engine's queue each instruction goes to (the opcode table's
//! engine column, assumption `engine-placement`), and the `.engine NAME` check.

use std::fmt;
use tpb_isa::opcode::Engine;
use tpb_isa::{Gen, Instruction};

/// A NeuronCore engine with its own instruction queue.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum EngineId {
    /// Tensor engine (TensorE).
    Pe,
    /// Scalar / activation engine (ScalarE).
    Act,
    /// GpSimd engine.
    Pool,
    /// Vector engine (VectorE).
    Dve,
    /// Sync engine (the queue of SP sync records).
    Sp,
    /// The DMA queue fed by SP's DMA requests (the hardware DGE ring, isa-facts-pe-act-dma
    /// §3.13; assumption `dma-completion`).
    DmaSp,
    /// The DMA queue fed by ACT's DMA requests (hardware DGE).
    DmaAct,
    /// The DMA queue fed by POOL's DMA requests (software DGE; the only one on sunda).
    DmaPool,
}

/// How many engines (and DMA queues) there are.
pub const NUM_ENGINES: usize = 8;

impl EngineId {
    /// Every engine, in the order ties are broken (assumption `engine-sync-timing`).
    pub const ALL: [EngineId; NUM_ENGINES] = [
        EngineId::Pe,
        EngineId::Act,
        EngineId::Pool,
        EngineId::Dve,
        EngineId::Sp,
        EngineId::DmaSp,
        EngineId::DmaAct,
        EngineId::DmaPool,
    ];

    /// Whether this is a DMA queue (fed by DMA requests, never by placement).
    pub const fn is_dma_queue(self) -> bool {
        matches!(self, EngineId::DmaSp | EngineId::DmaAct | EngineId::DmaPool)
    }

    /// The DMA queue an engine's DMA requests go to (SP, ACT and POOL issue DMA,
    /// isa-facts-pe-act-dma §3.1).
    pub const fn dma_queue(self) -> Option<EngineId> {
        match self {
            EngineId::Sp => Some(EngineId::DmaSp),
            EngineId::Act => Some(EngineId::DmaAct),
            EngineId::Pool => Some(EngineId::DmaPool),
            _ => None,
        }
    }

    /// Whether this engine may issue a DMA request on `gen`: SP or ACT (hardware DGE) from
    /// cayman on, POOL (software DGE) always; sunda has no DGE emit path (§3.1).
    pub const fn issues_dma(self, gen: Gen) -> bool {
        match self {
            EngineId::Pool => true,
            EngineId::Sp | EngineId::Act => !matches!(gen, Gen::Sunda),
            _ => false,
        }
    }

    /// The lowercase name of `.engine` and `--queue`.
    pub const fn name(self) -> &'static str {
        match self {
            EngineId::Pe => "pe",
            EngineId::Act => "act",
            EngineId::Pool => "pool",
            EngineId::Dve => "dve",
            EngineId::Sp => "sp",
            EngineId::DmaSp => "dma.sp",
            EngineId::DmaAct => "dma.act",
            EngineId::DmaPool => "dma.pool",
        }
    }

    /// The uppercase label of reports and timelines.
    pub const fn label(self) -> &'static str {
        match self {
            EngineId::Pe => "PE",
            EngineId::Act => "ACT",
            EngineId::Pool => "POOL",
            EngineId::Dve => "DVE",
            EngineId::Sp => "SP",
            EngineId::DmaSp => "DMA.SP",
            EngineId::DmaAct => "DMA.ACT",
            EngineId::DmaPool => "DMA.POOL",
        }
    }

    /// A longer description for timeline track names.
    pub const fn description(self) -> &'static str {
        match self {
            EngineId::Pe => "PE (TensorE)",
            EngineId::Act => "ACT (ScalarE)",
            EngineId::Pool => "POOL (GpSimd)",
            EngineId::Dve => "DVE (VectorE)",
            EngineId::Sp => "SP (sync)",
            EngineId::DmaSp => "DMA queue of SP (hardware DGE)",
            EngineId::DmaAct => "DMA queue of ACT (hardware DGE)",
            EngineId::DmaPool => "DMA queue of POOL (software DGE)",
        }
    }

    /// Position in [`EngineId::ALL`].
    pub const fn index(self) -> usize {
        self as usize
    }

    /// Parses a name (case-insensitive).
    pub fn from_name(s: &str) -> Option<EngineId> {
        let s = s.trim();
        EngineId::ALL
            .into_iter()
            .find(|e| e.name().eq_ignore_ascii_case(s))
    }
}

impl fmt::Display for EngineId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.label())
    }
}

/// Where an opcode may run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Home {
    /// Only on this engine (the opcode table's engine column).
    Only(EngineId),
    /// On any engine (no engine in the table); placed on SP unless `.engine` says otherwise.
    Any,
    /// A DMA request: on an engine that issues DMA ([`EngineId::issues_dma`]); placed on SP
    /// (POOL on sunda) unless `.engine` names another issuer.
    Dma,
    /// On either of two engines (assumption `dve-or-pool-placement`): the first unless
    /// `.engine` names the second.
    Either(EngineId, EngineId),
}

impl Home {
    /// Whether the opcode may run on `e`.
    pub fn allows(self, e: EngineId) -> bool {
        match self {
            Home::Only(h) => h == e,
            Home::Either(a, b) => a == e || b == e,
            // Where DMA may be issued on some generation; `place` checks the generation.
            Home::Dma => matches!(e, EngineId::Sp | EngineId::Act | EngineId::Pool),
            Home::Any => true,
        }
    }
}

/// The default issuer of a DMA request on `gen`.
pub const fn default_dma_issuer(gen: Gen) -> EngineId {
    match gen {
        Gen::Sunda => EngineId::Pool,
        _ => EngineId::Sp,
    }
}

/// Whether `inst` is a DMA request whose data moves on a DMA queue (DMAMEMCPY).
pub fn is_dma_request(inst: &Instruction, gen: Gen) -> bool {
    matches!(inst.info(gen).map(|r| r.engine), Some(Engine::Dma))
}

/// The engine column of the opcode table for `inst` on `gen`.
pub fn home(inst: &Instruction, gen: Gen) -> Home {
    match inst.info(gen).map(|r| r.engine) {
        Some(Engine::Dve) => Home::Only(EngineId::Dve),
        Some(Engine::Pool) => Home::Only(EngineId::Pool),
        Some(Engine::Pe) => Home::Only(EngineId::Pe),
        Some(Engine::Act) => Home::Only(EngineId::Act),
        Some(Engine::Dma) => Home::Dma,
        Some(Engine::DveOrPool) => Home::Either(EngineId::Dve, EngineId::Pool),
        // EventSemaphore (any engine), a table engine this model does not know yet, or no
        // row: any queue.
        _ => Home::Any,
    }
}

/// A `.engine NAME` that asks for an engine the opcode does not run on.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "instruction #{index} ({mnemonic}) runs on {home} (opcode table), not on {asked} as \
     `.engine {}` asks",
    asked.name()
)]
pub struct PlaceError {
    /// Program index of the instruction.
    pub index: usize,
    /// Its mnemonic.
    pub mnemonic: &'static str,
    /// The engine the table names.
    pub home: EngineId,
    /// The engine `.engine` named.
    pub asked: EngineId,
}

/// The engine of every instruction of a program. `directives` are the `.engine` lines as
/// (instructions before the line, engine; `None` for `.engine auto`), in source order: each
/// applies to the instructions after it until the next. Every misplacement is reported.
pub fn place<'a>(
    insts: impl IntoIterator<Item = &'a Instruction>,
    gen: Gen,
    directives: &[(usize, Option<EngineId>)],
) -> Result<Vec<EngineId>, Vec<PlaceError>> {
    let insts = insts.into_iter();
    let mut out = Vec::with_capacity(insts.size_hint().0);
    let mut errors = Vec::new();
    let mut next = directives.iter().peekable();
    let mut asked = None;
    for (i, inst) in insts.enumerate() {
        while let Some(&(_, e)) = next.next_if(|d| d.0 <= i) {
            asked = e;
        }
        let engine = match (home(inst, gen), asked) {
            (Home::Only(h), Some(a)) if h != a => {
                errors.push(PlaceError {
                    index: i,
                    mnemonic: inst.info(gen).map_or("unknown", |r| r.mnemonic),
                    home: h,
                    asked: a,
                });
                h
            }
            (Home::Only(h), _) => h,
            (Home::Dma, Some(a)) if !a.issues_dma(gen) => {
                errors.push(PlaceError {
                    index: i,
                    mnemonic: inst.info(gen).map_or("unknown", |r| r.mnemonic),
                    home: default_dma_issuer(gen),
                    asked: a,
                });
                default_dma_issuer(gen)
            }
            (Home::Dma, a) => a.unwrap_or(default_dma_issuer(gen)),
            // A DMA queue runs only what its engine issues.
            (Home::Any, Some(a)) if a.is_dma_queue() => {
                errors.push(PlaceError {
                    index: i,
                    mnemonic: inst.info(gen).map_or("unknown", |r| r.mnemonic),
                    home: EngineId::Sp,
                    asked: a,
                });
                EngineId::Sp
            }
            (Home::Either(h, _), Some(a)) if !home(inst, gen).allows(a) => {
                errors.push(PlaceError {
                    index: i,
                    mnemonic: inst.info(gen).map_or("unknown", |r| r.mnemonic),
                    home: h,
                    asked: a,
                });
                h
            }
            (Home::Either(_, _), Some(a)) => a,
            (Home::Either(h, _), None) => h,
            (Home::Any, a) => a.unwrap_or(EngineId::Sp),
        };
        out.push(engine);
    }
    if errors.is_empty() {
        Ok(out)
    } else {
        Err(errors)
    }
}

/// The per-engine queues: program indices in program order.
pub fn split(engines: &[EngineId]) -> [Vec<usize>; NUM_ENGINES] {
    let mut q: [Vec<usize>; NUM_ENGINES] = Default::default();
    for (i, e) in engines.iter().enumerate() {
        q[e.index()].push(i);
    }
    q
}
