//! The kernel runner's native half: assignments into views, call labels (kernel source line,
//! `name=`, `engine=`), and the scheduled re-run of the emitted program with its profile,
//! races and deadlocks as typed exceptions (architecture guide, "The walk of an NKI
//! kernel", step 4).

use crate::errors::{raise, raise_with, ErrorKind};
use crate::nki::{nki_error, Core, Tile};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use std::collections::BTreeMap;
use std::path::PathBuf;
use tpb::cmd::run::program::Program;
use tpb::cmd::run::timeline;
use tpb_nki::Label;
use tpb_sim::engines::{EngineId, EngineOptions, EngineRun, Stop};
use tpb_sim::WarningKind;

/// Turns `core`'s emitted synchronisation on or off (`simulate_kernel(synchronize=...)`).
#[pyfunction]
pub fn _kernel_set_auto_sync(core: &Bound<'_, Core>, on: bool) {
    core.get().lock(core.py()).set_auto_sync(on);
}

/// Clips out-of-bounds views with a warning instead of refusing them
/// (`simulate_kernel(out_of_bounds="warn")`).
#[pyfunction]
pub fn _kernel_set_clip_views(core: &Bound<'_, Core>, on: bool) {
    core.get().lock(core.py()).set_clip_views(on);
}

/// Whether an instruction of `core`'s run wrote into the HBM tensor `tile` (the runner
/// writes a kernel's writes to an input back into the caller's array); `None` when the
/// core cannot tell (its record was cut, or its machine was changed directly).
#[pyfunction]
pub fn _kernel_wrote(core: &Bound<'_, Core>, tile: PyRef<'_, Tile>) -> Option<bool> {
    core.get()
        .lock(core.py())
        .written_after_placed(&tile.tile.host())
}

/// A kernel's profile: the emitted program re-run on the engine scheduler.
#[pyclass(module = "tpb._tpb", name = "Profile", frozen)]
pub struct Profile {
    program: Program,
    labels: Vec<Label>,
    run: EngineRun,
}

fn side_dict<'py>(
    py: Python<'py>,
    program: &Program,
    labels: &[Label],
    index: usize,
    engine: EngineId,
    operand: Option<&str>,
) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    let inst = program.insts.get(index);
    d.set_item("index", index)?;
    d.set_item(
        "mnemonic",
        inst.and_then(|i| i.info(program.gen))
            .map_or("?", |r| r.mnemonic),
    )?;
    d.set_item("engine", engine.name())?;
    if let Some(o) = operand {
        d.set_item("operand", o)?;
    }
    let label = labels.get(index).cloned().unwrap_or_default();
    d.set_item("origin", label.origin.as_deref())?;
    d.set_item("name", label.name.as_deref())?;
    Ok(d)
}

fn describe(program: &Program, labels: &[Label], index: usize) -> String {
    let m = program
        .insts
        .get(index)
        .and_then(|i| i.info(program.gen))
        .map_or("?", |r| r.mnemonic);
    let l = labels.get(index).map(Label::describe).unwrap_or_default();
    if l.is_empty() {
        format!("#{index} {m}")
    } else {
        format!("#{index} {m} ({l})")
    }
}

