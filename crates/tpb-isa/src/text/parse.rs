//! The assembler: lines → [`Item`]s, collecting every error of the file.

use super::operand::{
    parse_address, parse_base, parse_pairs, parse_pairs_holes, split_descriptor, Piece, Problem,
};
use super::schema::{
    aliases_for, field_names, form_of, part_of, resolve_key, with_field, with_field_mut, Form,
    Part, CHANNELS_FIELD, OPCODE_FIELD,
};
use super::{
    AsmError, AsmErrors, AsmOptions, Assembly, Directive, Item, SourceInstruction, SourceMap,
    BUILTIN_DIRECTIVES, MAX_ASM_ERRORS,
};
use crate::gen::Gen;
use crate::opcode::{Opcode, OPCODES};
use crate::wire::descriptor::{INDIRECT_HOLES, INDIRECT_SEPARATOR};
use crate::wire::field::{parse_int, unhex};
use crate::wire::{Data4d, Field, FieldDyn, Instruction, Tensor, TextRef, BUNDLE_BYTES};

/// Assembles a whole file. Returns every instruction and directive in source order, or every
/// error of the file (not just the first), each with line, column, the expected form and the
/// allowed values. Never panics. Purely syntactic: legality on the generation is
/// `tpb_isa::validate`'s job.
///
/// ```
/// use tpb_isa::text::{asm, disasm, AsmOptions};
/// use tpb_isa::Gen;
/// let a = asm("iota channels=128 out_dtype=fp32 src=0:[[1,64]] dst=sbuf[p0..128]+0x0:[[1,64]]",
///             &AsmOptions::new(Gen::Cayman)).unwrap();
/// let inst = a.insts()[0];
/// assert_eq!(disasm(&inst, Gen::Cayman),
///     "iota src_data_pattern=0:[[1,64],[1,1],[1,1],[1,1]] out_dtype=fp32 \
///      dst_mem_pattern=sbuf[p0..128]+0x0:[[1,64],[1,1],[1,1],[1,1]]");
/// ```
pub fn asm(src: &str, opts: &AsmOptions) -> Result<Assembly, AsmErrors> {
    assembly(src, opts, Path::Fast)
}

/// [`asm`] on the plain path only: every line through the general parser that words the
/// errors, none through the byte-level fast path. The reference the fast path is tested
/// against (`tests/text_fast.rs`); slower, same results.
pub fn asm_plain(src: &str, opts: &AsmOptions) -> Result<Assembly, AsmErrors> {
    assembly(src, opts, Path::Plain)
}

/// Assembles a whole file into the caller's buffer: appends one 64-byte bundle per
/// instruction (and `.bundle`) line to `out` and returns where each came from. The same
/// language, results and errors as [`asm`] (`asm_into` appends exactly
/// `asm(src, opts)?.to_bytes()`), but nothing is allocated per line on the way, so a large
/// program costs its bundles plus one line number each. On error `out` is left as it was.
///
/// ```
/// use tpb_isa::text::{asm_into, AsmOptions};
/// use tpb_isa::Gen;
/// let src = ".gen cayman\niota src=0:[[1,64]] out=fp32 dst=sbuf[p0..128]+0x0:[[1,64]]\n";
/// let mut bundles = Vec::new();
/// let map = asm_into(src, &AsmOptions::new(Gen::Sunda), &mut bundles).unwrap();
/// assert_eq!((bundles.len(), map.lines.as_slice()), (1, &[2][..]));
/// assert_eq!(map.gens().collect::<Vec<_>>(), [Gen::Cayman]);
/// ```
pub fn asm_into(
    src: &str,
    opts: &AsmOptions,
    out: &mut Vec<[u8; 64]>,
) -> Result<SourceMap, AsmErrors> {
    let before = out.len();
    let mut sink = BundleSink {
        out,
        lines: Vec::new(),
        marks: Vec::new(),
    };
    match drive(src, opts, Path::Fast, &mut sink) {
        Ok(final_gen) => Ok(SourceMap {
            initial_gen: opts.gen,
            final_gen,
            lines: sink.lines,
            marks: sink.marks,
        }),
        Err(e) => {
            sink.out.truncate(before);
            Err(e)
        }
    }
}

