//! What `tpb decode`, `tpb validate` and `tpb explain` share: reading the program (a FILE
//! or `--hex`), choosing generations, and the formatting all three use (bundle tags,
//! opcode labels, field rows, findings as JSON). Each command only arranges these pieces.

use super::CliError;
use serde_json::{json, Value};
use std::fmt::Write as _;
use std::fs::File;
use std::io::{BufReader, BufWriter, Cursor, Read};
use std::ops::Range;
use std::path::PathBuf;
use tpb_isa::opcode::KNOWN_UNMODELLED;
use tpb_isa::validate::Finding;
use tpb_isa::wire::DecodeError;
use tpb_isa::wire::{field::hex, BUNDLE_BYTES, INST_WORD_LEN};
use tpb_isa::{Gen, Instruction, Opcode};

/// The program to read: a FILE of flat 64-byte bundles, or `--hex`.
#[derive(clap::Args, Debug)]
pub struct InputArgs {
    /// Program binary: a flat array of 64-byte bundles.
    #[arg(value_name = "FILE")]
    pub file: Option<PathBuf>,
    /// The bundles as hex digits instead of a FILE (whitespace, `_` and a `0x` prefix on
    /// each group are ignored); one or more whole bundles.
    #[arg(long, value_name = "HEX")]
    pub hex: Option<String>,
}

/// `--gen G`: the generation to decode for (default cayman).
#[derive(clap::Args, Debug)]
pub struct GenArg {
    /// Generation: sunda, cayman, mariana or maverick (also v2..v5, trn1..trn3) [default: cayman].
    #[arg(long = "gen", value_name = "G", value_parser = parse_gen)]
    pub gen: Option<Gen>,
}

/// The `--gen` value parser shared by every subcommand.
pub fn parse_gen(s: &str) -> Result<Gen, String> {
    Gen::from_name(s).ok_or_else(|| {
        format!("unknown generation `{s}`; expected sunda, cayman, mariana or maverick")
    })
}

/// `--gen G | --all-gens`: one generation or all four.
#[derive(clap::Args, Debug)]
pub struct GensArg {
    /// The single generation.
    #[command(flatten)]
    pub gen: GenArg,
    /// Check every generation (sunda, cayman, mariana, maverick) instead of one.
    #[arg(long)]
    pub all_gens: bool,
}

impl GenArg {
    /// The chosen generation; an unknown name is a one-line error.
    pub fn resolve(&self) -> Result<Gen, CliError> {
        Ok(self.gen.unwrap_or_default())
    }
}

impl GensArg {
    /// The chosen generations, oldest first.
    pub fn resolve(&self) -> Result<Vec<Gen>, CliError> {
        match (self.all_gens, &self.gen.gen) {
            (true, Some(_)) => Err(CliError::Msg(
                "give either --gen or --all-gens, not both".into(),
            )),
            (true, None) => Ok(Gen::ALL.to_vec()),
            (false, _) => Ok(vec![self.gen.resolve()?]),
        }
    }
}

/// A loaded program: whole 64-byte bundles, not yet decoded (decoding depends on the
/// generation).
#[derive(Clone, Debug)]
pub struct Program {
    /// The raw bundles, in file order.
    pub bundles: Vec<[u8; BUNDLE_BYTES]>,
}

/// The program read one bundle at a time, so that `decode`, `validate` and `explain` hold
/// one bundle in memory whatever the file size (docs/cli-isa.md, "Limits").
pub struct Bundles {
    origin: String,
    reader: Box<dyn Read>,
    /// Bundles in the input, when known before reading (a regular file, `--hex`).
    count: Option<usize>,
    /// Bundles returned so far.
    read: usize,
}

impl InputArgs {
    /// Opens the input and checks what can be checked before reading: a regular file's size
    /// must be a nonzero multiple of 64 (decisions §1.2), so that a bad file is an input error
    /// before any output. Every failure is one line naming the path or `--hex`.
    pub fn open(&self) -> Result<Bundles, CliError> {
        let (origin, reader, len): (String, Box<dyn Read>, Option<usize>) =
            match (&self.file, &self.hex) {
                (Some(_), Some(_)) => {
                    return Err(CliError::Msg("give either FILE or --hex, not both".into()))
                }
                (None, None) => return Err(CliError::Msg("no input: give a FILE or --hex".into())),
                (Some(p), None) => {
                    let f = open_input(p).map_err(|e| CliError::io(p, e))?;
                    let meta = f.metadata().map_err(|e| CliError::io(p, e))?;
                    if meta.is_dir() {
                        return Err(CliError::Msg(format!(
                            "{}: is a directory, not a program",
                            shown_path(p)
                        )));
                    }
                    let len = meta
                        .is_file()
                        .then(|| usize::try_from(meta.len()).unwrap_or(usize::MAX));
                    (shown_path(p), Box::new(BufReader::new(f)), len)
                }
                (None, Some(h)) => {
                    let bytes = parse_hex(h)?;
                    let len = bytes.len();
                    ("--hex".to_string(), Box::new(Cursor::new(bytes)), Some(len))
                }
            };
        if let Some(len) = len {
            check_length(&origin, len)?;
        }
        Ok(Bundles {
            origin,
            reader,
            count: len.map(|l| l / BUNDLE_BYTES),
            read: 0,
        })
    }

