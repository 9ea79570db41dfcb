//! No decodable bundle makes the simulator panic: random 64 bytes, bundles with a modelled
//! opcode and random fields, and single-byte mutations of valid random instructions all
//! return `Ok` or `Err` from `Machine::step` on every generation.
#![allow(clippy::needless_range_loop)] // plain index loops read like the expectations

mod family;
mod gen;
mod reference;

use family::generators;
use gen::*;
use proptest::prelude::*;
use tpb_isa::opcode::OPCODES;
use tpb_isa::{Gen, Instruction};
use tpb_sim::{Config, Machine};

fn gens() -> impl Strategy<Value = Gen> {
    prop::sample::select(Gen::ALL.to_vec())
}

/// A machine with a small element limit (random broadcast patterns can be huge) and some
/// initialised memory and registers.
fn machine(gen: Gen, seed: u64) -> Machine {
    let mut w = World::with(seed, gen, Some(1 << 14));
    for r in 0..64u32 {
        w.m.set_register(
            r as usize,
            (w.rng.next() as u32) & if r % 2 == 0 { 0x3FFF } else { u32::MAX },
        )
        .unwrap();
    }
    w.m
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn random_bundles_never_panic(bytes in prop::collection::vec(any::<u8>(), 64), gen in gens(), biased: bool, seed: u64) {
        let mut b = [0u8; 64];
        b.copy_from_slice(&bytes);
        if biased {
            b[0] = OPCODES[(seed % OPCODES.len() as u64) as usize].value;
            b[1] = 0x10;
        }
        let mut m = machine(gen, seed);
        let _ = m.step(&Instruction::decode(&b, gen));
        let mut strict = Machine::new(Config { strict: true, max_elements: 1 << 14, ..Config::new(gen) });
        let _ = strict.step(&Instruction::decode(&b, gen));
    }

    #[test]
    fn mutated_valid_bundles_never_panic(seed: u64, gen in gens(), which: prop::sample::Index, pos in 0usize..64, byte: u8) {
        let mut w = World::with(seed, gen, Some(1 << 14));
        // Every family's generator (tests/gen), on a generation that defines the family.
        let makers: Vec<_> = generators().into_iter().filter(|(_, _, g)| g.contains(&gen)).collect();
        let prog = makers[which.index(makers.len())].1(&mut w);
        for i in &prog {
            let mut b = i.encode();
            b[pos] = byte;
            let _ = w.m.step(&Instruction::decode(&b, gen));
            let _ = w.m.step(i);
        }
    }
}

#[test]
fn a_huge_broadcast_is_refused_by_the_limit_not_run() {
    use tpb_isa::wire::{Addr4, Tensor};
    use tpb_isa::{AluOp, Body, Dtype, Opcode};
    let gen = Gen::Cayman;
    let mut m = Machine::new(Config {
        max_elements: 1 << 20,
        ..Config::new(gen)
    });
    let mut i = Instruction::new(Opcode(0x43), gen);
    if let Body::S3d3Ts(s) = &mut i.body {
        let t = Tensor {
            start_addr: Addr4(0),
            step_elem: [0; 3],
            num_elem: [65535; 3],
        };
        s.src_mem_pattern = t;
        s.dst_mem_pattern = t;
        s.in_dtype = Dtype::FP32;
        s.out_dtype = Dtype::FP32;
        s.num_active_channels = 128;
        s.op0 = AluOp::ADD;
    }
    let e = m.step(&i).unwrap_err();
    assert!(matches!(e.cause, tpb_sim::FaultCause::Limit { .. }), "{e}");
}
