//! What the fuzz targets share: the valid bundles they mutate and a quick machine.

use std::sync::OnceLock;
use tpb_isa::text::{asm, AsmOptions};
use tpb_isa::{Gen, Instruction};
use tpb_sim::{Config, Machine};

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
