//! An alias row (an existing behaviour under a new opcode byte, the row its only edit) is
//! treated exactly as its twin by every layer: table, validator, text syntax, simulator and
//! the plain reference (issue 26 item 1). Built only with the test-only row:
//!
//! ```text
//! cargo test -p tpb-sim --features test-alias-row --test alias_row
//! ```
//!
//! `tpb-isa`'s `test-alias-row` feature adds FIND_INDEX8_ALIAS = 0x66 as `Search(FindIndex8)`
//! (the experiment of the issue, where the byte comparisons made it run Max8). Every pair of
//! rows sharing a behaviour is checked, so the test needs no edit for another alias.
#![cfg(feature = "test-alias-row")]
#![allow(clippy::needless_range_loop)]

#[path = "../../tpb-isa/tests/support/doc_bases.rs"]
mod doc_bases;
mod family;
mod gen;
mod reference;

use tpb_isa::geometry::Space;
use tpb_isa::opcode::{Exec, OpcodeInfo, OPCODES};
use tpb_isa::text::{asm, disasm, AsmOptions};
use tpb_isa::validate::validate;
use tpb_isa::{Dtype, Gen, Instruction, Opcode};
use tpb_sim::{Config, FaultCause, HostTensor, Machine};

/// Every (twin, alias) pair: two executed rows with the same behaviour, in value order.
fn aliases() -> Vec<(&'static OpcodeInfo, &'static OpcodeInfo)> {
    let mut out = Vec::new();
    for (i, a) in OPCODES.iter().enumerate() {
        for b in &OPCODES[i + 1..] {
            if a.sem == b.sem && a.exec == Exec::Run && b.exec == Exec::Run {
                out.push((a, b));
            }
        }
    }
    out
}

fn with_opcode(inst: &Instruction, row: &OpcodeInfo) -> Instruction {
    let mut i = *inst;
    i.header.opcode = Opcode(row.value);
    i
}

fn gens(a: &OpcodeInfo, b: &OpcodeInfo) -> Vec<Gen> {
    Gen::ALL
        .into_iter()
        .filter(|&g| a.gens.contains(g) && b.gens.contains(g))
        .collect()
}

#[test]
fn the_test_only_alias_row_is_there() {
    let pairs = aliases();
    assert!(
        pairs
            .iter()
            .any(|(t, a)| (t.value, a.value) == (0x66, 0x6E)),
        "FIND_INDEX8_ALIAS (0x66) should alias FindIndex8 (0x6E): {:?}",
        pairs
            .iter()
            .map(|(t, a)| (t.value, a.value))
            .collect::<Vec<_>>()
    );
    for (twin, alias) in pairs {
        assert_eq!(
            (twin.kind, twin.family, twin.alu, twin.form),
            (alias.kind, alias.family, alias.alu, alias.form),
            "{}: every derived column follows the behaviour",
            alias.display
        );
    }
}

/// The simulator and the reference run the alias exactly as the twin: same result or fault,
/// same memory, flops, DVE lane state and report, from the same random state.
#[test]
fn the_alias_runs_like_its_twin() {
    for (twin, alias) in aliases() {
        let make = family::generator(twin.family).expect("a generated family");
        for gen in gens(twin, alias) {
            let (mut ran, mut changed) = (0, 0);
            for seed in 0..400u64 {
                if ran >= 12 && changed >= 6 {
                    break;
                }
                let mut w = gen::World::new(seed, gen);
                let prog = make(&mut w);
                let Some((last, prefix)) = prog.split_last() else {
                    continue;
                };
                if last.info(gen).map(|r| r.sem) != Some(twin.sem) {
                    continue;
                }
                for inst in prefix {
                    let _ = w.m.step(inst);
                    let _ = reference::step(&mut w.r, inst, w.strict);
                }
                let (mut m_t, mut m_a) = (w.m.clone(), w.m);
                let (mut r_t, mut r_a) = (w.r.clone(), w.r);
                let (i_t, i_a) = (with_opcode(last, twin), with_opcode(last, alias));
                let (s_t, s_a) = (m_t.step(&i_t), m_a.step(&i_a));
                let what = format!(
                    "{} vs {} on {gen}, seed {seed}",
                    alias.display, twin.display
                );
                match (&s_t, &s_a) {
                    (Ok(a), Ok(b)) => {
                        ran += 1;
                        let kinds = |r: &tpb_sim::StepReport| {
                            r.warnings.iter().map(|w| w.kind).collect::<Vec<_>>()
                        };
                        assert_eq!(
                            (a.elements, kinds(a), &a.written),
                            (b.elements, kinds(b), &b.written),
                            "{what}: reports differ"
                        );
                    }
                    (Err(a), Err(b)) => assert_eq!(
                        a.cause.to_string().replace(alias.display, twin.display),
                        b.cause.to_string().replace(alias.display, twin.display),
                        "{what}: faults differ"
                    ),
                    _ => panic!("{what}: {s_t:?} but {s_a:?}"),
                }
                changed += usize::from(s_t.as_ref().is_ok_and(|r| r.written.is_some()));
                assert!(
                    m_t.dve_state() == m_a.dve_state(),
                    "{what}: DVE lanes differ"
                );
                assert!(m_t.flops() == m_a.flops(), "{what}: flops differ");
                for space in [Space::Sbuf, Space::Psum] {
                    if !m_t.has_space(space) {
                        continue;
                    }
                    let t = HostTensor::at(space, 0..128)
                        .elements(Dtype::UINT8, reference::WINDOW as u64);
                    assert!(
                        m_t.read_tensor(&t).unwrap() == m_a.read_tensor(&t).unwrap(),
                        "{what}: {} differs",
                        space.name()
                    );
                }
                let (q_t, q_a) = (
                    reference::step(&mut r_t, &i_t, w.strict),
                    reference::step(&mut r_a, &i_a, w.strict),
                );
                assert_eq!(q_t, q_a, "{what}: the reference's outcomes differ");
                assert!(r_t == r_a, "{what}: the reference's states differ");
            }
            assert!(
                ran >= 10 && changed >= 5,
                "{} on {gen}: only {ran} runs ({changed} changing the state)",
                alias.display
            );
        }
    }
}