    /// Reads the whole program (for the commands that need it at once).
    pub fn load(&self) -> Result<Program, CliError> {
        let mut bundles = Vec::new();
        let mut stream = self.open()?;
        while let Some(b) = stream.next_bundle()? {
            bundles.push(b);
        }
        Ok(Program { bundles })
    }
}

/// A program must be a nonzero whole number of bundles; the library owns the rule and its
/// message (decisions §1.2).
fn check_length(origin: &str, len: usize) -> Result<(), CliError> {
    if len == 0 {
        return Err(CliError::Msg(format!(
            "{origin}: program is empty (0 bytes); expected whole 64-byte bundles"
        )));
    }
    if !len.is_multiple_of(BUNDLE_BYTES) {
        let e = DecodeError::TrailingBytes {
            len,
            bundles: len / BUNDLE_BYTES,
            trailing: len % BUNDLE_BYTES,
        };
        return Err(CliError::Msg(format!("{origin}: {e}")));
    }
    Ok(())
}

impl Bundles {
    /// A program already read into memory (a pipe's bytes, read once), named `origin`.
    pub fn from_memory(origin: String, bytes: Vec<u8>) -> Result<Bundles, CliError> {
        check_length(&origin, bytes.len())?;
        Ok(Bundles {
            origin,
            count: Some(bytes.len() / BUNDLE_BYTES),
            reader: Box::new(Cursor::new(bytes)),
            read: 0,
        })
    }

    /// How many bundles the input holds, when known before reading.
    pub fn count(&self) -> Option<usize> {
        self.count
    }

    /// Decodes every remaining bundle for `gen`, reading one at a time; a program of more
    /// than [`MAX_PROGRAM_BYTES`] is an error (before reading, when its size is known).
    pub fn decode_all(mut self, gen: Gen) -> Result<Vec<Instruction>, CliError> {
        let max = (MAX_PROGRAM_BYTES / BUNDLE_BYTES as u64) as usize;
        if self.count.is_some_and(|c| c > max) {
            return Err(too_large(&self.origin, "a program"));
        }
        let mut insts = Vec::with_capacity(self.count.unwrap_or(0).saturating_sub(self.read));
        while let Some(b) = self.next_bundle()? {
            if insts.len() == max {
                return Err(too_large(&self.origin, "a program"));
            }
            insts.push(Instruction::decode(&b, gen));
        }
        Ok(insts)
    }

    /// The next bundle, `None` at the end. A stream that is not a regular file is checked
    /// as it is read: a partial last bundle or an empty stream is an error then.
    pub fn next_bundle(&mut self) -> Result<Option<[u8; BUNDLE_BYTES]>, CliError> {
        let mut b = [0u8; BUNDLE_BYTES];
        let mut filled = 0;
        while filled < BUNDLE_BYTES {
            match self.reader.read(&mut b[filled..]) {
                Ok(0) => break,
                Ok(n) => filled += n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(CliError::Msg(format!("{}: {e}", self.origin))),
            }
        }
        if filled == BUNDLE_BYTES {
            self.read += 1;
            return Ok(Some(b));
        }
        if filled > 0 || self.read == 0 {
            check_length(&self.origin, self.read * BUNDLE_BYTES + filled)?;
        }
        Ok(None)
    }
}

impl Program {
    /// Decodes every bundle for `gen`.
    pub fn decode(&self, gen: Gen) -> Vec<Instruction> {
        self.bundles
            .iter()
            .map(|b| Instruction::decode(b, gen))
            .collect()
    }
}

/// The most bytes of program, text or binary, that `tpb run` and `tpb asm` read: 256 MiB
/// (four million bundles), so that an endless input (`/dev/zero`) is an error, not an
/// exhausted machine.
pub const MAX_PROGRAM_BYTES: u64 = 256 << 20;

