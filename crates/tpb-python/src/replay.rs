//! `KernelReplay`: a kernel's recorded run ([`tpb_nki::Replay`]) replayed with new input
//! arrays, the GIL released throughout — what `tpb.nki` runs when a kernel is called again
//! with the same signature (docs/python.md, "Traced once per signature").

use crate::arrays::{host_view, to_numpy, HostArray};
use crate::errors::{raise, ErrorKind};
use crate::nki::{nki_error, Core, Tile};
use pyo3::prelude::*;
use pyo3::types::PyList;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;
use tpb_sim::numerics::Fp8Config;

/// `KernelReplay.run`'s answer: (outputs, first unwritten element per output, inputs the run
/// wrote).
type ReplayResult<'py> = (Bound<'py, PyList>, Vec<Option<usize>>, Bound<'py, PyList>);

/// The shortest replay that releases the GIL: several times a GIL handover between two busy
/// threads. A replay is timed each run; until the first has been, the recorded run's
/// element count stands in ([`RELEASE_GIL_MIN_ELEMENTS`]). Only speed depends on it.
const RELEASE_GIL_MIN_NANOS: u64 = 20_000;
/// The element count taken for [`RELEASE_GIL_MIN_NANOS`] before a replay has been timed.
const RELEASE_GIL_MIN_ELEMENTS: u64 = 1 << 16;

/// A kernel run that can be replayed: its tape, its input tensors and its output tiles.
#[pyclass(module = "tpb._tpb", name = "KernelReplay", frozen)]
pub struct KernelReplay {
    replay: tpb_nki::Replay,
    inputs: Vec<tpb_nki::Tile>,
    outputs: Vec<tpb_nki::Tile>,
    fp8: Fp8Config,
    /// How long the last replay's run took, in ns (0: not timed yet).
    last_nanos: AtomicU64,
}

/// The replay of `core`'s run, whose inputs are the HBM tensors `inputs` (written from the
/// host before the first instruction) and whose outputs are the HBM tensors `outputs`.
/// Raises `tpb.NotSupported` when the run cannot be replayed (the kernel read device data
/// back, or changed the machine directly).
#[pyfunction]
pub fn _kernel_replay(
    core: &Bound<'_, Core>,
    inputs: Vec<PyRef<'_, Tile>>,
    outputs: Vec<PyRef<'_, Tile>>,
) -> PyResult<KernelReplay> {
    if let Some(t) = outputs.iter().find(|t| t.tile.blocks != 0) {
        return Err(raise(
            ErrorKind::NotSupported,
            format!("replaying a kernel whose output {} has block dims", t.tile),
        ));
    }
    let c = core.get().lock(core.py());
    let hosts: Vec<_> = inputs.iter().map(|t| t.tile.host()).collect();
    let replay = tpb_nki::Replay::of(&c, &hosts).map_err(nki_error)?;
    Ok(KernelReplay {
        replay,
        inputs: inputs.iter().map(|t| t.tile.clone()).collect(),
        outputs: outputs.iter().map(|t| t.tile.clone()).collect(),
        fp8: c.machine().config().fp8,
        last_nanos: AtomicU64::new(0),
    })
}

#[pymethods]
impl KernelReplay {
    /// Replays the run with `arrays` (one per input, each of the recorded shape and dtype).
    /// Returns `(outputs, unwritten, inputs)`: the output arrays; per output, the flat index
    /// of its first element never written, or None; per input, its array after the run
    /// when an instruction wrote into it, else None.
    fn run<'py>(
        &self,
        py: Python<'py>,
        arrays: Vec<Bound<'py, PyAny>>,
    ) -> PyResult<ReplayResult<'py>> {
        if arrays.len() != self.inputs.len() {
            return Err(raise(
                ErrorKind::Usage,
                format!(
                    "{} arrays given, the recorded kernel run has {} inputs",
                    arrays.len(),
                    self.inputs.len()
                ),
            ));
        }
        let mut held: Vec<HostArray<'py>> = Vec::with_capacity(arrays.len());
        for (k, (a, t)) in arrays.iter().zip(&self.inputs).enumerate() {
            let view = host_view(a, &self.fp8)?;
            let elements: usize = view.shape.iter().product();
            if view.dtype != t.dtype || elements != t.shape.iter().product::<usize>() {
                return Err(raise(
                    ErrorKind::Usage,
                    format!(
                        "input {k}: a {:?} {:?} array, the recorded run's is {:?} {:?}",
                        view.shape, view.dtype, t.shape, t.dtype
                    ),
                ));
            }
            held.push(view.bytes()?);
        }
        let slices = held
            .iter()
            .map(HostArray::as_slice)
            .collect::<PyResult<Vec<&[u8]>>>()?;
        // One release of the GIL for the run and every read-back, and none for a run too
        // short to repay the handover (as NumPy keeps it for small arrays): two threads
        // replaying small kernels would otherwise wait on each other at every release. The
        // last run's time decides (a replay is the same work every time).
        let (replay, outputs, inputs) = (&self.replay, &self.outputs, &self.inputs);
        let last = &self.last_nanos;
        let work = || -> Result<_, tpb_nki::NkiError> {
            let started = Instant::now();
            let core = replay.run(&slices)?;
            let mut outs = Vec::with_capacity(outputs.len());
            let mut unwritten = Vec::with_capacity(outputs.len());
            for t in outputs {
                outs.push(core.read(t)?);
                unwritten.push(core.first_unwritten(t)?);
            }
            let mut back = Vec::with_capacity(inputs.len());
            for (k, t) in inputs.iter().enumerate() {
                back.push(if replay.input_written(k) {
                    Some(core.read(t)?)
                } else {
                    None
                });
            }
            let nanos = u64::try_from(started.elapsed().as_nanos()).unwrap_or(u64::MAX);
            last.store(nanos.max(1), Ordering::Relaxed);
            Ok((outs, unwritten, back))
        };
        let release = match last.load(Ordering::Relaxed) {
            0 => replay.elements() >= RELEASE_GIL_MIN_ELEMENTS,
            ns => ns >= RELEASE_GIL_MIN_NANOS,
        };
        let (outs_bytes, unwritten, back_bytes) =
            if release { py.detach(work) } else { work() }.map_err(nki_error)?;
        let outs = PyList::empty(py);
        for (t, bytes) in self.outputs.iter().zip(outs_bytes) {
            outs.append(to_numpy(py, bytes, t.dtype, &t.shape, &self.fp8)?)?;
        }
        let back = PyList::empty(py);
        for (t, bytes) in self.inputs.iter().zip(back_bytes) {
            match bytes {
                Some(b) => back.append(to_numpy(py, b, t.dtype, &t.shape, &self.fp8)?)?,
                None => back.append(py.None())?,
            }
        }
        Ok((outs, unwritten, back))
    }

    /// The number of instructions a replay executes.
    #[getter]
    fn instructions(&self) -> usize {
        self.replay.steps()
    }

    fn __repr__(&self) -> String {
        format!(
            "<tpb.nki.KernelReplay inputs={} outputs={} instructions={}>",
            self.inputs.len(),
            self.outputs.len(),
            self.replay.steps()
        )
    }
}
