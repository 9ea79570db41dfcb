//! The text syntax: one instruction per line, `MNEMONIC key=value …` (reference:
//! `docs/syntax.md`).
//!
//! ```text
//! .gen cayman
//! # a causal mask: keep scores[r][c] where r - c >= 0, else the fp32 in reg[7]
//! affine_select channels=128 dtypes=fp32->bf16 cmp=ge fill_reg=7 mask=0:[[-1,512]] channel_multiplier=1 src=sbuf[p0..128]+0x0:[[1,512]] dst=sbuf[p0..128]+0x800:[[1,512]]
//! .bundle 30100000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000
//! ```
//!
//! Guarantees (each tested as a property in `cargo test` and fuzzed under `fuzz/`):
//!
//! - [`disasm`] prints any [`Instruction`] as one canonical line, and [`asm`] reads that line
//!   back to the same 64 bytes, for every bundle on every generation: `asm(disasm(b)) == b`.
//!   Anything the structured form cannot say (unmodelled opcodes, a body that does not match
//!   its opcode) is printed as `.bundle <64 bytes of hex>`.
//! - `disasm(asm(t))` is canonical: assembling it again and disassembling gives the same text.
//! - [`asm`] never panics, on any input; it reports every error of a file (not just the
//!   first, up to [`MAX_ASM_ERRORS`]), each with its line, 1-based column, the expected form
//!   and the allowed values. Its time is linear in the input.
//! - [`asm`] reads most instruction lines on a byte-level fast path and every other line on
//!   the plain path that words the errors; [`asm_plain`] (plain path only) and [`asm_into`]
//!   (the same into a bundle buffer, no per-line allocation) give the same results and
//!   errors on any input (`tests/text_fast.rs`).
//! - [`asm`] is purely syntactic: it checks that each value fits its field, not that the
//!   instruction is legal on the generation. Run `tpb_isa::validate::validate(&inst, gen)`
//!   on the result for that.

pub mod directive;
mod disasm;
mod fast;
mod lex;
mod names;
mod operand;
mod parse;
mod reference;
mod schema;

pub use disasm::{disasm, disasm_into, disasm_into_bytes, disasm_plain, disasm_program};
pub use parse::{asm, asm_each, asm_into, asm_line, asm_plain};
pub use reference::field_reference_markdown;
pub use schema::FIELD_ALIASES;

use crate::gen::Gen;
use crate::wire::Instruction;
use std::fmt;
use std::ops::Range;

/// At most this many errors of one file are reported; past it [`asm`] stops and its last
/// error says so (a 10 MB line of garbage costs one pass, not millions of messages).
pub const MAX_ASM_ERRORS: usize = 100;

/// Directives the assembler itself handles; every other name must be allowed through
/// [`AsmOptions::allow_directive`].
pub const BUILTIN_DIRECTIVES: &[&str] = &["gen", "bundle"];

/// How [`asm`] reads a file.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AsmOptions {
    /// The generation in force at the top of the file (a `.gen` line changes it for the
    /// lines that follow). Encoding depends on it: 0x87/0x88 have a struct only on sunda,
    /// 0xBC only from cayman, and `sbuf[…]`/`psum[…]` fold into ADDR4 per generation.
    pub gen: Gen,
    /// Names of caller-defined directives (without the leading `.`, lowercase) that the
    /// assembler passes back as [`Item::Directive`]. Any other directive is an error.
    pub directives: Vec<String>,
}

impl AsmOptions {
    /// Options for `gen` that allow only the built-in directives (`.gen`, `.bundle`).
    pub fn new(gen: Gen) -> AsmOptions {
        AsmOptions {
            gen,
            directives: Vec::new(),
        }
    }

    /// Also accepts `.NAME …` lines and returns them as [`Item::Directive`].
    pub fn allow_directive(mut self, name: &str) -> AsmOptions {
        let name = name.trim_start_matches('.').to_ascii_lowercase();
        if !self.directives.contains(&name) {
            self.directives.push(name);
        }
        self
    }

    /// [`AsmOptions::allow_directive`] for each name.
    pub fn allow_directives(self, names: &[&str]) -> AsmOptions {
        names.iter().fold(self, |o, n| o.allow_directive(n))
    }
}

/// The result of [`asm`]: the file's items in source order.
#[derive(Clone, Debug, PartialEq)]
pub struct Assembly {
    /// The generation at the top of the file ([`AsmOptions::gen`]).
    pub initial_gen: Gen,
    /// The generation in force after the last line (changed by `.gen`).
    pub final_gen: Gen,
    /// Instructions, `.gen` changes and caller-defined directives, in source order.
    pub items: Vec<Item>,
}

/// One meaningful line of an assembly file.
#[derive(Clone, Debug, PartialEq)]
pub enum Item {
    /// An instruction line or a `.bundle` line.
    Instruction(SourceInstruction),
    /// A `.gen NAME` line.
    Gen {
        /// 1-based line number.
        line: usize,
        /// The generation it selects.
        gen: Gen,
    },
    /// A caller-defined directive (allowed through [`AsmOptions::directives`]).
    Directive(Directive),
}

