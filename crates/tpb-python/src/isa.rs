//! The ISA surface: `Instruction`, `decode`, `validate`, `asm`, `disasm`, `pack`.

use crate::args;
use crate::errors::{raise, raise_with, ErrorKind};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyTuple};
use tpb_isa::geometry::Space;
use tpb_isa::pack::{pack as pack_compact, pack_explicit, AccessPattern, Dim, DimOrder, Packed};
use tpb_isa::text::{self, AsmOptions};
use tpb_isa::validate::{self as isa_validate, Finding as IsaFinding};
use tpb_isa::wire::{decode_program, Field};
use tpb_isa::{Gen, Instruction as IsaInstruction};

/// Parses a generation name (`sunda`, `cayman`, `mariana`, `maverick`, or `trn2`, `v3`, …).
pub fn parse_gen(name: &str) -> PyResult<Gen> {
    Gen::from_name(name).ok_or_else(|| {
        raise(
            ErrorKind::Usage,
            format!(
                "unknown generation {name:?}; expected one of sunda, cayman, mariana, maverick"
            ),
        )
    })
}

/// Parses `sbuf` / `psum`.
pub fn parse_space(name: &str) -> PyResult<Space> {
    match name.to_ascii_lowercase().as_str() {
        "sbuf" => Ok(Space::Sbuf),
        "psum" => Ok(Space::Psum),
        "hbm" | "private_hbm" | "shared_hbm" => Ok(Space::Hbm),
        _ => Err(raise(
            ErrorKind::Usage,
            format!("unknown buffer {name:?}; expected \"sbuf\", \"psum\" or \"hbm\""),
        )),
    }
}

/// One 64-byte TPB instruction bundle, decoded for a generation.
#[pyclass(module = "tpb._tpb", name = "Instruction", frozen, eq)]
#[derive(Clone, PartialEq)]
pub struct Instruction {
    pub inst: IsaInstruction,
    pub gen: Gen,
}

#[pymethods]
impl Instruction {
    /// Decodes exactly 64 bytes (total and lossless: any 64 bytes decode).
    #[staticmethod]
    #[pyo3(signature = (data, gen = "cayman"))]
    fn decode(data: &[u8], gen: &str) -> PyResult<Instruction> {
        let gen = parse_gen(gen)?;
        let inst = IsaInstruction::decode_slice(data, gen)
            .map_err(|e| raise(ErrorKind::Usage, format!("Instruction.decode: {e}")))?;
        Ok(Instruction { inst, gen })
    }

    /// The opcode byte.
    #[getter]
    fn opcode(&self) -> u8 {
        self.inst.opcode().0
    }

    /// The assembler mnemonic (`affine_select`, …), or `unknown` for an opcode tpb does not
    /// model on this generation.
    #[getter]
    fn mnemonic(&self) -> &'static str {
        self.inst.info(self.gen).map_or("unknown", |r| r.mnemonic)
    }

    /// The generation it was decoded or built for.
    #[getter]
    fn gen(&self) -> &'static str {
        self.gen.name()
    }

    /// The 64 bytes.
    fn encode<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.inst.encode())
    }

    /// Every field as (name, (start, end) byte range, value text), header first.
    fn fields(&self) -> Vec<(String, (usize, usize), String)> {
        self.inst
            .fields()
            .into_iter()
            .map(|(meta, f)| {
                let range = (meta.offset, meta.offset + meta.size);
                (meta.name.to_string(), range, f.text(self.gen))
            })
            .collect()
    }

    fn __str__(&self) -> String {
        text::disasm(&self.inst, self.gen)
    }

    fn __repr__(&self) -> String {
        format!("<tpb.Instruction {} ({})>", self.__str__(), self.gen)
    }

    fn __bytes__<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        self.encode(py)
    }

    fn __hash__(&self) -> u64 {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        self.inst.encode().hash(&mut h);
        self.gen.name().hash(&mut h);
        h.finish()
    }
}

/// One failed (or lint) validation rule.
#[pyclass(module = "tpb._tpb", name = "Finding", frozen, get_all)]
#[derive(Clone)]
pub struct Finding {
    /// The header predicate, e.g. `has_valid_src_slices_tsm_singular`.
    rule: &'static str,
    /// What the clause requires.
    clause: &'static str,
    /// Field path, e.g. `src_mem_pattern.num_elem[3]`.
    field: String,
    /// (start, end) bytes within the bundle.
    byte_range: (usize, usize),
    /// The offending value.
    value: String,
    /// The allowed values.
    allowed: String,
    /// Where the rule comes from.
    source: &'static str,
    /// HIGH/OBSERVED, MED/INFERRED or ASSUMED.
    confidence: &'static str,
    /// A lint is reported but does not make the bundle invalid.
    lint: bool,
    text: String,
}

