//! The assembler's fast path against its plain reference (issue 11): `asm` (byte-level fast
//! path where it applies), `asm_into` (the same into a bundle buffer), `asm_each` (the same
//! handed line by line to a callback) and `asm_plain` (every line through the general parser)
//! must give the same result on any input: the same items, or the same error list (messages,
//! lines, columns, spans, the cap).
#![allow(dead_code)] // each suite uses part of it

use tpb_isa::text::{
    asm, asm_each, asm_into, asm_plain, AsmOptions, Assembly, Item, SourceInstruction, SourceMap,
};

/// Asserts that the four entry points agree on `src`.
pub fn assert_same(src: &str, opts: &AsmOptions) {
    let plain = asm_plain(src, opts);
    let fast = asm(src, opts);
    assert_eq!(fast, plain, "asm and asm_plain differ on {src:?}");
    let mut visited = Vec::new();
    let each = asm_each(src, opts, |inst, gen, line, source| {
        visited.push(SourceInstruction {
            inst,
            gen,
            line,
            source: source.to_string(),
        })
    });
    match (&each, &plain) {
        (Ok(map), Ok(a)) => {
            let want: Vec<&SourceInstruction> = a.instructions().collect();
            assert_eq!(visited.iter().collect::<Vec<_>>(), want, "{src:?}");
            assert_eq!(map.lines, want.iter().map(|s| s.line).collect::<Vec<_>>());
            assert_same_marks(map, a, src);
            assert_eq!(
                (map.initial_gen, map.final_gen),
                (a.initial_gen, a.final_gen)
            );
        }
        (Err(e), Err(p)) => assert_eq!(e, p, "{src:?}"),
        (each, plain) => panic!("asm_each and asm_plain differ on {src:?}: {each:?} vs {plain:?}"),
    }
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
            assert_same_marks(&map, &a, src);
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

/// The `.gen` and directive lines of a [`SourceMap`] are the non-instruction items of the
/// [`Assembly`] of the same source.
fn assert_same_marks(map: &SourceMap, a: &Assembly, src: &str) {
    let marks: Vec<&Item> = a
        .items
        .iter()
        .filter(|i| !matches!(i, Item::Instruction(_)))
        .collect();
    assert_eq!(map.marks.iter().collect::<Vec<_>>(), marks, "{src:?}");
}
