//! Random bundles for the text properties: biased to the modelled opcodes, with readable
//! addresses, shared by the round-trip and the disassembler-differential tests.

use proptest::prelude::*;
use tpb_isa::opcode::OPCODES;

/// Address words that exercise every ADDR4 text form: SBUF/PSUM immediates (partition
/// ranges), registers, markers, and words outside both windows.
fn address_word(kind: u8, r: u32) -> u32 {
    match kind % 8 {
        0 => ((r >> 8) % 128) << 18 | (r & 0x3FFFF), // SBUF (256 KiB stride)
        1 => 0x200_0000 + (((r >> 8) % 128) << 15) + (r & 0x7FFF), // PSUM
        2 => 0x8000_0000 | (r % 80),                 // register (some out of range)
        3 => 0x2000_0000 | (r & 0x1FFF_FFFF),        // indirect marker
        4 => 0x4000_0000 | (r & 0xFF),               // shape-from-register marker
        5 => 0x0400_0000 | (r & 0x3FF_FFFF),         // outside SBUF/PSUM (not maverick)
        6 => r & 0x07FF_FFFF,                        // maverick's larger SBUF
        _ => r,
    }
}

/// Random bundles biased to the modelled opcodes, with readable addresses in the descriptor
/// slots (every descriptor starts on a 4-byte boundary) and small channel counts.
pub fn bundle() -> impl Strategy<Value = [u8; 64]> {
    let modelled: Vec<u8> = OPCODES.iter().map(|r| r.value).collect();
    (
        prop::sample::select(modelled),
        0u8..4,
        prop::array::uniform32(any::<u8>()),
        prop::array::uniform32(any::<u8>()),
        prop::array::uniform13(any::<(u8, u32)>()),
    )
        .prop_map(|(op, mode, a, b, words)| {
            let mut x = [0u8; 64];
            x[..32].copy_from_slice(&a);
            x[32..].copy_from_slice(&b);
            if mode != 0 {
                x[0] = op;
            }
            if mode >= 2 {
                // Readable header/events and addresses in every body word.
                x[1] = 0x10;
                x[2..12].fill(0);
                for (i, (k, r)) in words.iter().enumerate().skip(3) {
                    x[4 * i..4 * i + 4].copy_from_slice(&address_word(*k, *r).to_le_bytes());
                }
            }
            if mode == 3 {
                for ch in [12, 33, 34] {
                    x[ch] %= 129;
                }
            }
            x
        })
}