impl Profile {
    /// Raises the first race or the deadlock as a typed exception.
    fn check(&self, py: Python<'_>) -> PyResult<()> {
        if let Some(r) = self.run.races.first() {
            let (p, l) = (&self.program, &self.labels);
            let msg = format!(
                "{} race between {} on {} ({}) and {} on {} ({}) over {} ({} more)",
                r.kind.long(),
                describe(p, l, r.first.index),
                r.first.engine,
                r.first.operand,
                describe(p, l, r.second.index),
                r.second.engine,
                r.second.operand,
                r.region,
                self.run.race_count - 1
            );
            let first = side_dict(
                py,
                p,
                l,
                r.first.index,
                r.first.engine,
                Some(r.first.operand),
            )?
            .unbind();
            let second = side_dict(
                py,
                p,
                l,
                r.second.index,
                r.second.engine,
                Some(r.second.operand),
            )?
            .unbind();
            let kind = r.kind.short();
            return Err(raise_with(ErrorKind::Race, msg, move |kw| {
                kw.set_item("first", first)?;
                kw.set_item("second", second)?;
                kw.set_item("kind", kind)
            }));
        }
        match &self.run.stop {
            Stop::Completed => Ok(()),
            Stop::Deadlock(d) => {
                let mut lines = Vec::new();
                let blocked = PyList::empty(py);
                for b in &d.blocked {
                    lines.push(format!(
                        "{} on {} waits for {}",
                        describe(&self.program, &self.labels, b.index),
                        b.engine,
                        b.detail
                    ));
                    let s = side_dict(py, &self.program, &self.labels, b.index, b.engine, None)?;
                    s.set_item("wait", &b.detail)?;
                    blocked.append(s)?;
                }
                let blocked = blocked.unbind();
                Err(raise_with(
                    ErrorKind::Deadlock,
                    format!("deadlock: {}", lines.join("; ")),
                    move |kw| kw.set_item("blocked", blocked),
                ))
            }
            Stop::Fault { fault, .. } => Err(crate::machine::fault_error(fault.clone())),
        }
    }
}

