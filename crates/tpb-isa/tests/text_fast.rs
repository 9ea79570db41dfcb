//! Differential tests of the assembler's byte-level fast path (issue 11): on valid lines and
//! on every kind of broken one, `asm` and `asm_into` give exactly what the plain reference
//! `asm_plain` gives (the same bundles and items, or the same errors with the same lines,
//! columns, spans and cap). The no-panic and round-trip suites run the same comparison on
//! their inputs (random bundles' text, respellings, generated lines, Unicode soup).

#[path = "support/differential.rs"]
mod differential;
#[path = "support/templates.rs"]
mod templates;

use differential::assert_same;
use proptest::prelude::*;
use templates::TEMPLATES;
use tpb_isa::text::{asm, asm_line, disasm, AsmOptions, MAX_ASM_ERRORS};
use tpb_isa::Gen;

/// The compiler-like lines both as written and as `disasm` prints them.
fn lines() -> Vec<String> {
    let mut v: Vec<String> = TEMPLATES.iter().map(|s| s.to_string()).collect();
    for t in TEMPLATES {
        let mut inst = asm_line(t, Gen::Cayman).unwrap();
        inst.events.semaphore_value = 0x1234;
        inst.events.wait_idx = 3;
        v.push(disasm(&inst, Gen::Cayman));
    }
    v
}

/// Replacements that hit the fast path's decisions: delimiters, signs, number spellings,
/// case, whitespace kinds, non-ASCII.
const TOKENS: &[&str] = &[
    "",
    " ",
    "\t",
    "\x0b",
    "\u{a0}",
    "é",
    "[",
    "]",
    ",",
    ":",
    "=",
    "+",
    "-",
    ".",
    "..",
    "_",
    "0",
    "9",
    "x",
    "X",
    "0x",
    "0b",
    "e",
    "f",
    "inf",
    "nan",
    "p",
    "P",
    "A",
    "#",
    ";",
    "999999",
    "128",
    "256",
    "65536",
    "-32769",
    "reg",
    "psum",
    "sbuf",
    "channels=64",
    "src=0:[]",
];

/// At every byte position of every template line: a deletion, and an insertion and a
/// replacement of tokens that cycle through `TOKENS` (every token meets every part of the
/// line over the positions): fast and plain agree.
#[test]
fn single_edits_at_every_position_agree() {
    let opts = AsmOptions::new(Gen::Cayman);
    for (n, line) in lines().iter().enumerate() {
        assert_same(line, &opts);
        for i in 0..=line.len() {
            let (a, b) = (
                TOKENS[(i + n) % TOKENS.len()],
                TOKENS[(3 * i + n) % TOKENS.len()],
            );
            assert_same(&format!("{}{a}{}", &line[..i], &line[i..]), &opts);
            if i < line.len() {
                assert_same(&format!("{}{}", &line[..i], &line[i + 1..]), &opts);
                assert_same(&format!("{}{b}{}", &line[..i], &line[i + 1..]), &opts);
            }
        }
    }
}

/// Upper-case and mixed-case spellings (the fast path leaves them to the plain path).
#[test]
fn case_variants_agree() {
    let opts = AsmOptions::new(Gen::Cayman);
    for line in lines() {
        assert_same(&line.to_ascii_uppercase(), &opts);
        let (m, rest) = line.split_once(' ').unwrap();
        assert_same(&format!("{} {rest}", m.to_ascii_uppercase()), &opts);
        assert_same(&format!("{m} {}", rest.to_ascii_uppercase()), &opts);
    }
}

/// The error cap is the plain path's: a file of bad lines between good ones stops at
/// `MAX_ASM_ERRORS` the same way on every path.
#[test]
fn the_error_cap_agrees() {
    let good = TEMPLATES[0];
    let src: String = (0..300)
        .map(|i| match i % 3 {
            0 => format!("{good}\n"),
            1 => format!("{good} op0=bogus\n"),
            _ => "iota src=0:[[1,1],[1,1],[1,1],[1,1],[1,1]] channels=999\n".to_string(),
        })
        .collect();
    let opts = AsmOptions::new(Gen::Cayman);
    assert_same(&src, &opts);
    assert_eq!(asm(&src, &opts).unwrap_err().len(), MAX_ASM_ERRORS + 1);
}

/// Programs mixing every line kind: `.gen` switches (which change what an opcode means),
/// directives, `.bundle`, comments, blank and CRLF lines, a BOM.
#[test]
fn mixed_programs_agree() {
    let src = format!(
        "\u{feff}# top\r\n.gen sunda\r\n{}\n\n.in x\nptr_multi_dual_arith src=sbuf[p0..32]+0x40:[[1,2]] in=fp32 out=fp32 op=mult\n.gen cayman\n   {} ; trailing\n.bundle {}\nrange_select dtypes=fp32->fp32\n.gen sunda\nrange_select dtypes=fp32->fp32\n",
        TEMPLATES[6],
        TEMPLATES[7],
        "00".repeat(64)
    );
    assert_same(&src, &AsmOptions::new(Gen::Mariana).allow_directive("in"));
    assert_same(&src, &AsmOptions::new(Gen::Mariana));
}

fn program() -> impl Strategy<Value = String> {
    let all = lines();
    prop::collection::vec(prop::sample::select(all), 1..8).prop_map(|v| v.join("\n"))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// Random programs of template lines with random byte-level edits (deletions,
    /// insertions and replacements from `TOKENS`) agree on every generation.
    #[test]
    fn edited_programs_agree(
        src in program(),
        edits in prop::collection::vec((any::<usize>(), 0..TOKENS.len(), 0u8..3), 0..6),
        g in 0usize..4,
    ) {
        let mut s = src;
        for (at, t, how) in edits {
            let mut i = at % (s.len() + 1);
            while !s.is_char_boundary(i) {
                i -= 1;
            }
            match how {
                0 => s.insert_str(i, TOKENS[t]),
                1 if i < s.len() => {
                    let c = s[i..].chars().next().unwrap();
                    s.replace_range(i..i + c.len_utf8(), TOKENS[t]);
                }
                _ if i < s.len() => {
                    let c = s[i..].chars().next().unwrap();
                    s.replace_range(i..i + c.len_utf8(), "");
                }
                _ => {}
            }
        }
        assert_same(&s, &AsmOptions::new(Gen::ALL[g]));
    }
}
