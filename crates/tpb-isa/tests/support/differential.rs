//! The assembler's fast path against its plain reference (issue 11): `asm` (byte-level fast
//! path where it applies), `asm_into` (the same into a bundle buffer) and `asm_plain` (every
//! line through the general parser) must give the same result on any input: the same
//! items, or the same error list (messages, lines, columns, spans, the cap).
#![allow(dead_code)] // each suite uses part of it

use tpb_isa::text::{asm, asm_into, asm_plain, AsmOptions, Item};

/// Asserts that the three entry points agree on `src`.
pub fn assert_same(src: &str, opts: &AsmOptions) {
    let plain = asm_plain(src, opts);
    let fast = asm(src, opts);
    assert_eq!(fast, plain, "asm and asm_plain differ on {src:?}");
    let mut out = vec![[0xEE; 64]];
    let into = asm_into(src, opts, &mut out);
    match (into, plain) {
        (Ok(map), Ok(a)) => {
            assert_eq!(out[0], [0xEE; 64]);
            assert_eq!(out[1..].concat(), a.to_bytes(), "{src:?}");
            let lines: Vec<usize> = a.instructions().map(|s| s.line).collect();
            assert_eq!(map.lines, lines, "{src:?}");
            let gens: Vec<_> = a.instructions().map(|s| s.gen).collect();
            assert_eq!(map.gens().collect::<Vec<_>>(), gens, "{src:?}");
            let marks: Vec<&Item> = a
                .items
                .iter()
                .filter(|i| !matches!(i, Item::Instruction(_)))
                .collect();
            assert_eq!(map.marks.iter().collect::<Vec<_>>(), marks, "{src:?}");
            assert_eq!(
                (map.initial_gen, map.final_gen),
                (a.initial_gen, a.final_gen)
            );
        }
        (Err(e), Err(p)) => {
            assert_eq!(e, p, "{src:?}");
            assert_eq!(
                out,
                vec![[0xEE; 64]],
                "asm_into kept bundles after an error"
            );
        }
        (into, plain) => panic!("asm_into and asm_plain differ on {src:?}: {into:?} vs {plain:?}"),
    }
}
