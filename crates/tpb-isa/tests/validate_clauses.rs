//! Every validator rule has its own passing and failing case (issue 26 item 2), kept in
//! `tests/clauses.txt` or beside the rule in its chain file (`src/validate/chains/**.rs`, on
//! comment lines starting `//~`), and never rewritten by `TPB_BLESS`: a changed clause fails
//! this test by the rule's name and the case's `file:line`, not only the rule-outcome golden
//! that a routine bless accepts.
//!
//! Each case pair sits on a boundary of its rule: the two bundles differ in one byte, by one
//! (`elem_size = 2` passes `<= 2`, `3` fails it), so moving the boundary (`<=` → `<`) or
//! dropping the clause fails a case. Each line is one bundle in the text syntax
//! (`asm(disasm(b)) == b` holds for every bundle, `text_roundtrip.rs`):
//!
//! ```text
//! rule <name>: <clause>
//!   pass <gen>: <instruction>       # the rule is checked and holds
//!   fail <gen>: <instruction>       # the rule fails
//!   note: <why>                      # for a side that cannot exist (a lint that always
//!                                    # holds; a rule checked only where it fails)
//! ```
//!
//! In a chain file the same lines follow `//~` (a new family's cases live in its own
//! `chains/family/<method>.rs`, next to its chain):
//!
//! ```text
//! //~ rule d4_iota_reserved_zero: reserved0..reserved2 are zero
//! //~   pass sunda: iota …
//! //~   fail sunda: iota … reserved0=01 …
//! ```
//!
//! A new rule has no case yet: `every_rule_has_a_passing_and_a_failing_case` names it, and
//! `cargo test -p tpb-isa --test validate_clauses -- --ignored --nocapture suggest` prints a
//! boundary pair from the documented bases' one-byte mutations to review and paste in (the
//! source of the rule says whether the boundary is the right one).

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use tpb_isa::text::{asm_line, disasm};
use tpb_isa::validate::{failing_rules, rule_walk, Rule};
use tpb_isa::wire::InstView;
use tpb_isa::{Gen, Instruction};

#[path = "support/doc_bases.rs"]
mod doc_bases;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn key(r: &Rule) -> String {
    format!("{}: {}", r.name, r.clause)
}

/// One line of the case file.
#[derive(Debug, PartialEq)]
enum Case {
    Pass(Gen, String),
    Fail(Gen, String),
    /// Stands in for a case that cannot exist (its reason is required).
    Note,
}

/// Every rule's cases: rule → (`file:line`, case), from `tests/clauses.txt` and from the
/// `//~` comment lines of the chain files (`src/validate/chains/**.rs`).
type Cases = BTreeMap<String, Vec<(String, Case)>>;

/// The marker of a case line in a chain file: `//~ rule …`, `//~   pass <gen>: …`.
const MARKER: &str = "//~";

fn cases() -> Cases {
    let mut out = Cases::new();
    let text = std::fs::read_to_string(root().join("tests/clauses.txt"))
        .expect("tests/clauses.txt is readable");
    let lines = text.lines().enumerate().map(|(i, l)| (i + 1, l));
    parse_cases("tests/clauses.txt", lines, &mut out);
    for file in chain_files() {
        let text = std::fs::read_to_string(&file).expect("a chain file is readable");
        let label = file
            .strip_prefix(root())
            .unwrap_or(&file)
            .display()
            .to_string();
        parse_cases(&label, marked_lines(&text), &mut out);
    }
    out
}