#[pymethods]
impl Finding {
    fn __str__(&self) -> String {
        self.text.clone()
    }

    /// Pickles as a plain record with the same attributes (`tpb._errors`), so that an error
    /// carrying findings crosses `multiprocessing` (issue 20 item 16).
    fn __reduce__<'py>(
        &self,
        py: Python<'py>,
    ) -> PyResult<(Bound<'py, PyAny>, (Bound<'py, PyDict>,))> {
        let d = PyDict::new(py);
        d.set_item("rule", self.rule)?;
        d.set_item("clause", self.clause)?;
        d.set_item("field", &self.field)?;
        d.set_item("byte_range", self.byte_range)?;
        d.set_item("value", &self.value)?;
        d.set_item("allowed", &self.allowed)?;
        d.set_item("source", self.source)?;
        d.set_item("confidence", self.confidence)?;
        d.set_item("lint", self.lint)?;
        d.set_item("text", &self.text)?;
        Ok((py.import("tpb._errors")?.getattr("_finding")?, (d,)))
    }
    fn __repr__(&self) -> String {
        format!("<tpb.Finding {}: {}>", self.rule, self.text)
    }
}

impl From<&IsaFinding> for Finding {
    fn from(f: &IsaFinding) -> Finding {
        Finding {
            rule: f.rule.name,
            clause: f.rule.clause,
            field: f.field.clone(),
            byte_range: (f.bytes.start, f.bytes.end),
            value: f.value.clone(),
            allowed: f.allowed.clone(),
            source: f.rule.source,
            confidence: f.rule.confidence.tag(),
            lint: f.rule.lint,
            text: f.to_string(),
        }
    }
}

/// Every failure (and, with `lints`, every lint) of a validator report.
pub fn findings(report: &isa_validate::Report, lints: bool) -> Vec<Finding> {
    report
        .findings
        .iter()
        .filter(|f| !f.passed && (lints || !f.rule.lint))
        .map(Finding::from)
        .collect()
}

/// An `Instruction`, 64 bytes, or anything `bytes()` accepts, as an instruction for `gen`.
/// An instruction or program for another generation than `want` is refused, as `tpb run`
/// refuses a `.gen` that disagrees with `--gen` (issue 20 item 13): encodings, opcode
/// tables and address maps differ between generations.
pub fn check_gen(got: Gen, want: Gen, what: &str) -> PyResult<()> {
    if got != want {
        return Err(raise(
            ErrorKind::Usage,
            format!(
                "{what} is for {got}, not {want}: encodings and address maps differ between \
                 generations (decode or assemble it for {want})"
            ),
        ));
    }
    Ok(())
}

/// A `tpb.Instruction`'s instruction, which must be for `gen`.
fn instruction_for(i: &Instruction, gen: Gen) -> PyResult<IsaInstruction> {
    if i.gen != gen {
        // The message disassembles: only on the way out, never per step.
        let what = format!("instruction `{}`", text::disasm(&i.inst, i.gen));
        check_gen(i.gen, gen, &what)?;
    }
    Ok(i.inst)
}

/// Every instruction of an assembly is for `gen` (a `.gen` line may say otherwise).
fn check_assembly_gen(a: &text::Assembly, gen: Gen) -> PyResult<()> {
    match a.instructions().find(|s| s.gen != gen) {
        Some(s) => check_gen(
            s.gen,
            gen,
            &format!("the program (`.gen {}`, line {})", s.gen, s.line),
        ),
        None => Ok(()),
    }
}

pub fn instruction_arg(obj: &Bound<'_, PyAny>, gen: Gen) -> PyResult<IsaInstruction> {
    if let Ok(i) = obj.cast::<Instruction>() {
        return instruction_for(i.get(), gen);
    }
    let data: Vec<u8> = obj
        .extract::<Vec<u8>>()
        .or_else(|_| obj.call_method0("__bytes__").and_then(|b| b.extract()))
        .map_err(|_| {
            raise(
                ErrorKind::Usage,
                "expected a tpb.Instruction or 64 bytes".to_string(),
            )
        })?;
    IsaInstruction::decode_slice(&data, gen).map_err(|e| raise(ErrorKind::Usage, e.to_string()))
}

