//! The simulator surface: `Machine`, `RunReport`, `Warning`, and faults as `tpb.Fault`.

use crate::args;
use crate::arrays::{host_view, to_numpy};
use crate::errors::{raise, raise_with, ErrorKind};
use crate::isa::{findings, parse_gen, program_arg, run_program_arg};
use pyo3::prelude::*;
use std::sync::{Mutex, MutexGuard, TryLockError};
use tpb_sim::numerics::{E4m3Variant, Fp8Config};
use tpb_sim::region::{RegionError, RegionSpec};
use tpb_sim::{Config, Fault, FaultCause, Machine as SimMachine, StepReport};

/// A region error as `tpb.RegionError`.
fn region_error(e: RegionError) -> PyErr {
    raise(ErrorKind::Region, e.to_string())
}

/// One warning of a run: an uninitialised read, a loader mismatch, a firmware stub.
#[pyclass(module = "tpb._tpb", name = "Warning", frozen, get_all)]
#[derive(Clone)]
pub struct Warning {
    /// The instruction's index in the program.
    index: usize,
    /// Its mnemonic.
    mnemonic: &'static str,
    /// `uninitialised-read`, `loader-mismatch` or `firmware-stub`.
    kind: &'static str,
    /// What happened.
    message: String,
}

#[pymethods]
impl Warning {
    fn __str__(&self) -> String {
        format!(
            "#{} {}: [{}] {}",
            self.index, self.mnemonic, self.kind, self.message
        )
    }
    fn __repr__(&self) -> String {
        format!("<tpb.Warning {}>", self.__str__())
    }
}

/// What a run (or one step) did.
#[pyclass(module = "tpb._tpb", name = "RunReport", frozen)]
pub struct RunReport {
    /// Instructions executed.
    #[pyo3(get)]
    instructions: usize,
    /// Every warning, in order.
    #[pyo3(get)]
    warnings: Vec<Warning>,
    /// Elements processed over all channels.
    #[pyo3(get)]
    elements: u64,
    /// Bytes stored to memory.
    #[pyo3(get)]
    bytes_written: u64,
    /// The steps (memory footprints dropped), formatted only when `trace` is read: a step
    /// from Python must not pay for its trace line.
    steps: Vec<StepReport>,
}

#[pymethods]
impl RunReport {
    /// One trace line per instruction (as `tpb run --trace` prints).
    #[getter]
    fn trace(&self) -> Vec<String> {
        self.steps.iter().map(|s| s.to_string()).collect()
    }

    fn __repr__(&self) -> String {
        format!(
            "<tpb.RunReport instructions={} elements={} bytes_written={} warnings={}>",
            self.instructions,
            self.elements,
            self.bytes_written,
            self.warnings.len()
        )
    }
}

impl RunReport {
    pub fn from_steps(steps: &[StepReport]) -> RunReport {
        RunReport {
            instructions: steps.len(),
            warnings: steps
                .iter()
                .flat_map(|s| &s.warnings)
                .map(|w| Warning {
                    index: w.inst.index,
                    mnemonic: w.inst.mnemonic,
                    kind: w.kind.tag(),
                    message: w.message.clone(),
                })
                .collect(),
            elements: steps.iter().map(|s| s.elements).sum(),
            bytes_written: steps.iter().map(|s| s.bytes_written).sum(),
            steps: steps
                .iter()
                .map(|s| StepReport {
                    inst: s.inst,
                    elements: s.elements,
                    written: s.written.clone(),
                    bytes_written: s.bytes_written,
                    flops_loaded: s.flops_loaded,
                    warnings: s.warnings.clone(),
                    log: s.log,
                    accesses: Vec::new(),
                    cost: s.cost,
                })
                .collect(),
        }
    }
}

/// The short name of a fault's cause, for `tpb.Fault.kind`.
fn cause_kind(c: &FaultCause) -> &'static str {
    match c {
        FaultCause::Invalid { .. } => "invalid",
        FaultCause::WaitUnsatisfied { .. } => "wait-unsatisfied",
        FaultCause::Event { .. } => "event",
        FaultCause::Unsupported { .. } => "unsupported",
        FaultCause::Disabled { .. } => "disabled",
        FaultCause::OutOfRange { .. } => "out-of-range",
        FaultCause::BadAddress { .. } => "bad-address",
        FaultCause::Numeric(_) => "numeric",
        FaultCause::Limit { .. } => "limit",
        FaultCause::Strict(..) => "strict",
        _ => "other",
    }
}

