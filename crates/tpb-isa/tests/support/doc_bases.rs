//! The documented bases: every instruction of the ```tpb examples in docs/syntax.md (which
//! cover every opcode), on every generation defining it (`#[path]`-included by the suites
//! that derive their corpus from the docs).
#![allow(dead_code)] // each suite uses part of it

use std::collections::BTreeSet;
use tpb_isa::text::{asm, AsmOptions};
use tpb_isa::Gen;

/// The ```tpb blocks of docs/syntax.md.
pub fn doc_blocks() -> Vec<String> {
    let doc = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/syntax.md"),
    )
    .expect("docs/syntax.md is readable");
    let (mut out, mut cur): (Vec<String>, Option<String>) = (Vec::new(), None);
    for line in doc.lines() {
        match &mut cur {
            None if line.trim_start().starts_with("```tpb") => cur = Some(String::new()),
            Some(_) if line.trim_start().starts_with("```") => out.extend(cur.take()),
            Some(t) => {
                t.push_str(line);
                t.push('\n');
            }
            None => {}
        }
    }
    out
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
    for text in doc_blocks() {
        let a = asm(&text, &AsmOptions::new(Gen::Cayman)).expect("docs examples assemble");
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
