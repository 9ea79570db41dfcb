//! `tpb run PROGRAM`: execute a program on the reference simulator with `.npy` inputs and
//! outputs bound to memory regions, registers set, and bit-exact expectations checked.
//!
//! ```text
//! $ tpb run examples/causal_mask.tpb
//! ```
//!
//! Bindings come from the program's directives (`.in`, `.out`, `.reg`, `.expect`, `.show`,
//! `.dtype`) and from the flags of the same names (syntax in [`bind`], regions in
//! [`region`]). A directive acts at its place in the program: before the instruction that
//! follows it. Flags `--in`/`--reg` act before the first instruction (after the directives
//! there, so they win), and `--out`/`--expect`/`--show` after the last. Every file is read and
//! every region checked before the first instruction runs.
//!
//! Exit status: 0 when the run completes and every expectation holds; 1 when an instruction
//! faults (the message names its index, opcode, source line and cause) or an expectation
//! fails (the message gives the first differing element and how many differ); 2 for usage
//! and input errors (one line on stderr). The full reference is docs/cli-run.md.

pub mod bind;
pub mod check;
pub mod data;
pub mod engine_text;
pub mod engines;
pub mod outputs;
pub mod program;
use tpb_sim::region;
pub mod show;
pub mod timeline;
pub mod value;

use super::input::GenArg;
use super::{say, tell, CliError};
use crate::npy::NpyStyle;
use bind::{Binding, Origin, Paths, Want};
use outputs::RunFiles;
use program::Program;
use region::{parse_dtype, BoundRegion as Bound, RegionSpec};
use serde_json::json;
use show::Picture;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use tpb_isa::wire::descriptor::f32_text;
use tpb_isa::Dtype;
use tpb_sim::numerics::{E4m3Variant, Fp8Config};
use tpb_sim::{Config, Machine, StepReport, Warning};

/// At most this many warnings are listed in the report (all are counted).
const MAX_LISTED_WARNINGS: usize = 20;

