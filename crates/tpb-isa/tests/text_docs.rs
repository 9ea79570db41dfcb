//! `docs/syntax.md` cannot drift from the implementation (issue 3 item 4): every ```tpb
//! example assembles and validates, every opcode has an example, the short-name table
//! matches the code, and the generated reference section equals
//! `field_reference_markdown()` (regenerate with `TPB_BLESS=1`).

#[path = "support/doc_bases.rs"]
mod doc_bases;
#[path = "support/golden.rs"]
mod golden;

use std::path::PathBuf;
use tpb_isa::opcode::OPCODES;
use tpb_isa::text::{field_reference_markdown, Assembly, FIELD_ALIASES};

const BEGIN: &str = "<!-- BEGIN GENERATED field-reference -->";
const END: &str = "<!-- END GENERATED field-reference -->";
const SHARED_BEGIN: &str = "<!-- BEGIN GENERATED shared-behaviours -->";
const SHARED_END: &str = "<!-- END GENERATED shared-behaviours -->";

fn doc_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../docs/syntax.md")
}

fn doc() -> String {
    std::fs::read_to_string(doc_path()).expect("docs/syntax.md is readable")
}

fn assembled_blocks() -> Vec<(usize, Assembly)> {
    doc_bases::doc_blocks()
        .iter()
        .map(|b| (b.line, b.assemble()))
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

/// Every row has an example that the docs tests assemble, validate and (tpb-sim's
/// `dispatch.rs`) run: its own, or, for an alias row, its behaviour twin's under its mnemonic.
#[test]
fn every_opcode_has_an_example() {
    let missing: Vec<String> = doc_bases::rows_without_an_example(&doc_bases::doc_blocks())
        .iter()
        .map(|row| {
            format!(
                "`{}` ({:#04x}): no ```tpb example starts with it on a generation that defines \
                 it, and no other row with its behaviour ({:?}) has one to lend it on such a \
                 generation",
                row.mnemonic, row.value, row.sem
            )
        })
        .collect();
    assert!(
        missing.is_empty(),
        "docs/syntax.md lacks examples:\n{}",
        missing.join("\n")
    );
}

/// The failing side of the clause above: with FindIndex8's example taken out of the doc, its
/// row (whose behaviour no other row has) is named.
#[test]
fn a_row_without_its_example_or_a_documented_twin_is_named() {
    let find_index8 = OPCODES
        .iter()
        .find(|r| r.mnemonic == "find_index8")
        .expect("the FindIndex8 row");
    let doc: String = doc_bases::doc_text()
        .lines()
        .filter(|l| !l.starts_with("find_index8 "))
        .map(|l| format!("{l}\n"))
        .collect();
    let blocks = doc_bases::blocks_of(&doc);
    let missing = doc_bases::rows_without_an_example(&blocks);
    let twins = OPCODES.iter().filter(|r| r.sem == find_index8.sem).count();
    if twins == 1 {
        assert_eq!(
            missing.iter().map(|r| r.value).collect::<Vec<_>>(),
            [find_index8.value]
        );
    } else {
        // A build with an alias of FindIndex8 (feature `test-alias-row`): neither has one.
        assert_eq!(
            missing.len(),
            twins,
            "{:?}",
            missing.iter().map(|r| r.mnemonic).collect::<Vec<_>>()
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
    // The one writer of docs/syntax.md (atomic: the other tests read it meanwhile), so both
    // of its generated regions are checked here, one after the other.
    let how = "TPB_BLESS=1 cargo test -p tpb-isa --test text_docs";
    golden::check_region(
        &doc_path(),
        SHARED_BEGIN,
        SHARED_END,
        &tpb_isa::opcode_doc::shared_behaviours_markdown(),
        how,
    );
    golden::check_region(&doc_path(), BEGIN, END, &field_reference_markdown(), how);
}
