//! NumPy arrays ⇄ raw element bytes, and NumPy / ml_dtypes dtypes ⇄ TPB dtypes.
//!
//! Arrays cross as bytes: an input array is viewed as `uint8` (no per-element Python work,
//! no copy when it is already C-contiguous little-endian), an output array is a `uint8`
//! array that owns the simulator's bytes, viewed as the element dtype and reshaped.

use crate::errors::{raise, ErrorKind};
use numpy::{PyArray1, PyReadonlyArray1};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::PyDict;
use tpb_isa::Dtype;
use tpb_sim::numerics::{E4m3Variant, Fp8Config};

/// NumPy dtype names (`array.dtype.name`) and the TPB dtype each holds. ml_dtypes registers
/// `bfloat16` and the `float8_*` names.
const NUMPY_DTYPES: &[(&str, Dtype)] = &[
    ("float32", Dtype::FP32),
    ("float16", Dtype::FP16),
    ("bfloat16", Dtype::BFLOAT16),
    ("float8_e3m4", Dtype::FP8_EXP3),
    ("float8_e4m3", Dtype::FP8_EXP4),
    ("float8_e4m3fn", Dtype::FP8_EXP4),
    ("float8_e5m2", Dtype::FP8_EXP5),
    ("int8", Dtype::INT8),
    ("uint8", Dtype::UINT8),
    ("int16", Dtype::INT16),
    ("uint16", Dtype::UINT16),
    ("int32", Dtype::INT32),
    ("uint32", Dtype::UINT32),
];

/// The TPB dtype of a NumPy dtype name. The two E4M3 flavours share a bit layout but not a
/// meaning: the array's must be the machine's ([`Fp8Config::e4m3`]).
pub fn tpb_dtype(name: &str, fp8: &Fp8Config) -> PyResult<Dtype> {
    let Some(&(_, d)) = NUMPY_DTYPES.iter().find(|(n, _)| *n == name) else {
        let names: Vec<&str> = NUMPY_DTYPES.iter().map(|(n, _)| *n).collect();
        let hint = match name {
            "float64" => " (cast with .astype(numpy.float32))",
            "int64" => " (cast with .astype(numpy.int32))",
            "bool" => " (cast with .astype(numpy.uint8))",
            _ => "",
        };
        return Err(raise(
            ErrorKind::Dtype,
            format!(
                "dtype {name} is not a TPB datapath dtype{hint}; expected one of {}",
                names.join(", ")
            ),
        ));
    };
    if d == Dtype::FP8_EXP4 && name != e4m3_name(fp8) {
        return Err(raise(
            ErrorKind::Dtype,
            format!(
                "dtype {name}: this machine's FP8_EXP4 is ml_dtypes.{} (Machine(fp8_e4m3=...) \
                 selects the variant)",
                e4m3_name(fp8)
            ),
        ));
    }
    Ok(d)
}

fn e4m3_name(fp8: &Fp8Config) -> &'static str {
    match fp8.e4m3 {
        E4m3Variant::FiniteOnly => "float8_e4m3fn",
        _ => "float8_e4m3",
    }
}

/// The NumPy dtype object for a TPB dtype (`numpy.float32`, `ml_dtypes.bfloat16`, …).
pub fn numpy_dtype<'py>(py: Python<'py>, d: Dtype, fp8: &Fp8Config) -> PyResult<Bound<'py, PyAny>> {
    let (module, name) = match d {
        Dtype::BFLOAT16 => ("ml_dtypes", "bfloat16"),
        Dtype::FP8_EXP3 => ("ml_dtypes", "float8_e3m4"),
        Dtype::FP8_EXP4 => ("ml_dtypes", e4m3_name(fp8)),
        Dtype::FP8_EXP5 => ("ml_dtypes", "float8_e5m2"),
        Dtype::FP32R => ("numpy", "float32"),
        _ => match NUMPY_DTYPES.iter().find(|&&(_, x)| x == d) {
            Some(&(n, _)) => ("numpy", n),
            None => {
                return Err(raise(
                    ErrorKind::Dtype,
                    format!("dtype {d} has no NumPy equivalent"),
                ))
            }
        },
    };
    match module {
        "numpy" => crate::pycache::module!(py, "numpy")?.getattr(name),
        _ => crate::pycache::module!(py, "ml_dtypes")?.getattr(name),
    }
}