/// `NAME: more than 256 MiB, the limit for a program`.
fn too_large(origin: &str, what: &str) -> CliError {
    CliError::Msg(format!(
        "{origin}: more than {}, the limit for {what}",
        bytes_text(MAX_PROGRAM_BYTES)
    ))
}

/// `256 MiB`, `1 MiB`, `512 bytes`.
pub fn bytes_text(n: u64) -> String {
    if n >= 1 << 20 && n.is_multiple_of(1 << 20) {
        format!("{} MiB", n >> 20)
    } else {
        format!("{n} bytes")
    }
}

/// Reads all of `path` (`-`: standard input) if it holds at most `limit` bytes: a regular
/// file's size is checked before reading, anything else (a pipe, a device) is read through
/// [`Read::take`] and refused once it passes the limit. `what` names the input in the error
/// (`a program`, `a timing file`).
pub fn read_bounded(path: &std::path::Path, limit: u64, what: &str) -> Result<Vec<u8>, CliError> {
    let origin = super::shown(path);
    let over = || {
        CliError::Msg(format!(
            "{origin}: more than {}, the limit for {what}",
            bytes_text(limit)
        ))
    };
    let reader: Box<dyn Read> = if path.as_os_str() == "-" {
        Box::new(std::io::stdin().lock())
    } else {
        let f = open_input(path).map_err(|e| CliError::io(path, e))?;
        let meta = f.metadata().map_err(|e| CliError::io(path, e))?;
        if meta.is_dir() {
            return Err(CliError::Msg(format!("{origin}: is a directory")));
        }
        if meta.is_file() && meta.len() > limit {
            return Err(over());
        }
        Box::new(f)
    };
    let mut bytes = Vec::new();
    reader
        .take(limit + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| CliError::io(path, e))?;
    if bytes.len() as u64 > limit {
        return Err(over());
    }
    Ok(bytes)
}

/// Opens an input file for reading without waiting on the open: a FIFO (named pipe) that no
/// program is writing opens at once and reads as empty, where a plain open would wait
/// forever for a writer (issue 29 item 3). A pipe with a writer (`<(…)`, `/dev/stdin` fed
/// by a pipe) is read as usual, until the writer closes it; what is read is bounded by the
/// reader (a program's size limit, an `.npy` header's shape).
pub fn open_input(path: &std::path::Path) -> std::io::Result<File> {
    #[cfg(unix)]
    {
        use rustix::fs::{fcntl_getfl, fcntl_setfl, open, Mode, OFlags};
        let fd = open(
            path,
            OFlags::RDONLY | OFlags::NONBLOCK | OFlags::CLOEXEC,
            Mode::empty(),
        )?;
        // Reads block again: with a writer, a pipe waits for its data rather than failing.
        fcntl_setfl(&fd, fcntl_getfl(&fd)? - OFlags::NONBLOCK)?;
        Ok(File::from(fd))
    }
    #[cfg(not(unix))]
    File::open(path)
}

/// A path as printed in messages.
fn shown_path(p: &std::path::Path) -> String {
    p.display().to_string()
}

/// Standard output, buffered: the streaming commands write one bundle's text at a time.
pub fn stdout() -> BufWriter<std::io::StdoutLock<'static>> {
    BufWriter::new(std::io::stdout().lock())
}

/// A failed write to standard output (e.g. a closed pipe) as a one-line error.
pub fn stdout_error(e: std::io::Error) -> CliError {
    CliError::Msg(format!("standard output: {e}"))
}

/// Parses `--hex` text with the workspace's hex codec ([`tpb_isa::hex::decode`]).
pub fn parse_hex(s: &str) -> Result<Vec<u8>, CliError> {
    tpb_isa::hex::decode(s).map_err(|e| CliError::Msg(format!("--hex: {e}")))
}

/// `#N @0xOFFS`: a bundle's index and byte offset in the program.
pub fn bundle_tag(index: usize) -> String {
    format!("#{index} @{:#06x}", index * BUNDLE_BYTES)
}

/// The mnemonic, or `opaque 0xNN (what it is)` for an opcode tpb does not model on `gen`.
pub fn opcode_label(op: Opcode, gen: Gen) -> String {
    if let Some(r) = op.info(gen) {
        return r.mnemonic.to_string();
    }
    let what = match (op.row(), KNOWN_UNMODELLED.iter().find(|(v, _)| *v == op.0)) {
        (Some(r), _) => format!("{}, only on {}", r.display, r.gens),
        (None, Some((_, name))) => format!("{name}, not modelled"),
        (None, None) => "unknown".to_string(),
    };
    format!("opaque {:#04x} ({what})", op.0)
}