#[pymethods]
impl Profile {
    /// Per engine with instructions: `engine`, `instructions`, `busy_cycles`,
    /// `waiting_cycles`, `idle_cycles`, `utilisation` (busy / whole run).
    #[getter]
    fn engines<'py>(&self, py: Python<'py>) -> PyResult<Vec<Bound<'py, PyDict>>> {
        self.run
            .summary
            .iter()
            .map(|s| {
                let d = PyDict::new(py);
                d.set_item("engine", s.engine.name())?;
                d.set_item("instructions", s.instructions)?;
                d.set_item("busy_cycles", s.busy_cycles)?;
                d.set_item("waiting_cycles", s.wait_cycles)?;
                d.set_item("idle_cycles", s.idle_cycles)?;
                d.set_item("utilisation", s.utilisation)?;
                Ok(d)
            })
            .collect()
    }

    /// The estimated time of the whole kernel (the timing model's makespan), in µs.
    #[getter]
    fn estimated_time_us(&self) -> f64 {
        self.run.makespan_ps as f64 / 1e6
    }

    /// The estimate beside the physical bound of the kernel's work on the generation
    /// (docs/engines.md "Roofline"): `estimated_time_us`, `bound_us` (the larger of
    /// `pe_bound_us`, the multiplying matmuls' flops at the tensor engine's published peak,
    /// and `hbm_bound_us`, the DMA transfers' HBM bytes at one core's HBM bandwidth),
    /// `bound_by` (`"PE"`, `"HBM"` or `"none"`), `pe_flops`, `hbm_bytes`, `efficiency`
    /// (bound / estimate, at most 1) and `holds` (always true: the estimate is never below
    /// the bound).
    #[getter]
    fn roofline<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let r = self.run.roofline();
        let d = PyDict::new(py);
        d.set_item("estimated_time_us", r.estimate_ps as f64 / 1e6)?;
        d.set_item("bound_us", r.bound_ps() as f64 / 1e6)?;
        d.set_item("pe_bound_us", r.pe_bound_ps as f64 / 1e6)?;
        d.set_item("hbm_bound_us", r.hbm_bound_ps as f64 / 1e6)?;
        d.set_item("bound_by", r.bound_by())?;
        d.set_item("pe_flops", r.pe_flops.saturating_add(r.pe_fp32_flops))?;
        d.set_item("hbm_bytes", r.hbm_bytes)?;
        d.set_item("efficiency", r.efficiency())?;
        d.set_item("holds", r.holds())?;
        Ok(d)
    }

    /// The chain of instructions and waits that decides when the kernel ends, first to
    /// last: `index`, `mnemonic`, `engine`, `origin`, `name`, `start_us`, `end_us`.
    #[getter]
    fn critical_path<'py>(&self, py: Python<'py>) -> PyResult<Vec<Bound<'py, PyDict>>> {
        self.run
            .critical_path
            .iter()
            .filter_map(|&k| self.run.steps.get(k))
            .map(|s| {
                let d = side_dict(
                    py,
                    &self.program,
                    &self.labels,
                    s.inst.index,
                    s.engine,
                    None,
                )?;
                d.set_item("start_us", s.start_ps as f64 / 1e6)?;
                d.set_item("end_us", s.end_ps as f64 / 1e6)?;
                Ok(d)
            })
            .collect()
    }

    /// Instructions per mnemonic (the emitted program, sync records included).
    #[getter]
    fn instruction_counts(&self) -> BTreeMap<&'static str, usize> {
        let mut m = BTreeMap::new();
        for i in &self.program.insts {
            let name = i.info(self.program.gen).map_or("unknown", |r| r.mnemonic);
            *m.entry(name).or_insert(0) += 1;
        }
        m
    }

    /// Races found (each a dict with `kind`, `first`, `second`); empty for an emitted
    /// kernel.
    #[getter]
    fn races<'py>(&self, py: Python<'py>) -> PyResult<Vec<Bound<'py, PyDict>>> {
        self.run
            .races
            .iter()
            .map(|r| {
                let d = PyDict::new(py);
                d.set_item("kind", r.kind.short())?;
                let (p, l) = (&self.program, &self.labels);
                d.set_item(
                    "first",
                    side_dict(
                        py,
                        p,
                        l,
                        r.first.index,
                        r.first.engine,
                        Some(r.first.operand),
                    )?,
                )?;
                d.set_item(
                    "second",
                    side_dict(
                        py,
                        p,
                        l,
                        r.second.index,
                        r.second.engine,
                        Some(r.second.operand),
                    )?,
                )?;
                Ok(d)
            })
            .collect()
    }

    /// Every instruction whose result is exact only per tpb's documented order (each
    /// multiplying Matmul: the PE's summation order is not public, assumption
    /// `pe-summation-order`): `index`, `mnemonic`, `engine`, `origin`, `name`, `message`.
    /// Run with `strict_exact=True` to make them errors instead.
    #[getter]
    fn exact_per_our_order<'py>(&self, py: Python<'py>) -> PyResult<Vec<Bound<'py, PyDict>>> {
        self.warned(py, WarningKind::ExactPerOurChoice)
    }

    /// Every instruction whose result is approximate (an activation function the hardware
    /// evaluates from unpublished tables, computed here from its definition,
    /// docs/reference/pe-act.md; an instruction of a call tpb composes where the
    /// hardware's order is not public, `bn_stats` / `bn_aggr`): `index`, `mnemonic`,
    /// `engine`, `origin`, `name`, `message`, in program order. Run with
    /// `strict_exact=True` to make them errors instead.
    #[getter]
    fn approximate<'py>(&self, py: Python<'py>) -> PyResult<Vec<Bound<'py, PyDict>>> {
        self.approximate_steps()
            .into_iter()
            .map(|(i, message)| {
                let engine = self.program.engines.get(i).copied().unwrap_or(EngineId::Pe);
                let d = side_dict(py, &self.program, &self.labels, i, engine, None)?;
                d.set_item("message", message)?;
                Ok(d)
            })
            .collect()
    }

    /// Writes the timeline: Chrome trace-event JSON (`.json`, opens in Perfetto) or an SVG
    /// Gantt chart (`.svg`), by the extension — the same writers as `tpb run --timeline`.
    fn write_timeline(&self, py: Python<'_>, path: PathBuf) -> PyResult<()> {
        let (program, run) = (&self.program, &self.run);
        py.detach(|| timeline::write(&path, program, run))
            .map_err(|e| raise(ErrorKind::Usage, e.to_string()))
    }

    fn __repr__(&self) -> String {
        let roof = self.run.roofline();
        format!(
            "<tpb.nki.Profile {} instructions, {:.3} us (physical bound {:.3} us, {}), {} \
             approximate>",
            self.program.insts.len(),
            self.estimated_time_us(),
            roof.bound_ps() as f64 / 1e6,
            roof.bound_by(),
            self.approximate_steps().len()
        )
    }
}

