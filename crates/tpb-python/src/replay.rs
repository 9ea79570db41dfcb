//! `KernelReplay`: a kernel's recorded run ([`tpb_nki::Replay`]) replayed with new input
//! arrays, the GIL released throughout — what `tpb.nki` runs when a kernel is called again
//! with the same signature (docs/python.md, "A kernel is traced once per signature").

use crate::arrays::{host_view, to_numpy, HostArray};
use crate::errors::{raise, ErrorKind};
use crate::nki::{nki_error, Core, Tile};
use pyo3::prelude::*;
use pyo3::types::PyList;
use tpb_sim::numerics::Fp8Config;

/// A kernel run that can be replayed: its tape, its input tensors and its output tiles.
#[pyclass(module = "tpb._tpb", name = "KernelReplay", frozen)]
pub struct KernelReplay {
    replay: tpb_nki::Replay,
    inputs: Vec<tpb_nki::Tile>,
    outputs: Vec<tpb_nki::Tile>,
    fp8: Fp8Config,
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
    })
}

/// A tile's bytes as the NumPy array of its shape and dtype.
fn tile_array<'py>(
    py: Python<'py>,
    core: &tpb_nki::Core,
    tile: &tpb_nki::Tile,
    fp8: &Fp8Config,
) -> PyResult<Bound<'py, PyAny>> {
    let bytes = py.detach(|| core.read(tile)).map_err(nki_error)?;
    to_numpy(py, bytes, tile.dtype, &tile.shape, fp8)
}

/// What [`KernelReplay::run`] returns: the outputs, per output the flat index of its first
/// element never written, per input its array after the run (or None).
type ReplayResult<'py> = (Bound<'py, PyList>, Vec<Option<usize>>, Bound<'py, PyList>);

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
        let replay = &self.replay;
        let core = py.detach(|| replay.run(&slices)).map_err(nki_error)?;
        let outs = PyList::empty(py);
        let mut unwritten = Vec::with_capacity(self.outputs.len());
        for t in &self.outputs {
            outs.append(tile_array(py, &core, t, &self.fp8)?)?;
            unwritten.push(core.first_unwritten(t).map_err(nki_error)?);
        }
        let back = PyList::empty(py);
        for (k, t) in self.inputs.iter().enumerate() {
            if self.replay.input_written(k) {
                back.append(tile_array(py, &core, t, &self.fp8)?)?;
            } else {
                back.append(py.None())?;
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