/// Assembles a whole file, handing each instruction line to `visit` as it is assembled: the
/// decoded instruction, the generation it was assembled for, its 1-based line and its code text
/// (the line without comment and surrounding blanks, as [`SourceInstruction::source`]). The
/// same language, results and errors as [`asm`], without an [`Item`] or a `String` per line:
/// for callers that keep their own compact program (`tpb run`). Returns the `.gen` and
/// directive lines; the [`SourceMap::lines`] it returns are those `visit` was given. On error
/// the lines already visited belong to a file that did not assemble: discard them.
pub fn asm_each(
    src: &str,
    opts: &AsmOptions,
    visit: impl FnMut(Instruction, Gen, usize, &str),
) -> Result<SourceMap, AsmErrors> {
    let mut sink = VisitSink {
        visit,
        lines: Vec::new(),
        marks: Vec::new(),
    };
    let final_gen = drive(src, opts, Path::Fast, &mut sink)?;
    Ok(SourceMap {
        initial_gen: opts.gen,
        final_gen,
        lines: sink.lines,
        marks: sink.marks,
    })
}

/// Which way instruction lines are read.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Path {
    /// The byte-level fast path where it applies, else the plain path.
    Fast,
    /// The plain path for every line.
    Plain,
}

/// Where the driver puts what it assembles.
trait Sink {
    /// An instruction line the fast path assembled: its bundle and its code text.
    fn bundle(&mut self, bundle: &[u8; 64], gen: Gen, line: usize, code: &str);
    /// An item from the plain path.
    fn item(&mut self, item: Item);
}

/// Collects [`Item`]s for [`asm`].
struct ItemSink(Vec<Item>);

impl Sink for ItemSink {
    fn bundle(&mut self, bundle: &[u8; 64], gen: Gen, line: usize, code: &str) {
        self.0.push(Item::Instruction(SourceInstruction {
            inst: Instruction::decode(bundle, gen),
            gen,
            line,
            source: code.to_string(),
        }));
    }
    fn item(&mut self, item: Item) {
        self.0.push(item);
    }
}

/// Appends bundles to the caller's buffer for [`asm_into`].
struct BundleSink<'a> {
    out: &'a mut Vec<[u8; 64]>,
    lines: Vec<usize>,
    marks: Vec<Item>,
}

impl Sink for BundleSink<'_> {
    fn bundle(&mut self, bundle: &[u8; 64], _: Gen, line: usize, _: &str) {
        self.out.push(*bundle);
        self.lines.push(line);
    }
    fn item(&mut self, item: Item) {
        match item {
            Item::Instruction(s) => {
                self.out.push(s.inst.encode());
                self.lines.push(s.line);
            }
            mark => self.marks.push(mark),
        }
    }
}

/// Hands each instruction to [`asm_each`]'s callback.
struct VisitSink<F> {
    visit: F,
    lines: Vec<usize>,
    marks: Vec<Item>,
}

impl<F: FnMut(Instruction, Gen, usize, &str)> Sink for VisitSink<F> {
    fn bundle(&mut self, bundle: &[u8; 64], gen: Gen, line: usize, code: &str) {
        (self.visit)(Instruction::decode(bundle, gen), gen, line, code);
        self.lines.push(line);
    }
    fn item(&mut self, item: Item) {
        match item {
            Item::Instruction(s) => {
                (self.visit)(s.inst, s.gen, s.line, &s.source);
                self.lines.push(s.line);
            }
            mark => self.marks.push(mark),
        }
    }
}

fn assembly(src: &str, opts: &AsmOptions, path: Path) -> Result<Assembly, AsmErrors> {
    let mut sink = ItemSink(Vec::new());
    let final_gen = drive(src, opts, path, &mut sink)?;
    Ok(Assembly {
        initial_gen: opts.gen,
        final_gen,
        items: sink.0,
    })
}

/// What the fast path made of a line.
enum FastLine<'a> {
    /// Nothing but whitespace and comments.
    Blank,
    /// An instruction (its bundle written to the caller's buffer), with its code text.
    Bundle(&'a str),
    /// Anything else: the plain path decides.
    Plain,
}