impl Profile {
    /// The approximate instructions and why, in program order: those whose run warned
    /// `approximate` and those of a call labelled approximate (`Label::approximate`).
    fn approximate_steps(&self) -> Vec<(usize, &str)> {
        let mut steps: Vec<(usize, &str)> = self
            .run
            .warnings
            .iter()
            .filter(|w| w.kind == WarningKind::Approximate)
            .map(|w| (w.inst.index, w.message.as_str()))
            .collect();
        for (i, l) in self.labels.iter().enumerate() {
            if let Some(why) = l.approximate {
                if !steps.iter().any(|&(k, _)| k == i) {
                    steps.push((i, why));
                }
            }
        }
        steps.sort_by_key(|&(i, _)| i);
        steps
    }

    /// The scheduled run's instructions that warned `kind`, each as a side dict with its
    /// message.
    fn warned<'py>(&self, py: Python<'py>, kind: WarningKind) -> PyResult<Vec<Bound<'py, PyDict>>> {
        self.run
            .warnings
            .iter()
            .filter(|w| w.kind == kind)
            .map(|w| {
                let i = w.inst.index;
                let engine = self.program.engines.get(i).copied().unwrap_or(EngineId::Pe);
                let d = side_dict(py, &self.program, &self.labels, i, engine, None)?;
                d.set_item("message", &w.message)?;
                Ok(d)
            })
            .collect()
    }
}

/// Re-runs `core`'s emitted program on the engine scheduler from the machine as it was
/// before the first instruction; checks that it completes with no race and the same
/// memory as the eager run (raising `tpb.RaceError`, `tpb.DeadlockError` or `tpb.Error`),
/// and returns its profile.
#[pyfunction]
#[pyo3(signature = (core, name = "kernel"))]
pub fn _kernel_profile(py: Python<'_>, core: &Bound<'_, Core>, name: &str) -> PyResult<Profile> {
    let c = core.get().lock(py);
    let inner = &*c;
    let (m, run) = py
        .detach(|| inner.schedule(&EngineOptions::default(), |_, _| {}))
        .map_err(nki_error)?;
    let sources: Vec<String> = inner.labels().iter().map(|l| l.describe()).collect();
    let program = Program::from_parts(
        name,
        inner.gen(),
        inner.program().to_vec(),
        inner.engines().to_vec(),
        &sources,
    );
    let mut profile = Profile {
        program,
        labels: inner.labels().to_vec(),
        run,
    };
    // A read of never-written bytes in the scheduled run is most often a missing wait: the
    // engines ran the reader before the writer, and the fault stopped the run before the
    // writer could show the race. Re-run leniently; a race found there is the report.
    let strict_fault = matches!(
        &profile.run.stop,
        Stop::Fault { fault, .. } if matches!(fault.cause, tpb_sim::FaultCause::Strict(..))
    );
    if strict_fault && profile.run.races.is_empty() {
        if let Ok((_, lenient)) = py.detach(|| inner.schedule_lenient(&EngineOptions::default())) {
            if !lenient.races.is_empty() {
                profile.run = lenient;
            }
        }
    }
    profile.check(py)?;
    if let Some(d) = inner.first_difference(&m) {
        return Err(raise(
            ErrorKind::Fault,
            format!("the scheduled run differs from the eager run: {d}"),
        ));
    }
    Ok(profile)
}