/// One sentence about the opcode on `gen`: name, struct, engine and maintenance flag.
pub fn opcode_summary(op: Opcode, gen: Gen) -> String {
    let Some(r) = op.info(gen) else {
        return format!(
            "{}: header, events and 52 raw body bytes",
            opcode_label(op, gen)
        );
    };
    let engine = r.engine.describe();
    let maintenance = r.maintenance.describe_on(gen);
    format!(
        "{} = {} {:#04x}, struct {}, {engine}, {maintenance}",
        r.mnemonic,
        r.display,
        op.0,
        r.kind.header_name()
    )
}

/// One row of a bundle's field table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FieldRow {
    /// Field path: the header name, plus a sub-part suffix such as `.num_elem[2]`.
    pub name: String,
    /// Byte range within the bundle.
    pub bytes: Range<usize>,
    /// The raw bytes in wire order, as lowercase hex.
    pub raw: String,
    /// The decoded value (for sub-parts: the value and its meaning).
    pub value: String,
}

/// The bundle's top-level fields (header, events, body) with their canonical text.
pub fn field_rows(inst: &Instruction, gen: Gen) -> Vec<FieldRow> {
    field_groups(inst, gen)
        .into_iter()
        .map(|g| g.field)
        .collect()
}

/// Every field, each followed by its sub-parts when it has several (the annotated dump).
/// A single-part field is one row carrying the part's meaning; verbatim bytes (reserved,
/// opaque) say `all zero` or `not all zero`, the raw column showing the bytes.
pub fn field_rows_with_parts(inst: &Instruction, gen: Gen) -> Vec<FieldRow> {
    let mut out = Vec::new();
    for g in field_groups(inst, gen) {
        match g.meaning {
            Some(meaning) => {
                let mut r = FieldRow {
                    value: meaning,
                    ..g.field
                };
                if r.value == r.raw {
                    // Verbatim bytes (reserved, opaque): say what they hold instead.
                    let zero = r.raw.bytes().all(|c| c == b'0');
                    r.value = if zero { "all zero" } else { "not all zero" }.into();
                }
                out.push(r);
            }
            None => {
                out.push(g.field);
                out.extend(g.parts);
            }
        }
    }
    out
}

/// One top-level field with its sub-fields.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FieldGroup {
    /// The field, with its canonical text.
    pub field: FieldRow,
    /// Its sub-fields (`ctrl.out_dtype`, `src.start_addr`, `num_elem[2]`, …), each with its own
    /// bytes and value; empty when the field is one value.
    pub parts: Vec<FieldRow>,
    /// For a one-value field, that value's meaning (what `explain` shows).
    pub meaning: Option<String>,
}

/// Every field of the bundle with its sub-fields (`decode --json`'s `parts`, `explain`'s rows).
pub fn field_groups(inst: &Instruction, gen: Gen) -> Vec<FieldGroup> {
    let b = inst.encode();
    let row = |name: String, bytes: Range<usize>, value: String| FieldRow {
        name,
        raw: hex(&b[bytes.clone()]),
        bytes,
        value,
    };
    let mut out = Vec::new();
    for (meta, field) in inst.fields() {
        // The validator's field paths: `header.opcode`, `events.wait_mode`, `in_dtype`.
        let name = match meta.offset {
            0..4 => format!("header.{}", meta.name),
            4..12 => format!("events.{}", meta.name),
            _ => meta.name.to_string(),
        };
        let whole = row(name.clone(), meta.range(), field.text(gen));
        let group = match field.sub_parts(gen).as_slice() {
            [(suffix, 0, size, meaning)] if suffix.is_empty() && *size == meta.size => FieldGroup {
                field: whole,
                parts: Vec::new(),
                meaning: Some(meaning.clone()),
            },
            parts => FieldGroup {
                field: whole,
                parts: parts
                    .iter()
                    .map(|(suffix, off, size, meaning)| {
                        let start = meta.offset + off;
                        row(
                            format!("{name}{suffix}"),
                            start..start + size,
                            meaning.clone(),
                        )
                    })
                    .collect(),
                meaning: None,
            },
        };
        out.push(group);
    }
    out
}

/// Whether `decode` shows a field: body fields always; header, event and reserved fields
/// only when they differ from their normal value (zero; 0x10 for `inst_word_len`). The
/// opcode is never a field there (the line's mnemonic says it).
pub fn is_notable(row: &FieldRow) -> bool {
    let housekeeping = row.bytes.start < 12 || row.name.starts_with("reserved");
    let normal = match row.name.as_str() {
        "header.opcode" => true,
        "header.inst_word_len" => row.raw == hex(&[INST_WORD_LEN]),
        _ => row.raw.bytes().all(|c| c == b'0'),
    };
    !(housekeeping && normal)
}

