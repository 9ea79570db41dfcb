//! Per-generation validation: the header predicate chains, each rule written once.
//!
//! Each chain mirrors a header validator (`is_valid_tensor_scalar_ptr_multi`,
//! `is_valid_s2d2_ts_as`, …) clause by clause. A clause is a [`Rule`] (predicate name,
//! clause text, source, confidence); a failing clause becomes a [`Finding`] with the field
//! path, byte range, offending value and the allowed set (decisions §2.1). Lints (the
//! compiler's placement rules) are reported beside failures but never make a bundle invalid.
//!
//! One definition, two interpretations (issue 16): the chains read the bundle through a
//! zero-copy [`View`](crate::wire::View) and report every clause to a context whose mode is a
//! const parameter, so each is monomorphised twice. The report mode ([`validate`],
//! [`validate_view`], [`failing_rules`], and [`rule_walk`] with passes too) records findings and never stops; the verdict mode
//! ([`is_valid_view`], [`is_valid`]) returns `Err(Stop)` from the first failing clause (each
//! call is followed by `?`), builds no detail and allocates nothing. The owned entry points
//! validate a view of the encoded bytes, after the one rule a view cannot break (the body
//! holds the opcode's struct). A new family's chain is one file, `chains/family/<method>.rs`
//! (the [`FamilyVisitor`](crate::wire::FamilyVisitor) impl calling it is generated from the
//! family list); `tests/validate_fast.rs` catches a changed clause.

mod chains;
mod common;
/// The DMA and MEM_2D predicates the simulator shares with the validator (one definition of
/// the byte counts, the CCE test and the MEM_2D walk; isa-facts-pe-act-dma §3.4, §3.14).
pub mod chains_dma {
    pub use super::chains::dma::{
        addr8_valid, bound_reg_valid, dma_configs_valid, elem_bytes, idx_bound_reg_valid,
        mem2d_counts_valid, mem2d_dtype_valid, mem2d_offsets, mem2d_registers, pattern_bytes,
        uses_cce,
    };
}

/// The PE tables the NKI layer shares with the validator (the quadrant masks and the input
/// dtypes, isa-facts-pe-act-dma §1.5.8, §1.7).
pub mod chains_pe {
    pub use super::chains::pe::{pe_in_dtype_ok, QUADRANTS};
}

// Issue 17a: shared definitions the simulator and the NKI layer use.
pub use chains::{is_tensor_reduce_int_op, memset_value_fits, reduced_slots, SERIAL_MODE_SERIAL};

use crate::gen::Gen;
use crate::wire::{InstView, Instruction};
use std::fmt;
use std::ops::Range;

/// How sure we are of a rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Confidence {
    /// Read verbatim from the shipped headers (HIGH/OBSERVED in the seeds).
    Observed,
    /// Stated by a fact sheet with medium confidence or inferred from neighbours.
    Inferred,
    /// No public source: tpb's documented choice (decisions.md, docs/reference/assumptions.md).
    Assumed,
}

impl Confidence {
    /// Short tag for reports.
    pub const fn tag(self) -> &'static str {
        match self {
            Confidence::Observed => "HIGH/OBSERVED",
            Confidence::Inferred => "MED/INFERRED",
            Confidence::Assumed => "ASSUMED",
        }
    }
}

/// One clause of a header predicate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rule {
    /// The header predicate's name, e.g. `has_valid_src_slices_tsm_singular`.
    pub name: &'static str,
    /// What the clause requires, in words.
    pub clause: &'static str,
    /// Where the rule comes from (seed or fact-sheet section).
    pub source: &'static str,
    /// Confidence tag.
    pub confidence: Confidence,
    /// A lint is reported but does not make the bundle invalid.
    pub lint: bool,
}

/// The result of one rule on one instruction.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    /// The rule.
    pub rule: &'static Rule,
    /// Whether it held.
    pub passed: bool,
    /// Field path, e.g. `src_mem_pattern.num_elem[3]`.
    pub field: String,
    /// Byte range within the bundle.
    pub bytes: Range<usize>,
    /// The offending (or checked) value.
    pub value: String,
    /// The allowed values.
    pub allowed: String,
}

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let verdict = match (self.passed, self.rule.lint) {
            (true, _) => "pass",
            (false, true) => "lint",
            (false, false) => "FAIL",
        };
        write!(
            f,
            "{verdict} {}: {} — `{}` (bytes {}..{}) = {}; allowed {} [{}, {}]",
            self.rule.name,
            self.rule.clause,
            self.field,
            self.bytes.start,
            self.bytes.end,
            self.value,
            self.allowed,
            self.rule.source,
            self.rule.confidence.tag()
        )
    }
}

/// Every finding for one instruction on one generation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Report {
    /// The generation checked.
    pub gen: Gen,
    /// Failures and lints (and, from [`rule_walk`], passes too), in chain order.
    pub findings: Vec<Finding>,
}

impl Report {
    /// True when no non-lint rule failed.
    pub fn is_valid(&self) -> bool {
        !self.findings.iter().any(|f| !f.passed && !f.rule.lint)
    }
    /// The failing rules.
    pub fn failures(&self) -> impl Iterator<Item = &Finding> {
        self.findings.iter().filter(|f| !f.passed && !f.rule.lint)
    }
    /// The lints that fired.
    pub fn lints(&self) -> impl Iterator<Item = &Finding> {
        self.findings.iter().filter(|f| !f.passed && f.rule.lint)
    }
}

/// Details of a check, built only when they will be reported.
pub(crate) struct Detail {
    pub field: String,
    pub bytes: Range<usize>,
    pub value: String,
    pub allowed: String,
}

