//! The fuzz targets (fuzz/, a separate crate) mutate the bundles of `fuzz/src/lib.rs`'s
//! `seeds()`: every opcode the opcode list defines must be one of them, so a new opcode
//! (issue 17's DVE/POOL families included) is fuzzed as soon as docs/syntax.md shows it.
//! The fuzz library is compiled here as a module, so the check needs no libFuzzer build; it
//! lives in the CLI crate because the library's program seeds use the CLI's program reader.

#[allow(dead_code)]
#[path = "../../../fuzz/src/lib.rs"]
mod fuzz_lib;

use tpb_isa::opcode::OPCODES;
use tpb_isa::{Gen, Instruction};

#[test]
fn every_opcode_is_a_fuzz_seed() {
    let seeds = fuzz_lib::seeds();
    assert!(seeds.len() >= OPCODES.len(), "{} seeds", seeds.len());
    let missing: Vec<String> = OPCODES
        .iter()
        .filter(|row| {
            !seeds.iter().any(|b| {
                Gen::ALL
                    .into_iter()
                    .filter(|&g| row.gens.contains(g))
                    .any(|g| Instruction::decode(b, g).opcode().0 == row.value)
            })
        })
        .map(|row| format!("{} ({:#04x})", row.mnemonic, row.value))
        .collect();
    assert!(missing.is_empty(), "no fuzz seed for {missing:?}");
}
