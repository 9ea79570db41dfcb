//! The documented examples: every ```tpb block of docs/syntax.md, plus, for an opcode row
//! without an example of its own, its behaviour twin's examples under its mnemonic (an alias
//! row: the same `Sem` as a documented row, so the same example is a valid run of it). The
//! bases are every instruction of those blocks on every generation defining it
//! (`#[path]`-included by the suites that derive their corpus from the docs).
#![allow(dead_code)] // each suite uses part of it

use std::collections::BTreeSet;
use tpb_isa::opcode::{OpcodeInfo, OPCODES};
use tpb_isa::text::{asm, AsmOptions, Assembly, SourceInstruction};
use tpb_isa::Gen;

/// docs/syntax.md.
pub fn doc_text() -> String {
    std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/syntax.md"),
    )
    .expect("docs/syntax.md is readable")
}

/// One block of examples: its text, the 1-based line of docs/syntax.md where it starts, and,
/// for a block derived for an alias row, the row and the twin whose example it borrows.
pub struct DocBlock {
    pub line: usize,
    pub text: String,
    pub borrowed: Option<Borrowed>,
}

/// An alias row's example: `twin`'s documented block with `row`'s mnemonic.
#[derive(Clone, Copy)]
pub struct Borrowed {
    pub row: &'static OpcodeInfo,
    pub twin: &'static OpcodeInfo,
}

impl DocBlock {
    /// Where the block comes from, for messages.
    pub fn origin(&self) -> String {
        match self.borrowed {
            None => format!("docs/syntax.md block at line {}", self.line),
            Some(b) => format!(
                "`{}` ({:#04x}), borrowing `{}`'s example at docs/syntax.md line {}",
                b.row.mnemonic, b.row.value, b.twin.mnemonic, self.line
            ),
        }
    }

    /// The block assembled (every block is assembled for cayman unless it says `.gen`).
    pub fn assemble(&self) -> Assembly {
        asm(&self.text, &AsmOptions::new(Gen::Cayman))
            .unwrap_or_else(|e| panic!("{} does not assemble:\n{e}", self.origin()))
    }
}

/// The blocks of docs/syntax.md and the blocks borrowed for its alias rows.
pub fn doc_blocks() -> Vec<DocBlock> {
    blocks_of(&doc_text())
}

/// The ```tpb blocks of `doc` (each with its starting line), then, for every row without an
/// example of its own in them, its twin's blocks with the row's mnemonic (the first row in
/// table order with the same behaviour that has an example). A block is borrowed only when
/// the row is defined on the generation of each of the twin's lines in it.
pub fn blocks_of(doc: &str) -> Vec<DocBlock> {
    let mut out = written_blocks(doc);
    let assembled: Vec<Assembly> = out.iter().map(DocBlock::assemble).collect();
    let has_own = |row: &OpcodeInfo| {
        assembled
            .iter()
            .any(|a| a.instructions().any(|s| is_example_of(s, row)))
    };
    let mut borrowed = Vec::new();
    for row in OPCODES.iter().filter(|r| !has_own(r)) {
        let Some(twin) = OPCODES
            .iter()
            .find(|t| t.value != row.value && t.sem == row.sem && has_own(t))
        else {
            continue;
        };
        for (block, a) in out.iter().zip(&assembled) {
            let lines: BTreeSet<usize> = a
                .instructions()
                .filter(|s| is_example_of(s, twin))
                .map(|s| s.line)
                .collect();
            let on_row_gens = a
                .instructions()
                .filter(|s| is_example_of(s, twin))
                .all(|s| row.gens.contains(s.gen));
            if lines.is_empty() || !on_row_gens {
                continue;
            }
            let text: String = block
                .text
                .lines()
                .enumerate()
                .map(|(i, l)| match l.split_once(twin.mnemonic) {
                    Some((indent, rest)) if lines.contains(&(i + 1)) => {
                        format!("{indent}{}{rest}\n", row.mnemonic)
                    }
                    _ => format!("{l}\n"),
                })
                .collect();
            borrowed.push(DocBlock {
                line: block.line,
                text,
                borrowed: Some(Borrowed { row, twin }),
            });
        }
    }
    out.extend(borrowed);
    out
}

/// The ```tpb blocks of `doc`, each with the 1-based line of its first instruction line.
fn written_blocks(doc: &str) -> Vec<DocBlock> {
    let mut out = Vec::new();
    let mut cur: Option<(usize, String)> = None;
    for (i, line) in doc.lines().enumerate() {
        match &mut cur {
            None if line.trim_start().starts_with("```tpb") => cur = Some((i + 2, String::new())),
            Some(_) if line.trim_start().starts_with("```") => {
                let (line, text) = cur.take().expect("inside a block");
                out.push(DocBlock {
                    line,
                    text,
                    borrowed: None,
                });
            }
            Some((_, t)) => {
                t.push_str(line);
                t.push('\n');
            }
            None => {}
        }
    }
    assert!(cur.is_none(), "docs/syntax.md: unclosed ```tpb block");
    out
}

/// Whether the assembled line is an example of `row`: its opcode, written by its mnemonic,
/// on a generation defining it.
fn is_example_of(s: &SourceInstruction, row: &OpcodeInfo) -> bool {
    s.inst.opcode().0 == row.value
        && s.inst.info(s.gen).is_some()
        && s.source.split_whitespace().next() == Some(row.mnemonic)
}

/// The rows with no example: none of their own and none borrowed from a twin.
pub fn rows_without_an_example(blocks: &[DocBlock]) -> Vec<&'static OpcodeInfo> {
    let assembled: Vec<Assembly> = blocks.iter().map(DocBlock::assemble).collect();
    OPCODES
        .iter()
        .filter(|row| {
            !assembled
                .iter()
                .any(|a| a.instructions().any(|s| is_example_of(s, row)))
        })
        .collect()
}

/// One base bundle: the bytes of a documented example of a modelled opcode, checked on a
/// generation that defines the opcode.
pub struct Base {
    pub name: String,
    pub bytes: [u8; 64],
    pub gen: Gen,
}

/// Every documented instruction of a modelled opcode, on every generation defining it, once.
pub fn bases() -> Vec<Base> {
    let mut seen = BTreeSet::new();
    let mut out = Vec::new();
    for block in doc_blocks() {
        let a = block.assemble();
        for s in a.instructions() {
            let bytes = s.inst.encode();
            let Some(row) = s.inst.info(s.gen) else {
                continue;
            };
            for g in Gen::ALL {
                if row.gens.contains(g) && seen.insert((bytes, g)) {
                    let prefix = format!("{} on {g} #", row.mnemonic);
                    let k = out.iter().filter(|b: &&Base| b.name.starts_with(&prefix));
                    out.push(Base {
                        name: format!("{prefix}{}", k.count()),
                        bytes,
                        gen: g,
                    });
                }
            }
        }
    }
    out
}
