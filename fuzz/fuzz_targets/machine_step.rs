//! `Machine::step` on mutated valid bundles, every generation: never panics, and a fault
//! leaves the whole machine state (memory, shadow, registers, flops, semaphores, events,
//! retired count) exactly as it was (decisions §3.9). The valid bundles are every example of
//! `docs/syntax.md`, one or more per opcode; the input picks one, a generation, and byte
//! edits (offset, xor) to apply.
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::sync::OnceLock;
use tpb_isa::text::{asm, AsmOptions};
use tpb_isa::{Gen, Instruction};
use tpb_sim::{Config, Machine};

/// Every instruction line of the syntax reference's examples, as bundles.
fn seeds() -> &'static [[u8; 64]] {
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
            for gen in [Gen::Cayman, Gen::Sunda] {
                if let Ok(a) = asm(code, &AsmOptions::new(gen)) {
                    out.extend(a.insts().iter().map(Instruction::encode));
                    break;
                }
            }
        }
        out
    })
}

/// A fresh machine per generation, with SBUF written so that reads are initialised.
fn machine(gen: Gen) -> &'static Machine {
    static MACHINES: OnceLock<Vec<Machine>> = OnceLock::new();
    let all = MACHINES.get_or_init(|| {
        Gen::ALL
            .iter()
            .map(|&g| {
                let mut m = Machine::new(Config::new(g));
                for r in 0..8 {
                    let _ = m.set_register(r, 0x100 * r as u32);
                }
                m
            })
            .collect()
    });
    &all[Gen::ALL.iter().position(|&g| g == gen).unwrap_or(0)]
}

fuzz_target!(|data: &[u8]| {
    let seeds = seeds();
    let (Some(&pick), Some(&g)) = (data.first(), data.get(1)) else {
        return;
    };
    if seeds.is_empty() {
        return;
    }
    let gen = Gen::ALL[usize::from(g) % Gen::ALL.len()];
    let mut bytes = seeds[usize::from(pick) % seeds.len()];
    for edit in data[2..].chunks_exact(2) {
        bytes[usize::from(edit[0]) % 64] ^= edit[1];
    }
    let inst = Instruction::decode(&bytes, gen);
    let before = machine(gen);
    let mut m = before.clone();
    if let Err(fault) = m.step(&inst) {
        assert!(m == *before, "fault changed state on {gen}: {fault}");
        let _ = fault.to_string();
    }
});
