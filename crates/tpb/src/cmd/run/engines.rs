//! `tpb run` on the multi-engine model (the default; `--serial` keeps one in-order stream):
//! one queue per engine, the timing model, races, deadlocks, the per-engine summary and the
//! timeline (see docs/engines.md).

use super::engine_text::{describe, race_text, time};
use super::outputs::RunFiles;
use super::program::Program;
use super::{perform, plural, summary, timeline, Args, Planned, Tally, Totals};
use crate::cmd::{say, tell, CliError};
use crate::npy::NpyStyle;
use std::path::Path;
use std::process::ExitCode;
use tpb_sim::engines::{run_engines_with, EngineId, EngineOptions, EngineRun, Stop, Timing};
use tpb_sim::numerics::Fp8Config;
use tpb_sim::Machine;

/// Adds the `--queue ENGINE=FILE` programs and checks the flags that need the engine model.
pub fn with_queues(args: &Args, mut program: Program) -> Result<Program, CliError> {
    if args.serial && !args.timeline.is_empty() {
        return Err(CliError::Msg(
            "--timeline needs the engine model; drop --serial".into(),
        ));
    }
    for q in &args.queues {
        let Some((e, file)) = q.split_once('=') else {
            return Err(CliError::Msg(format!(
                "--queue {q}: expected ENGINE=FILE.bin"
            )));
        };
        let engine = EngineId::from_name(e).ok_or_else(|| {
            CliError::Msg(format!(
                "--queue {q}: unknown engine `{e}`; expected one of pe, act, pool, dve, sp"
            ))
        })?;
        program.add_queue(engine, std::path::Path::new(file))?;
    }
    Ok(program)
}

/// The most bytes of a `--timing-file` (a few dozen `NAME = VALUE` lines in practice).
const MAX_TIMING_FILE_BYTES: u64 = 1 << 20;

/// The timing model with `--timing-file` then `--timing` overrides.
fn timing(args: &Args) -> Result<Timing, CliError> {
    let mut t = Timing::default();
    if let Some(path) = &args.timing_file {
        let bytes = crate::cmd::input::read_bounded(path, MAX_TIMING_FILE_BYTES, "a timing file")?;
        let text = String::from_utf8(bytes)
            .map_err(|_| CliError::Msg(format!("{}: not UTF-8 text", crate::cmd::shown(path))))?;
        t.apply_file(&text)
            .map_err(|(line, e)| CliError::Msg(format!("{}:{line}: {e}", path.display())))?;
    }
    for v in &args.timing {
        t.set_text(v)
            .map_err(|e| CliError::Msg(format!("--timing {v}: {e}")))?;
    }
    t.check()
        .map_err(|e| CliError::Msg(format!("--timing: {e}")))?;
    Ok(t)
}

/// The first action that acts between two instructions, if any: engine queues have no
/// global order to place it in, so such a program runs as one stream.
pub(super) fn mid_program(program: &Program, plan: &[Planned]) -> Option<String> {
    let n = program.insts.len();
    plan.iter()
        .find(|p| p.at != 0 && p.at != n)
        .map(|p| format!("{} acts before instruction #{}", p.origin, p.at))
}

