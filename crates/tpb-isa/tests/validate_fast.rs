//! The verdict and the findings are two interpretations of one rule set (issue 16 item 1):
//! `is_valid_view` (the allocation-free verdict every user path runs) must equal
//! `validate(..).is_valid()` (the report), and a planted change to any one clause of any
//! chain must fail a test.
//!
//! Since the two interpretations share their rules, agreeing with each other cannot catch a
//! changed clause; `rule_outcomes_are_unchanged` does. Its corpus is derived, not written by
//! hand: every instruction of every ```tpb example in docs/syntax.md (which covers every
//! opcode, `text_docs.rs`), on every generation that defines it, with every byte set to every
//! value (the opcode byte to every opcode of the base's family), and, on the first
//! generation of each opcode, every pair of one-byte body fields set to every pair of code
//! values (clauses that tie two fields together). For each base it records how many of those bundles fail each rule, plus a
//! digest of every bundle's list of failing rules, in
//! `tests/golden/validate_outcomes.txt`. A one-clause edit moves some boundary that one byte
//! reaches, so a count or a digest changes, and the failure names the rule and the base.
//! An intended rule change is accepted with `TPB_BLESS=1` (review the diff: it says which
//! rules now fail where).

use proptest::prelude::*;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt::Write as _;
use std::path::PathBuf;
use tpb_isa::opcode::{Family, OPCODES};
use tpb_isa::validate::{failing_rules, is_valid, is_valid_view, validate, validate_view, Rule};
use tpb_isa::wire::InstView;
use tpb_isa::{Gen, Instruction};

#[path = "support/bundles.rs"]
mod bundles;
#[path = "support/doc_bases.rs"]
mod doc_bases;
#[path = "support/golden.rs"]
mod golden;

use doc_bases::{bases, Base};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The verdict equals the report's, on the view and on the owned instruction.
fn agree(b: &[u8; 64], g: Gen) -> Result<(), String> {
    let inst = Instruction::decode(b, g);
    let verdict = is_valid_view(&InstView::new(b, g));
    let report = validate(&inst, g);
    if verdict != report.is_valid()
        || verdict != is_valid(&inst, g)
        || report != validate_view(&InstView::new(b, g))
    {
        let failures: Vec<String> = report.failures().map(|f| f.to_string()).collect();
        return Err(format!(
            "{g}: verdict {verdict}, report {} for {:02x?}: {failures:#?}",
            report.is_valid(),
            b
        ));
    }
    Ok(())
}

#[test]
fn every_family_and_every_opcode_has_a_valid_documented_base() {
    let bases = bases();
    let mut families = BTreeSet::new();
    let mut opcodes = BTreeSet::new();
    for b in &bases {
        agree(&b.bytes, b.gen).unwrap();
        let inst = Instruction::decode(&b.bytes, b.gen);
        if is_valid_view(&InstView::new(&b.bytes, b.gen)) {
            let row = inst.info(b.gen).unwrap();
            families.insert(format!("{:?}", row.family));
            opcodes.insert(row.value);
        }
    }
    let all: BTreeSet<String> = Family::ALL.iter().map(|f| format!("{f:?}")).collect();
    assert_eq!(
        families, all,
        "every family of the family list has a valid base"
    );
    let rows: BTreeSet<u8> = OPCODES.iter().map(|r| r.value).collect();
    assert_eq!(opcodes, rows, "every opcode row has a valid base");
}

/// Whether the base's generation is the first that defines its opcode.
fn first_gen(base: &Base) -> bool {
    let row = Instruction::decode(&base.bytes, base.gen)
        .info(base.gen)
        .unwrap();
    Gen::ALL.into_iter().find(|&g| row.gens.contains(g)) == Some(base.gen)
}

/// FNV-1a, so that the digest does not depend on the standard library's hasher.
fn fnv(h: &mut u64, bytes: &[u8]) {
    for &b in bytes {
        *h ^= u64::from(b);
        *h = h.wrapping_mul(0x0100_0000_01b3);
    }
}

