//! # tpb-sim — bit-exact reference simulator for the TPB instruction slice
//!
//! A [`Machine`] holds one generation's on-chip state (SBUF and PSUM with their real sizes
//! and address map, a byte-level "initialised" shadow, HBM, 64 registers, per-channel DVE
//! scalar flops, the hidden DVE lane state, the PE weights, the ACT accumulator, 256
//! semaphores and 256 events) and executes decoded [`tpb_isa::Instruction`]s: every opcode
//! whose row in the opcode table (`tpb_isa::opcode`, README "What is modelled") has the `exec`
//! column `Run`; the other rows are refused with the reason the table gives. Execution
//! dispatches on the row's behaviour variant, never on the opcode byte.
//!
//! Build an instruction from its fields, run it, read the result back (Iota writes
//! `base + channel_multiplier·p + Σ step·i` into each partition, isa-facts §9):
//!
//! ```
//! use tpb_isa::wire::{op, Addr4, D4Iota, Tensor4};
//! use tpb_isa::{geometry::Space, Dtype, Gen, Instruction};
//! use tpb_sim::region::RegionSpec;
//! use tpb_sim::{Config, Machine};
//!
//! let gen = Gen::Cayman;
//! let mut iota = D4Iota {
//!     out_dtype: Dtype::INT32,
//!     num_active_channels: 2,
//!     channel_multiplier: 100,
//!     dst_mem_pattern: Tensor4::with_pattern(Addr4::at(gen, Space::Sbuf, 0, 0x40).unwrap(), &[(1, 3)])
//!         .unwrap(),
//!     ..Default::default()
//! };
//! iota.src_data_pattern.base = 7;
//! iota.src_data_pattern.num_elem[0] = 3; // steps of 1 (the default), 3 elements
//! let inst = Instruction::build(op::IOTA, iota);
//!
//! let mut m = Machine::new(Config::new(gen));
//! m.step(&inst)?;
//! let out = m.read_region(&RegionSpec::parse("sbuf[p0..2]+0x40:int32:2x3")?)?;
//! let values: Vec<i32> = out.bytes.chunks(4).map(|c| i32::from_le_bytes(c.try_into().unwrap())).collect();
//! assert_eq!(values, [7, 8, 9, 107, 108, 109]);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! The host API moves raw bytes in and out of [`HostTensor`]s:
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
//! [`machine`] (the machine, host API, step/run), [`region`] (the `sbuf[p0..128]+0x400:fp32:128x512`
//! region syntax and region reads/writes), [`engines`] (one queue per engine, the timing
//! model, race and deadlock detection), [`assumptions`] (every ASSUMED behaviour), and the
//! private `state` (what a fault leaves untouched: memory, HBM, registers, flops, lanes,
//! semaphores, events), `report` (faults, warnings, step reports), `config` and `exec` (one
//! execute function per family). They use one another without cycles
//! (`tools/check_module_cycles.py`): `exec` uses `state`, `machine` uses both. DMA requests
//! for kernels are built by `tpb_nki::dma`.
#![warn(missing_docs)]

pub mod assumptions;
mod config;
pub mod engines;
mod exec;
mod formula;
pub mod machine;
pub mod numerics;
pub mod region;
mod report;
mod spare;
mod state;

pub use exec::dma::MAX_DMA_ELEMENTS;
pub use machine::{
    Config, CostShape, DveLane, DveState, Fault, FaultCause, FlopKind, Flops, HostError,
    HostTensor, InstId, Machine, MemAccess, OperandShape, PerChannel, Region, RunReport,
    StepReport, Warning, WarningKind, DEFAULT_HBM_BYTES, DEFAULT_MAX_ELEMENTS,
    DEFAULT_MAX_HBM_HELD_BYTES, DEFAULT_MAX_RUN_ELEMENTS, DEFAULT_MIN_PARALLEL_ELEMENTS,
    MAX_HBM_BYTES, MAX_HOST_TRANSFER_BYTES, READ_PIECE_BYTES, SEGMENT_MIN,
};