fn fast_line<'a>(line: &'a str, gen: Gen, bundle: &mut [u8; 64]) -> FastLine<'a> {
    let b = line.as_bytes();
    let end = memchr::memchr2(b'#', b';', b).unwrap_or(b.len());
    let code = &b[..end];
    if !code.is_ascii() {
        return FastLine::Plain;
    }
    // ASCII, so `lex::trim` is `str::trim` and its ends are char boundaries.
    let lead = code.iter().position(|&c| !super::lex::is_ws(c));
    let text = &line[lead.unwrap_or(end)..lead.unwrap_or(end) + super::lex::trim(code).len()];
    match text.as_bytes().first() {
        None => return FastLine::Blank,
        Some(b'.') => return FastLine::Plain,
        Some(_) => {}
    }
    match super::fast::instruction(text, gen, bundle) {
        Some(()) => FastLine::Bundle(text),
        None => FastLine::Plain,
    }
}

/// `s.split('\n')`, finding the line ends with `memchr` (SIMD) rather than a char search.
fn split_lines(s: &str) -> impl Iterator<Item = &str> {
    let mut rest = Some(s);
    std::iter::from_fn(move || {
        let r = rest?;
        match memchr::memchr(b'\n', r.as_bytes()) {
            Some(i) => {
                rest = Some(&r[i + 1..]);
                Some(&r[..i])
            }
            None => {
                rest = None;
                Some(r)
            }
        }
    })
}

/// Reads every line of `src` into `sink`; returns the generation after the last line, or
/// every error of the file.
fn drive(src: &str, opts: &AsmOptions, path: Path, sink: &mut impl Sink) -> Result<Gen, AsmErrors> {
    let mut gen = opts.gen;
    let mut errors = Vec::new();
    let mut instructions = 0usize;
    // A byte-order mark is not part of the first line (editors do not show it).
    let mut line_start = if src.starts_with('\u{feff}') { 3 } else { 0 };
    let mut bundle = [0u8; 64];
    for (index, raw) in split_lines(&src[line_start..]).enumerate() {
        let line_no = index + 1;
        let line = raw.strip_suffix('\r').unwrap_or(raw);
        if path == Path::Fast {
            match fast_line(line, gen, &mut bundle) {
                FastLine::Blank => {
                    line_start += raw.len() + 1;
                    continue;
                }
                FastLine::Bundle(code) => {
                    sink.bundle(&bundle, gen, line_no, code);
                    instructions += 1;
                    line_start += raw.len() + 1;
                    continue;
                }
                FastLine::Plain => {}
            }
        }
        let mut problems = Vec::new();
        let item = assemble_line(line, line_no, gen, opts, instructions, &mut problems);
        // Splitting finds some problems before field parsing finds earlier ones.
        problems.sort_by_key(|p| p.start);
        let mut columns = Columns::new(line);
        for p in problems.into_iter().take(MAX_ASM_ERRORS + 1 - errors.len()) {
            errors.push(to_error(&mut columns, line_no, line_start, p));
        }
        if errors.len() > MAX_ASM_ERRORS {
            // One more error than reported proves the cap cut something: say so, last.
            errors.truncate(MAX_ASM_ERRORS);
            errors.push(AsmError {
                line: line_no,
                column: 1,
                span: line_start..line_start,
                message: format!(
                    "too many errors: stopped after the first {MAX_ASM_ERRORS}; \
                     the rest of the file is not checked"
                ),
            });
            break;
        }
        match item {
            Some(Item::Gen { gen: g, .. }) => {
                gen = g;
                sink.item(Item::Gen { line: line_no, gen });
            }
            Some(Item::Instruction(i)) => {
                instructions += 1;
                sink.item(Item::Instruction(i));
            }
            Some(d) => sink.item(d),
            None => {}
        }
        line_start += raw.len() + 1;
    }
    if errors.is_empty() {
        Ok(gen)
    } else {
        Err(AsmErrors(errors))
    }
}

