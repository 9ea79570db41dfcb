//! Loading the program for `tpb run`: the text syntax (assembled with the run directives
//! allowed) or a binary of 64-byte bundles, and the one generation it runs on.
//!
//! Text or binary: a file ending in `.bin` is binary and one ending in `.tpb`, `.s` or
//! `.asm` is text; any other file is text when it is UTF-8 without NUL bytes (every real
//! bundle has zero bytes in its header), else binary. `--hex` is always binary.
//!
//! The generation: a text program may say `.gen NAME`; `--gen` gives it for programs that do
//! not. Both together must agree, and every instruction of a program must be assembled for
//! the same generation (one program runs on one machine). Binary programs decode for `--gen`
//! (default cayman).

use super::super::input::{Bundles, InputArgs};
use super::super::CliError;
use std::path::{Path, PathBuf};
use tpb_isa::text::{asm_each, disasm, AsmOptions, Directive, Item};
use tpb_isa::{Gen, Instruction};
use tpb_sim::engines::{home, place, EngineId, Home};

/// The directives `tpb run` interprets (docs/cli-run.md); `tpb asm` accepts and skips them.
pub const DIRECTIVES: &[&str] = &["in", "out", "reg", "expect", "show", "dtype", "engine"];

/// A program ready to run.
#[derive(Clone, Debug)]
pub struct Program {
    /// How to name it in messages (the path, or `--hex`).
    pub name: String,
    /// The generation it runs on.
    pub gen: Gen,
    /// The instructions, in order.
    pub insts: Vec<Instruction>,
    /// For text programs, each instruction's 1-based source line.
    pub lines: Vec<usize>,
    /// Each instruction's source text, for reports ([`Program::source`]).
    pub sources: Sources,
    /// Each instruction's engine (the opcode table, or `.engine` / `--queue`).
    pub engines: Vec<EngineId>,
    /// The run directives, in source order (empty for binaries; `.engine` is consumed).
    pub directives: Vec<Directive>,
    /// Base directory for the directives' relative input paths.
    pub dir: PathBuf,
}

/// Reads `file` (or `hex`) for `gen_flag`.
pub fn load(
    file: Option<&Path>,
    hex: Option<&str>,
    gen_flag: Option<Gen>,
) -> Result<Program, CliError> {
    let gen = gen_flag.unwrap_or_default();
    let binary = |file: Option<&Path>, loaded: Bundles| -> Result<Program, CliError> {
        let insts = loaded.decode_all(gen)?;
        Ok(Program {
            name: file.map_or("--hex".into(), |p| p.display().to_string()),
            gen,
            sources: Sources::binary(insts.len()),
            engines: place(&insts, gen, &[]).unwrap_or_default(),
            insts,
            lines: Vec::new(),
            directives: Vec::new(),
            dir: PathBuf::new(),
        })
    };
    // Decoded as it is read: the file's bytes are never all in memory beside the program.
    let streamed = |file: Option<&Path>| -> Result<Program, CliError> {
        let loaded = InputArgs {
            file: file.map(Path::to_path_buf),
            hex: hex.map(str::to_string),
        }
        .open()?;
        binary(file, loaded)
    };
    let Some(path) = file.filter(|_| hex.is_none()) else {
        return streamed(file);
    };
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    // A pipe or a device is read once: a second open would not see what the first took.
    let regular = std::fs::metadata(path).map_or(true, |m| m.is_file());
    // A binary program: a `.bin` file, or one whose first bytes hold a NUL.
    if ext.as_deref() == Some("bin") || (regular && starts_binary(path, ext.as_deref())?) {
        return streamed(Some(path));
    }
    let bytes = super::super::input::read_bounded(
        path,
        super::super::input::MAX_PROGRAM_BYTES,
        "a program",
    )?;
    let text = match ext.as_deref() {
        Some("tpb" | "s" | "asm") => Ok(String::from_utf8(bytes)
            .map_err(|_| CliError::Msg(format!("{}: not UTF-8 text", path.display())))?),
        _ if bytes.contains(&0) => Err(bytes),
        _ => String::from_utf8(bytes).map_err(|e| e.into_bytes()),
    };
    match text {
        Ok(src) => assemble(path, src, gen_flag),
        Err(_) if regular => streamed(Some(path)),
        Err(bytes) => binary(
            Some(path),
            Bundles::from_memory(path.display().to_string(), bytes)?,
        ),
    }
}

/// Whether a file of no text extension has a NUL in its first bundle (every real bundle has
/// zero bytes in its header; text has none).
fn starts_binary(path: &Path, ext: Option<&str>) -> Result<bool, CliError> {
    use std::io::Read;
    if matches!(ext, Some("tpb" | "s" | "asm")) {
        return Ok(false);
    }
    let mut head = Vec::with_capacity(64);
    super::super::input::open_input(path)
        .and_then(|f| f.take(64).read_to_end(&mut head))
        .map_err(|e| CliError::io(path, e))?;
    Ok(head.contains(&0))
}