/// The validator reports the same rules for the alias as for the twin, on valid bundles and
/// on every one-byte mutation of them (the opcode byte excepted).
#[test]
fn the_alias_validates_like_its_twin() {
    let rules = |i: &Instruction, g: Gen| {
        let r = validate(i, g);
        let mut v: Vec<_> = r
            .failures()
            .map(|f| (f.rule.name, f.rule.clause, f.field.to_string()))
            .collect();
        v.sort();
        (r.is_valid(), v)
    };
    for (twin, alias) in aliases() {
        let make = family::generator(twin.family).expect("a generated family");
        for gen in gens(twin, alias) {
            let (mut checked, mut bases) = (0, 0);
            for seed in 0..40u64 {
                if bases == 3 {
                    break;
                }
                let mut w = gen::World::new(seed, gen);
                let Some(last) = make(&mut w).pop() else {
                    continue;
                };
                if last.info(gen).map(|r| r.sem) != Some(twin.sem) {
                    continue;
                }
                let bytes = with_opcode(&last, twin).encode();
                bases += 1;
                for at in 1..64 {
                    for v in [0u8, 1, 2, 0x7F, 0x80, 0xFF, bytes[at] ^ 1] {
                        let mut b = bytes;
                        b[at] = v;
                        let t = Instruction::decode(&b, gen);
                        let a = with_opcode(&t, alias);
                        assert_eq!(
                            rules(&t, gen),
                            rules(&a, gen),
                            "{} vs {} on {gen}: byte {at} = {v:#04x}",
                            alias.display,
                            twin.display
                        );
                        checked += 1;
                    }
                }
            }
            assert!(
                checked > 1000,
                "{} on {gen}: {checked} bundles",
                alias.display
            );
        }
    }
}

/// The alias reads and prints as the twin with its own mnemonic.
#[test]
fn the_alias_reads_and_prints_like_its_twin() {
    for (twin, alias) in aliases() {
        let make = family::generator(twin.family).expect("a generated family");
        let gen = gens(twin, alias)[0];
        let mut w = gen::World::new(1, gen);
        let last = make(&mut w).pop().unwrap();
        let (t, a) = (with_opcode(&last, twin), with_opcode(&last, alias));
        let (text_t, text_a) = (disasm(&t, gen), disasm(&a, gen));
        assert_eq!(
            text_a.replacen(alias.mnemonic, twin.mnemonic, 1),
            text_t,
            "{}",
            alias.display
        );
        let back = asm(&text_a, &AsmOptions::new(gen)).unwrap();
        let inst = &back.instructions().next().unwrap().inst;
        assert_eq!(inst.encode(), a.encode(), "{text_a}");
    }
}

/// The alias row has no example of its own in docs/syntax.md: the docs tests borrow its
/// twin's, under its mnemonic, and that example validates and runs (not refused) as the
/// alias (what `text_docs.rs` and `dispatch.rs` require of every executable row).
#[test]
fn the_alias_borrows_its_twins_documented_example() {
    let blocks = doc_bases::doc_blocks();
    assert!(
        doc_bases::rows_without_an_example(&blocks).is_empty(),
        "every row has an example, the alias a borrowed one"
    );
    for (x, y) in aliases() {
        // The pair in value order: the alias is the one the docs do not write (0x66 here).
        let borrows = |r: &OpcodeInfo| {
            blocks
                .iter()
                .any(|b| b.borrowed.is_some_and(|b| b.row.value == r.value))
        };
        let (twin, alias) = if borrows(x) { (y, x) } else { (x, y) };
        assert!(
            borrows(alias),
            "neither {} nor {} borrows",
            x.display,
            y.display
        );
        let (mut own, mut ran) = (0, 0);
        for block in &blocks {
            let Some(b) = block.borrowed.filter(|b| b.row.value == alias.value) else {
                // The twin's own blocks are the docs', never rewritten.
                own += usize::from(
                    block
                        .text
                        .lines()
                        .any(|l| l.split_whitespace().next() == Some(alias.mnemonic)),
                );
                continue;
            };
            assert_eq!(b.twin.value, twin.value, "{}", block.origin());
            let mut m: Option<Machine> = None;
            for s in block.assemble().instructions() {
                let m = match &mut m {
                    Some(m) if m.gen() == s.gen => m,
                    _ => m.insert(Machine::new(Config::new(s.gen))),
                };
                let r = validate(&s.inst, s.gen);
                assert!(
                    r.is_valid(),
                    "{}: `{}` is not valid",
                    block.origin(),
                    s.source
                );
                let refused = matches!(
                    m.step(&s.inst).map_err(|f| f.cause),
                    Err(FaultCause::Unsupported { .. } | FaultCause::Disabled { .. })
                );
                if s.inst.opcode().0 == alias.value {
                    assert!(!refused, "{}: `{}` is refused", block.origin(), s.source);
                    ran += 1;
                }
            }
        }
        assert_eq!(own, 0, "{} has no example of its own", alias.display);
        assert!(ran > 0, "{}: no borrowed example ran", alias.display);
    }
}
