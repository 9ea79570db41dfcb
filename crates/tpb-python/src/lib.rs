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
mod lowering;
mod machine;
mod nki;
mod pycache;
mod replay;

use pyo3::prelude::*;

/// mimalloc rather than the system allocator: a kernel replay allocates and frees the same
/// few hundred KiB per call (its outputs, HBM blocks), and glibc returns such memory to the
/// OS at every free and faults it back in at the next call (page faults were a third of a
/// small replay's time; docs/benchmarks.md, "Where a replay's time goes").
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

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
    m.add_class::<nki::Tile>()?;
    m.add_function(wrap_pyfunction!(nki::tile::_ndarray_at, m)?)?;
    m.add_class::<lowering::Lowering>()?;
    m.add_function(wrap_pyfunction!(lowering::_lowerings, m)?)?;
    m.add_function(wrap_pyfunction!(cli::cli, m)?)?;
    m.add_class::<kernel::Profile>()?;
    m.add_function(wrap_pyfunction!(kernel::_kernel_profile, m)?)?;
    m.add_function(wrap_pyfunction!(kernel::_kernel_set_auto_sync, m)?)?;
    m.add_function(wrap_pyfunction!(kernel::_kernel_set_clip_views, m)?)?;
    m.add_function(wrap_pyfunction!(kernel::_kernel_wrote, m)?)?;
    m.add_class::<replay::KernelReplay>()?;
    m.add_function(wrap_pyfunction!(replay::_kernel_replay, m)?)?;
    Ok(())
}
