//! What the fuzz targets share: the valid bundles they mutate and a quick machine.

use std::sync::OnceLock;
use tpb_isa::text::{asm, AsmOptions};
use tpb_isa::{Gen, Instruction};
use tpb_sim::engines::EngineId;
use tpb_sim::{Config, Machine};

/// The multi-engine example programs (`examples/engines/*.tpb`), in a fixed order: queues that
/// signal and wait on one another through semaphores, a race and a deadlock.
pub const ENGINE_EXAMPLES: [(&str, &str); 5] = [
    (
        "mask_pipeline",
        include_str!("../../examples/engines/mask_pipeline.tpb"),
    ),
    (
        "mask_pipeline_race",
        include_str!("../../examples/engines/mask_pipeline_race.tpb"),
    ),
    (
        "deadlock",
        include_str!("../../examples/engines/deadlock.tpb"),
    ),
    (
        "dma_pipeline",
        include_str!("../../examples/engines/dma_pipeline.tpb"),
    ),
    (
        "pe_act_pipeline",
        include_str!("../../examples/engines/pe_act_pipeline.tpb"),
    ),
];

/// One instruction of an engine example: its bundle, the engine its program puts it on, the
/// example it comes from and its position there.
#[derive(Clone, Copy, Debug)]
pub struct ProgramSeed {
    /// The bundle (assembled for the example's generation).
    pub bytes: [u8; 64],
    /// The engine the example places it on (`.engine`, else the opcode table).
    pub engine: EngineId,
    /// Index in [`ENGINE_EXAMPLES`].
    pub example: usize,
}

/// Every instruction of every [`ENGINE_EXAMPLES`] program, program after program, with its
/// engine: the `run_engines` target picks them (a pick byte with the high bit set) so that a
/// few input bytes make a synchronised multi-engine program.
pub fn program_seeds() -> &'static [ProgramSeed] {
    static SEEDS: OnceLock<Vec<ProgramSeed>> = OnceLock::new();
    SEEDS.get_or_init(|| {
        let mut out = Vec::new();
        for (example, (_, text)) in ENGINE_EXAMPLES.iter().enumerate() {
            let opts =
                AsmOptions::new(Gen::Cayman).allow_directives(tpb::cmd::run::program::DIRECTIVES);
            let Ok(a) = asm(text, &opts) else {
                continue;
            };
            let insts = a.insts();
            let lines: Vec<usize> = a.instructions().map(|s| s.line).collect();
            let Ok(engines) =
                tpb::cmd::run::program::engines_of(&insts, &lines, a.directives(), a.final_gen)
            else {
                continue;
            };
            for (inst, engine) in insts.iter().zip(engines) {
                out.push(ProgramSeed {
                    bytes: inst.encode(),
                    engine,
                    example,
                });
            }
        }
        out
    })
}

/// Every instruction line of the syntax reference's examples, as bundles (one or more per
/// opcode), each assembled for the first generation that accepts it (cayman, sunda,
/// mariana, maverick), so generation-specific opcodes are seeds too
/// (`crates/tpb/tests/fuzz_setup.rs` checks the PE/ACT/DMA ones are there).
pub fn seeds() -> &'static [[u8; 64]] {
    static SEEDS: OnceLock<Vec<[u8; 64]>> = OnceLock::new();
    SEEDS.get_or_init(|| {
        let doc = include_str!("../../docs/syntax.md");
        let mut out = Vec::new();
        let mut inside = false;
        for line in doc.lines() {
            if line.starts_with("```") {
                inside = line == "```tpb";
                continue;
            }
            let code = line.trim();
            if !inside || code.is_empty() || code.starts_with(['#', ';', '.']) {
                continue;
            }
            for gen in [Gen::Cayman, Gen::Sunda, Gen::Mariana, Gen::Maverick] {
                if let Ok(a) = asm(code, &AsmOptions::new(gen)) {
                    out.extend(a.insts().iter().map(Instruction::encode));
                    break;
                }
            }
        }
        out
    })
}

/// Seed `pick` (modulo the count) with byte edits `(offset, xor)` applied, decoded for `gen`.
pub fn mutated(pick: u8, edits: &[u8], gen: Gen) -> Option<Instruction> {
    let seeds = seeds();
    if seeds.is_empty() {
        return None;
    }
    let mut bytes = seeds[usize::from(pick) % seeds.len()];
    for edit in edits.chunks_exact(2) {
        bytes[usize::from(edit[0]) % 64] ^= edit[1];
    }
    Some(Instruction::decode(&bytes, gen))
}

/// The generation byte `g` names.
pub fn gen_of(g: u8) -> Gen {
    Gen::ALL[usize::from(g) % Gen::ALL.len()]
}

/// A fresh machine with small budgets (each step is quick, and budget faults are exercised),
/// one thread, and registers 0..8 set. Its memory is allocated zeroed and untouched, so
/// making one costs little until instructions write.
pub fn fresh(gen: Gen) -> Machine {
    let mut config = Config::new(gen);
    config.max_elements = 1 << 14;
    config.max_run_elements = 1 << 40;
    config.threads = 1;
    let mut m = Machine::new(config);
    for r in 0..8 {
        let _ = m.set_register(r, 0x100 * r as u32);
    }
    m
}