/// Assembles text holding exactly one instruction (or `.bundle`) line for `gen`; comments
/// and blank lines are allowed, other directives are not.
///
/// ```
/// use tpb_isa::text::asm_line;
/// use tpb_isa::{Gen, Opcode};
/// let i = asm_line("ts_arith src=sbuf[p0..64]+0x0:[[1,32]] in=fp32 out=fp32 op0=mult imm0=2.0 \
///                   dst=sbuf[p0..64]+0x100:[[1,32]]", Gen::Cayman).unwrap();
/// assert_eq!(i.opcode(), Opcode::TENSOR_SCALAR_ARITH);
/// ```
pub fn asm_line(line: &str, gen: Gen) -> Result<Instruction, AsmErrors> {
    let a = asm(line, &AsmOptions::new(gen))?;
    match a.items.as_slice() {
        [Item::Instruction(s)] => Ok(s.inst),
        _ => Err(AsmErrors(vec![AsmError {
            line: 1,
            column: 1,
            span: 0..line.len(),
            message: format!(
                "expected exactly one instruction or `.bundle` line, found {} items",
                a.items.len()
            ),
        }])),
    }
}

/// Converts a line-relative problem into a file-level error.
fn to_error(columns: &mut Columns<'_>, line_no: usize, line_start: usize, p: Problem) -> AsmError {
    let line = columns.line;
    let start = p.start.min(line.len());
    let end = p.end.clamp(start, line.len());
    AsmError {
        line: line_no,
        column: columns.at(start),
        span: line_start + start..line_start + end,
        message: p.message,
    }
}

/// Where the code of a line ends: at the first `#` or `;` (comments), else at its end.
fn code_end(line: &str) -> usize {
    line.find(['#', ';']).unwrap_or(line.len())
}

fn is_key_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

fn assemble_line(
    line: &str,
    line_no: usize,
    gen: Gen,
    opts: &AsmOptions,
    instructions_before: usize,
    problems: &mut Vec<Problem>,
) -> Option<Item> {
    let code = Piece {
        text: &line[..code_end(line)],
        start: 0,
    }
    .trim();
    if code.text.is_empty() {
        return None;
    }
    if code.text.starts_with('.') {
        return directive(
            line,
            code,
            line_no,
            gen,
            opts,
            instructions_before,
            problems,
        );
    }
    let inst = instruction(line, code, gen, problems)?;
    Some(Item::Instruction(SourceInstruction {
        inst,
        gen,
        line: line_no,
        source: code.text.to_string(),
    }))
}

fn directive(
    line: &str,
    code: Piece<'_>,
    line_no: usize,
    gen: Gen,
    opts: &AsmOptions,
    instructions_before: usize,
    problems: &mut Vec<Problem>,
) -> Option<Item> {
    let name_len = code.text[1..]
        .find(|c: char| !is_key_char(c))
        .unwrap_or(code.text.len() - 1);
    let name_piece = code.slice(0, 1 + name_len);
    let name = name_piece.text[1..].to_ascii_lowercase();
    let args = code.slice(1 + name_len, code.text.len()).trim();
    match name.as_str() {
        "gen" => {
            let g = Gen::from_name(args.text).filter(|_| !args.text.is_empty());
            match g {
                Some(g) => Some(Item::Gen {
                    line: line_no,
                    gen: g,
                }),
                None => {
                    let target = if args.text.is_empty() {
                        name_piece
                    } else {
                        args
                    };
                    let found = if args.text.is_empty() {
                        "missing generation after `.gen`".to_string()
                    } else {
                        format!("unknown generation `{}`", args.text)
                    };
                    problems.push(Problem::at(
                        target,
                        format!(
                            "{found}; expected one of {}",
                            Gen::ALL.map(Gen::name).join(", ")
                        ),
                    ));
                    None
                }
            }
        }
        "bundle" => {
            let b = bundle_bytes(args, problems)?;
            Some(Item::Instruction(SourceInstruction {
                inst: Instruction::decode(&b, gen),
                gen,
                line: line_no,
                source: code.text.to_string(),
            }))
        }
        _ if !name.is_empty() && opts.directives.contains(&name) => {
            Some(Item::Directive(Directive {
                name,
                args: args.text.to_string(),
                line: line_no,
                args_column: column(line, args.start),
                gen,
                instructions_before,
            }))
        }
        _ => {
            let mut allowed: Vec<String> =
                BUILTIN_DIRECTIVES.iter().map(|d| format!(".{d}")).collect();
            allowed.extend(opts.directives.iter().map(|d| format!(".{d}")));
            problems.push(Problem::at(
                name_piece,
                format!(
                    "unknown directive `{}`; expected one of {}",
                    name_piece.text,
                    allowed.join(", ")
                ),
            ));
            None
        }
    }
}