/// Renders rows as an aligned table: byte range, field, raw hex, value.
pub fn field_table(rows: &[FieldRow], indent: &str) -> String {
    let range = |r: &FieldRow| format!("{}..{}", r.bytes.start, r.bytes.end);
    let wr = rows
        .iter()
        .map(|r| range(r).len())
        .max()
        .unwrap_or(0)
        .max(5);
    let wn = rows.iter().map(|r| r.name.len()).max().unwrap_or(0).max(5);
    let wx = rows.iter().map(|r| r.raw.len()).max().unwrap_or(0).max(3);
    let mut s = format!(
        "{indent}{:<wr$}  {:<wn$}  {:<wx$}  value\n",
        "bytes", "field", "raw"
    );
    for r in rows {
        let _ = writeln!(
            s,
            "{indent}{:<wr$}  {:<wn$}  {:<wx$}  {}",
            range(r),
            r.name,
            r.raw,
            r.value
        );
    }
    s
}

/// A finding as JSON (keys documented in docs/cli-isa.md).
pub fn finding_json(f: &Finding) -> Value {
    json!({
        "rule": f.rule.name,
        "clause": f.rule.clause,
        "source": f.rule.source,
        "confidence": f.rule.confidence.tag(),
        "lint": f.rule.lint,
        "passed": f.passed,
        "field": f.field,
        "bytes": [f.bytes.start, f.bytes.end],
        "value": f.value,
        "allowed": f.allowed,
    })
}

/// The fields shared by every bundle object in the JSON outputs.
pub fn bundle_json(index: usize, bundle: &[u8; BUNDLE_BYTES]) -> Value {
    json!({
        "index": index,
        "offset": index * BUNDLE_BYTES,
        "opcode": format!("{:#04x}", bundle[0]),
        "hex": hex(bundle),
    })
}

/// Writes one JSON document of the form `{"bundles": [ … ], "k": v, …}` an element at a
/// time, byte for byte as `serde_json::to_string_pretty` would print the whole document
/// (its maps are sorted, so `bundles` comes first): memory holds one element, not the array.
pub struct JsonBundles<W: std::io::Write> {
    out: W,
    first: bool,
}

impl<W: std::io::Write> JsonBundles<W> {
    /// Starts the document.
    pub fn start(mut out: W) -> std::io::Result<Self> {
        out.write_all(b"{\n  \"bundles\": [")?;
        Ok(JsonBundles { out, first: true })
    }

    /// Appends one element of `bundles`.
    pub fn push(&mut self, v: &Value) -> std::io::Result<()> {
        let text = serde_json::to_string_pretty(v).expect("a Value always serialises");
        self.out
            .write_all(if self.first { b"\n" } else { b",\n" })?;
        self.first = false;
        for (i, line) in text.lines().enumerate() {
            if i > 0 {
                self.out.write_all(b"\n")?;
            }
            write!(self.out, "    {line}")?;
        }
        Ok(())
    }

    /// Ends the array, then writes the remaining keys (each sorted after `bundles`).
    pub fn finish(mut self, rest: &[(&str, Value)]) -> std::io::Result<()> {
        self.out
            .write_all(if self.first { b"]" } else { b"\n  ]" })?;
        for (k, v) in rest {
            let text = serde_json::to_string_pretty(v).expect("a Value always serialises");
            write!(self.out, ",\n  {}: ", Value::from(*k))?;
            for (i, line) in text.lines().enumerate() {
                if i > 0 {
                    write!(self.out, "\n  ")?;
                }
                self.out.write_all(line.as_bytes())?;
            }
        }
        self.out.write_all(b"\n}\n")?;
        self.out.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_ignores_separators_and_prefixes() {
        assert_eq!(
            parse_hex("0x0a_Bc 0X01\n ff").unwrap(),
            [0x0a, 0xbc, 0x01, 0xff]
        );
    }

    #[test]
    fn hex_errors_name_the_character() {
        let e = parse_hex("00 0g").unwrap_err().to_string();
        assert_eq!(e, "--hex: `g` at position 5 is not a hex digit");
        assert!(parse_hex("abc")
            .unwrap_err()
            .to_string()
            .contains("3 hex digits"));
        assert!(parse_hex(" _ ").is_err());
        assert!(parse_hex("a0x1").is_err(), "0x only as a group prefix");
    }
}
