//! `asm(disasm(b)) == b` for any 64 bytes on every generation, and the disassembly is a
//! fixed point of `disasm∘asm`.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tpb_isa::text::{asm_line, disasm};
use tpb_isa::{Gen, Instruction};

fuzz_target!(|data: &[u8]| {
    let mut b = [0u8; 64];
    let n = data.len().min(64);
    b[..n].copy_from_slice(&data[..n]);
    for gen in Gen::ALL {
        let text = disasm(&Instruction::decode(&b, gen), gen);
        let back = match asm_line(&text, gen) {
            Ok(i) => i,
            Err(e) => panic!("{gen}: `{text}` does not assemble:\n{e}"),
        };
        assert_eq!(back.encode(), b, "{gen}: {text}");
        assert_eq!(disasm(&back, gen), text);
    }
});