/// The 1-based character column of byte `at` of `line`.
fn column(line: &str, at: usize) -> usize {
    line.char_indices().take_while(|(i, _)| *i < at).count() + 1
}

/// Character columns of one line for byte offsets asked in increasing order: counting
/// resumes where the last answer stopped, so a line's errors cost one pass, not one each.
struct Columns<'a> {
    line: &'a str,
    /// A char boundary of `line` and the number of chars before it.
    byte: usize,
    chars: usize,
}

impl<'a> Columns<'a> {
    fn new(line: &'a str) -> Self {
        Columns {
            line,
            byte: 0,
            chars: 0,
        }
    }

    /// The 1-based character column of byte `at` (as [`column`]).
    fn at(&mut self, at: usize) -> usize {
        if at < self.byte {
            (self.byte, self.chars) = (0, 0);
        }
        for (i, _) in self.line[self.byte..].char_indices() {
            if self.byte + i >= at {
                self.byte += i;
                return self.chars + 1;
            }
            self.chars += 1;
        }
        self.byte = self.line.len();
        self.chars + 1
    }
}

/// Parses `.bundle` hex: exactly 64 bytes, whitespace and `_` allowed, optional `0x`.
fn bundle_bytes(args: Piece<'_>, problems: &mut Vec<Problem>) -> Option<[u8; 64]> {
    let hex = args.text.strip_prefix("0x").unwrap_or(args.text);
    let hex_start = args.start + (args.text.len() - hex.len());
    if let Some((i, c)) = hex
        .char_indices()
        .find(|(_, c)| !(c.is_ascii_hexdigit() || c.is_whitespace() || *c == '_'))
    {
        problems.push(Problem::new(
            hex_start + i,
            hex_start + i + c.len_utf8(),
            format!("`{c}` is not a hex digit; `.bundle` takes 64 bytes as 128 hex digits"),
        ));
        return None;
    }
    match unhex(hex) {
        Some(v) if v.len() == BUNDLE_BYTES => {
            let mut b = [0u8; 64];
            b.copy_from_slice(&v);
            Some(b)
        }
        Some(v) => {
            problems.push(Problem::at(
                args,
                format!(
                    "`.bundle` takes exactly 64 bytes (128 hex digits); got {} ({} digits)",
                    v.len(),
                    2 * v.len()
                ),
            ));
            None
        }
        None => {
            let digits = hex.chars().filter(|c| c.is_ascii_hexdigit()).count();
            problems.push(Problem::at(
                args,
                format!("`.bundle` takes exactly 64 bytes (128 hex digits); got {digits} digits"),
            ));
            None
        }
    }
}

/// A `key=value` pair as written.
struct Assignment<'a> {
    key: Piece<'a>,
    value: Piece<'a>,
}

/// Splits the text after the mnemonic into `key=value` pairs. Values end at whitespace
/// outside brackets, so `[[1, 64], [2, 3]]` may contain spaces.
fn assignments<'a>(rest: Piece<'a>, problems: &mut Vec<Problem>) -> Vec<Assignment<'a>> {
    let text = rest.text;
    let mut out = Vec::new();
    let mut pos = 0;
    let peek = |pos: usize| text[pos..].chars().next();
    let skip_ws = |mut pos: usize| {
        while let Some(c) = text[pos..].chars().next().filter(|c| c.is_whitespace()) {
            pos += c.len_utf8();
        }
        pos
    };
    // The end of a whitespace-free word, for skipping garbage.
    let word_end = |mut pos: usize| {
        while let Some(c) = text[pos..].chars().next().filter(|c| !c.is_whitespace()) {
            pos += c.len_utf8();
        }
        pos
    };
    loop {
        pos = skip_ws(pos);
        // Past the cap nothing more is reported: stop, so a huge bad line costs no more.
        if pos >= text.len() || problems.len() > MAX_ASM_ERRORS {
            break;
        }
        let key_start = pos;
        while let Some(c) = peek(pos).filter(|c| is_key_char(*c)) {
            pos += c.len_utf8();
        }
        let key = rest.slice(key_start, pos);
        if key.text.is_empty() {
            let end = word_end(pos);
            let w = rest.slice(key_start, end);
            problems.push(Problem::at(
                w,
                format!("expected `field=value`, found `{}`", w.text),
            ));
            pos = end;
            continue;
        }
        let after_key = skip_ws(pos);
        if peek(after_key) != Some('=') {
            let end = word_end(pos);
            problems.push(Problem::at(
                rest.slice(key_start, end),
                format!(
                    "expected `=` after field name `{}` (fields are written `field=value`)",
                    key.text
                ),
            ));
            pos = end;
            continue;
        }
        pos = skip_ws(after_key + 1);
        let value_start = pos;
        let mut depth = 0usize;
        // Where the value would end if a `[` is never closed: resume there.
        let mut first_space = None;
        while let Some(c) = peek(pos) {
            if c.is_whitespace() {
                if depth == 0 {
                    break;
                }
                first_space.get_or_insert(pos);
            }
            match c {
                '[' => depth += 1,
                ']' => depth = depth.saturating_sub(1),
                _ => {}
            }
            pos += c.len_utf8();
        }
        let value = rest.slice(value_start, pos).trim();
        if value.text.is_empty() {
            problems.push(Problem::new(
                rest.start + after_key,
                rest.start + after_key + 1,
                format!("missing value after `{}=`", key.text),
            ));
            continue;
        }
        if depth > 0 {
            let end = first_space.unwrap_or(pos);
            problems.push(Problem::at(
                rest.slice(value_start, end),
                "unclosed `[` in value",
            ));
            pos = end;
            continue;
        }
        out.push(Assignment { key, value });
    }
    out
}