/// Every `.rs` file under `src/validate/chains/`, in a stable order.
fn chain_files() -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut dirs = vec![root().join("src/validate/chains")];
    while let Some(dir) = dirs.pop() {
        let entries = std::fs::read_dir(&dir).expect("the chains directory is readable");
        for entry in entries {
            let path = entry.expect("a directory entry").path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

/// A chain file's case lines: the text after `//~` of each line that starts with it (after
/// indentation), with its line number; every other line is code or an ordinary comment.
fn marked_lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    text.lines().enumerate().filter_map(|(i, l)| {
        l.trim_start()
            .strip_prefix(MARKER)
            .map(|rest| (i + 1, rest))
    })
}

/// Reads case lines (`rule …`, `pass <gen>: …`, `fail <gen>: …`, `note: …`, blank and `#`
/// lines skipped) into `out`, each located as `file:line`.
fn parse_cases<'a>(file: &str, lines: impl Iterator<Item = (usize, &'a str)>, out: &mut Cases) {
    let mut rule: Option<String> = None;
    for (n, line) in lines {
        let at = format!("{file}:{n}");
        let t = line.trim();
        if t.is_empty() || t.starts_with('#') {
            continue;
        }
        if let Some(r) = t.strip_prefix("rule ") {
            rule = Some(r.to_string());
            out.entry(r.to_string()).or_default();
            continue;
        }
        let r = rule
            .clone()
            .unwrap_or_else(|| panic!("{at}: a case before any `rule` line"));
        let case = if let Some(why) = t.strip_prefix("note:") {
            assert!(!why.trim().is_empty(), "{at}: `note:` needs its reason");
            Case::Note
        } else {
            let (head, inst) = t
                .split_once(": ")
                .unwrap_or_else(|| panic!("{at}: `pass <gen>: …`, `fail <gen>: …` or `note: …`"));
            let (verdict, gen) = head
                .split_once(' ')
                .unwrap_or_else(|| panic!("{at}: no generation in `{head}`"));
            let gen = Gen::from_name(gen).unwrap_or_else(|| panic!("{at}: generation `{gen}`"));
            match verdict {
                "pass" => Case::Pass(gen, inst.to_string()),
                "fail" => Case::Fail(gen, inst.to_string()),
                other => panic!("{at}: `{other}` is not pass, fail or note"),
            }
        };
        out.entry(r).or_default().push((at, case));
    }
}

/// Every rule the validator has, as far as the corpus reaches it: the rules a documented base
/// walks, and every rule the rule-outcome golden records failing somewhere.
fn known_rules() -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for b in doc_bases::bases() {
        let inst = Instruction::decode(&b.bytes, b.gen);
        out.extend(rule_walk(&inst, b.gen).findings.iter().map(|f| key(f.rule)));
    }
    let golden = std::fs::read_to_string(root().join("tests/golden/validate_outcomes.txt"))
        .expect("the rule-outcome golden is readable");
    for line in golden.lines() {
        let t = line.trim_start();
        if let Some((count, rule)) = t.split_once(' ') {
            if !count.is_empty() && count.bytes().all(|c| c.is_ascii_digit()) {
                out.insert(rule.to_string());
            }
        }
    }
    out
}

/// The rule's outcome on `text` (`None`: not checked).
fn outcome(rule: &str, gen: Gen, text: &str) -> Result<Option<bool>, String> {
    let inst = asm_line(text, gen).map_err(|e| format!("does not assemble: {e}"))?;
    let walk = rule_walk(&inst, gen);
    let mut seen = walk.findings.iter().filter(|f| key(f.rule) == rule);
    Ok(seen
        .next()
        .map(|first| first.passed && seen.all(|f| f.passed)))
}

#[test]
fn every_case_passes_or_fails_its_rule() {
    let mut problems = Vec::new();
    for (rule, list) in cases() {
        for (n, case) in list {
            let (gen, text, want) = match &case {
                Case::Pass(g, t) => (*g, t, true),
                Case::Fail(g, t) => (*g, t, false),
                Case::Note => continue,
            };
            let what = if want { "passing" } else { "failing" };
            match outcome(&rule, gen, text) {
                Ok(Some(got)) if got == want => {}
                Ok(Some(_)) => problems.push(format!(
                    "{n}: rule `{rule}`: the {what} case now {} it",
                    if want { "fails" } else { "passes" }
                )),
                Ok(None) => problems.push(format!(
                    "{n}: rule `{rule}`: the {what} case no longer reaches it"
                )),
                Err(e) => problems.push(format!("{n}: rule `{rule}`: {e}")),
            }
        }
    }
    assert!(
        problems.is_empty(),
        "{} clause case(s) changed (a rule was edited: if intended, fix the case by hand, \
         citing the rule's source):\n{}",
        problems.len(),
        problems.join("\n")
    );
}

