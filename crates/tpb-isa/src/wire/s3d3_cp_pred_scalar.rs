//! `NEURON_ISA_TPB_S3D3_CP_PRED_SCALAR_STRUCT`: CopyPredicatedScalar 0xe8
//! (docs/reference/isa.md "S3D3_CP_PRED_SCALAR"; isa-facts-dve-pool §3.2).
//!
//! Slot order: the compile-verified header (`pred@16, dst@48`) wins over the compiler-side
//! reading (isa-facts-dve-pool §0.2 decision 3).

use super::descriptor::{ImmVal, Tensor3};
use super::field::Bytes;
use super::wire_struct;
use crate::tables::{Dtype, ImmSrc};

wire_struct! {
    /// `NEURON_ISA_TPB_S3D3_CP_PRED_SCALAR_STRUCT` (64 B, gcc-verified on all four
    /// generations; the patterns are `MEM_PATTERN3D` on mariana/maverick, same bytes).
    pub struct S3d3CpPredScalar, bytes 12..64 {
        /// Bytes 12..16: must be 0.
        reserved0: Bytes<4> = 12,
        /// Bytes 16..32: `TENSOR3D` predicate (read).
        pred_mem_pattern: Tensor3 = 16,
        /// Byte 32: the predicate dtype (integer datapath only).
        pred_dtype: Dtype = 32,
        /// Byte 33: 0 or 1; 0 writes the scalar where the predicate is FALSE.
        reversed_pred: u8 = 33,
        /// Byte 34: partitions 1..=128.
        num_active_channels: u8 = 34,
        /// Bytes 35..41: must be 0.
        reserved1: Bytes<6> = 35,
        /// Byte 41: the scalar's dtype; must equal `out_dtype`.
        in_dtype: Dtype = 41,
        /// Byte 42: the dst dtype.
        out_dtype: Dtype = 42,
        /// Byte 43: where the scalar comes from.
        src0_imm_src: ImmSrc = 43,
        /// Bytes 44..48: the scalar (inline bits, pointer or register).
        src0_imm: ImmVal = 44,
        /// Bytes 48..64: `TENSOR3D` destination (read and written: merge).
        dst_mem_pattern: Tensor3 = 48,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // isa-facts-dve-pool §3.2: gcc offsetof output.
    #[test]
    fn s3d3_cp_pred_scalar_offsets() {
        let o: Vec<_> = S3d3CpPredScalar::LAYOUT.iter().map(|f| f.offset).collect();
        assert_eq!(o, [12, 16, 32, 33, 34, 35, 41, 42, 43, 44, 48]);
    }

    /// A hand-built body: uint8 predicate, reversed, fp32 scalar −inf inline.
    #[test]
    fn golden_s3d3_cp_pred_scalar_bytes() {
        let mut b = [0u8; 64];
        b[0] = 0xE8;
        b[1] = 0x10;
        b[16..20].copy_from_slice(&0x200u32.to_le_bytes());
        b[32] = 0x03; // uint8
        b[33] = 1;
        b[34] = 32;
        b[41] = 0x0A;
        b[42] = 0x0A;
        b[44..48].copy_from_slice(&0xFF80_0000u32.to_le_bytes());
        b[48..52].copy_from_slice(&0x400u32.to_le_bytes());
        let s = S3d3CpPredScalar::parse(&b);
        assert_eq!(s.pred_mem_pattern.start_addr.0, 0x200);
        assert_eq!((s.pred_dtype, s.reversed_pred), (Dtype::UINT8, 1));
        assert_eq!(s.num_active_channels, 32);
        assert_eq!((s.in_dtype, s.out_dtype), (Dtype::FP32, Dtype::FP32));
        assert_eq!(s.src0_imm_src, ImmSrc::INSTRUCTION);
        assert_eq!(s.src0_imm.0, 0xFF80_0000);
        assert_eq!(s.dst_mem_pattern.start_addr.0, 0x400);
        let mut out = b;
        out[12..].fill(0);
        s.emit(&mut out);
        assert_eq!(out, b);
    }
}