fn mnemonic_list() -> String {
    OPCODES
        .iter()
        .map(|r| r.mnemonic)
        .collect::<Vec<_>>()
        .join(", ")
}

/// Resolves the first word of an instruction line: a mnemonic (or display/header name, any
/// case) or an opcode byte such as `0x30`.
fn opcode_of(word: Piece<'_>) -> Result<Opcode, Problem> {
    if let Some(o) = Opcode::from_mnemonic(word.text) {
        return Ok(o);
    }
    if let Some(v) = parse_int(word.text).and_then(|v| u8::try_from(v).ok()) {
        return Ok(Opcode(v));
    }
    let hint = if word.text.contains('=') {
        " (the line must start with a mnemonic)"
    } else {
        ""
    };
    Err(Problem::at(
        word,
        format!(
            "unknown mnemonic `{}`{hint}; expected one of {}, an opcode byte such as `0x30`, or a directive such as `.bundle`",
            word.text,
            mnemonic_list()
        ),
    ))
}

/// One claim on `num_active_channels`: an explicit value or a partition range.
struct ChannelClaim<'a> {
    count: u8,
    at: Piece<'a>,
    /// How the claim was written, for the conflict message.
    what: ClaimText<'a>,
}

/// How a channel claim was written; formatted only for a conflict message.
enum ClaimText<'a> {
    /// The partition range `text` of field `field`.
    Range { text: &'a str, field: &'static str },
    /// `num_active_channels=text`.
    Explicit { text: &'a str },
}

impl std::fmt::Display for ClaimText<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ClaimText::Range { text, field } => {
                write!(f, "the partition range `{text}` of {field}")
            }
            ClaimText::Explicit { text } => write!(f, "{CHANNELS_FIELD}={text}"),
        }
    }
}