#[test]
fn every_rule_has_a_passing_and_a_failing_case() {
    let cases = cases();
    let known = known_rules();
    let mut missing = Vec::new();
    for rule in &known {
        let list = cases.get(rule).map(Vec::as_slice).unwrap_or(&[]);
        let pass = list.iter().any(|(_, c)| matches!(c, Case::Pass(..)));
        let fail = list.iter().any(|(_, c)| matches!(c, Case::Fail(..)));
        let note = list.iter().any(|(_, c)| matches!(c, Case::Note));
        // A note stands in for one missing side, never for both.
        let covered = if note { pass || fail } else { pass && fail };
        if !covered {
            missing.push(rule.clone());
        }
    }
    let stale: Vec<&String> = cases.keys().filter(|r| !known.contains(*r)).collect();
    assert!(
        missing.is_empty() && stale.is_empty(),
        "rules without a passing and a failing case in tests/clauses.txt or a chain file's `//~` \
         lines (print suggestions with \
         `cargo test -p tpb-isa --test validate_clauses -- --ignored --nocapture suggest`):\n{}\n\
         cases of rules the validator no longer has:\n{stale:#?}",
        missing.join("\n")
    );
}

/// The extractor reads a chain file's `//~` lines only, with their own line numbers, and a
/// rule's cases from the file it is named in; code and ordinary comments are not cases.
#[test]
fn a_chain_file_carries_cases_on_marked_comment_lines() {
    let file = "//! A chain (d4_x: mentioned, not a case).\n\
                // rule not_a_case: an ordinary comment\n\
                //~ rule r_one: x == 0\n\
                //~   pass sunda: iota a\n\
                fn check() {}\n\
                    //~   fail cayman: iota b\n\
                //~\n\
                //~ rule r_two: y\n\
                //~   note: a lint that always holds\n";
    let mut got = Cases::new();
    parse_cases("chains/x.rs", marked_lines(file), &mut got);
    assert_eq!(
        got.keys().collect::<Vec<_>>(),
        ["r_one: x == 0", "r_two: y"]
    );
    assert_eq!(
        got["r_one: x == 0"],
        [
            (
                "chains/x.rs:4".to_string(),
                Case::Pass(Gen::Sunda, "iota a".into())
            ),
            (
                "chains/x.rs:6".to_string(),
                Case::Fail(Gen::Cayman, "iota b".into())
            ),
        ]
    );
    assert_eq!(got["r_two: y"], [("chains/x.rs:9".to_string(), Case::Note)]);
    // A case line before its file's first `rule` line is an error naming the place.
    let orphan = std::panic::catch_unwind(|| {
        parse_cases(
            "chains/y.rs",
            marked_lines("//~ pass sunda: iota a\n"),
            &mut Cases::new(),
        )
    });
    let msg = orphan.expect_err("an orphan case is refused");
    let msg = msg
        .downcast_ref::<String>()
        .expect("a formatted panic message");
    assert!(msg.starts_with("chains/y.rs:1: "), "{msg}");
}

/// The chain files do carry cases (the iota family's, in `chains/family/iota.rs`), and they
/// reach the checks: a rule whose only cases are there counts as covered.
#[test]
fn the_chain_files_cases_are_collected() {
    let all = cases();
    let rule = "d4_iota_reserved_zero: reserved0..reserved2 are zero";
    let list = all
        .get(rule)
        .expect("iota's cases are read from its chain file");
    assert!(
        list.iter()
            .all(|(at, _)| at.starts_with("src/validate/chains/family/iota.rs:")),
        "{list:?}"
    );
    assert!(list.iter().any(|(_, c)| matches!(c, Case::Pass(..))));
    assert!(list.iter().any(|(_, c)| matches!(c, Case::Fail(..))));
}

/// A boundary pair found in the corpus: bytes that pass the rule, bytes one byte away that
/// fail it, and how many other rules the failing bytes fail (fewer is clearer).
struct Pair {
    gen: Gen,
    /// The generation the failing bytes are checked on (another for a generation's rule).
    fail_gen: Gen,
    pass: [u8; 64],
    fail: [u8; 64],
    others: usize,
    pos: usize,
}