/// What a validation run keeps, as a const parameter: the chains are written once and
/// monomorphised per mode, so the verdict-only path compiles to bare predicate tests that
/// stop at the first failing clause, with no allocation and no detail ever built. Two modes
/// only: each further monomorphisation of the chains was measured to change how the compiler
/// inlines the verdict's (a third detail-free mode cost it 25–40% on the valid corpus), so
/// the full walk is the report mode with a flag.
mod mode {
    /// Only the verdict matters: the first failing rule stops the chain.
    pub const VERDICT: u8 = 0;
    /// Record failures and lints (and, with `Ctx::walk`, passes too).
    pub const FAILURES: u8 = 1;
}

/// A chain stopped at a failing rule (the verdict path only: the report paths never stop).
pub(crate) struct Stop;

/// What a chain (or one of its shared predicates) returns: `Err(Stop)` ends the verdict path
/// at the first failing rule; the report paths always run to the end.
pub(crate) type Flow = Result<(), Stop>;

/// The validation context a chain reports into.
pub(crate) struct Ctx<const M: u8> {
    pub gen: Gen,
    findings: Vec<Finding>,
    /// Record passing checks too (`rule_walk`).
    walk: bool,
    /// Record only which rules failed, with no detail ([`failing_rules`]): a flag of the
    /// report mode rather than a mode of its own, so the verdict's code is unchanged.
    rules_only: bool,
}

impl<const M: u8> Ctx<M> {
    fn new(gen: Gen) -> Ctx<M> {
        Ctx {
            gen,
            findings: Vec::new(),
            walk: false,
            rules_only: false,
        }
    }

    /// Records the outcome of `rule`; `detail` runs only if the finding is kept. `Ok(held)`,
    /// or `Err(Stop)` on the verdict path when a (non-lint) rule fails.
    #[inline(always)]
    pub fn check(
        &mut self,
        rule: &'static Rule,
        ok: bool,
        detail: impl FnOnce() -> Detail,
    ) -> Result<bool, Stop> {
        if M == mode::VERDICT {
            // The verdict hot path never touches the closure, so its captures sink into
            // the cold branch of the report paths.
            return if ok || rule.lint { Ok(ok) } else { Err(Stop) };
        }
        if self.walk || !ok {
            self.record(rule, ok, detail);
        }
        Ok(ok)
    }

    #[cold]
    #[inline(never)]
    fn record(&mut self, rule: &'static Rule, ok: bool, detail: impl FnOnce() -> Detail) {
        let d = if self.rules_only {
            Detail {
                field: String::new(),
                bytes: 0..0,
                value: String::new(),
                allowed: String::new(),
            }
        } else {
            detail()
        };
        self.findings.push(Finding {
            rule,
            passed: ok,
            field: d.field,
            bytes: d.bytes,
            value: d.value,
            allowed: d.allowed,
        });
    }
}

/// Runs the chains over an owned instruction: through a view of its bytes (so there is one
/// definition of every rule, over [`View`](crate::wire::View)s), after the one rule a view
/// cannot break, that the body holds the opcode's struct.
fn run_owned<const M: u8>(inst: &Instruction, gen: Gen, walk: bool) -> (Ctx<M>, bool) {
    let bytes = inst.encode();
    let view = InstView::new(&bytes, gen);
    let mut cx = Ctx::<M>::new(gen);
    cx.walk = walk;
    let ok = chains::check(&mut cx, &view, inst.body.kind()).is_ok();
    (cx, ok)
}

/// Validates `inst` for `gen`: every failing rule and every lint, in chain order.
pub fn validate(inst: &Instruction, gen: Gen) -> Report {
    Report {
        gen,
        findings: run_owned::<{ mode::FAILURES }>(inst, gen, false).0.findings,
    }
}

/// The full rule walk: every rule of the chain with its pass/fail outcome (`tpb explain`).
pub fn rule_walk(inst: &Instruction, gen: Gen) -> Report {
    Report {
        gen,
        findings: run_owned::<{ mode::FAILURES }>(inst, gen, true).0.findings,
    }
}

/// The verdict alone: the same chains as [`validate`], stopping at the first failing rule,
/// building no report and allocating nothing. Equal to `validate(inst, gen).is_valid()`.
pub fn is_valid(inst: &Instruction, gen: Gen) -> bool {
    run_owned::<{ mode::VERDICT }>(inst, gen, false).1
}

/// The verdict on a bundle read in place (what `tpb validate`, `tpb run` and the fuzzers
/// use): the same chains as [`validate`], through the zero-copy view, with nothing decoded
/// up front. Equal to `validate(&view.owned(), view.gen()).is_valid()`.
#[inline]
pub fn is_valid_view(v: &InstView<'_>) -> bool {
    let mut cx = Ctx::<{ mode::VERDICT }>::new(v.gen());
    chains::check(&mut cx, v, v.kind()).is_ok()
}

/// The rules a bundle read in place fails (lints included), in chain order: the rules of
/// [`validate_view`]'s findings, with no detail text built. (A fourth, detail-free mode of
/// the chains was tried for this and measured: it made the verdict 25–40% slower on the
/// valid corpus, through the compiler's inlining of the chains, so the report mode serves
/// it with a flag.)
pub fn failing_rules(v: &InstView<'_>) -> Vec<&'static Rule> {
    let mut cx = Ctx::<{ mode::FAILURES }>::new(v.gen());
    cx.rules_only = true;
    let _ = chains::check(&mut cx, v, v.kind());
    cx.findings.into_iter().map(|f| f.rule).collect()
}

/// The findings of a bundle read in place: [`validate`] without building the instruction.
pub fn validate_view(v: &InstView<'_>) -> Report {
    let mut cx = Ctx::<{ mode::FAILURES }>::new(v.gen());
    let _ = chains::check(&mut cx, v, v.kind());
    Report {
        gen: v.gen(),
        findings: cx.findings,
    }
}