/// Decodes n×64 bytes into a list of instructions.
#[pyfunction]
#[pyo3(signature = (data, gen = "cayman"))]
pub fn decode(data: &[u8], gen: &str) -> PyResult<Vec<Instruction>> {
    let gen = parse_gen(gen)?;
    let insts = decode_program(data, gen).map_err(|e| raise(ErrorKind::Usage, e.to_string()))?;
    Ok(insts
        .into_iter()
        .map(|inst| Instruction { inst, gen })
        .collect())
}

/// Validates one instruction for `gen`: the failing rules (empty when valid).
#[pyfunction]
#[pyo3(signature = (inst, gen = "cayman", lints = false))]
pub fn validate(inst: &Bound<'_, PyAny>, gen: &str, lints: bool) -> PyResult<Vec<Finding>> {
    let gen = parse_gen(gen)?;
    let i = instruction_arg(inst, gen)?;
    Ok(findings(&isa_validate::validate(&i, gen), lints))
}

/// Assembles text into bundles; every error of the text raises one `tpb.AsmError`.
pub fn assemble(text_src: &str, gen: Gen, check: bool) -> PyResult<Vec<IsaInstruction>> {
    let a = text::asm(text_src, &AsmOptions::new(gen)).map_err(asm_error)?;
    if check {
        let mut errors = Vec::new();
        for s in a.instructions() {
            // The verdict first (no allocation); the report only for a failing instruction.
            if isa_validate::is_valid(&s.inst, s.gen) {
                continue;
            }
            let r = isa_validate::validate(&s.inst, s.gen);
            for f in r.failures() {
                errors.push((s.line, 1usize, f.to_string()));
            }
        }
        if !errors.is_empty() {
            let msg = format!(
                "{} validation failure(s):\n{}",
                errors.len(),
                errors
                    .iter()
                    .map(|(l, _, m)| format!("line {l}: {m}"))
                    .collect::<Vec<_>>()
                    .join("\n")
            );
            return Err(raise_with(ErrorKind::Asm, msg, move |kw| {
                kw.set_item("errors", errors)
            }));
        }
    }
    Ok(a.insts())
}

/// Assembles `tpb asm` text into bundle bytes.
#[pyfunction]
#[pyo3(signature = (text, gen = "cayman", validate = true))]
pub fn asm<'py>(
    py: Python<'py>,
    text: &str,
    gen: &str,
    validate: bool,
) -> PyResult<Bound<'py, PyBytes>> {
    let insts = assemble(text, parse_gen(gen)?, validate)?;
    let bytes: Vec<u8> = insts.iter().flat_map(|i| i.encode()).collect();
    Ok(PyBytes::new(py, &bytes))
}

/// A program for `Machine.run`: instructions, and the `.reg N = VALUE` lines of its text
/// (as `tpb run` and `Core.disasm()` write them) as (instructions before it, register, bits).
pub struct Program {
    pub insts: Vec<IsaInstruction>,
    pub registers: Vec<(usize, usize, u32)>,
}

/// A `.reg` line's arguments, read by the parser `tpb run` uses (`N = VALUE`, `N VALUE`,
/// `rN`, `reg[N]`; the value an integer, `0x` bits or an fp32 literal).
fn reg_directive(args: &str) -> Result<(usize, u32), String> {
    text::directive::parse_reg(args).map_err(|e| format!("`.reg {args}`: {e}"))
}

/// [`program_arg`] for `Machine.run`: assembly text may also carry `.reg` lines.
pub fn run_program_arg(obj: &Bound<'_, PyAny>, gen: Gen) -> PyResult<Program> {
    let Ok(src) = obj.extract::<String>() else {
        return Ok(Program {
            insts: program_arg(obj, gen)?,
            registers: Vec::new(),
        });
    };
    let a = text::asm(&src, &AsmOptions::new(gen).allow_directive("reg")).map_err(asm_error)?;
    check_assembly_gen(&a, gen)?;
    let mut registers = Vec::new();
    let mut errors = Vec::new();
    for d in a.directives() {
        match reg_directive(&d.args) {
            Ok((n, bits)) => registers.push((d.instructions_before, n, bits)),
            Err(m) => errors.push((d.line, d.args_column, m)),
        }
    }
    if !errors.is_empty() {
        let msg = format!("{} assembly error(s): {}", errors.len(), errors[0].2);
        return Err(raise_with(ErrorKind::Asm, msg, move |kw| {
            kw.set_item("errors", errors)
        }));
    }
    Ok(Program {
        insts: a.insts(),
        registers,
    })
}