/// Arguments of `tpb run`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The program: assembly text (`.tpb`, with directives) or a binary of 64-byte bundles.
    #[arg(value_name = "PROGRAM")]
    pub program: Option<PathBuf>,
    /// A binary program as hex digits instead of PROGRAM.
    #[arg(long, value_name = "HEX")]
    pub hex: Option<String>,
    /// The generation.
    #[command(flatten)]
    pub gen: GenArg,
    /// Load an .npy file into a region before the first instruction (repeatable).
    #[arg(long = "in", value_name = "FILE.npy@REGION")]
    pub inputs: Vec<String>,
    /// Save a region as an .npy file in --out-dir after the last instruction (repeatable).
    #[arg(long = "out", value_name = "REGION@FILE.npy")]
    pub outputs: Vec<String>,
    /// Check a region bit for bit after the last instruction (repeatable).
    #[arg(long, value_name = "REGION==FILE.npy|[v,…]")]
    pub expect: Vec<String>,
    /// Print a region's top-left corner after the last instruction (repeatable).
    #[arg(long, value_name = "REGION [RxC] [mark=V]")]
    pub show: Vec<String>,
    /// Set a register before the first instruction: an integer, 0x bits or an fp32 literal.
    #[arg(long = "reg", value_name = "N=VALUE")]
    pub regs: Vec<String>,
    /// Element type of input files whose region names none and whose file cannot say it
    /// (ml_dtypes V2/V1 blobs).
    #[arg(long, value_name = "DTYPE")]
    pub dtype: Option<String>,
    /// Print one line per instruction: index, mnemonic, elements, bytes written, warnings.
    #[arg(long)]
    pub trace: bool,
    /// Make every warning (uninitialised read, loader mismatch, firmware stub) a fault.
    #[arg(long)]
    pub strict: bool,
    /// Make every result that is not exact a fault: a Matmul (exact only per tpb's documented
    /// summation order) or an ACT/DVE function the hardware computes from unpublished tables.
    #[arg(long)]
    pub strict_exact: bool,
    /// FP8 outputs saturate to ±max instead of overflowing to ±inf/NaN.
    #[arg(long)]
    pub fp8_ocp_sat: bool,
    /// The FP8_EXP4 encoding: IEEE-like (max 240) or finite-only (`fn`, max 448).
    #[arg(long, value_enum, default_value_t = E4m3Arg::Ieee, value_name = "VARIANT")]
    pub fp8_e4m3: E4m3Arg,
    /// Run ImmLd/PtrMulti as the shipped log-only firmware stubs (cayman and later).
    #[arg(long)]
    pub firmware_stubs: bool,
    /// Directory for output files (relative --out/.out paths) [default: out].
    #[arg(long, value_name = "DIR")]
    pub out_dir: Option<PathBuf>,
    /// The run's budget in elements processed (all instructions, all channels); an
    /// instruction that would pass it is a fault.
    #[arg(long, value_name = "N", default_value_t = tpb_sim::DEFAULT_MAX_RUN_ELEMENTS)]
    pub max_run_elements: u64,
    /// The size of device memory (HBM) in bytes (default 1 GiB, at most 64 GiB; pages are
    /// allocated when written). A DMA or host access past it is refused.
    #[arg(long, value_name = "BYTES", default_value_t = tpb_sim::DEFAULT_HBM_BYTES,
          value_parser = clap::value_parser!(u64).range(1..=tpb_sim::MAX_HBM_BYTES))]
    pub hbm_bytes: u64,
    /// Let the program's `.out` directives write outside --out-dir (absolute or `..` paths).
    #[arg(long)]
    pub allow_outside_out_dir: bool,
    /// How bfloat16/fp8 outputs are stored: `bits` (<u2/|u1, loads in any numpy) or
    /// `ml-dtypes` (<V2/|V1 blobs as ml_dtypes writes them).
    #[arg(long, value_enum, default_value_t = StyleArg::Bits, value_name = "STYLE")]
    pub npy_style: StyleArg,
    /// Threads a large instruction is spread over (0: every core, the default); results
    /// are bit-identical whatever the count.
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub threads: usize,
    /// Run the program as one in-order stream (no engines, no timing, no race detection).
    #[arg(long)]
    pub serial: bool,
    /// Add a binary program as the queue of one engine (pe, act, pool, dve, sp; repeatable).
    #[arg(long = "queue", value_name = "ENGINE=FILE.bin")]
    pub queues: Vec<String>,
    /// Exit 0 even when races are found (they are still reported).
    #[arg(long)]
    pub allow_races: bool,
    /// Write the run's timeline: `.json` (Chrome trace events, for Perfetto) or `.svg`
    /// (a Gantt chart); repeatable.
    #[arg(long, value_name = "FILE.json|FILE.svg")]
    pub timeline: Vec<PathBuf>,
    /// Override a timing-model constant (repeatable; see docs/reference/assumptions.md).
    #[arg(long = "timing", value_name = "NAME=VALUE")]
    pub timing: Vec<String>,
    /// Read timing-model overrides from a file of `NAME = VALUE` lines.
    #[arg(long, value_name = "FILE")]
    pub timing_file: Option<PathBuf>,
}

impl Args {
    /// `--out-dir`, or its default `out`.
    pub fn out_dir(&self) -> &Path {
        self.out_dir
            .as_deref()
            .unwrap_or(Path::new(outputs::DEFAULT_OUT_DIR))
    }
}

/// `--fp8-e4m3`.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum E4m3Arg {
    /// IEEE-like E4M3 (ml_dtypes float8_e4m3): ±240, inf and NaNs.
    Ieee,
    /// Finite-only E4M3 (ml_dtypes float8_e4m3fn): ±448, one NaN.
    Fn,
}

/// `--npy-style`.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum StyleArg {
    /// Unsigned-integer bit views.
    Bits,
    /// ml_dtypes raw blobs.
    MlDtypes,
}

