//! The assembler never panics (issue 3 item 5): arbitrary Unicode, strings over the syntax's
//! own alphabet, and mutations of valid programs. Every error it reports points inside the
//! source. The same checks run under `fuzz/` without a budget.

#[path = "support/differential.rs"]
mod differential;

use proptest::prelude::*;
use tpb_isa::text::{asm, disasm_program, AsmErrors, AsmOptions};
use tpb_isa::{Gen, Instruction};

/// A valid program touching every form: ranges, registers, raw words, DATA4D, events,
/// `.gen`, `.bundle`, caller directives and comments.
const PROGRAM: &str = "\
# causal mask, then a scale
.gen cayman
.in sbuf[p0..128]+0x0 fp32 scores.npy
iota channels=128 out=fp32 src=0:[[1,512]] dst=sbuf[p0..128]+0x0:[[1,512]]
affine_select dtypes=fp32->bf16 cmp=ge fill_reg=7 pattern=0:[[-1,512]] multiplier=1 src=sbuf[p0..128]+0x0:[[1,512]] dst=sbuf[p0..128]+0x800:[[1,512]]
imm_ld_arith src=sbuf[p0..128]+0x1000:[[1,4]] dtype=fp32 ; four scalars
ptr_multi_arith src=psum[p0..128]+0x0:[[1,4],[4,4],[16,4],[64,4]] in=fp32 out=bf16 op=mult op_dim=xyz dst=reg[3]:[[1,4],[1,4],[1,4],[1,4]]
ts_arith src=0x20000400:[[1, 32]] channels=64 in=fp32 out=fp32 op0=add imm0=-inf wait_mode=sem_ge_imm wait_idx=1 semaphore_value=2
.gen sunda
ptr_multi_dual_arith src=sbuf[p0..32]+0x40:[[1,2]] in=fp32 out=fp32 op=mult
.bundle 30100000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000
.expect sbuf[p0..128]+0x800 bf16 out.npy
";

fn options() -> AsmOptions {
    AsmOptions::new(Gen::Cayman).allow_directives(&["in", "expect"])
}

/// Assembles `src` and checks the error invariants (and that every path agrees): non-empty, in line order, each span
/// inside the source on char boundaries, lines and columns 1-based.
fn check(src: &str) {
    // The fast path and the plain reference agree on every input (tests/text_fast.rs).
    differential::assert_same(src, &options());
    match asm(src, &options()) {
        Ok(a) => {
            // What assembles must survive the canonical round trip.
            for s in a.instructions() {
                let text = disasm_program(&[s.inst], s.gen);
                let back = asm(&text, &options()).expect("canonical text assembles");
                assert_eq!(back.insts(), vec![s.inst]);
            }
        }
        Err(AsmErrors(errors)) => {
            assert!(!errors.is_empty());
            let lines = src.split('\n').count();
            let mut last = 0;
            for e in &errors {
                assert!(e.line >= 1 && e.line <= lines, "{e}");
                assert!(e.line >= last, "errors out of order");
                last = e.line;
                assert!(e.column >= 1);
                assert!(e.span.start <= e.span.end && e.span.end <= src.len(), "{e}");
                assert!(src.is_char_boundary(e.span.start) && src.is_char_boundary(e.span.end));
                assert!(!e.message.is_empty());
            }
        }
    }
}

#[test]
fn the_sample_program_assembles() {
    let a = asm(PROGRAM, &options()).unwrap();
    assert_eq!(a.instructions().count(), 7);
    assert_eq!(a.directives().count(), 2);
}

/// Characters the syntax gives meaning to, plus a few that break naive byte slicing.
const ALPHABET: &[&str] = &[
    "sbuf", "psum", "reg", "[", "]", "[p", "..", "+", "0x", ":", ",", "=", " ", "\t", "\n", "\r",
    "#", ";", ".gen", ".bundle", ".in", "->", "-", "1", "7", "128", "65536", "ff", "iota",
    "ts_arith", "src", "dst", "channels", "fp32", "é", "ß", "\u{a0}", "\u{2028}", "💥", "\0",
];

fn alphabet_soup() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(ALPHABET), 0..60).prop_map(|v| v.concat())
}

