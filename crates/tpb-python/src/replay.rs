//! `KernelReplay`: a kernel's recorded run ([`tpb_nki::Replay`]) replayed with new input
//! arrays, the GIL released throughout — what `tpb.nki` runs when a kernel is called again
//! with the same signature (docs/python.md, "Traced once per signature").

use crate::arrays::{host_view, numpy_dtype, to_numpy, HostArray};
use crate::errors::{raise, ErrorKind};
use crate::nki::{nki_error, Core, Tile};
use numpy::{
    PyArray1, PyArrayDescr, PyArrayDescrMethods, PyArrayMethods, PyReadonlyArrayDyn,
    PyUntypedArray, PyUntypedArrayMethods,
};
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::PyList;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;
use tpb_sim::numerics::Fp8Config;

/// `KernelReplay.run`'s answer: (outputs, first unwritten element per output, inputs the run
/// wrote); the last two are None when every entry would be.
type ReplayResult<'py> = (
    Bound<'py, PyList>,
    Option<Vec<Option<usize>>>,
    Option<Bound<'py, PyList>>,
);

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
    /// The NumPy dtypes of the inputs and of the outputs, made once: a replay converts its
    /// arrays with them and no dtype look-up ([`input_bytes`], [`output_array`]).
    input_dtypes: Vec<Py<PyArrayDescr>>,
    output_dtypes: Vec<Py<PyArrayDescr>>,
    /// How long the last replay's run took, in ns (0: not timed yet).
    last_nanos: AtomicU64,
}

/// An input's bytes for a replay: borrowed from the array itself when it is already what
/// the run recorded (C-contiguous, of the recorded dtype and byte order, at least one
/// dimension), else through the general conversion (`host_view`, which checks and copies).
enum InputBytes<'py> {
    Borrowed(PyReadonlyArrayDyn<'py, u8>),
    Converted(HostArray<'py>),
}

impl InputBytes<'_> {
    fn as_slice(&self) -> PyResult<&[u8]> {
        match self {
            InputBytes::Borrowed(a) => a
                .as_slice()
                .map_err(|e| raise(ErrorKind::Dtype, e.to_string())),
            InputBytes::Converted(a) => a.as_slice(),
        }
    }
}

/// `a`'s bytes without a copy when it is a C-contiguous array of `dtype` (the same byte
/// order too: equivalent dtypes) holding `elements` elements in one or more dimensions;
/// `None` otherwise.
fn input_bytes<'py>(
    a: &Bound<'py, PyAny>,
    dtype: &Bound<'py, PyArrayDescr>,
    elements: usize,
) -> PyResult<Option<PyReadonlyArrayDyn<'py, u8>>> {
    let Ok(arr) = a.cast::<PyUntypedArray>() else {
        return Ok(None);
    };
    if arr.ndim() == 0
        || !arr.is_c_contiguous()
        || arr.len() != elements
        || !arr.dtype().is_equiv_to(dtype)
    {
        return Ok(None);
    }
    // A byte view of the same memory (its last dimension scaled by the item size).
    let bytes = arr.call_method1(intern!(a.py(), "view"), (PyArrayDescr::of::<u8>(a.py()),))?;
    Ok(Some(bytes.extract()?))
}

/// The output array over `bytes` (moved, not copied) of `dtype` and `shape`: the bytes
/// shaped with the last dimension scaled by the item size, then viewed as `dtype`.
fn output_array<'py>(
    py: Python<'py>,
    bytes: Vec<u8>,
    dtype: &Bound<'py, PyArrayDescr>,
    shape: &[usize],
) -> PyResult<Bound<'py, PyAny>> {
    crate::arrays::check_dims(shape, "the array")?;
    let raw = PyArray1::from_vec(py, bytes);
    match shape.split_last() {
        Some((&last, lead)) => {
            let mut byte_shape = lead.to_vec();
            byte_shape.push(last * dtype.itemsize());
            let shaped = raw.reshape(byte_shape)?;
            Ok(shaped.call_method1(intern!(py, "view"), (dtype,))?)
        }
        None => raw
            .call_method1(intern!(py, "view"), (dtype,))?
            .call_method1(intern!(py, "reshape"), (Vec::<usize>::new(),)),
    }
}

