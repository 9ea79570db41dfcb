//! `tpb asm` and `tpb disasm`: the text syntax (docs/syntax.md) to 64-byte bundles and back.

use super::input::{stdout, stdout_error, GenArg, InputArgs, MAX_PROGRAM_BYTES};
use super::run::program::DIRECTIVES as RUN_DIRECTIVES;
use super::{tell, CliError};
use std::io::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;
use tpb_isa::text::{asm, asm_into, disasm_into_bytes, AsmOptions, MAX_ASM_ERRORS};
use tpb_isa::validate::{is_valid_view, validate_view};
use tpb_isa::wire::InstView;
use tpb_isa::Instruction;

/// Arguments of `tpb asm`.
#[derive(clap::Args, Debug)]
pub struct AsmArgs {
    /// The assembly source (`-` for stdin).
    #[arg(value_name = "FILE")]
    pub file: PathBuf,
    /// Where to write the program binary (64-byte bundles back to back).
    #[arg(short, long, value_name = "OUT")]
    pub output: PathBuf,
    /// Generation at the top of the file (a `.gen` line changes it) [default: cayman].
    #[command(flatten)]
    pub gen: GenArg,
    /// Write the bundles even if they break the generation's rules.
    #[arg(long)]
    pub no_validate: bool,
}

/// Arguments of `tpb disasm`.
#[derive(clap::Args, Debug)]
pub struct DisasmArgs {
    /// The program (FILE or --hex).
    #[command(flatten)]
    pub input: InputArgs,
    /// Generation to decode for [default: cayman].
    #[command(flatten)]
    pub gen: GenArg,
}

/// Runs `tpb asm`: assembles, validates each instruction for the generation it was written
/// for, and writes the binary only when everything is clean (or `--no-validate`). Every
/// problem of the file is printed as `FILE:LINE:COL: message`. Exit 2 if the file does not
/// assemble (an input error, like every other command's), 1 if instructions break the
/// generation's rules (a finding, like `tpb validate`'s).
pub fn run_asm(args: AsmArgs) -> Result<ExitCode, CliError> {
    let name = super::printable(&args.file.display().to_string()).into_owned();
    // A bad output (a FIFO, a device, a link) is refused before the work.
    crate::atomic::check_target(&args.output).map_err(|e| CliError::io(&args.output, e))?;
    let bytes = super::input::read_bounded(&args.file, MAX_PROGRAM_BYTES, "a program")?;
    let src =
        String::from_utf8(bytes).map_err(|_| CliError::Msg(format!("{name}: not UTF-8 text")))?;
    // `tpb run`'s directives are accepted and skipped, so a runnable program also assembles.
    let opts = AsmOptions::new(args.gen.resolve()?).allow_directives(RUN_DIRECTIVES);
    // Straight into bundles (the assembler's whole-program path: no per-line allocation).
    let mut bundles = Vec::new();
    let map = match asm_into(&src, &opts, &mut bundles) {
        Ok(m) => m,
        Err(errors) => {
            for e in &errors {
                let line = format!("{name}:{}:{}: {}", e.line, e.column, e.message);
                tell!("{}", super::printable(&line));
            }
            if errors.is_truncated() {
                tell!(
                    "tpb: error: more than {MAX_ASM_ERRORS} assembly errors in {name}; \
                     only the first {MAX_ASM_ERRORS} are reported"
                );
            } else {
                tell!("tpb: error: {} assembly error(s) in {name}", errors.len());
            }
            return Ok(ExitCode::from(2));
        }
    };
    // Only an `.engine` line can misplace an instruction; the check reads the full assembly,
    // built only for files that have one.
    if map.directives().any(|d| d.name == "engine") {
        let assembly = asm(&src, &opts).map_err(|e| CliError::Msg(e.to_string()))?;
        let insts: Vec<Instruction> = assembly.insts();
        let directives = assembly.directives();
        if let Err(errors) =
            super::run::program::engines_of(&insts, &map.lines, directives, assembly.final_gen)
        {
            for (line, col, m) in &errors {
                tell!("{name}:{line}:{col}: {}", super::printable(m));
            }
            tell!("tpb: error: {} assembly error(s) in {name}", errors.len());
            return Ok(ExitCode::from(2));
        }
    }
    if !args.no_validate {
        let mut bad = 0;
        for ((b, &line), gen) in bundles.iter().zip(&map.lines).zip(map.gens()) {
            // The verdict on the bytes in place costs no decode and no allocation; the report
            // is built for failures only.
            let view = InstView::new(b, gen);
            if is_valid_view(&view) {
                continue;
            }
            for f in validate_view(&view).failures() {
                let line = format!("{name}:{line}: invalid on {gen}: {f}");
                tell!("{}", super::printable(&line));
            }
            bad += 1;
        }
        if bad > 0 {
            tell!("tpb: error: {bad} instruction(s) in {name} are invalid (use --no-validate to write them anyway)");
            return Ok(ExitCode::from(1));
        }
    }
    let bytes = bundles.as_flattened();
    crate::atomic::write_file(&args.output, bytes).map_err(|e| CliError::io(&args.output, e))?;
    tell!(
        "wrote {} bundle(s), {} bytes, to {}",
        bundles.len(),
        bytes.len(),
        args.output.display()
    );
    Ok(ExitCode::SUCCESS)
}

/// Runs `tpb disasm`: prints the program in the text syntax (canonical; `tpb asm` reads it
/// back to the same bytes), one bundle at a time (constant memory in the file size): lines
/// collect in one buffer that goes to standard output every 64 KiB.
pub fn run_disasm(args: DisasmArgs) -> Result<ExitCode, CliError> {
    const CHUNK: usize = 64 * 1024;
    let gen = args.gen.resolve()?;
    let mut program = args.input.open()?;
    let mut out = stdout();
    let mut text = Vec::with_capacity(2 * CHUNK);
    text.extend_from_slice(format!(".gen {gen}\n").as_bytes());
    while let Some(raw) = program.next_bundle()? {
        disasm_into_bytes(&Instruction::decode(&raw, gen), gen, &mut text);
        text.push(b'\n');
        if text.len() >= CHUNK {
            out.write_all(&text).map_err(stdout_error)?;
            text.clear();
        }
    }
    out.write_all(&text).map_err(stdout_error)?;
    out.flush().map_err(stdout_error)?;
    Ok(ExitCode::SUCCESS)
}