/// A binding ready to perform: files read, regions bound.
enum Action {
    /// The file was read and checked while planning, then dropped: it is read again when
    /// the action runs, so a run holds one input file in memory at a time, not all of them.
    In {
        bound: Bound,
        file: PathBuf,
        region: RegionSpec,
        default_dtype: Option<Dtype>,
    },
    Out {
        bound: Bound,
        file: PathBuf,
    },
    Reg {
        index: usize,
        value: u32,
    },
    Expect {
        bound: Bound,
        want: Expected,
        /// How the report names what is expected: the file, or an excerpt of the values.
        source: String,
    },
    Show {
        bound: Bound,
        pic: Picture,
    },
    ShowFlops {
        channels: std::ops::Range<u32>,
    },
}

/// What an expectation compares with.
enum Expected {
    /// A file, read and checked while planning, then dropped, and read again when the
    /// expectation acts (as [`Action::In`]): a run holds one expected file at a time.
    File {
        file: PathBuf,
        region: RegionSpec,
        default_dtype: Option<Dtype>,
    },
    /// Inline values, as element bytes.
    Bits(Vec<u8>),
}

/// At most this many inline `.expect` values are quoted in the report.
const QUOTED_VALUES: usize = 8;

/// `[1, 2, 3]`, or `[1, 2, …, 8] (100000 values)` past [`QUOTED_VALUES`]: each value cut
/// at 24 characters, so the report stays a line whatever the program holds.
fn values_excerpt(values: &[String]) -> String {
    let cut = |v: &String| match v.char_indices().nth(24) {
        Some((i, _)) => format!("{}…", &v[..i]),
        None => v.clone(),
    };
    let shown: Vec<String> = values.iter().take(QUOTED_VALUES).map(cut).collect();
    if values.len() > QUOTED_VALUES {
        format!("[{}, …] ({} values)", shown.join(", "), values.len())
    } else {
        format!("[{}]", shown.join(", "))
    }
}

/// An action, where it acts (the number of instructions before it) and where it came from.
struct Planned {
    at: usize,
    origin: Origin,
    action: Action,
}

/// What the run has found so far.
#[derive(Default)]
struct Tally {
    passed: usize,
    failed: Vec<String>,
    outputs: Vec<serde_json::Value>,
}

/// The run's totals for the closing lines: kept as the run goes, so that a run holds no
/// report per instruction (a million-instruction program would keep ~160 bytes each).
#[derive(Default)]
struct Totals {
    instructions: usize,
    elements: u64,
    bytes_written: u64,
    /// The first [`MAX_LISTED_WARNINGS`] warnings (all are counted).
    warnings: Vec<Warning>,
    warning_count: usize,
}

impl Totals {
    fn add(&mut self, step: &StepReport) {
        self.instructions += 1;
        self.elements += step.elements;
        self.bytes_written += step.bytes_written;
        self.warning_count += step.warnings.len();
        let room = MAX_LISTED_WARNINGS - self.warnings.len();
        self.warnings
            .extend(step.warnings.iter().take(room).cloned());
    }
}