/// Per rule, the number of bundles failing it (lints included), and a digest of each
/// bundle's failing rules in order. Rules are keyed by address while counting (a rule is
/// one `static`), each with the FNV hash of its text computed once, so the millions of
/// bundles cost no string comparison or hashing per failed rule.
struct Outcomes {
    counts: HashMap<usize, (&'static Rule, u64, u32)>,
    digest: u64,
    seen: u64,
}

impl Outcomes {
    fn new() -> Outcomes {
        Outcomes {
            counts: HashMap::new(),
            digest: 0xcbf2_9ce4_8422_2325,
            seen: 0,
        }
    }

    /// Validates one mutated bundle (`edits` names it in the digest) through
    /// `failing_rules`, checking that the verdict agrees with it, and (on every 61st bundle)
    /// that it lists the rules of the full report.
    fn add(&mut self, base: &Base, b: &[u8; 64], edits: &[u8]) {
        let v = InstView::new(b, base.gen);
        let failed = failing_rules(&v);
        assert_eq!(
            is_valid_view(&v),
            !failed.iter().any(|r| !r.lint),
            "{}: verdict and failing rules disagree after edits {edits:02x?}",
            base.name
        );
        self.seen += 1;
        if self.seen.is_multiple_of(61) {
            let report = validate_view(&v);
            let full: Vec<_> = report
                .findings
                .iter()
                .filter(|f| !f.passed)
                .map(|f| f.rule)
                .collect();
            assert_eq!(failed, full, "{}: edits {edits:02x?}", base.name);
            assert_eq!(
                is_valid_view(&v),
                report.is_valid(),
                "{}: edits {edits:02x?}",
                base.name
            );
        }
        fnv(&mut self.digest, edits);
        for r in failed {
            let (_, text_hash, n) = self
                .counts
                .entry(std::ptr::from_ref(r) as usize)
                .or_insert_with(|| {
                    let mut h = 0xcbf2_9ce4_8422_2325;
                    fnv(&mut h, r.name.as_bytes());
                    fnv(&mut h, b": ");
                    fnv(&mut h, r.clause.as_bytes());
                    (r, h, 0)
                });
            *n += 1;
            fnv(&mut self.digest, &text_hash.to_le_bytes());
        }
    }