fn instruction(
    line: &str,
    code: Piece<'_>,
    gen: Gen,
    problems: &mut Vec<Problem>,
) -> Option<Instruction> {
    let word_len = code
        .text
        .find(char::is_whitespace)
        .unwrap_or(code.text.len());
    let word = code.slice(0, word_len);
    let rest = code.slice(word_len, code.text.len());
    let opcode = match opcode_of(word) {
        Ok(o) => o,
        Err(p) => {
            problems.push(p);
            return None;
        }
    };
    let before = problems.len();
    let mut inst = Instruction::new(opcode, gen);
    // Names resolve against the untouched default (same struct, same fields), so the
    // instruction's parts can stay borrowed as field lists for the whole line: each list is
    // built once per line, not once per field.
    let shape = inst;
    let Instruction {
        header,
        events,
        body,
    } = &mut inst;
    let (mut header_fields, mut event_fields, mut body_fields) =
        (header.fields_mut(), events.fields_mut(), body.fields_mut());
    let mut seen: Vec<(&'static str, Piece<'_>)> = Vec::new();
    let mut claims: Vec<ChannelClaim<'_>> = Vec::new();
    for a in assignments(rest, problems) {
        if problems.len() > MAX_ASM_ERRORS {
            break;
        }
        let Some(name) = resolve_key(&shape, a.key.text) else {
            problems.push(unknown_field(&shape, a.key, gen));
            continue;
        };
        if name == OPCODE_FIELD {
            problems.push(Problem::at(
                a.key,
                "the opcode is set by the mnemonic; write the byte as the mnemonic instead (e.g. `0x30 …`)",
            ));
            continue;
        }
        if let Some((_, first)) = seen.iter().find(|(n, _)| *n == name) {
            problems.push(Problem::at(
                a.key,
                format!(
                    "field `{name}` is given twice (first as `{}` at col {})",
                    first.text,
                    column(line, first.start)
                ),
            ));
            continue;
        }
        seen.push((name, a.key));
        let fields = match part_of(&shape, name) {
            Some(Part::Header) => &mut header_fields,
            Some(Part::Events) => &mut event_fields,
            Some(Part::Body) => &mut body_fields,
            None => {
                problems.push(Problem::at(a.value, format!("{name}: no field `{name}`")));
                continue;
            }
        };
        let field = fields.iter_mut().find(|(m, _)| m.name == name);
        let result = match field {
            Some((_, f)) => assign(&mut **f, name, a.value, gen, &mut claims),
            None => Err(Problem::at(a.value, format!("{name}: no field `{name}`"))),
        };
        if let Err(p) = result {
            problems.push(p);
        }
    }
    drop((header_fields, event_fields, body_fields));
    reconcile_channels(&mut inst, claims, problems);
    (problems.len() == before).then_some(inst)
}

fn unknown_field(inst: &Instruction, key: Piece<'_>, gen: Gen) -> Problem {
    let opcode = inst.opcode();
    let name = opcode
        .row()
        .map_or_else(|| format!("{opcode}"), |r| r.mnemonic.to_string());
    if inst.body.kind().is_none() {
        if let Some(row) = opcode.row() {
            return Problem::at(
                key,
                format!(
                    "unknown field `{}`: {} ({opcode}) is defined only on {}, so on {gen} its body is raw bytes (`raw=` 52 hex bytes); add `.gen {}` before this line or write a `.bundle`",
                    key.text,
                    row.mnemonic,
                    row.gens,
                    row.gens.iter().next().map_or("", |g| g.name()),
                ),
            );
        }
    }
    let aliases = aliases_for(inst);
    let aliases = if aliases.is_empty() {
        String::new()
    } else {
        format!("; short names: {}", aliases.join(", "))
    };
    Problem::at(
        key,
        format!(
            "unknown field `{}` for {name}; expected one of {}{aliases}",
            key.text,
            field_names(inst).join(", ")
        ),
    )
}

