//! decisions §1.1: decode is total and lossless — `encode(decode(b)) == b` for any 64 bytes
//! on every generation.

use proptest::prelude::*;
use tpb_isa::{Gen, Instruction};

fn bundle() -> impl Strategy<Value = [u8; 64]> {
    // Bias byte 0 towards the modelled opcodes so every struct is exercised.
    let modelled: Vec<u8> = tpb_isa::opcode::OPCODES.iter().map(|r| r.value).collect();
    (
        prop::sample::select(modelled),
        any::<bool>(),
        prop::array::uniform32(any::<u8>()),
        prop::array::uniform32(any::<u8>()),
    )
        .prop_map(|(op, keep, a, b)| {
            let mut x = [0u8; 64];
            x[..32].copy_from_slice(&a);
            x[32..].copy_from_slice(&b);
            if !keep {
                x[0] = op;
            }
            x
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4096))]
    #[test]
    fn encode_decode_is_identity(b in bundle()) {
        for g in Gen::ALL {
            prop_assert_eq!(Instruction::decode(&b, g).encode(), b);
        }
    }
}

#[test]
fn every_opcode_byte_round_trips() {
    for op in 0..=255u8 {
        let mut b = [0x5Au8; 64];
        b[0] = op;
        for g in Gen::ALL {
            assert_eq!(
                Instruction::decode(&b, g).encode(),
                b,
                "opcode {op:#04x} on {g}"
            );
        }
    }
}

#[test]
fn program_length_errors_name_the_tail() {
    let e = tpb_isa::decode_program(&[0u8; 130], Gen::Cayman).unwrap_err();
    assert_eq!(
        e.to_string(),
        "program is 130 bytes, not a multiple of 64: 2 trailing bytes at offset 0x80, after bundle #1"
    );
}