/// An input array as (TPB dtype, shape, little-endian C-order bytes as a `uint8` view).
pub struct HostArray<'py> {
    pub dtype: Dtype,
    pub shape: Vec<usize>,
    pub bytes: PyReadonlyArray1<'py, u8>,
}

impl HostArray<'_> {
    pub fn as_slice(&self) -> PyResult<&[u8]> {
        self.bytes
            .as_slice()
            .map_err(|e| raise(ErrorKind::Dtype, e.to_string()))
    }
}

/// An array-like seen through `numpy.asarray` (no copy for an array): its TPB dtype and
/// shape, known before any byte is gathered, so a region can be checked first.
pub struct HostView<'py> {
    pub dtype: Dtype,
    pub shape: Vec<usize>,
    array: Bound<'py, PyAny>,
}

impl<'py> HostView<'py> {
    /// The elements as little-endian C-order bytes (this copies a broadcast or strided
    /// view, and byte-swaps a big-endian array).
    pub fn bytes(self) -> PyResult<HostArray<'py>> {
        let py = self.array.py();
        let np = crate::pycache::module!(py, "numpy")?;
        let mut arr = self.array;
        let dt = arr.getattr("dtype")?;
        if dt.getattr("byteorder")?.extract::<String>()? == ">" {
            arr = arr.call_method1("astype", (dt.call_method1("newbyteorder", ("<",))?,))?;
        }
        let arr = np.call_method1("ascontiguousarray", (arr,))?;
        let flat = arr
            .call_method1("reshape", (-1,))?
            .call_method1("view", (np.getattr("uint8")?,))?;
        let bytes: PyReadonlyArray1<'py, u8> = flat.extract()?;
        Ok(HostArray {
            dtype: self.dtype,
            shape: self.shape,
            bytes,
        })
    }
}

/// A NumPy dtype's `name`, remembered per dtype object: the property is Python code in
/// NumPy (a few microseconds a read, several reads per kernel call), the dtypes are few.
pub fn dtype_name(dt: &Bound<'_, PyAny>) -> PyResult<String> {
    static NAMES: PyOnceLock<Py<PyDict>> = PyOnceLock::new();
    let py = dt.py();
    let names = NAMES.get_or_init(py, || PyDict::new(py).unbind()).bind(py);
    if let Some(n) = names.get_item(dt)? {
        return n.extract();
    }
    let n = dt.getattr("name")?;
    // Bounded: dtypes with metadata or other byte orders are distinct objects.
    if names.len() < 256 {
        names.set_item(dt, &n)?;
    }
    n.extract()
}

/// Views any array-like (`numpy.asarray`) and names its TPB dtype and shape.
pub fn host_view<'py>(array: &Bound<'py, PyAny>, fp8: &Fp8Config) -> PyResult<HostView<'py>> {
    let np = crate::pycache::module!(array.py(), "numpy")?;
    let arr = np.call_method1("asarray", (array,))?;
    let name = dtype_name(&arr.getattr("dtype")?)?;
    let dtype = tpb_dtype(&name, fp8)?;
    let shape: Vec<usize> = arr.getattr("shape")?.extract()?;
    Ok(HostView {
        dtype,
        shape,
        array: arr,
    })
}

/// NumPy's limit on an array's dimensions.
pub const MAX_DIMS: usize = 64;

/// A shape NumPy can hold: at most [`MAX_DIMS`] dimensions, as `tpb.UsageError` (not
/// NumPy's `ValueError`; issue 20 item 16).
pub fn check_dims(shape: &[usize], what: &str) -> PyResult<()> {
    if shape.len() > MAX_DIMS {
        return Err(raise(
            ErrorKind::Usage,
            format!(
                "{what} has {} dimensions; NumPy arrays have at most {MAX_DIMS}",
                shape.len()
            ),
        ));
    }
    Ok(())
}

/// Wraps simulator bytes as an array of `dtype` and `shape` (the bytes are moved, not
/// copied).
pub fn to_numpy<'py>(
    py: Python<'py>,
    bytes: Vec<u8>,
    dtype: Dtype,
    shape: &[usize],
    fp8: &Fp8Config,
) -> PyResult<Bound<'py, PyAny>> {
    check_dims(shape, "the array")?;
    let raw = PyArray1::from_vec(py, bytes);
    raw.call_method1("view", (numpy_dtype(py, dtype, fp8)?,))?
        .call_method1("reshape", (shape.to_vec(),))
}