/// Parses `value` into `f`, the field `name` (the happy path of a large file runs through
/// here for every field).
fn assign<'a>(
    f: &mut dyn FieldDyn,
    name: &'static str,
    value: Piece<'a>,
    gen: Gen,
    claims: &mut Vec<ChannelClaim<'a>>,
) -> Result<(), Problem> {
    match form_of(f) {
        Form::Tensor(slots) => {
            let (head, pairs) =
                split_descriptor(value, "`ADDRESS:[[step,num],…]` (innermost first)")?;
            let (head, second) = match head.split_once(INDIRECT_SEPARATOR) {
                Some((first, second)) => (first, Some(second)),
                None => (head, None),
            };
            let address = parse_address(head, gen)?;
            let holes = if second.is_some() { INDIRECT_HOLES } else { 0 };
            let (mut steps, nums) = parse_pairs_holes(pairs.trim(), slots, holes, name)?;
            if let Some(second) = second {
                // The indirect form's second address (seed 001): bytes +4..+8.
                let mut t = crate::wire::Tensor4 {
                    start_addr: address.addr,
                    ..Default::default()
                };
                let word = parse_address(second, gen)?.addr;
                t.set_indirect_addr(word)
                    .map_err(|e| Problem::at(value, format!("{name}: {e}")))?;
                match steps.get_mut(..INDIRECT_HOLES) {
                    Some(held) if slots == 4 => {
                        held.copy_from_slice(&t.step_elem[..INDIRECT_HOLES])
                    }
                    _ => {
                        return Err(Problem::at(
                            value,
                            format!("{name}: a second address needs a 4D descriptor"),
                        ))
                    }
                }
            }
            if let Some(count) = address.range_channels {
                let at = head.trim();
                claims.push(ChannelClaim {
                    count,
                    at,
                    what: ClaimText::Range {
                        text: at.text,
                        field: name,
                    },
                });
            }
            set_tensor(f, address.addr, &steps, &nums);
            Ok(())
        }
        Form::Data4d => {
            let (head, pairs) = split_descriptor(value, "`BASE:[[step,num],…]` (innermost first)")?;
            let base = parse_base(head)?;
            let (steps, nums) = parse_pairs(pairs.trim(), 4, name)?;
            if let (Ok(step_elem), Ok(num_elem)) = (steps.try_into(), nums.try_into()) {
                let mut bytes = [0u8; <Data4d as Field>::SIZE];
                Data4d {
                    base,
                    step_elem,
                    num_elem,
                }
                .write(&mut bytes);
                f.set_bytes(&bytes);
            }
            Ok(())
        }
        form @ (Form::Enum | Form::Plain) => {
            if let Err(msg) = f.set_text(value.text, gen) {
                // Enum messages already name their kind ("unknown dtype `fp33`; …").
                let message = if form == Form::Enum {
                    msg
                } else {
                    format!("{name}: {msg}")
                };
                return Err(Problem::at(value, message));
            }
            if name == CHANNELS_FIELD {
                let count = match f.text_value() {
                    TextRef::U8(n) => n,
                    _ => 0,
                };
                // The explicit value goes first: it is what conflicts are measured against.
                claims.insert(
                    0,
                    ChannelClaim {
                        count,
                        at: value,
                        what: ClaimText::Explicit { text: value.text },
                    },
                );
            }
            Ok(())
        }
    }
}

/// Writes a descriptor of `steps.len()` slots into `f` (which the caller found to be a
/// `TENSOR{N}D` of that N) through its wire bytes.
fn set_tensor(f: &mut dyn FieldDyn, addr: crate::wire::Addr4, steps: &[i16], nums: &[u16]) {
    fn bytes<const N: usize>(
        addr: crate::wire::Addr4,
        steps: &[i16],
        nums: &[u16],
    ) -> Option<[u8; 20]> {
        let mut b = [0u8; 20];
        Tensor::<N> {
            start_addr: addr,
            step_elem: steps.try_into().ok()?,
            num_elem: nums.try_into().ok()?,
        }
        .write(&mut b);
        Some(b)
    }
    let written = match (f.text_value(), steps.len()) {
        (TextRef::Tensor(t), n) if t.num_elem.len() == n && nums.len() == n => match n {
            1 => bytes::<1>(addr, steps, nums),
            2 => bytes::<2>(addr, steps, nums),
            3 => bytes::<3>(addr, steps, nums),
            4 => bytes::<4>(addr, steps, nums),
            _ => None,
        },
        _ => None,
    };
    if let Some(b) = written {
        f.set_bytes(&b);
    }
}

/// Every partition range and an explicit `num_active_channels=` must agree; the agreed count
/// is written to `num_active_channels`.
fn reconcile_channels(
    inst: &mut Instruction,
    claims: Vec<ChannelClaim<'_>>,
    problems: &mut Vec<Problem>,
) {
    let Some(first) = claims.first() else {
        return;
    };
    let has_field = with_field(inst, CHANNELS_FIELD, |_, _| ()).is_some();
    if !has_field {
        problems.push(Problem::at(
            first.at,
            "this instruction has no num_active_channels; write a single partition `sbuf[pN]+OFFSET`",
        ));
        return;
    }
    for c in &claims[1..] {
        if c.count != first.count {
            problems.push(Problem::at(
                c.at,
                format!(
                    "{} means {} active channels, but {} means {}",
                    c.what, c.count, first.what, first.count
                ),
            ));
        }
    }
    let count = first.count;
    with_field_mut(inst, CHANNELS_FIELD, |f| {
        if let TextRef::U8(_) = f.text_value() {
            f.set_bytes(&[count]);
        }
    });
}
