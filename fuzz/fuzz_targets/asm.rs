//! The assembler never panics on any UTF-8 input; what it accepts survives the canonical
//! round trip, and every error it reports points inside the source.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tpb_isa::text::{asm, disasm_program, AsmOptions};
use tpb_isa::Gen;

fuzz_target!(|data: &[u8]| {
    let Ok(src) = std::str::from_utf8(data) else {
        return;
    };
    let opts = AsmOptions::new(Gen::Cayman).allow_directives(&["in", "out", "reg", "expect"]);
    match asm(src, &opts) {
        Ok(a) => {
            for s in a.instructions() {
                let text = disasm_program(&[s.inst], s.gen);
                let back = asm(&text, &opts).expect("canonical text assembles");
                assert_eq!(back.insts(), vec![s.inst], "{text}");
                assert_eq!(disasm_program(&back.insts(), s.gen), text);
            }
        }
        Err(errors) => {
            assert!(!errors.is_empty());
            for e in &errors {
                assert!(e.line >= 1 && e.column >= 1, "{e}");
                assert!(e.span.start <= e.span.end && e.span.end <= src.len(), "{e}");
                assert!(src.is_char_boundary(e.span.start) && src.is_char_boundary(e.span.end));
            }
        }
    }
});