/// One edit of a valid program.
#[derive(Clone, Debug)]
enum Edit {
    Delete(usize),
    Insert(usize, &'static str),
    Replace(usize, &'static str),
    Swap(usize, usize),
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        any::<usize>().prop_map(Edit::Delete),
        (any::<usize>(), prop::sample::select(ALPHABET)).prop_map(|(i, s)| Edit::Insert(i, s)),
        (any::<usize>(), prop::sample::select(ALPHABET)).prop_map(|(i, s)| Edit::Replace(i, s)),
        (any::<usize>(), any::<usize>()).prop_map(|(i, j)| Edit::Swap(i, j)),
    ]
}

/// Applies edits at character positions (so the result stays valid UTF-8).
fn mutate(src: &str, edits: &[Edit]) -> String {
    let mut chars: Vec<String> = src.chars().map(String::from).collect();
    for e in edits {
        let n = chars.len().max(1);
        match *e {
            Edit::Delete(i) if !chars.is_empty() => {
                chars.remove(i % n);
            }
            Edit::Insert(i, s) => chars.insert(i % (chars.len() + 1), s.to_string()),
            Edit::Replace(i, s) if !chars.is_empty() => chars[i % n] = s.to_string(),
            Edit::Swap(i, j) if !chars.is_empty() => chars.swap(i % n, j % n),
            _ => {}
        }
    }
    chars.concat()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1024))]

    #[test]
    fn arbitrary_unicode_never_panics(s in any::<String>()) {
        check(&s);
    }

    #[test]
    fn syntax_alphabet_soup_never_panics(s in alphabet_soup()) {
        check(&s);
    }

    #[test]
    fn mutated_programs_never_panic(edits in prop::collection::vec(edit(), 1..8)) {
        check(&mutate(PROGRAM, &edits));
    }

    #[test]
    fn mutated_canonical_lines_never_panic(
        b in prop::array::uniform32(any::<u8>()),
        op in 0usize..tpb_isa::opcode::OPCODES.len(),
        edits in prop::collection::vec(edit(), 1..5),
    ) {
        let mut bytes = [0u8; 64];
        bytes[..32].copy_from_slice(&b);
        bytes[32..].copy_from_slice(&b);
        bytes[0] = tpb_isa::opcode::OPCODES[op].value;
        let text = disasm_program(&[Instruction::decode(&bytes, Gen::Sunda)], Gen::Sunda);
        check(&mutate(&text, &edits));
    }
}

#[test]
fn pathological_inputs_never_panic() {
    let long = "9".repeat(10_000);
    for s in [
        "",
        "\n\n\n",
        ".",
        ". gen",
        ".gen",
        ".bundle",
        ".bundle 0x",
        ".bundle é",
        "=",
        "iota =",
        "iota ==",
        "iota src=",
        "iota src=:",
        "iota src=0:",
        "iota src=0:[",
        "iota src=0:]]]",
        "iota src=0:[[[[1,2]]]]",
        "iota dst=sbuf:[]",
        "iota dst=sbuf[:[]",
        "iota dst=sbuf[]:[]",
        "iota dst=sbuf[p]:[]",
        "iota dst=sbuf[p..]:[]",
        "iota dst=sbuf[p0..-1]:[]",
        "iota dst=sbuf[p0..99999999999999999999999999999999999999999]:[]",
        "iota dst=sbuf[p0]+:[]",
        "iota dst=sbuf[p0]+-1:[]",
        "iota dst=sbuf[p0]x:[]",
        "iota dst=reg[:[]",
        "iota dst=reg[é]:[]",
        "iota dst=regé:[]",
        "iota dst=psumé[p0]:[]",
        "iota dst=0:[[1,1],]",
        "iota dst=0:[[1,1] [1,1]]",
        "iota dst=0:[[1 1]]",
        "iota dst=0:[[,]]",
        "iota in_out_dtype=->",
        "affine_select dtypes=fp32->",
        "affine_select dtypes=0x10->0x10",
        "iota channels=-1",
        "0x100",
        "-1",
        "🦀 src=1",
        "iota\u{a0}channels=1",
        "iota channels=1\u{2028}",
        "\u{feff}iota",
        &long,
        &format!("iota channels={long}"),
        &format!("iota dst=sbuf[p{long}]:[]"),
        &format!(".bundle {}", "0".repeat(100_000)),
        &"[".repeat(10_000),
    ] {
        check(s);
    }
}