/// Every assembler error as one `tpb.AsmError`.
fn asm_error(errs: tpb_isa::text::AsmErrors) -> PyErr {
    let list: Vec<(usize, usize, String)> = errs
        .iter()
        .map(|e| (e.line, e.column, e.message.clone()))
        .collect();
    let msg = format!("{} assembly error(s):\n{errs}", errs.len());
    raise_with(ErrorKind::Asm, msg, move |kw| kw.set_item("errors", list))
}

/// Disassembles n×64 bytes (or a list of instructions) into canonical text.
#[pyfunction]
#[pyo3(signature = (data, gen = "cayman"))]
pub fn disasm(data: &Bound<'_, PyAny>, gen: &str) -> PyResult<String> {
    let gen = parse_gen(gen)?;
    let insts = program_arg(data, gen)?;
    Ok(text::disasm_program(&insts, gen))
}

/// A program argument: assembly text, bundle bytes, or a list of instructions / bundles.
pub fn program_arg(obj: &Bound<'_, PyAny>, gen: Gen) -> PyResult<Vec<IsaInstruction>> {
    if let Ok(s) = obj.extract::<String>() {
        let a = text::asm(&s, &AsmOptions::new(gen)).map_err(asm_error)?;
        check_assembly_gen(&a, gen)?;
        return Ok(a.insts());
    }
    if let Ok(b) = obj.cast::<PyBytes>() {
        return decode_program(b.as_bytes(), gen)
            .map_err(|e| raise(ErrorKind::Usage, e.to_string()));
    }
    if let Ok(i) = obj.cast::<Instruction>() {
        return Ok(vec![instruction_for(i.get(), gen)?]);
    }
    if obj.is_instance_of::<PyList>() || obj.is_instance_of::<PyTuple>() {
        return obj
            .try_iter()?
            .map(|item| instruction_arg(&item?, gen))
            .collect();
    }
    if let Ok(b) = obj.extract::<Vec<u8>>() {
        return decode_program(&b, gen).map_err(|e| raise(ErrorKind::Usage, e.to_string()));
    }
    Err(raise(
        ErrorKind::Usage,
        "expected assembly text, bundle bytes, or a list of tpb.Instruction".to_string(),
    ))
}

/// The result of `tpb.pack`: a packed TENSOR{N}D and what the instruction carries beside it.
#[pyclass(module = "tpb._tpb", name = "Packed", frozen, get_all)]
pub struct PackedPy {
    /// The descriptor's wire bytes (4 + 4N).
    bytes: Py<PyBytes>,
    /// `TENSOR4D`, …
    kind: String,
    /// The descriptor as text, `sbuf[p0]+0x400:[[1,64],[64,2],[1,1],[1,1]]`.
    descriptor: String,
    /// The ADDR4 start address word.
    start_addr: u32,
    /// Steps per slot, slot 0 innermost.
    step_elem: Vec<i16>,
    /// Counts per slot.
    num_elem: Vec<u16>,
    /// The partition count (`num_active_channels`).
    num_active_channels: u8,
    /// Partition dim + free dims with num != 1.
    active_dims: usize,
    /// Per slot, the `Pattern` index stored there (1 = outermost free dim), or None (fill).
    slots: Vec<Option<usize>>,
}

#[pymethods]
impl PackedPy {
    fn __repr__(&self) -> String {
        format!(
            "<tpb.Packed {} {} channels={} active_dims={}>",
            self.kind, self.descriptor, self.num_active_channels, self.active_dims
        )
    }
}

fn packed_py<const N: usize>(
    py: Python<'_>,
    gen: Gen,
    ap: &AccessPattern,
    explicit: bool,
) -> PyResult<PackedPy> {
    let p: Packed<N> = if explicit {
        pack_explicit::<N>(gen, ap)
    } else {
        pack_compact::<N>(gen, ap)
    }
    .map_err(|e| raise(ErrorKind::Usage, e.to_string()))?;
    Ok(PackedPy {
        bytes: PyBytes::new(py, &p.bytes()).unbind(),
        kind: format!("TENSOR{N}D"),
        descriptor: p.tensor.to_text(gen),
        start_addr: p.tensor.start_addr.0,
        step_elem: p.tensor.step_elem.to_vec(),
        num_elem: p.tensor.num_elem.to_vec(),
        num_active_channels: p.num_active_channels,
        active_dims: p.active_dims,
        slots: p.slot_source.to_vec(),
    })
}