/// Runs the program on the engines and prints the report.
pub(super) fn run(
    args: &Args,
    program: &Program,
    mut machine: Machine,
    plan: &[Planned],
    fp8: &Fp8Config,
    style: NpyStyle,
) -> Result<ExitCode, CliError> {
    let n = program.insts.len();
    let opts = EngineOptions {
        timing: timing(args)?,
        record_counters: !args.timeline.is_empty(),
        ..EngineOptions::default()
    };
    say!(
        "program  {} ({}, {n} instruction{})",
        crate::cmd::shown(std::path::Path::new(&program.name)),
        program.gen,
        plural(n)
    )?;
    let counts: Vec<String> = EngineId::ALL
        .into_iter()
        .filter_map(|e| {
            let c = program.engines.iter().filter(|&&x| x == e).count();
            (c > 0).then(|| format!("{e} {c}"))
        })
        .collect();
    say!(
        "queues   {}",
        if counts.is_empty() {
            "none".to_string()
        } else {
            counts.join(", ")
        }
    )?;
    let mut tally = Tally::default();
    // Dropped unless committed: a run that stops early writes none of its files.
    let mut files = RunFiles::default();
    for a in plan.iter().filter(|p| p.at == 0) {
        perform(&mut machine, a, n, fp8, style, &mut tally, &mut files)?;
    }
    let mut report = Totals::default();
    // The first failed trace line (a closed standard output): the run cannot stop from
    // inside the engine loop, so tracing stops and the error ends the command after it.
    let mut trace_error = None;
    let run = run_engines_with(
        &mut machine,
        &program.insts,
        &program.engines,
        &opts,
        |s, step| {
            if args.trace && trace_error.is_none() {
                trace_error = trace_line(s, step).err();
            }
            report.add(step);
        },
    );
    if let Some(e) = trace_error {
        return Err(e);
    }
    let mut failed = false;
    match &run.stop {
        Stop::Completed => {
            for a in plan.iter().filter(|p| p.at == n && n > 0) {
                perform(&mut machine, a, n, fp8, style, &mut tally, &mut files)?;
            }
            super::stage_manifest(args.out_dir(), program, &tally, &mut files)?;
        }
        Stop::Fault {
            engine,
            queue_index,
            fault,
        } => {
            failed = true;
            files.drop_outputs();
            summary(&report, &tally)?;
            let cause = fault.cause.to_string().replace("\n  ", "; ");
            let line = format!(
                "{}{}: {cause} (on {engine}, queue position {queue_index})",
                program.where_is(fault.inst.index),
                fault.inst
            );
            tell!("tpb: error: {}", crate::cmd::printable(&line));
        }
        Stop::Deadlock(d) => {
            failed = true;
            files.drop_outputs();
            summary(&report, &tally)?;
            tell!(
                "tpb: error: deadlock at {}: every unfinished queue waits and no update can \
                 arrive ({} engine{} blocked)",
                time(d.at_ps),
                d.blocked.len(),
                plural(d.blocked.len())
            );
            for b in &d.blocked {
                let line = format!(
                    "  {} waits for {}",
                    describe(program, b.engine, b.queue_index, b.index),
                    b.detail
                );
                tell!("{}", crate::cmd::printable(&line));
            }
        }
    }
    if run.stop == Stop::Completed {
        summary(&report, &tally)?;
    }
    print_races(program, &run)?;
    print_engines(program, &run)?;
    for path in &args.timeline {
        let parent = path.parent().unwrap_or(Path::new(""));
        if super::outputs::normalize(parent) == super::outputs::normalize(args.out_dir()) {
            std::fs::create_dir_all(args.out_dir()).map_err(|e| CliError::io(args.out_dir(), e))?;
        }
        timeline::stage(path, program, &run, &mut files.timelines)?;
        say!("timeline {}", crate::cmd::shown(path))?;
    }
    files.commit()?;
    for f in &tally.failed {
        tell!(
            "tpb: error: expectation failed: {}",
            crate::cmd::printable(f)
        );
    }
    if run.race_count > 0 && !args.allow_races {
        tell!(
            "tpb: error: {} race{} between engines (see `races` above; --allow-races accepts \
             them)",
            run.race_count,
            plural(run.race_count)
        );
        failed = true;
    }
    Ok(if failed || !tally.failed.is_empty() {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// One `--trace` line for a step on the engines, and its warnings.
fn trace_line(
    s: &tpb_sim::engines::ScheduledStep,
    step: &tpb_sim::StepReport,
) -> Result<(), CliError> {
    say!(
        "{step}  [{} #{}, {} .. {}]",
        s.engine.label(),
        s.queue_index,
        time(s.start_ps),
        time(s.end_ps)
    )?;
    for w in &step.warnings {
        say!("      warning [{}]: {}", w.kind.tag(), w.message)?;
    }
    Ok(())
}

fn print_races(program: &Program, run: &EngineRun) -> Result<(), CliError> {
    if run.race_count == 0 {
        return say!("races    none");
    }
    say!("races    {}", run.race_count)?;
    for r in &run.races {
        say!("         {}", race_text(program, run, r))?;
    }
    if run.race_count > run.races.len() {
        say!("         … and {} more", run.race_count - run.races.len())?;
    }
    Ok(())
}

fn print_engines(program: &Program, run: &EngineRun) -> Result<(), CliError> {
    if run.summary.is_empty() {
        return Ok(());
    }
    say!(
        "engines  {:<5} {:>6} {:>12} {:>12} {:>12} {:>6}   (engine cycles; run {})",
        "",
        "insts",
        "busy",
        "waiting",
        "idle",
        "util",
        time(run.makespan_ps)
    )?;
    for s in &run.summary {
        // Label and count share 12 columns, so the longer DMA queue labels stay aligned.
        let label = s.engine.label();
        say!(
            "         {label}{:>w$} {:>12} {:>12} {:>12} {:>5.1}%",
            s.instructions,
            s.busy_cycles,
            s.wait_cycles,
            s.idle_cycles,
            s.utilisation * 100.0,
            w = 12usize.saturating_sub(label.len()).max(2)
        )?;
    }
    // The estimate beside the physical bound of the work (docs/engines.md "Roofline").
    println!("roofline {}", run.roofline());
    if let (Some(&first), Some(&last)) = (run.critical_path.first(), run.critical_path.last()) {
        let span = run.steps[last].end_ps - run.steps[first].start_ps;
        let name = |i: usize| {
            let s = &run.steps[i];
            let line = program
                .lines
                .get(s.inst.index)
                .map_or(String::new(), |l| format!(" (line {l})"));
            format!(
                "{} #{} {}{line}",
                s.engine.label(),
                s.queue_index,
                s.inst.mnemonic
            )
        };
        let names = |steps: &[usize]| -> String {
            steps
                .iter()
                .map(|&i| name(i))
                .collect::<Vec<_>>()
                .join(" → ")
        };
        // Only the names shown are formatted: the path can hold the whole program.
        let path = &run.critical_path;
        let shown = if path.len() > 8 {
            format!(
                "{} → … {} more … → {}",
                names(&path[..4]),
                path.len() - 6,
                names(&path[path.len() - 2..])
            )
        } else {
            names(path)
        };
        say!(
            "critical {} instruction{}, {}: {shown}",
            path.len(),
            plural(path.len()),
            time(span)
        )?;
    }
    Ok(())
}