    fn write(&self, title: &str, text: &mut String) {
        writeln!(text, "\n[{title}] digest {:016x}", self.digest).unwrap();
        // Two statics with the same text count as one line, as before.
        let mut lines: BTreeMap<String, u32> = BTreeMap::new();
        for (r, _, n) in self.counts.values() {
            *lines
                .entry(format!("{}: {}", r.name, r.clause))
                .or_insert(0) += n;
        }
        for (rule, n) in lines {
            writeln!(text, "{n:6} {rule}").unwrap();
        }
    }
}

/// Every single-byte mutation of `base` (64 × 256 bundles), except that the opcode byte
/// takes only the opcodes of the base's own family: every other value would run another
/// family's chain (which has its own bases) or none, and would make each section's counts
/// depend on the size of the opcode table, so that a new opcode rewrote every section
/// (issue 16 item 4). A new opcode moves only its family's sections. Then each multi-byte
/// body field set to zero.
fn single_bytes(base: &Base) -> Outcomes {
    let family = |b: &[u8; 64]| {
        Instruction::decode(b, base.gen)
            .info(base.gen)
            .map(|r| r.family)
    };
    let own = family(&base.bytes);
    let mut o = Outcomes::new();
    for pos in 0..64 {
        for val in 0..=255u8 {
            let mut b = base.bytes;
            if pos == 0 && {
                b[0] = val;
                family(&b) != own
            } {
                continue;
            }
            b[pos] = val;
            o.add(base, &b, &[pos as u8, val]);
        }
    }
    // Each multi-byte body field zeroed whole (one byte alone cannot zero a non-zero word:
    // the "is non-zero" clauses).
    for f in tpb_isa::wire::Body::layout(base_kind(base))
        .iter()
        .filter(|f| f.size > 1)
    {
        let mut b = base.bytes;
        b[f.range()].fill(0);
        o.add(base, &b, &[0xFF, f.offset as u8, f.size as u8]);
    }
    o
}

/// Every pair of one-byte body fields (opcodes, dtypes, sources, modes, channel counts) set
/// to every pair of code values: the clauses that tie two fields together (`op0` with `op1`,
/// an op with a dtype), which one byte alone does not reach.
fn field_pairs(base: &Base) -> Outcomes {
    let kind = base_kind(base);
    let fields: Vec<usize> = tpb_isa::wire::Body::layout(kind)
        .iter()
        .filter(|f| f.size == 1)
        .map(|f| f.offset)
        .collect();
    let mut values: BTreeSet<u8> = (0..=0x20).chain(EDGES.iter().copied()).collect();
    values.extend(tpb_isa::AluOp::TABLE.iter().map(|r| r.value));
    let mut o = Outcomes::new();
    for (i, &p) in fields.iter().enumerate() {
        for &q in &fields[i + 1..] {
            for &x in &values {
                for &y in &values {
                    let mut b = base.bytes;
                    b[p] = x;
                    b[q] = y;
                    o.add(base, &b, &[p as u8, x, q as u8, y]);
                }
            }
        }
    }
    o
}

fn base_kind(base: &Base) -> tpb_isa::StructKind {
    Instruction::decode(&base.bytes, base.gen)
        .info(base.gen)
        .expect("a base is modelled")
        .kind
}

#[test]
fn rule_outcomes_are_unchanged() {
    let mut text = String::from(
        "# Failing-rule counts over every single-byte mutation of every documented base\n\
         # (tests/validate_fast.rs; TPB_BLESS=1 rewrites after an intended rule change).\n",
    );
    for base in bases() {
        single_bytes(&base).write(&base.name, &mut text);
        // Pairs on the first generation defining the opcode (the single bytes cover the rest).
        if base.name.ends_with("#0") && first_gen(&base) {
            field_pairs(&base).write(&format!("{}: field pairs", base.name), &mut text);
        }
    }
    let path = root().join("tests/golden/validate_outcomes.txt");
    if !golden::bless() {
        // Name the bases and rules whose outcomes moved, not the whole file.
        let old = std::fs::read_to_string(&path).unwrap_or_default();
        let (mut section, mut moved) = ("", Vec::new());
        for (a, b) in old.lines().zip(text.lines()) {
            if b.starts_with('[') {
                section = b;
            }
            if a != b {
                moved.push(format!("{section}\n  golden: {a}\n  now:    {b}"));
            }
        }
        assert!(
            moved.is_empty() && old.lines().count() == text.lines().count(),
            "rule outcomes changed (a rule was edited: review, then TPB_BLESS=1 to accept):\n{}",
            moved.into_iter().take(12).collect::<Vec<_>>().join("\n")
        );
    }
    golden::check_file(&path, text.as_bytes());
}

/// Byte values that sit on clause boundaries: markers, enum edges, counts, dtypes.
const EDGES: &[u8] = &[
    0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0x0A, 0x0B, 0x10, 0x12, 0x16, 0x1C, 0x1D, 0x20, 0x40, 0x7F, 0x80,
    0xA0, 0xC0, 0xC4, 0xE0, 0xFF,
];

fn mutated() -> impl Strategy<Value = [u8; 64]> {
    let bases: Vec<[u8; 64]> = bases().into_iter().map(|b| b.bytes).collect();
    let edit = (
        0..64usize,
        prop_oneof![prop::sample::select(EDGES), any::<u8>()],
    );
    (
        prop::sample::select(bases),
        prop::collection::vec(edit, 1..6),
    )
        .prop_map(|(mut b, edits)| {
            for (pos, val) in edits {
                b[pos] = val;
            }
            b
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2_000))]
    #[test]
    fn verdict_agrees_with_report_on_mutated_valid_bundles(b in mutated()) {
        for g in Gen::ALL {
            agree(&b, g).map_err(TestCaseError::fail)?;
        }
    }

    #[test]
    fn verdict_agrees_with_report_on_random_bundles(b in bundles::bundle()) {
        for g in Gen::ALL {
            agree(&b, g).map_err(TestCaseError::fail)?;
        }
    }
}