/// A simulator fault as `tpb.Fault` (`.index`, `.mnemonic`, `.cause`, `.kind`, `.findings`).
pub fn fault_error(f: Fault) -> PyErr {
    let index = f.inst.index;
    let mnemonic = f.inst.mnemonic;
    let cause = f.cause.to_string();
    let kind = cause_kind(&f.cause);
    let found = match &f.cause {
        FaultCause::Invalid { report } => findings(report, false),
        _ => Vec::new(),
    };
    raise_with(ErrorKind::Fault, f.to_string(), move |kw| {
        kw.set_item("index", index)?;
        kw.set_item("mnemonic", mnemonic)?;
        kw.set_item("cause", cause)?;
        kw.set_item("kind", kind)?;
        kw.set_item("findings", found)
    })
}

/// Builds a machine configuration from the Python keyword arguments.
pub fn config(gen: &str, strict: bool, fp8_e4m3: &str, fp8_ocp_sat: bool) -> PyResult<Config> {
    let mut c = Config::new(parse_gen(gen)?);
    c.strict = strict;
    c.fp8 = Fp8Config {
        ocp_sat: fp8_ocp_sat,
        e4m3: match fp8_e4m3 {
            "ieee" => E4m3Variant::Ieee,
            "fn" => E4m3Variant::FiniteOnly,
            other => {
                return Err(raise(
                    ErrorKind::Usage,
                    format!("fp8_e4m3={other:?}: expected \"ieee\" or \"fn\""),
                ))
            }
        },
    };
    Ok(c)
}

/// A register value: an integer (bits; negative ints are two's complement) or a float
/// (stored as its FP32 bits). An int that 32 bits cannot hold is an error, however large
/// (`2**63` is not converted to a float; issue 20 item 14).
pub fn register_bits(value: &Bound<'_, PyAny>) -> PyResult<u32> {
    if args::is_int(value) {
        let i: i64 = args::int(value, "register value").map_err(|_| {
            raise(
                ErrorKind::Usage,
                format!("register value {value} is not 32 bits"),
            )
        })?;
        return u32::try_from(i)
            .or_else(|_| i32::try_from(i).map(|v| v as u32))
            .map_err(|_| {
                raise(
                    ErrorKind::Usage,
                    format!("register value {i} is not 32 bits"),
                )
            });
    }
    if let Ok(f) = value.extract::<f64>() {
        let x = f as f32;
        if f.is_finite() && !x.is_finite() {
            return Err(raise(
                ErrorKind::Usage,
                format!("register value {f} is outside the float32 range"),
            ));
        }
        return Ok(x.to_bits());
    }
    Err(raise(
        ErrorKind::Usage,
        "register value: expected an int (bits) or a float (stored as FP32)".to_string(),
    ))
}

/// Locks `m`. Another thread's call may hold it with the GIL released (a long run): wait
/// for it with the GIL released too, so that neither blocks the other (issue 20 item 12).
/// No Python code runs while a lock is held, so a thread never waits for itself.
pub fn lock<'a, T: Send>(py: Python<'_>, m: &'a Mutex<T>) -> MutexGuard<'a, T> {
    loop {
        match m.try_lock() {
            Ok(g) => return g,
            // A panic cannot happen in our code; if one did, the state is still consistent
            // (every step is plan → check → commit).
            Err(TryLockError::Poisoned(p)) => return p.into_inner(),
            Err(TryLockError::WouldBlock) => py.detach(|| drop(m.lock())),
        }
    }
}

/// A simulated NeuronCore: SBUF/PSUM, registers, flops, semaphores and events. Safe to
/// share between threads: calls take turns.
#[pyclass(module = "tpb._tpb", name = "Machine", frozen)]
pub struct Machine {
    machine: Mutex<SimMachine>,
}

