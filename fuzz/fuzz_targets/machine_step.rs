//! `Machine::step` on mutated valid bundles, every generation: never panics, a fault leaves
//! the whole machine state (memory, shadow, registers, flops, DVE lane state, semaphores,
//! events, retired count) exactly as it was (decisions §3.9), and a step that succeeds does
//! the same on a second machine in the same state (determinism). The valid bundles are every
//! example of `docs/syntax.md`, one or more per opcode; the input picks one, a generation,
//! and byte edits (offset, xor) to apply.
//!
//! Fast (issue 20 item 20): cloning and comparing a whole machine (tens of MB of memory) per
//! input ran 90 inputs/s. Instead each generation keeps two machines in step, `work` and
//! `reference`: a successful step runs on both, a fault on `work` alone. After every input
//! the small state (registers, flops, DVE lane state, semaphores, events, retired count) is
//! compared; every [`FULL_CHECK_EVERY`] inputs the whole machines are, and a difference is
//! then traced to its input by replaying the inputs since the last full check from a saved
//! `checkpoint`, comparing the whole machines after each. The panic names that input (as
//! hex) and says whether it fails on a fresh machine alone.
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::sync::{Mutex, OnceLock};
use tpb_fuzz::{fresh, gen_of, mutated};
use tpb_isa::{Gen, Instruction};
use tpb_sim::Machine;

/// Inputs between two comparisons of whole machines.
const FULL_CHECK_EVERY: usize = 1024;

/// The instruction an input describes, and its generation.
fn instruction(data: &[u8]) -> Option<(Gen, Instruction)> {
    let (&pick, &g) = (data.first()?, data.get(1)?);
    let gen = gen_of(g);
    Some((gen, mutated(pick, &data[2..], gen)?))
}

/// Registers, flops, the hidden DVE lane state, semaphores, events and the retired count:
/// cheap to compare.
fn small_state_eq(a: &Machine, b: &Machine) -> bool {
    a.registers() == b.registers()
        && a.flops() == b.flops()
        && a.dve_state() == b.dve_state()
        && a.semaphores() == b.semaphores()
        && a.events() == b.events()
        && a.retired() == b.retired()
}

/// Steps `work` and keeps `reference` in step; `Err` says what broke.
fn step_pair(
    work: &mut Machine,
    reference: &mut Machine,
    inst: &Instruction,
) -> Result<(), String> {
    match work.step(inst) {
        Err(fault) => {
            let _ = fault.to_string();
            if !small_state_eq(work, reference) {
                return Err(format!(
                    "a fault changed registers, flops, DVE lane state, semaphores or events: {fault}"
                ));
            }
        }
        Ok(first) => match reference.step(inst) {
            Ok(second) if second == first => {}
            Ok(_) => return Err("the same step reported differently on equal machines".into()),
            Err(f) => return Err(format!("the same step faulted on an equal machine: {f}")),
        },
    }
    Ok(())
}

struct Lane {
    work: Machine,
    reference: Machine,
    checkpoint: Machine,
    since: Vec<Vec<u8>>,
}

impl Lane {
    fn new(gen: Gen) -> Lane {
        Lane {
            work: fresh(gen),
            reference: fresh(gen),
            checkpoint: fresh(gen),
            since: Vec::new(),
        }
    }

    /// Compares the whole machines; on a difference, finds the input that made it.
    fn full_check(&mut self, gen: Gen) {
        if self.work != self.reference {
            let (mut w, mut r) = (self.checkpoint.clone(), self.checkpoint.clone());
            for input in &self.since {
                let hex: String = input.iter().map(|b| format!("{b:02x}")).collect();
                let Some((_, inst)) = instruction(input) else {
                    continue;
                };
                let broke = step_pair(&mut w, &mut r, &inst).err().or_else(|| {
                    (w != r).then(|| "a fault changed memory or its shadow".to_string())
                });
                if let Some(why) = broke {
                    let (mut fw, mut fr) = (fresh(gen), fresh(gen));
                    let alone = step_pair(&mut fw, &mut fr, &inst).is_err() || fw != fr;
                    panic!(
                        "{why} on {gen}; input {hex} ({} on a fresh machine alone)",
                        if alone { "also fails" } else { "passes" }
                    );
                }
            }
            panic!("the machines differ on {gen}, but replaying the inputs does not reproduce it");
        }
        self.checkpoint.clone_from(&self.work);
        self.since.clear();
    }
}

fuzz_target!(|data: &[u8]| {
    static LANES: OnceLock<Mutex<Vec<Lane>>> = OnceLock::new();
    let Some((gen, inst)) = instruction(data) else {
        return;
    };
    let lanes = LANES.get_or_init(|| Mutex::new(Gen::ALL.iter().map(|&g| Lane::new(g)).collect()));
    let mut lanes = lanes.lock().unwrap_or_else(|e| e.into_inner());
    let lane = &mut lanes[Gen::ALL.iter().position(|&g| g == gen).unwrap_or(0)];
    lane.since.push(data.to_vec());
    if let Err(why) = step_pair(&mut lane.work, &mut lane.reference, &inst) {
        panic!("{why} on {gen}");
    }
    if lane.since.len() >= FULL_CHECK_EVERY {
        lane.full_check(gen);
    }
});
