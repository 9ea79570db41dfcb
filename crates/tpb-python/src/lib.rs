//! `tpb._tpb`: the native module behind the `tpb` Python package.
//!
//! Thin by design: every semantic lives in the Rust crates (`tpb-isa`, `tpb-sim`,
//! `tpb-nki`, and the
//! `tpb` command line); this crate converts arguments, arrays and errors. The Python package
//! (`python/tpb`) re-exports it and defines the exception classes.

mod args;
mod arrays;
mod cli;
mod errors;
mod isa;
mod kernel;
mod machine;
mod nki;
mod tile;
// Issue 18: the activation-engine calls.
mod nki_act;
// Issue 17b calls.
mod nki_dve;

use pyo3::prelude::*;

#[pymodule]
fn _tpb(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_class::<isa::Instruction>()?;
    m.add_class::<isa::Finding>()?;
    m.add_class::<isa::PackedPy>()?;
    m.add_function(wrap_pyfunction!(isa::decode, m)?)?;
    m.add_function(wrap_pyfunction!(isa::validate, m)?)?;
    m.add_function(wrap_pyfunction!(isa::asm, m)?)?;
    m.add_function(wrap_pyfunction!(isa::disasm, m)?)?;
    m.add_function(wrap_pyfunction!(isa::pack, m)?)?;
    m.add_function(wrap_pyfunction!(isa::geometry, m)?)?;
    m.add_class::<machine::Machine>()?;
    m.add_class::<machine::RunReport>()?;
    m.add_class::<machine::Warning>()?;
    m.add_class::<nki::Core>()?;
    m.add_class::<tile::Tile>()?;
    m.add_function(wrap_pyfunction!(tile::_ndarray_at, m)?)?;
    m.add_function(wrap_pyfunction!(nki::nki_iota, m)?)?;
    m.add_function(wrap_pyfunction!(nki::nki_affine_select, m)?)?;
    m.add_function(wrap_pyfunction!(nki::nki_tensor_scalar, m)?)?;
    m.add_function(wrap_pyfunction!(nki::nki_range_select, m)?)?;
    m.add_function(wrap_pyfunction!(nki::nki_select, m)?)?;
    // Issue 17b calls.
    m.add_function(wrap_pyfunction!(nki_dve::nki_scalar_tensor_tensor, m)?)?;
    m.add_function(wrap_pyfunction!(nki_dve::nki_tensor_tensor_scan, m)?)?;
    m.add_function(wrap_pyfunction!(nki_dve::nki_select_reduce, m)?)?;
    m.add_function(wrap_pyfunction!(nki_dve::nki_tensor_scalar_reduce, m)?)?;
    m.add_function(wrap_pyfunction!(nki_dve::nki_tensor_scalar_cumulative, m)?)?;
    m.add_function(wrap_pyfunction!(nki_dve::nki_max8, m)?)?;
    m.add_function(wrap_pyfunction!(nki_dve::nki_nc_find_index8, m)?)?;
    m.add_function(wrap_pyfunction!(nki_dve::nki_nc_match_replace8, m)?)?;
    m.add_function(wrap_pyfunction!(nki::nki_dma_copy, m)?)?;
    // Issue 17a.
    m.add_function(wrap_pyfunction!(nki::nki_tensor_tensor, m)?)?;
    m.add_function(wrap_pyfunction!(nki::nki_tensor_copy, m)?)?;
    m.add_function(wrap_pyfunction!(nki::nki_memset, m)?)?;
    // Issue 18a.
    m.add_function(wrap_pyfunction!(nki::nki_nc_matmul, m)?)?;
    m.add_function(wrap_pyfunction!(nki_act::nki_activation, m)?)?;
    m.add_function(wrap_pyfunction!(nki_act::nki_activation_reduce, m)?)?;
    m.add_function(wrap_pyfunction!(nki_act::nki_exponential, m)?)?;
    m.add_function(wrap_pyfunction!(nki::nki_reciprocal, m)?)?;
    m.add_function(wrap_pyfunction!(nki::nki_tensor_reduce, m)?)?;
    m.add_function(wrap_pyfunction!(nki::nki_tensor_copy_predicated, m)?)?;
    m.add_function(wrap_pyfunction!(nki::nki_nc_transpose, m)?)?;
    m.add_function(wrap_pyfunction!(nki::nki_nc_stream_shuffle, m)?)?;
    m.add_function(wrap_pyfunction!(cli::cli, m)?)?;
    m.add_class::<kernel::Profile>()?;
    m.add_function(wrap_pyfunction!(kernel::_kernel_set_call, m)?)?;
    m.add_function(wrap_pyfunction!(kernel::_kernel_profile, m)?)?;
    m.add_function(wrap_pyfunction!(kernel::_kernel_set_auto_sync, m)?)?;
    m.add_function(wrap_pyfunction!(kernel::_kernel_set_clip_views, m)?)?;
    m.add_function(wrap_pyfunction!(nki::_kernel_broadcast_partitions, m)?)?;
    m.add_function(wrap_pyfunction!(kernel::_nki_support, m)?)?;
    m.add_function(wrap_pyfunction!(kernel::_nki_refuse, m)?)?;
    m.add_function(wrap_pyfunction!(nki::_nc_matmul_check, m)?)?;
    Ok(())
}