/// Runs `tpb run`.
pub fn run(args: Args) -> Result<ExitCode, CliError> {
    let gen_flag = match &args.gen.gen {
        Some(_) => Some(args.gen.resolve()?),
        None => None,
    };
    let program = if args.program.is_none() && args.hex.is_none() && !args.queues.is_empty() {
        Program::empty(gen_flag)
    } else {
        program::load(args.program.as_deref(), args.hex.as_deref(), gen_flag)?
    };
    let program = engines::with_queues(&args, program)?;
    let fp8 = Fp8Config {
        ocp_sat: args.fp8_ocp_sat,
        e4m3: match args.fp8_e4m3 {
            E4m3Arg::Ieee => E4m3Variant::Ieee,
            E4m3Arg::Fn => E4m3Variant::FiniteOnly,
        },
    };
    check_threads(args.threads)?;
    let mut config = Config::new(program.gen);
    config.fp8 = fp8;
    config.strict = args.strict;
    config.strict_exact = args.strict_exact;
    config.firmware_stubs = args.firmware_stubs;
    config.max_run_elements = args.max_run_elements;
    config.hbm_bytes = args.hbm_bytes;
    config.threads = args.threads;
    if args.threads > 1 {
        // The pool itself gets that many threads too (by default it has one per core). It
        // can only fail if a pool exists already, and then that pool serves.
        let _ = rayon::ThreadPoolBuilder::new()
            .num_threads(args.threads)
            .build_global();
    }
    let style = match args.npy_style {
        StyleArg::Bits => NpyStyle::BitView,
        StyleArg::MlDtypes => NpyStyle::MlDtypes,
    };
    let mut machine = Machine::new(config);
    let plan = plan(&args, &program, &fp8, &machine)?;
    if !args.serial {
        match engines::mid_program(&program, &plan) {
            None => return engines::run(&args, &program, machine, &plan, &fp8, style),
            Some(why) if args.timeline.is_empty() => {
                say!("mode     one in-order stream (as --serial): {why}")?
            }
            Some(why) => {
                return Err(CliError::Msg(format!(
                    "--timeline needs the engine model, but {why}; move it to the start or \
                     the end of the program"
                )))
            }
        }
    }

    let n = program.insts.len();
    say!(
        "program  {} ({}, {n} instruction{})",
        super::shown(Path::new(&program.name)),
        program.gen,
        plural(n)
    )?;
    let mut tally = Tally::default();
    let mut totals = Totals::default();
    // Dropped unless committed: a run that stops early writes none of its files.
    let mut files = RunFiles::default();
    let mut next = plan.iter().peekable();
    for p in 0..=n {
        while let Some(a) = next.next_if(|a| a.at == p) {
            perform(&mut machine, a, n, &fp8, style, &mut tally, &mut files)?;
        }
        let Some(inst) = program.insts.get(p) else {
            break;
        };
        match machine.step_at(p, inst) {
            Ok(step) => {
                if args.trace {
                    print_trace(&step)?;
                }
                totals.add(&step);
            }
            Err(fault) => {
                // A faulted run writes no outputs: the `.out`s after the fault never ran,
                // and the set is all or nothing.
                summary(&totals, &tally)?;
                for f in &tally.failed {
                    tell!("tpb: error: expectation failed: {}", super::printable(f));
                }
                let cause = fault.to_string().replace("\n  ", "; ");
                let line = format!("{}{cause}", program.where_is(p));
                tell!("tpb: error: {}", super::printable(&line));
                return Ok(ExitCode::from(1));
            }
        }
    }
    stage_manifest(args.out_dir(), &program, &tally, &mut files)?;
    summary(&totals, &tally)?;
    files.commit()?;
    if tally.failed.is_empty() {
        return Ok(ExitCode::SUCCESS);
    }
    for f in &tally.failed {
        tell!("tpb: error: expectation failed: {}", super::printable(f));
    }
    Ok(ExitCode::from(1))
}

/// `--threads` may ask for at most this many threads per core: more only adds switching (and
/// thousands of threads exhaust the process).
const THREADS_PER_CORE: usize = 8;

/// Refuses a `--threads` count beyond [`THREADS_PER_CORE`] per core.
fn check_threads(threads: usize) -> Result<(), CliError> {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let max = THREADS_PER_CORE * cores;
    if threads > max {
        return Err(CliError::Msg(format!(
            "--threads {threads}: at most {max} ({THREADS_PER_CORE} per core, {cores} core{}); \
             0 uses every core",
            plural(cores)
        )));
    }
    Ok(())
}