/// The compiler's access-pattern packer (seed 001), as `tpb pack`: `partitions` is a count
/// from `start_partition`, a `(start, end)` pair or a `range`; `dims` are `[step, num]`
/// pairs, outermost first as NKI writes them.
#[pyfunction]
#[pyo3(
    signature = (partitions, offset, dims, nd = None, space = "sbuf", gen = "cayman", explicit = false, start_partition = None, partition_step = None),
    text_signature = "(partitions, offset, dims, nd=4, space='sbuf', gen='cayman', explicit=False, start_partition=0, partition_step=1)"
)]
#[allow(clippy::too_many_arguments)]
pub fn pack(
    py: Python<'_>,
    partitions: &Bound<'_, PyAny>,
    offset: &Bound<'_, PyAny>,
    dims: &Bound<'_, PyAny>,
    nd: Option<&Bound<'_, PyAny>>,
    space: &str,
    gen: &str,
    explicit: bool,
    start_partition: Option<&Bound<'_, PyAny>>,
    partition_step: Option<&Bound<'_, PyAny>>,
) -> PyResult<PackedPy> {
    let gen = parse_gen(gen)?;
    let space = parse_space(space)?;
    let offset: u64 = args::int(offset, "offset")?;
    let dims = args::pattern(dims, "dims")?;
    let nd: usize = args::int_or(nd, "nd", 4)?;
    let start_partition: u32 = args::int_or(start_partition, "start_partition", 0)?;
    let partition_step: i64 = args::int_or(partition_step, "partition_step", 1)?;
    let (start, count) = if let Ok(r) = partitions.cast::<pyo3::types::PyRange>() {
        let a: u32 = args::int(&r.getattr("start")?, "partitions.start")?;
        let b: i64 = args::int(&r.getattr("stop")?, "partitions.stop")?;
        let step: i64 = args::int(&r.getattr("step")?, "partitions.step")?;
        // A TENSOR's channels are consecutive partitions (num_active_channels from the
        // start partition); a step is not encodable (issue 20 item 17).
        if step != 1 {
            return Err(raise(
                ErrorKind::Usage,
                format!(
                    "partitions={}: a packed access covers consecutive partitions \
                     (num_active_channels from its start), so a range step of {step} cannot be \
                     encoded; pass range({a}, {b})",
                    partitions.repr()?
                ),
            ));
        }
        (a, b - i64::from(a))
    } else if args::is_int(partitions) {
        (start_partition, args::int(partitions, "partitions")?)
    } else if let Ok(t) = partitions.cast::<PyTuple>() {
        if t.len() != 2 {
            return Err(raise(
                ErrorKind::Usage,
                format!("partitions={}: expected a (start, end) pair", t.repr()?),
            ));
        }
        let a: u32 = args::int(&t.get_item(0)?, "partitions start")?;
        let b: i64 = args::int(&t.get_item(1)?, "partitions end")?;
        (a, b - i64::from(a))
    } else {
        return Err(raise(
            ErrorKind::Usage,
            "partitions: expected a count, a (start, end) pair or a range".to_string(),
        ));
    };
    let mut ap = AccessPattern::new(space, start, count, offset)
        .with_free(dims.into_iter().map(Dim::from), DimOrder::OutermostFirst);
    ap.partition = Dim::new(partition_step, count);
    match nd {
        1 => packed_py::<1>(py, gen, &ap, explicit),
        2 => packed_py::<2>(py, gen, &ap, explicit),
        3 => packed_py::<3>(py, gen, &ap, explicit),
        4 => packed_py::<4>(py, gen, &ap, explicit),
        _ => Err(raise(
            ErrorKind::Usage,
            format!("nd={nd}: a TENSOR{{N}}D has N in 1..=4"),
        )),
    }
}

/// `_geometry(gen)`: the memory geometry of a generation (`tpb_isa::geometry::Geometry`,
/// docs/library.md): partitions and the active SBUF / PSUM bytes per partition. Read by
/// `nl.tile_size`'s SBUF fields.
#[pyfunction]
#[pyo3(name = "_geometry")]
pub fn geometry(gen: &str) -> PyResult<Vec<(&'static str, u32)>> {
    let g = tpb_isa::geometry::Geometry::of(parse_gen(gen)?);
    Ok(vec![
        ("partitions", g.partitions),
        ("sbuf_partition_bytes", g.sbuf_active_bytes),
        ("psum_partition_bytes", g.psum_active_bytes),
    ])
}
