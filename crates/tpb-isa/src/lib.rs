//! # tpb-isa — the NeuronCore TPB instruction slice as data
//!
//! Bytes ⇄ typed instructions, the enumeration and opcode tables, per-generation
//! validation, the text syntax and the compiler's access-pattern packer.
//!
//! Guarantees: [`Instruction::decode`] never fails and never loses a bit on any 64 bytes
//! (`emit(decode(b)) == b`); [`validate()`](validate::validate) alone decides legality for a
//! generation. Nothing in this crate does I/O.
#![warn(missing_docs)]

pub mod gen;
pub mod opcode;
pub mod opcode_doc;
pub mod tables;

pub use gen::{Gen, GenSet};
pub use opcode::{Opcode, OpcodeInfo, StructKind};
pub use tables::{
    AccumCmd, ActFunc, AffineSelectCmp, AluOp, CodeEnum, DataSrc, DgeComputeOp, DgeOpcode, Dtype,
    ImmSrc, ImmSrcN, PeFp32Mode, PeSeedMode, ReduceAxis, ReduceCmd, ReduceOp, RevOps, TensorSubdim,
    UpdateMode, WaitMode,
};
pub mod geometry;
pub mod hex;
pub mod lower;
pub mod pack;
pub mod text;
pub mod validate;
pub mod wire;

pub use wire::{decode_program, encode_program, Body, Instruction};
