//! # tpb-sim — bit-exact reference simulator for the TPB instruction slice
//!
//! A [`Machine`] holds one generation's on-chip state (SBUF and PSUM with their real sizes
//! and address map, a byte-level "initialised" shadow, 64 registers, per-channel DVE scalar
//! flops, 256 semaphores and 256 events) and executes decoded [`tpb_isa::Instruction`]s:
//! ImmLd (0x70/0x71), PtrMulti (0x4F/0x5F, sunda Dual 0x87), AffineSelect (0x92), Iota
//! (0x7E), TensorScalar / TensorScalarPtr (0x43/0x53/0x44/0x54), TensorScalarSelect (0x98)
//! and RangeSelect (0xBC).
//!
//! ```
//! use tpb_isa::{geometry::Space, Dtype, Gen};
//! use tpb_sim::{Config, HostTensor, Machine};
//!
//! let mut m = Machine::new(Config::new(Gen::Cayman));
//! let t = HostTensor::at(Space::Sbuf, 0..2).offset(0x100).elements(Dtype::FP32, 4);
//! let bytes: Vec<u8> = (0..8).flat_map(|i| (i as f32).to_le_bytes()).collect();
//! m.write_tensor(&t, &bytes).unwrap();
//! assert_eq!(m.read_tensor(&t).unwrap(), bytes);
//! ```
//!
//! Guarantees (details in [`machine`]): every instruction is validated for the machine's
//! generation before it runs; a fault changes no state; results are bit-exact against the
//! documented contract with every ASSUMED behaviour listed in [`assumptions`]; no input
//! makes the library panic.
//!
//! Modules: [`numerics`] (dtype codecs and ALU ops, no knowledge of instructions),
//! [`machine`] (state, host API, step/run), [`region`] (the `sbuf[p0..128]+0x400:fp32:128x512`
//! region syntax and region reads/writes), [`assumptions`] (every ASSUMED behaviour), and
//! the private `exec` (one execute function per instruction).
#![warn(missing_docs)]

pub mod assumptions;
mod exec;
pub mod machine;
pub mod numerics;
pub mod region;

pub use machine::{
    Config, Fault, FaultCause, FlopKind, Flops, HostError, HostTensor, InstId, Machine, Region,
    RunReport, StepReport, Warning, WarningKind, DEFAULT_MAX_ELEMENTS,
};