#[test]
#[ignore = "prints suggested cases for rules without one; see the module docs"]
fn suggest() {
    let have = cases();
    let want: BTreeSet<String> = known_rules()
        .into_iter()
        .filter(|r| {
            !have.get(r).is_some_and(|l| {
                l.iter().any(|(_, c)| matches!(c, Case::Note))
                    || (l.iter().any(|(_, c)| matches!(c, Case::Pass(..)))
                        && l.iter().any(|(_, c)| matches!(c, Case::Fail(..))))
            })
        })
        .collect();
    let mut best: BTreeMap<String, Vec<Pair>> = BTreeMap::new();
    for base in doc_bases::bases() {
        let g = base.gen;
        let family = |b: &[u8; 64]| Instruction::decode(b, g).info(g).map(|r| r.family);
        let own = family(&base.bytes);
        for pos in 0..64 {
            let mut fails: Vec<Option<BTreeSet<String>>> = Vec::with_capacity(256);
            for v in 0..=255u8 {
                let mut b = base.bytes;
                b[pos] = v;
                fails.push((pos != 0 || family(&b) == own).then(|| {
                    failing_rules(&InstView::new(&b, g))
                        .into_iter()
                        .map(key)
                        .collect()
                }));
            }
            for v in 0..255usize {
                let (Some(a), Some(b)) = (&fails[v], &fails[v + 1]) else {
                    continue;
                };
                for (rule, fail_at, pass_at) in a
                    .difference(b)
                    .map(|r| (r, v, v + 1))
                    .chain(b.difference(a).map(|r| (r, v + 1, v)))
                {
                    if !want.contains(rule) {
                        continue;
                    }
                    let (mut pass, mut fail) = (base.bytes, base.bytes);
                    pass[pos] = pass_at as u8;
                    fail[pos] = fail_at as u8;
                    let others = fails[fail_at].as_ref().map_or(0, |f| f.len() - 1);
                    // The clearest confirmed pair per byte position: the passing bytes must
                    // check the rule (a conditional clause may not be reached there).
                    let known = best.get(rule).map(Vec::as_slice).unwrap_or(&[]);
                    if known.iter().any(|p| p.pos == pos && p.others <= others) {
                        continue;
                    }
                    let show = disasm(&Instruction::decode(&pass, g), g);
                    if outcome(rule, g, &show) != Ok(Some(true)) {
                        continue;
                    }
                    let list = best.entry(rule.clone()).or_default();
                    list.retain(|p| p.pos != pos);
                    list.push(Pair {
                        gen: g,
                        fail_gen: g,
                        pass,
                        fail,
                        others,
                        pos,
                    });
                    list.sort_by_key(|p| p.others);
                    list.truncate(2);
                }
            }
        }
    }
    // A rule that holds on one generation and fails on another for the same bytes (what an
    // opcode or a form of one generation only gives).
    for base in doc_bases::bases() {
        for g in Gen::ALL {
            for r in failing_rules(&InstView::new(&base.bytes, g)) {
                let r = key(r);
                if !want.contains(&r) || best.contains_key(&r) {
                    continue;
                }
                let show = disasm(&Instruction::decode(&base.bytes, base.gen), base.gen);
                if outcome(&r, base.gen, &show) == Ok(Some(true)) {
                    let pair = Pair {
                        gen: base.gen,
                        fail_gen: g,
                        pass: base.bytes,
                        fail: base.bytes,
                        others: 0,
                        pos: 0,
                    };
                    best.insert(r, vec![pair]);
                }
            }
        }
    }
    for rule in &want {
        println!("rule {rule}");
        match best.get(rule) {
            None => println!("  # no one-byte boundary in the documented bases: write the cases"),
            Some(pairs) => {
                for p in pairs {
                    let show = |b: &[u8; 64], g: Gen| disasm(&Instruction::decode(b, g), g);
                    println!("  pass {}: {}", p.gen, show(&p.pass, p.gen));
                    println!("  fail {}: {}", p.fail_gen, show(&p.fail, p.fail_gen));
                }
            }
        }
    }
}

/// `has_<struct>_opcode` (instruction_mapping.json struct2opcode): the text syntax always
/// builds the opcode's struct, so its failing case is an owned instruction whose body holds
/// another struct.
#[test]
fn an_owned_body_of_another_struct_fails_has_struct_opcode() {
    let rule = "has_<struct>_opcode: the opcode binds the struct the body holds";
    let gen = Gen::Cayman;
    let iota = Instruction::new(tpb_isa::Opcode::IOTA, gen);
    let mut wrong = iota;
    wrong.body = Instruction::new(tpb_isa::Opcode::TENSOR_SCALAR_ARITH, gen).body;
    let outcome = |i: &Instruction| {
        rule_walk(i, gen)
            .findings
            .iter()
            .find(|f| key(f.rule) == rule)
            .map(|f| f.passed)
    };
    assert_eq!(outcome(&iota), Some(true));
    assert_eq!(outcome(&wrong), Some(false));
}