fn assemble(path: &Path, src: String, gen_flag: Option<Gen>) -> Result<Program, CliError> {
    let name = path.display().to_string();
    let opts = AsmOptions::new(gen_flag.unwrap_or_default()).allow_directives(DIRECTIVES);
    // Each line goes straight into the program's compact form (no `Item` or `String` per
    // line): the instruction, its line, its generation and its text in one shared buffer.
    let mut insts = Vec::new();
    let mut gens = Vec::new();
    let mut sources = Sources::default();
    let map = asm_each(&src, &opts, |inst, gen, _line, code| {
        insts.push(inst);
        gens.push(gen);
        sources.push(code);
    });
    drop(src);
    let map = map.map_err(|errors| {
        let lines: Vec<String> = errors
            .iter()
            .map(|e| format!("{name}:{}:{}: {}", e.line, e.column, e.message))
            .collect();
        CliError::Msg(lines.join("\ntpb: error: "))
    })?;
    // Every generation the file mentions: `.gen` lines and the instructions' own, in order.
    let mut mentioned: Vec<(Gen, usize, &str)> = map
        .marks
        .iter()
        .filter_map(|m| match m {
            Item::Gen { line, gen } => Some((*gen, *line, ".gen")),
            _ => None,
        })
        .chain(
            map.lines
                .iter()
                .zip(&gens)
                .map(|(&l, &g)| (g, l, "instruction")),
        )
        .collect();
    mentioned.sort_by_key(|m| m.1);
    let first = mentioned.first().copied();
    if let (Some((g0, l0, w0)), Some(&(gen, line, what))) = (
        first,
        mentioned.iter().find(|m| Some(m.0) != first.map(|f| f.0)),
    ) {
        return Err(CliError::Msg(format!(
            "{name}: line {line} ({what}) is for {gen} but line {l0} ({w0}) is for \
             {g0}; one program runs on one generation"
        )));
    }
    let declared = map.marks.iter().find_map(|i| match i {
        Item::Gen { line, gen } => Some((*gen, *line)),
        _ => None,
    });
    if let (Some((g, line)), Some(f)) = (declared, gen_flag) {
        if g != f {
            return Err(CliError::Msg(format!(
                "{name}: the program says `.gen {g}` (line {line}) but --gen {f} was given; \
                 drop --gen or the .gen line"
            )));
        }
    }
    let gen = first.map(|s| s.0).or(gen_flag).unwrap_or_default();
    let engines = engines_of(&insts, &map.lines, map.directives(), gen).map_err(|errors| {
        let lines: Vec<String> = errors
            .iter()
            .map(|(line, col, m)| format!("{name}:{line}:{col}: {m}"))
            .collect();
        CliError::Msg(lines.join("\ntpb: error: "))
    })?;
    let directives = map
        .marks
        .into_iter()
        .filter_map(|m| match m {
            Item::Directive(d) if d.name != "engine" => Some(d),
            _ => None,
        })
        .collect();
    Ok(Program {
        name,
        gen,
        insts,
        lines: map.lines,
        sources,
        engines,
        directives,
        dir: path.parent().map(Path::to_path_buf).unwrap_or_default(),
    })
}

/// The source text of every instruction, in one buffer (a `String` per line would cost a
/// heap block and 24 bytes more each). A binary bundle has none: [`Program::source`]
/// disassembles it when a report needs it (not up front: a million-bundle program would
/// spend most of its time formatting text nobody reads).
#[derive(Clone, Debug, Default)]
pub struct Sources {
    text: String,
    /// Where each instruction's text ends in `text` (it starts where the previous ends).
    ends: Vec<usize>,
}

impl Sources {
    /// `n` instructions without text.
    fn binary(n: usize) -> Sources {
        Sources {
            text: String::new(),
            ends: vec![0; n],
        }
    }

    fn push(&mut self, line: &str) {
        self.text.push_str(line);
        self.ends.push(self.text.len());
    }

    /// Instruction `i`'s text (empty for a bundle), or `None` past the end.
    fn get(&self, i: usize) -> Option<&str> {
        let end = *self.ends.get(i)?;
        let start = i.checked_sub(1).map_or(0, |p| self.ends[p]);
        self.text.get(start..end)
    }
}

