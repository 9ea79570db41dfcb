//! Decoding is total and lossless (decisions §1.1): `encode(decode(b)) == b` for any 64 bytes
//! on every generation, and validating the result never panics. The zero-copy view decodes
//! the same instruction, and its fast verdict agrees with the reference chains (issue 11).
#![no_main]

use libfuzzer_sys::fuzz_target;
use tpb_isa::validate::{is_valid_view, validate};
use tpb_isa::wire::InstView;
use tpb_isa::{Gen, Instruction};

fuzz_target!(|data: &[u8]| {
    let mut b = [0u8; 64];
    let n = data.len().min(64);
    b[..n].copy_from_slice(&data[..n]);
    for gen in Gen::ALL {
        let inst = Instruction::decode(&b, gen);
        assert_eq!(inst.encode(), b, "{gen}");
        let view = InstView::new(&b, gen);
        assert_eq!(view.owned(), inst, "{gen}");
        let report = validate(&inst, gen);
        assert_eq!(is_valid_view(&view), report.is_valid(), "{gen}: {report:?}");
    }
});