#[pymethods]
impl Machine {
    /// `hbm_bytes`: the size of device memory (HBM, default 1 GiB, at most 64 GiB; pages
    /// are allocated when written). HBM regions are written `"hbm+0x1000:fp32:4x8"`.
    #[new]
    #[pyo3(
        signature = (gen = "cayman", strict = false, fp8_e4m3 = "ieee", fp8_ocp_sat = false, strict_exact = false, hbm_bytes = None),
        text_signature = "(gen='cayman', strict=False, fp8_e4m3='ieee', fp8_ocp_sat=False, strict_exact=False, hbm_bytes=1073741824)"
    )]
    fn new(
        gen: &str,
        strict: bool,
        fp8_e4m3: &str,
        fp8_ocp_sat: bool,
        strict_exact: bool,
        hbm_bytes: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Machine> {
        // Any int is an argument error here, never an OverflowError (issue 29 item 14).
        let hbm_bytes: i128 = match hbm_bytes.filter(|b| !b.is_none()) {
            Some(b) => args::int(b, "hbm_bytes")?,
            None => i128::from(tpb_sim::DEFAULT_HBM_BYTES),
        };
        let mut c = config(gen, strict, fp8_e4m3, fp8_ocp_sat)?;
        let Some(hbm_bytes) = u64::try_from(hbm_bytes)
            .ok()
            .filter(|b| (1..=tpb_sim::MAX_HBM_BYTES).contains(b))
        else {
            return Err(raise(
                ErrorKind::Usage,
                format!(
                    "hbm_bytes={hbm_bytes}: expected 1..={}",
                    tpb_sim::MAX_HBM_BYTES
                ),
            ));
        };
        c.hbm_bytes = hbm_bytes;
        // A Matmul (exact per our order) or a table function (approximate) is a fault.
        c.strict_exact = strict_exact;
        Ok(Machine {
            machine: Mutex::new(SimMachine::new(c)),
        })
    }

    /// The size of device memory (HBM) in bytes.
    #[getter]
    fn hbm_bytes(&self, py: Python<'_>) -> u64 {
        lock(py, &self.machine).hbm_size()
    }

    /// The generation.
    #[getter]
    fn gen(&self, py: Python<'_>) -> &'static str {
        lock(py, &self.machine).gen().name()
    }

    /// Instructions retired so far.
    #[getter]
    fn retired(&self, py: Python<'_>) -> u64 {
        lock(py, &self.machine).retired()
    }

    /// The 64 registers (bits).
    #[getter]
    fn registers(&self, py: Python<'_>) -> Vec<u32> {
        lock(py, &self.machine).registers().to_vec()
    }

    /// Writes an array at `region` (`"sbuf[p0..128]+0x400"`); dtype and shape come from the
    /// array (a `:dtype:shape` suffix, if given, must agree). Row `i` is partition START+i.
    /// The region is checked before the array's bytes are gathered (a broadcast view is
    /// not expanded for a region that cannot hold it), HBM regions against the configured
    /// HBM size.
    fn write(&self, py: Python<'_>, region_text: &str, array: &Bound<'_, PyAny>) -> PyResult<()> {
        let spec = RegionSpec::parse(region_text).map_err(region_error)?;
        let fp8 = lock(py, &self.machine).config().fp8;
        let view = host_view(array, &fp8)?;
        let tensor = spec
            .bind_to(view.dtype, &view.shape)
            .and_then(|b| lock(py, &self.machine).resolve_region(&b))
            .map_err(region_error)?;
        let host = view.bytes()?;
        let bytes = host.as_slice()?;
        // The array's bytes go straight in (no intermediate copy of a large array), with the
        // GIL released.
        let mut guard = lock(py, &self.machine);
        let m = &mut *guard;
        py.detach(|| m.write_tensor(&tensor, bytes))
            .map_err(|e| raise(ErrorKind::Region, format!("region `{spec}`: {e}")))
    }

    /// Reads `region` (`"sbuf[p0..128]+0x800:bf16:128x512"`, dtype and shape required) as
    /// an array (ml_dtypes dtypes for bfloat16 and fp8).
    fn read<'py>(&self, py: Python<'py>, region_text: &str) -> PyResult<Bound<'py, PyAny>> {
        let spec = RegionSpec::parse(region_text).map_err(region_error)?;
        let (data, fp8) = {
            let guard = lock(py, &self.machine);
            let m = &*guard;
            let data = py.detach(|| m.read_region(&spec)).map_err(region_error)?;
            (data, m.config().fp8)
        };
        to_numpy(py, data.bytes, data.dtype, &data.shape, &fp8)
    }

    /// Sets register `n` (0..64) to an int's bits or a float's FP32 bits.
    fn set_register(
        &self,
        py: Python<'_>,
        n: &Bound<'_, PyAny>,
        value: &Bound<'_, PyAny>,
    ) -> PyResult<()> {
        let n: usize = args::int(n, "register")?;
        let bits = register_bits(value)?;
        lock(py, &self.machine)
            .set_register(n, bits)
            .map_err(|e| raise(ErrorKind::Usage, e.to_string()))
    }

    /// Semaphore `i` (0..256).
    fn semaphore(&self, py: Python<'_>, i: &Bound<'_, PyAny>) -> PyResult<i32> {
        let i: usize = args::int(i, "semaphore")?;
        lock(py, &self.machine)
            .semaphores()
            .get(i)
            .copied()
            .ok_or_else(|| raise(ErrorKind::Usage, format!("semaphore {i} is outside 0..256")))
    }

    /// Sets semaphore `i` (0..256) to an int32 value.
    fn set_semaphore(
        &self,
        py: Python<'_>,
        i: &Bound<'_, PyAny>,
        value: &Bound<'_, PyAny>,
    ) -> PyResult<()> {
        let i: u8 = args::int(i, "semaphore")?;
        let value: i32 = args::int(value, "semaphore value")?;
        lock(py, &self.machine).set_semaphore(i, value);
        Ok(())
    }

    /// Runs a program (assembly text, bundle bytes or a list of instructions) in order;
    /// `.reg N = VALUE` lines of the text set registers where they stand (as `tpb run` and
    /// `tpb.nki.Core.disasm()` write them). A fault raises `tpb.Fault`; the faulting
    /// instruction changes nothing (the ones before it ran). The GIL is released while it
    /// runs.
    fn run(&self, py: Python<'_>, program: &Bound<'_, PyAny>) -> PyResult<RunReport> {
        let gen = lock(py, &self.machine).gen();
        let p = run_program_arg(program, gen)?;
        let mut guard = lock(py, &self.machine);
        let machine = &mut *guard;
        let steps = py
            .detach(|| -> Result<Vec<StepReport>, Fault> {
                if p.registers.is_empty() {
                    return Ok(machine.run(&p.insts)?.steps);
                }
                let mut steps = Vec::with_capacity(p.insts.len());
                let mut regs = p.registers.iter().peekable();
                for (i, inst) in p.insts.iter().enumerate() {
                    while let Some(&&(_, n, bits)) = regs.peek().filter(|r| r.0 <= i) {
                        // `reg_directive` checked n < 64.
                        let _ = machine.set_register(n, bits);
                        regs.next();
                    }
                    steps.push(machine.step_at(i, inst)?);
                }
                for &(_, n, bits) in regs {
                    let _ = machine.set_register(n, bits);
                }
                Ok(steps)
            })
            .map_err(fault_error)?;
        drop(guard);
        Ok(RunReport::from_steps(&steps))
    }

    /// Runs one instruction (a `tpb.Instruction`, 64 bytes, or one line of assembly).
    fn step(&self, py: Python<'_>, inst: &Bound<'_, PyAny>) -> PyResult<RunReport> {
        let gen = lock(py, &self.machine).gen();
        let insts = program_arg(inst, gen)?;
        let [one] = insts.as_slice() else {
            return Err(raise(
                ErrorKind::Usage,
                format!("step takes one instruction, not {}", insts.len()),
            ));
        };
        let mut guard = lock(py, &self.machine);
        let machine = &mut *guard;
        let r = py.detach(|| machine.step(one)).map_err(fault_error)?;
        drop(guard);
        Ok(RunReport::from_steps(std::slice::from_ref(&r)))
    }

    fn __repr__(&self, py: Python<'_>) -> String {
        let m = lock(py, &self.machine);
        format!("<tpb.Machine gen={} retired={}>", m.gen(), m.retired())
    }
}
