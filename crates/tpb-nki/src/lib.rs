//! # tpb-nki — NKI-shaped calls that emit, validate and run real TPB bundles
//!
//! NKI kernels call `nki.isa.iota(dst, pattern, …)`, `nki.isa.affine_select(…)`,
//! `nki.isa.tensor_scalar(…)`, … on tiles. This crate takes the same calls (the current NKI
//! signatures: `dst` first, patterns outermost first; see `docs/reference/nki-calls.md`) and, for
//! each one, does what the compiler does: packs the tiles' access patterns with the
//! compiler's packer ([`tpb_isa::pack`]), builds the instruction, validates it for the
//! core's generation (an invalid one is an error before anything runs), runs it bit-exactly
//! on a [`tpb_sim::Machine`] and appends the bundle to the core's program.
//!
//! ```
//! use tpb_nki::{Cmp, Core, Operand};
//! use tpb_isa::{geometry::Space, Dtype, Gen};
//!
//! let mut core = Core::new(Gen::Cayman);
//! let scores = core.ndarray(&[4, 4], Dtype::FP32, Space::Sbuf).unwrap();
//! let masked = core.ndarray(&[4, 4], Dtype::BFLOAT16, Space::Sbuf).unwrap();
//! core.iota(&scores, &[[1, 4]], 0, 0).unwrap(); // every row is 0, 1, 2, 3
//! // Keep x <= p (the causal mask of nki-library's attention kernels), fill the rest.
//! core.affine_select(&masked, &[[-1, 4]], 1, &scores, -3.4028235e38, Cmp::GreaterEqual, 0)
//!     .unwrap();
//! let bits = core.read(&masked).unwrap();
//! assert_eq!(&bits[0..4], &[0x00, 0x00, 0x80, 0xff]); // row 0: 0.0, then -inf (bf16)
//! assert_eq!(core.program().len(), 2);
//! # let _ = Operand::Imm(1.0);
//! ```
//!
//! Tiles may be views ([`Tile::index`], [`Tile::index_affine`], [`Tile::ap`],
//! [`Tile::reshape`], [`Tile::view`]): a slice, an integer, an `nl.ds` range, an affine
//! `nl.arange` / `nl.mgrid` expression over an index grid or a raw `[step, num]` pattern only
//! changes the access pattern the packer receives; a view too large for one instruction is
//! split as a compiler would, all or nothing. Each emitted instruction goes to its engine's queue
//! ([`Core::engines`]) with the semaphore waits its footprint needs ([`sync`]), so
//! [`Core::disasm`] / [`Core::bundles`] is a race-free multi-engine program;
//! [`Core::schedule`] re-runs it on the engine scheduler, and [`Core::first_difference`]
//! compares the result with the eager run. Every change a core makes to its machine is
//! recorded, so a kernel's run can be replayed on new input bytes without re-running the
//! calls ([`Replay`]).
//!
//! Emission choices that are ours, not the compiler's (the compiler's register allocation,
//! tile placement and semaphore allocation are not public): tiles start at partition 0 and
//! are first-fit allocated at 64-byte aligned offsets within the partition, a PSUM tile that
//! fits a 2 KiB bank inside one bank (a larger one from a bank boundary), tiles the kernel
//! places (`address=`) pinned where it says, and freed by [`Core::free`]; the elements a
//! masked call leaves out of its on-chip destination are declared written without a value
//! ([`Core::mark_masked_out`]); each engine counts its
//! instructions on semaphore `255 - engine index` ([`sync::sync_semaphore`]); fill values and
//! other FP32 constants an instruction reads from a register are placed in registers
//! allocated from 63 downwards and set through the host API, and [`Core::disasm`] writes them
//! as `.reg` lines. [`call`] is the one entry every NKI call's Python definition lowers
//! through (`python/tpb/nki/isa.py`).
#![warn(missing_docs)]

// Issue 18: activation, activation_reduce and exponential.
mod act;
// Index expressions as subscripts, and views pending a mask.
mod affine;
// `tensor.ap(pattern, offset)`.
mod alloc;
mod ap;
// BatchNorm statistics (bn_stats, bn_aggr) composed from Vector instructions.
mod bn;
mod build;
pub mod call;
mod core;
pub mod dma;
// Issue 17b calls: the STT family, cache reduce + drain, search cluster.
mod dve;
mod dve_pool;
mod error;
mod matmul_groups;
mod names;
// Issue 18: nc_matmul and the Tensor-engine nc_transpose on the PE.
mod pe;
// A kernel's recorded run replayed with new inputs (issue 30).
mod replay;
// Calls split when a view needs more than one instruction.
mod split;
// What a core did to its machine, in order.
pub mod sync;
mod tape;
mod tile;

pub use crate::core::{Core, Label};
pub use crate::replay::Replay;

/// How one NKI call lowers to instructions.
#[derive(Clone, Copy)]
pub struct Lowering {
    /// The call's name as its Python definition registers it (`tensor_scalar`).
    pub name: &'static str,
    /// Emits the call's instructions on the core; every step it ran.
    pub lower: fn(&mut Core, &call::Args<'_>) -> Result<Vec<StepReport>, NkiError>,
}

impl std::fmt::Debug for Lowering {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Lowering")
            .field("name", &self.name)
            .finish()
    }
}

/// The lowering tables of the modules that define calls ([`call`]).
const LOWERING_TABLES: &[&[Lowering]] = &[
    core::LOWERINGS,
    dve_pool::LOWERINGS,
    dve::LOWERINGS,
    act::LOWERINGS,
    pe::LOWERINGS,
    bn::LOWERINGS,
];

/// Every NKI call's lowering.
pub fn lowerings() -> impl Iterator<Item = &'static Lowering> {
    LOWERING_TABLES.iter().flat_map(|t| t.iter())
}

/// The lowering named `name`.
pub fn lowering(name: &str) -> Option<&'static Lowering> {
    lowerings().find(|l| l.name == name)
}

#[cfg(test)]
mod lowering_tests {
    #[test]
    fn lowering_names_are_unique() {
        let names: Vec<_> = super::lowerings().map(|l| l.name).collect();
        for (k, n) in names.iter().enumerate() {
            assert!(!names[..k].contains(n), "{n} twice");
        }
        assert!(super::lowering("tensor_scalar").is_some());
        assert!(super::lowering("frobnicate").is_none());
    }
}
pub use call::{NkiEngine, ReduceCmd};
pub use error::NkiError;
pub use names::{act_func, alu_op, Cmp};
pub use tile::{free_pattern, Affine, Index, Tile, ViewError};
use tpb_sim::StepReport;

/// A `tensor_scalar` / `select` scalar operand: a compile-time immediate or a per-partition
/// `(P, 1)` tile read through a pointer.
#[derive(Clone, Debug, PartialEq)]
pub enum Operand {
    /// An immediate: FP32 on the arithmetic path, integer bits on the bitvec path.
    Imm(f64),
    /// Raw 32-bit immediate bits (bitvec and integer paths).
    Bits(u32),
    /// One value per partition, from a `(P, 1)` tile.
    Tile(Tile),
}