/// The NumPy dtype of each tile's TPB dtype.
fn dtypes(
    py: Python<'_>,
    tiles: &[tpb_nki::Tile],
    fp8: &Fp8Config,
) -> PyResult<Vec<Py<PyArrayDescr>>> {
    tiles
        .iter()
        .map(|t| Ok(PyArrayDescr::new(py, numpy_dtype(py, t.dtype, fp8)?)?.unbind()))
        .collect()
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
    let fp8 = c.machine().config().fp8;
    let inputs: Vec<_> = inputs.iter().map(|t| t.tile.clone()).collect();
    let outputs: Vec<_> = outputs.iter().map(|t| t.tile.clone()).collect();
    let py = core.py();
    Ok(KernelReplay {
        replay,
        input_dtypes: dtypes(py, &inputs, &fp8)?,
        output_dtypes: dtypes(py, &outputs, &fp8)?,
        inputs,
        outputs,
        fp8,
        last_nanos: AtomicU64::new(0),
    })
}

#[pymethods]
impl KernelReplay {
    /// Replays the run with `arrays` (one per input, each of the recorded shape and dtype).
    /// Returns `(outputs, unwritten, inputs)`: the output arrays; per output, the flat index
    /// of its first element never written, or None (the whole list None when every output
    /// was written); per input, its array after the run when an instruction wrote into it,
    /// else None (the whole list None when no input was written).
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
        let mut held: Vec<InputBytes<'py>> = Vec::with_capacity(arrays.len());
        for (k, ((a, t), dtype)) in arrays
            .iter()
            .zip(&self.inputs)
            .zip(&self.input_dtypes)
            .enumerate()
        {
            let elements = t.shape.iter().product::<usize>();
            if let Some(b) = input_bytes(a, dtype.bind(py), elements)? {
                held.push(InputBytes::Borrowed(b));
                continue;
            }
            let view = host_view(a, &self.fp8)?;
            if view.dtype != t.dtype || view.shape.iter().product::<usize>() != elements {
                return Err(raise(
                    ErrorKind::Usage,
                    format!(
                        "input {k}: a {:?} {:?} array, the recorded run's is {:?} {:?}",
                        view.shape, view.dtype, t.shape, t.dtype
                    ),
                ));
            }
            held.push(InputBytes::Converted(view.bytes()?));
        }
        let slices = held
            .iter()
            .map(InputBytes::as_slice)
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
            let unwritten = outputs
                .iter()
                .map(|t| core.first_unwritten(t))
                .collect::<Result<Vec<_>, _>>()?;
            // The outputs, then the inputs an instruction wrote, moved out of the machine
            // where they are held in one piece.
            let written: Vec<usize> = (0..inputs.len())
                .filter(|&k| replay.input_written(k))
                .collect();
            let wanted: Vec<&tpb_nki::Tile> = outputs
                .iter()
                .chain(written.iter().map(|&k| &inputs[k]))
                .collect();
            let mut bytes = core.into_reads(&wanted)?;
            let mut back: Vec<Option<Vec<u8>>> = vec![None; inputs.len()];
            for (&k, b) in written.iter().zip(bytes.drain(outputs.len()..)) {
                back[k] = Some(b);
            }
            let outs = bytes;
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
        for ((t, bytes), dtype) in self.outputs.iter().zip(outs_bytes).zip(&self.output_dtypes) {
            outs.append(output_array(py, bytes, dtype.bind(py), &t.shape)?)?;
        }
        let back = if back_bytes.iter().any(Option::is_some) {
            let back = PyList::empty(py);
            for (t, bytes) in self.inputs.iter().zip(back_bytes) {
                match bytes {
                    Some(b) => back.append(to_numpy(py, b, t.dtype, &t.shape, &self.fp8)?)?,
                    None => back.append(py.None())?,
                }
            }
            Some(back)
        } else {
            None
        };
        let unwritten = unwritten.iter().any(Option::is_some).then_some(unwritten);
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