/// Parses every binding (directives, then flags), reads every file and checks every region
/// against the machine, so that input errors come before the first instruction runs.
fn plan(
    args: &Args,
    program: &Program,
    fp8: &Fp8Config,
    machine: &Machine,
) -> Result<Vec<Planned>, CliError> {
    let n = program.insts.len();
    let mut parsed: Vec<(usize, Origin, Binding)> = Vec::new();
    let dir_paths = Paths {
        inputs: &program.dir,
        outputs: args.out_dir(),
    };
    for d in &program.directives {
        let here =
            |e: String| CliError::Msg(format!("{}:{}: .{}: {e}", program.name, d.line, d.name));
        let b = normalized(bind::parse(&d.name, &d.args, dir_paths).map_err(here)?);
        if let Binding::Out { file, .. } = &b {
            if let Some(why) = outputs::link_on_the_way(args.out_dir(), file) {
                return Err(here(format!("{why}; nothing was run")));
            }
            if !args.allow_outside_out_dir && !outputs::is_inside(args.out_dir(), file) {
                return Err(here(format!(
                    "`{}` is outside --out-dir `{}`: a program writes only inside the output \
                     directory (--allow-outside-out-dir lets it)",
                    file.display(),
                    args.out_dir().display()
                )));
            }
        }
        parsed.push((d.instructions_before, Origin::Line(d.line), b));
    }
    let flag_paths = Paths {
        inputs: Path::new(""),
        outputs: args.out_dir(),
    };
    let flags: [(&'static str, &[String], usize); 5] = [
        ("--in", &args.inputs, 0),
        ("--reg", &args.regs, 0),
        ("--out", &args.outputs, n),
        ("--expect", &args.expect, n),
        ("--show", &args.show, n),
    ];
    for (flag, values, at) in flags {
        for v in values {
            let b = bind::parse(&flag[2..], v, flag_paths)
                .map_err(|e| CliError::Msg(format!("{flag} {v}: {e}")))?;
            let b = normalized(b);
            parsed.push((at, Origin::Flag(flag), b));
        }
    }
    // Stable: at each position, directives (source order) come before flags.
    parsed.sort_by_key(|p| p.0);

    let mut default_dtype = None;
    for (_, origin, b) in &parsed {
        if let Binding::DefaultDtype(d) = b {
            match default_dtype {
                Some((d0, o0)) if d0 != *d => {
                    return Err(CliError::Msg(format!(
                        "{}: {origin}: .dtype {d} contradicts .dtype {d0} at {o0}",
                        program.name
                    )))
                }
                _ => default_dtype = Some((*d, *origin)),
            }
        }
    }
    let default_dtype = match &args.dtype {
        Some(s) => Some(parse_dtype(s).map_err(|e| CliError::Msg(format!("--dtype: {e}")))?),
        None => default_dtype.map(|d| d.0),
    };

    let mut plan = Vec::new();
    for (at, origin, b) in parsed {
        let here = |e: String| match origin {
            Origin::Line(_) => CliError::Msg(format!("{}:{origin}: {e}", program.name)),
            Origin::Flag(_) => CliError::Msg(format!("{origin}: {e}")),
        };
        let Some(action) =
            prepare(b, default_dtype, fp8, data::Memory::of(machine)).map_err(here)?
        else {
            continue;
        };
        let bound = match &action {
            Action::In { bound, .. }
            | Action::Out { bound, .. }
            | Action::Expect { bound, .. }
            | Action::Show { bound, .. } => Some(bound),
            Action::Reg { .. } | Action::ShowFlops { .. } => None,
        };
        if let Some(b) = bound {
            data::fits(b, data::Memory::of(machine)).map_err(here)?;
        }
        plan.push(Planned { at, origin, action });
    }
    check_outputs(args, program, &plan)?;
    Ok(plan)
}

/// An output binding with its path normalized ([`outputs::normalize`]): `x/../a.npy`
/// writes `a.npy`.
fn normalized(b: Binding) -> Binding {
    match b {
        Binding::Out { region, file } => Binding::Out {
            region,
            file: outputs::normalize(&file),
        },
        b => b,
    }
}

/// Checks every file the run will write before any instruction runs ([`outputs::check`]).
fn check_outputs(args: &Args, program: &Program, plan: &[Planned]) -> Result<(), CliError> {
    let mut files: Vec<outputs::Output> = Vec::new();
    for p in plan {
        if let Action::Out { file, .. } = &p.action {
            files.push(outputs::Output {
                origin: p.origin.to_string(),
                file,
                timeline: false,
            });
        }
    }
    let manifest = manifest_path(args.out_dir(), program);
    if !files.is_empty() {
        files.push(outputs::Output {
            origin: "the manifest".into(),
            file: &manifest,
            timeline: false,
        });
    }
    for t in &args.timeline {
        files.push(outputs::Output {
            origin: "--timeline".into(),
            file: t,
            timeline: true,
        });
    }
    outputs::check(&files, args.out_dir(), args.out_dir.is_some()).map_err(CliError::Msg)
}

/// Turns a parsed binding into an action: reads its file, binds its region, parses its
/// values. `DefaultDtype` has no action.
fn prepare(
    b: Binding,
    default_dtype: Option<Dtype>,
    fp8: &Fp8Config,
    mem: data::Memory,
) -> Result<Option<Action>, String> {
    Ok(Some(match b {
        Binding::In { file, region } => {
            let (bound, _) = data::read_for_region(&file, &region, default_dtype, mem)?;
            Action::In {
                bound,
                file,
                region,
                default_dtype,
            }
        }
        Binding::Out { region, file } => {
            let bound = region.bind().map_err(|e| e.to_string())?;
            if bound.shape.len() > crate::npy::MAX_DIMS {
                return Err(format!(
                    "region {} has {} dimensions; an .npy file holds at most {} (numpy's \
                     limit)",
                    region.place(),
                    bound.shape.len(),
                    crate::npy::MAX_DIMS
                ));
            }
            Action::Out { bound, file }
        }
        Binding::Reg { index, value } => Action::Reg { index, value },
        Binding::Expect {
            region,
            want: Want::File(file),
        } => {
            let (bound, _) = data::read_for_region(&file, &region, default_dtype, mem)?;
            Action::Expect {
                bound,
                source: super::shown(&file),
                want: Expected::File {
                    file,
                    region,
                    default_dtype,
                },
            }
        }
        Binding::Expect {
            region,
            want: Want::Values(values),
        } => {
            let bound = bind_values(&region, values.len())?;
            let dtype = bound.tensor.dtype;
            let size = bound.elem_size();
            let mut want = Vec::with_capacity(values.len() * size);
            for (i, v) in values.iter().enumerate() {
                let bits =
                    value::parse_element(v, dtype, fp8).map_err(|e| format!("value {i}: {e}"))?;
                want.extend_from_slice(&bits.to_le_bytes()[..size]);
            }
            Action::Expect {
                bound,
                want: Expected::Bits(want),
                source: values_excerpt(&values),
            }
        }
        Binding::Show { region, size, mark } => {
            let region = RegionSpec {
                shape: region
                    .shape
                    .clone()
                    .or(Some(vec![region.partitions() as usize, size.1])),
                ..region
            };
            let bound = region.bind().map_err(|e| e.to_string())?;
            let mark = mark
                .map(|m| value::parse_element(&m, bound.tensor.dtype, fp8))
                .transpose()
                .map_err(|e| format!("mark: {e}"))?;
            Action::Show {
                bound,
                pic: Picture {
                    rows: size.0,
                    cols: size.1,
                    mark,
                },
            }
        }
        Binding::ShowFlops { channels } => Action::ShowFlops { channels },
        Binding::DefaultDtype(_) => return Ok(None),
    }))
}

/// Binds a region for `count` inline values: its dtype is required; a missing shape is
/// partitions × (count / partitions); a given one must hold exactly `count` elements.
fn bind_values(region: &RegionSpec, count: usize) -> Result<Bound, String> {
    let Some(dtype) = region.dtype else {
        return Err(format!(
            "region {region} needs a dtype to read inline values, e.g. {}:bf16",
            region.place()
        ));
    };
    match &region.shape {
        Some(_) => {
            let b = region.bind().map_err(|e| e.to_string())?;
            if b.count() != count as u64 {
                return Err(format!(
                    "{count} value{} for the {} elements of {b}",
                    plural(count),
                    b.count()
                ));
            }
            Ok(b)
        }
        None => {
            let parts = region.partitions() as usize;
            if !count.is_multiple_of(parts) {
                return Err(format!(
                    "{count} value{} do not split evenly over the {parts} partitions of {region}",
                    plural(count)
                ));
            }
            region
                .bind_to(dtype, &[parts, count / parts])
                .map_err(|e| e.to_string())
        }
    }
}

/// Performs one action and prints its report line. Host errors cannot happen (every region
/// was checked in [`plan`]) but are reported as input errors if they do.
fn perform(
    m: &mut Machine,
    a: &Planned,
    n: usize,
    fp8: &Fp8Config,
    style: NpyStyle,
    tally: &mut Tally,
    files: &mut RunFiles,
) -> Result<(), CliError> {
    let host = |e: tpb_sim::HostError| CliError::Msg(format!("{}: {e}", a.origin));
    let when = when(&a.action, a.at, n);
    match &a.action {
        Action::In {
            bound,
            file,
            region,
            default_dtype,
        } => {
            let (again, data) =
                data::read_for_region(file, region, *default_dtype, data::Memory::of(m))
                    .map_err(|e| CliError::Msg(format!("{}: {e}", a.origin)))?;
            if again.tensor != bound.tensor {
                return Err(CliError::Msg(format!(
                    "{}: {} changed while the program ran",
                    a.origin,
                    file.display()
                )));
            }
            m.write_tensor(&bound.tensor, &data).map_err(host)?;
            say!("in       {} -> {bound}{when}", super::shown(file))?;
        }
        Action::Reg { index, value } => {
            m.set_register(*index, *value).map_err(host)?;
            say!(
                "reg      r{index} = {value:#010x} (fp32 {}, int {}){when}",
                f32_text(*value),
                *value as i32
            )?;
        }
        Action::Out { bound, file } => {
            let bytes = m.read_tensor(&bound.tensor).map_err(host)?;
            let descr = data::write_output(file, bound, bytes, style, &mut files.outputs)
                .map_err(CliError::Msg)?;
            let uninit = m.uninitialised_bytes(&bound.tensor).map_err(host)?;
            let note = if uninit > 0 {
                format!("; {uninit} bytes never written (zero)")
            } else {
                String::new()
            };
            let dtype = bound.tensor.dtype;
            let what = if matches!(
                dtype,
                Dtype::BFLOAT16 | Dtype::FP8_EXP3 | Dtype::FP8_EXP4 | Dtype::FP8_EXP5
            ) {
                format!("{descr}: {dtype} bits")
            } else {
                descr.to_string()
            };
            say!(
                "out      {bound} -> {} ({what}){when}{note}",
                super::shown(file)
            )?;
            tally.outputs.push(json!({
                "file": file.display().to_string(),
                "region": bound.to_string(),
                "dtype": bound.tensor.dtype.to_string(),
                "shape": bound.shape,
                "descr": descr,
                "load": data::python_loader(&file.display().to_string(), bound.tensor.dtype),
            }));
        }
        Action::Expect {
            bound,
            want,
            source,
        } => {
            let got = m.read_tensor(&bound.tensor).map_err(host)?;
            let reread;
            let want = match want {
                Expected::Bits(bits) => bits,
                Expected::File {
                    file,
                    region,
                    default_dtype,
                } => {
                    let (again, data) =
                        data::read_for_region(file, region, *default_dtype, data::Memory::of(m))
                            .map_err(|e| CliError::Msg(format!("{}: {e}", a.origin)))?;
                    if again.tensor != bound.tensor {
                        return Err(CliError::Msg(format!(
                            "{}: {} changed while the program ran",
                            a.origin,
                            super::shown(file)
                        )));
                    }
                    reread = data;
                    &reread
                }
            };
            match check::compare(bound.elem_size(), want, &got) {
                None => {
                    tally.passed += 1;
                    // Zeros that nothing wrote match zeros by chance: say so.
                    let uninit = m.uninitialised_bytes(&bound.tensor).map_err(host)?;
                    let note = if uninit > 0 {
                        format!(" (but {uninit} bytes of the region were never written)")
                    } else {
                        String::new()
                    };
                    say!(
                        "expect   {bound} == {source}: ok, {} elements{when}{note}",
                        bound.count()
                    )?;
                }
                Some(mm) => {
                    let mut detail = check::describe(bound, &mm, fp8);
                    let uninit = m.uninitialised_bytes(&bound.tensor).map_err(host)?;
                    if uninit > 0 {
                        detail += &format!(" ({uninit} bytes of the region were never written)");
                    }
                    say!("expect   {bound} == {source}: FAILED{when}: {detail}")?;
                    tally
                        .failed
                        .push(format!("{}: {bound} == {source}: {detail}", a.origin));
                }
            }
        }
        Action::ShowFlops { channels } => {
            say!(
                "flops    channels {}..{}{when}",
                channels.start,
                channels.end
            )?;
            for c in channels.clone() {
                super::say_text(&show::flops_line(c, &m.flops()[c as usize]))?;
            }
        }
        Action::Show { bound, pic } => {
            let got = m.read_tensor(&bound.tensor).map_err(host)?;
            say!("show     {bound}{when}")?;
            super::say_text(&show::render(bound, &got, pic, fp8, "         "))?;
        }
    }
    Ok(())
}

/// ` (before instruction #3)` for an action not at its natural place (inputs before the
/// first instruction, outputs after the last).
fn when(a: &Action, at: usize, n: usize) -> String {
    let input = matches!(a, Action::In { .. } | Action::Reg { .. });
    match (input, at) {
        (true, 0) => String::new(),
        (false, at) if at == n => String::new(),
        (_, at) if at == n => " (after the last instruction)".into(),
        (_, 0) => " (before the first instruction)".into(),
        (_, at) => format!(" (before instruction #{at})"),
    }
}

fn print_trace(step: &StepReport) -> Result<(), CliError> {
    say!("{step}")?;
    for w in &step.warnings {
        say!("      warning [{}]: {}", w.kind.tag(), w.message)?;
    }
    Ok(())
}

/// The closing lines: totals, warnings, expectations.
fn summary(totals: &Totals, tally: &Tally) -> Result<(), CliError> {
    let n = totals.instructions;
    say!(
        "ran      {n} instruction{}: {} elements, {} bytes written",
        plural(n),
        totals.elements,
        totals.bytes_written
    )?;
    let count = totals.warning_count;
    if count == 0 {
        say!("warnings none")?;
    } else {
        say!("warnings {count}")?;
        for w in &totals.warnings {
            say!("         {w}")?;
        }
        if count > totals.warnings.len() {
            say!("         … and {} more", count - totals.warnings.len())?;
        }
    }
    let (p, f) = (tally.passed, tally.failed.len());
    match (p, f) {
        (0, 0) => say!("expect   none")?,
        (p, 0) => say!("expect   {p} passed")?,
        (p, f) => say!("expect   {p} passed, {f} FAILED")?,
    }
    Ok(())
}

/// Stages `<out-dir>/<program>.manifest.json` describing the outputs (when there are any):
/// file, region, dtype, shape, descr, and the Python line that loads it as its real type. It
/// is put in place last, after every file it lists.
fn stage_manifest(
    out_dir: &Path,
    program: &Program,
    tally: &Tally,
    files: &mut RunFiles,
) -> Result<(), CliError> {
    if tally.outputs.is_empty() {
        return Ok(());
    }
    let path = manifest_path(out_dir, program);
    let doc = json!({
        "program": program.name,
        "gen": program.gen.name(),
        "outputs": tally.outputs,
    });
    let text = serde_json::to_string_pretty(&doc).unwrap_or_default() + "\n";
    std::fs::create_dir_all(out_dir).map_err(|e| CliError::io(out_dir, e))?;
    let staged = crate::atomic::stage(&path, |out| out.write_all(text.as_bytes()))
        .map_err(|e| CliError::io(&path, e))?;
    files.manifest = Some(staged);
    say!("manifest {}", super::shown(&path))?;
    Ok(())
}

/// `<out-dir>/<program stem>.manifest.json`.
fn manifest_path(out_dir: &Path, program: &Program) -> PathBuf {
    let stem = Path::new(&program.name)
        .file_stem()
        .and_then(|s| s.to_str())
        .filter(|_| program.name != "--hex")
        .unwrap_or("hex");
    out_dir.join(format!("{stem}.manifest.json"))
}

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}
