//! Decode and decode+validate throughput over a generated corpus, as ratios to a plain
//! 64-byte copy loop measured in the same run (issue 2 item 6). Run: `cargo bench -p tpb-isa`.
//! Goals on one core: decode ≥ 60 M bundles/s, decode+validate ≥ 20 M bundles/s.

use std::hint::black_box;
use std::time::Instant;
use tpb_isa::opcode::OPCODES;
use tpb_isa::validate::is_valid;
use tpb_isa::{Gen, Instruction};

const BUNDLES: usize = 1 << 20;

/// A deterministic corpus: every modelled opcode, plausible fields, some noise.
fn corpus() -> Vec<[u8; 64]> {
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    (0..BUNDLES)
        .map(|i| {
            let mut b = [0u8; 64];
            for c in b.chunks_mut(8) {
                c.copy_from_slice(&next().to_le_bytes());
            }
            // Keep most bundles structurally plausible so validation walks the full chain.
            b[0] = OPCODES[i % OPCODES.len()].value;
            b[1] = 0x10;
            if i % 4 != 0 {
                for v in &mut b[4..12] {
                    *v = 0;
                }
            }
            b
        })
        .collect()
}

fn measure(name: &str, reps: usize, mut f: impl FnMut() -> u64) -> f64 {
    let mut best = f64::INFINITY;
    for _ in 0..reps {
        let t = Instant::now();
        black_box(f());
        best = best.min(t.elapsed().as_secs_f64());
    }
    let rate = BUNDLES as f64 / best;
    println!(
        "{name:<28} {:>8.1} M bundles/s  ({:.2} ms per {} bundles)",
        rate / 1e6,
        best * 1e3,
        BUNDLES
    );
    rate
}

fn main() {
    let corpus = corpus();
    let gen = Gen::Cayman;
    let mut sink = vec![[0u8; 64]; BUNDLES];
    let copy = measure("64-byte copy loop", 7, || {
        for (d, s) in sink.iter_mut().zip(&corpus) {
            *d = black_box(*s);
        }
        sink[BUNDLES / 2][0] as u64
    });
    let decode = measure("decode", 7, || {
        let mut acc = 0u64;
        for b in &corpus {
            let i = black_box(Instruction::decode(black_box(b), gen));
            acc = acc.wrapping_add(i.header.opcode.0 as u64);
        }
        acc
    });
    let roundtrip = measure("decode+encode", 5, || {
        let mut acc = 0u64;
        for b in &corpus {
            let e = black_box(Instruction::decode(black_box(b), gen).encode());
            acc = acc.wrapping_add(e[63] as u64);
        }
        acc
    });
    let validate = measure("decode+validate", 5, || {
        let mut ok = 0u64;
        for b in &corpus {
            ok += is_valid(&Instruction::decode(black_box(b), gen), gen) as u64;
        }
        ok
    });
    println!();
    println!("ratio decode / copy           {:.3}", decode / copy);
    println!("ratio decode+encode / copy    {:.3}", roundtrip / copy);
    println!("ratio decode+validate / copy  {:.3}", validate / copy);
    println!(
        "goals: decode >= 60 M/s: {}; decode+validate >= 20 M/s: {}",
        if decode >= 60e6 { "met" } else { "NOT met" },
        if validate >= 20e6 { "met" } else { "NOT met" }
    );
}