/// An assembled instruction with where it came from.
#[derive(Clone, Debug, PartialEq)]
pub struct SourceInstruction {
    /// The instruction.
    pub inst: Instruction,
    /// The generation it was assembled for (validate it against this one).
    pub gen: Gen,
    /// 1-based line number.
    pub line: usize,
    /// The line's text without its comment, trimmed.
    pub source: String,
}

/// A caller-defined directive line, `.NAME ARGS`, passed back uninterpreted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Directive {
    /// The name without the leading `.`, lowercase.
    pub name: String,
    /// Everything after the name, without the comment, trimmed.
    pub args: String,
    /// 1-based line number.
    pub line: usize,
    /// 1-based column (in characters) where `args` starts, for the caller's own errors.
    pub args_column: usize,
    /// The generation in force at this line.
    pub gen: Gen,
    /// How many instructions come before it in the file (its position in the program).
    pub instructions_before: usize,
}

impl Assembly {
    /// The instructions with their source lines, in order.
    pub fn instructions(&self) -> impl Iterator<Item = &SourceInstruction> {
        self.items.iter().filter_map(|i| match i {
            Item::Instruction(s) => Some(s),
            _ => None,
        })
    }

    /// The caller-defined directives, in order.
    pub fn directives(&self) -> impl Iterator<Item = &Directive> {
        self.items.iter().filter_map(|i| match i {
            Item::Directive(d) => Some(d),
            _ => None,
        })
    }

    /// The bare instructions, in order.
    pub fn insts(&self) -> Vec<Instruction> {
        self.instructions().map(|s| s.inst).collect()
    }

    /// The program binary: the bundles back to back (decisions §1.2).
    pub fn to_bytes(&self) -> Vec<u8> {
        self.instructions().flat_map(|s| s.inst.encode()).collect()
    }
}

/// Where the bundles [`asm_into`] appended came from: everything of an [`Assembly`] but the
/// instructions themselves.
#[derive(Clone, Debug, PartialEq)]
pub struct SourceMap {
    /// The generation at the top of the file ([`AsmOptions::gen`]).
    pub initial_gen: Gen,
    /// The generation in force after the last line (changed by `.gen`).
    pub final_gen: Gen,
    /// The 1-based source line of each appended bundle, in order.
    pub lines: Vec<usize>,
    /// The `.gen` lines and caller-defined directives, in source order (never
    /// [`Item::Instruction`]).
    pub marks: Vec<Item>,
}

impl SourceMap {
    /// The generation each bundle was assembled for (validate it against this one), in
    /// order: the last `.gen` above its line, else [`SourceMap::initial_gen`].
    pub fn gens(&self) -> impl Iterator<Item = Gen> + '_ {
        let mut changes = self.marks.iter().filter_map(|m| match m {
            Item::Gen { line, gen } => Some((*line, *gen)),
            _ => None,
        });
        let mut next = changes.next();
        let mut gen = self.initial_gen;
        self.lines.iter().map(move |&line| {
            while let Some((_, g)) = next.filter(|&(l, _)| l < line) {
                gen = g;
                next = changes.next();
            }
            gen
        })
    }

    /// The caller-defined directives, in order.
    pub fn directives(&self) -> impl Iterator<Item = &Directive> {
        self.marks.iter().filter_map(|i| match i {
            Item::Directive(d) => Some(d),
            _ => None,
        })
    }
}

/// One assembler error. Displays as `line L, col C: MESSAGE`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AsmError {
    /// 1-based line number.
    pub line: usize,
    /// 1-based column, counted in characters.
    pub column: usize,
    /// The offending text as a byte range of the whole source (for span renderers).
    pub span: Range<usize>,
    /// What is wrong, naming the expected form and the allowed values.
    pub message: String,
}

impl fmt::Display for AsmError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "line {}, col {}: {}",
            self.line, self.column, self.message
        )
    }
}

impl std::error::Error for AsmError {}

/// Every error of a file, in source order (never empty when returned by [`asm`]).
/// Displays one error per line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AsmErrors(pub Vec<AsmError>);

impl AsmErrors {
    /// The errors, in source order.
    pub fn iter(&self) -> std::slice::Iter<'_, AsmError> {
        self.0.iter()
    }

    /// How many errors there are.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Whether [`asm`] stopped at [`MAX_ASM_ERRORS`]: the last entry then says so and is not
    /// an error of its own.
    pub fn is_truncated(&self) -> bool {
        self.0.len() > MAX_ASM_ERRORS
    }
}

impl fmt::Display for AsmErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, e) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str("\n")?;
            }
            write!(f, "{e}")?;
        }
        Ok(())
    }
}

impl std::error::Error for AsmErrors {}

impl<'a> IntoIterator for &'a AsmErrors {
    type Item = &'a AsmError;
    type IntoIter = std::slice::Iter<'a, AsmError>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.iter()
    }
}
