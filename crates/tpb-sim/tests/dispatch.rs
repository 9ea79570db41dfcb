//! The simulator's dispatch follows the opcode table (issue 7 item 2): every opcode the table
//! marks executable runs its `docs/syntax.md` example without a "not supported" refusal,
//! and every opcode the table marks disabled or not supported is refused with that cause.
//! (A family without an executor does not compile: `exec::execute` matches the table's
//! `Family` without a catch-all.)

use std::path::PathBuf;
use tpb_isa::opcode::{Exec, OPCODES};
use tpb_isa::text::{asm, AsmOptions};
use tpb_isa::Gen;
use tpb_sim::{Config, FaultCause, Machine};

/// The ```tpb blocks of docs/syntax.md.
fn blocks() -> Vec<String> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../docs/syntax.md");
    let doc = std::fs::read_to_string(path).expect("docs/syntax.md is readable");
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

#[derive(Debug, PartialEq)]
enum Outcome {
    Ran,
    Refused(&'static str),
}

#[test]
fn every_table_row_is_executed_or_refused_as_the_table_says() {
    let mut seen: Vec<(u8, Outcome)> = Vec::new();
    for text in blocks() {
        let a = asm(&text, &AsmOptions::new(Gen::Cayman)).expect("examples assemble");
        for s in a.instructions() {
            if s.inst.info(s.gen).is_none() {
                continue;
            }
            let mut m = Machine::new(Config::new(s.gen));
            let outcome = match m.step(&s.inst) {
                Ok(_) => Outcome::Ran,
                Err(f) => match f.cause {
                    FaultCause::Unsupported { .. } => Outcome::Refused("unsupported"),
                    FaultCause::Disabled { .. } => Outcome::Refused("disabled"),
                    _ => Outcome::Ran, // reached its executor, which faulted on the data
                },
            };
            seen.push((s.inst.opcode().0, outcome));
        }
    }
    for row in OPCODES {
        let want = match row.exec {
            Exec::Run => Outcome::Ran,
            Exec::Disabled(_) => Outcome::Refused("disabled"),
            Exec::NotSupported(_) => Outcome::Refused("unsupported"),
            other => panic!("{:#04x}: unknown exec column {other:?}", row.value),
        };
        let got: Vec<_> = seen.iter().filter(|(v, _)| *v == row.value).collect();
        assert!(
            !got.is_empty(),
            "{} ({:#04x}) has no example",
            row.display,
            row.value
        );
        for (_, o) in got {
            assert_eq!(*o, want, "{} ({:#04x})", row.display, row.value);
        }
    }
}