/// The engine of each instruction of an assembly: the opcode table's, checked against the
/// `.engine NAME` lines (`pe`, `act`, `pool`, `dve`, `sp`, or `auto` for the table's own).
/// Errors are (line, column, message), every one of the file.
pub fn engines_of<'d>(
    insts: &[Instruction],
    inst_lines: &[usize],
    directives: impl Iterator<Item = &'d Directive>,
    gen: Gen,
) -> Result<Vec<EngineId>, Vec<(usize, usize, String)>> {
    let mut errors = Vec::new();
    let mut asked = Vec::new();
    let mut lines = Vec::new();
    for d in directives.filter(|d| d.name == "engine") {
        let e = match d.args.trim() {
            a if a.eq_ignore_ascii_case("auto") => None,
            a => {
                match EngineId::from_name(a) {
                    Some(e) => Some(e),
                    None => {
                        errors.push((
                        d.line,
                        d.args_column,
                        format!("unknown engine `{a}`; expected one of pe, act, pool, dve, sp, auto"),
                    ));
                        continue;
                    }
                }
            }
        };
        asked.push((d.instructions_before, e));
        lines.push((d.instructions_before, d.line));
    }
    let placed = place(insts, gen, &asked).map_err(|es| {
        es.into_iter()
            .map(|e| {
                let line = inst_lines.get(e.index).copied().unwrap_or(0);
                let at = lines
                    .iter()
                    .rev()
                    .find(|l| l.0 <= e.index)
                    .map_or(0, |l| l.1);
                (
                    line,
                    1,
                    format!(
                        "{} runs on {} (opcode table), not on {} as `.engine {}` at line {at} asks",
                        e.mnemonic,
                        e.home,
                        e.asked,
                        e.asked.name()
                    ),
                )
            })
            .collect::<Vec<_>>()
    });
    match placed {
        Ok(p) if errors.is_empty() => Ok(p),
        Ok(_) => Err(errors),
        Err(mut es) => {
            errors.append(&mut es);
            errors.sort();
            Err(errors)
        }
    }
}

impl Program {
    /// Instruction `i`'s text: its source line, or the disassembly of a binary bundle.
    pub fn source(&self, i: usize) -> Option<std::borrow::Cow<'_, str>> {
        let s = self.sources.get(i)?;
        Some(if s.is_empty() {
            std::borrow::Cow::Owned(disasm(self.insts.get(i)?, self.gen))
        } else {
            std::borrow::Cow::Borrowed(s)
        })
    }

    /// A program built elsewhere (the kernel layer's emitted program): each instruction's
    /// text is its disassembly followed by `  # note` when `notes[i]` is not empty (the
    /// kernel source line that emitted it), so reports and timelines name it.
    pub fn from_parts(
        name: &str,
        gen: Gen,
        insts: Vec<Instruction>,
        engines: Vec<EngineId>,
        notes: &[String],
    ) -> Program {
        let mut sources = Sources::default();
        for (i, inst) in insts.iter().enumerate() {
            let text = disasm(inst, gen);
            match notes.get(i).filter(|n| !n.is_empty()) {
                Some(n) => sources.push(&format!("{text}  # {n}")),
                None => sources.push(&text),
            }
        }
        Program {
            name: name.into(),
            gen,
            insts,
            lines: Vec::new(),
            sources,
            engines,
            directives: Vec::new(),
            dir: PathBuf::new(),
        }
    }

    /// A program with no instructions (only `--queue` files), for `gen_flag`.
    pub fn empty(gen_flag: Option<Gen>) -> Program {
        Program {
            name: "--queue".into(),
            gen: gen_flag.unwrap_or_default(),
            insts: Vec::new(),
            lines: Vec::new(),
            sources: Sources::default(),
            engines: Vec::new(),
            directives: Vec::new(),
            dir: PathBuf::new(),
        }
    }

    /// Appends a binary queue file's instructions, all on `engine`.
    pub fn add_queue(&mut self, engine: EngineId, path: &Path) -> Result<(), CliError> {
        let loaded = InputArgs {
            file: Some(path.to_path_buf()),
            hex: None,
        }
        .open()?;
        for inst in loaded.decode_all(self.gen)? {
            let at_home = home(&inst, self.gen);
            if let Home::Only(h) | Home::Either(h, _) = at_home {
                if !at_home.allows(engine) {
                    return Err(CliError::Msg(format!(
                        "--queue {}={}: bundle #{} ({}) runs on {h} (opcode table), not on {engine}",
                        engine.name(),
                        path.display(),
                        self.insts.len(),
                        inst.info(self.gen).map_or("unknown", |r| r.mnemonic)
                    )));
                }
            }
            self.sources.push("");
            self.insts.push(inst);
            self.engines.push(engine);
        }
        Ok(())
    }

    /// `line 12: ` for text programs (empty for binaries): where instruction `i` came from.
    pub fn where_is(&self, i: usize) -> String {
        self.lines
            .get(i)
            .map_or(String::new(), |l| format!("{}:{l}: ", self.name))
    }
}
