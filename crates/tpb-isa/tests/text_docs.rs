//! `docs/syntax.md` cannot drift from the implementation (issue 3 item 4): every ```tpb
//! example assembles and validates, every opcode has an example, the short-name table
//! matches the code, and the generated reference section equals
//! `field_reference_markdown()` (regenerate with `TPB_BLESS=1`).

#[path = "support/golden.rs"]
mod golden;

use std::path::PathBuf;
use tpb_isa::opcode::OPCODES;
use tpb_isa::text::{asm, field_reference_markdown, AsmOptions, Assembly, FIELD_ALIASES};
use tpb_isa::Gen;

const BEGIN: &str = "<!-- BEGIN GENERATED field-reference -->";
const END: &str = "<!-- END GENERATED field-reference -->";

fn doc_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../docs/syntax.md")
}

fn doc() -> String {
    std::fs::read_to_string(doc_path()).expect("docs/syntax.md is readable")
}

/// The ```tpb blocks, each with the 1-based line of the doc where it starts.
fn tpb_blocks(doc: &str) -> Vec<(usize, String)> {
    let mut blocks = Vec::new();
    let mut current: Option<(usize, String)> = None;
    for (i, line) in doc.lines().enumerate() {
        match &mut current {
            None if line.trim_start().starts_with("```tpb") => {
                current = Some((i + 2, String::new()))
            }
            Some(_) if line.trim_start().starts_with("```") => blocks.push(current.take().unwrap()),
            Some((_, text)) => {
                text.push_str(line);
                text.push('\n');
            }
            None => {}
        }
    }
    assert!(current.is_none(), "unclosed ```tpb block");
    blocks
}

fn assembled_blocks() -> Vec<(usize, Assembly)> {
    tpb_blocks(&doc())
        .into_iter()
        .map(|(line, text)| {
            let a = asm(&text, &AsmOptions::new(Gen::Cayman)).unwrap_or_else(|e| {
                panic!("docs/syntax.md block at line {line} does not assemble:\n{e}")
            });
            (line, a)
        })
        .collect()
}

#[test]
fn every_example_assembles_and_every_modelled_instruction_validates() {
    let blocks = assembled_blocks();
    assert!(
        blocks.len() >= OPCODES.len(),
        "only {} blocks",
        blocks.len()
    );
    for (start, a) in &blocks {
        for s in a.instructions() {
            if s.inst.info(s.gen).is_none() {
                continue; // `.bundle` / numeric mnemonics of unmodelled opcodes
            }
            let report = tpb_isa::validate::validate(&s.inst, s.gen);
            let failures: Vec<String> = report.failures().map(|f| f.to_string()).collect();
            assert!(
                failures.is_empty(),
                "docs/syntax.md line {}: `{}` is not valid on {}:\n{}",
                start + s.line - 1,
                s.source,
                s.gen,
                failures.join("\n")
            );
        }
    }
}

#[test]
fn every_opcode_has_an_example() {
    let blocks = assembled_blocks();
    for row in OPCODES {
        let found = blocks.iter().flat_map(|(_, a)| a.instructions()).any(|s| {
            s.inst.opcode().0 == row.value
                && s.inst.info(s.gen).is_some()
                && s.source.split_whitespace().next() == Some(row.mnemonic)
        });
        assert!(
            found,
            "docs/syntax.md has no ```tpb example starting with `{}` ({:#04x}) on a generation that defines it",
            row.mnemonic, row.value
        );
    }
}

#[test]
fn short_name_table_matches_the_code() {
    let doc = doc();
    for (alias, targets) in FIELD_ALIASES {
        let row = doc
            .lines()
            .find(|l| l.starts_with("| `") && l.contains(&format!("`{alias}`")))
            .unwrap_or_else(|| panic!("docs/syntax.md has no short-name row for `{alias}`"));
        for t in *targets {
            assert!(
                row.contains(&format!("`{t}`")),
                "the `{alias}` row should name `{t}`: {row}"
            );
        }
    }
}

#[test]
fn generated_reference_matches_the_code() {
    // The one writer of docs/syntax.md (atomic: the other tests read it meanwhile).
    golden::check_region(
        &doc_path(),
        BEGIN,
        END,
        &field_reference_markdown(),
        "TPB_BLESS=1 cargo test -p tpb-isa --test text_docs",
    );
}
