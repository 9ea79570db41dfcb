//! `NEURON_ISA_TPB_S3S3D3_TT_STRUCT`: TensorTensor 0x41/0x51, the sunda bf16 trio
//! 0x8a/0x8b/0x8f, CopyPredicated 0x72 and CastPredicated 0x99
//! (docs/reference/isa.md "S3S3D3_TT"; isa-facts-dve-pool §1.2, §2.2).
//!
//! Slot order: the compile-verified header (`src0@16, src1@32, dst@48`) wins over the
//! compiler-side reading `dst@16` (isa-facts-dve-pool §0.2 decision 1).

use super::descriptor::{DtypePair, Tensor3};
use super::wire_struct;
use crate::tables::{AluOp, Dtype};

wire_struct! {
    /// `NEURON_ISA_TPB_S3S3D3_TT_STRUCT` (64 B, `s3s3d3_tt.h:27`, gcc-verified). For the
    /// predicated copies src0 is the predicate and src1 the data (isa-facts-dve-pool §2.2).
    pub struct S3s3d3Tt, bytes 12..64 {
        /// Byte 12: src0 dtype (low nibble) and src1 dtype (high nibble).
        in0_in1_dtype: DtypePair = 12,
        /// Byte 13: the dst dtype.
        out_dtype: Dtype = 13,
        /// Byte 14: the ALU op (Bypass for the predicated copies).
        op: AluOp = 14,
        /// Byte 15: partitions 1..=128.
        num_active_channels: u8 = 15,
        /// Bytes 16..32: `TENSOR3D` input 0 (the predicate for 0x72/0x99).
        src0_mem_pattern: Tensor3 = 16,
        /// Bytes 32..48: `TENSOR3D` input 1 (the data for 0x72/0x99).
        src1_mem_pattern: Tensor3 = 32,
        /// Bytes 48..64: `TENSOR3D` output.
        dst_mem_pattern: Tensor3 = 48,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // isa-facts-dve-pool §1.2 / §2.2: `header=0 events=4 in0_in1_dtype=12 out_dtype=13
    // op=14 nac=15 src0=16 src1=32 dst=48`.
    #[test]
    fn s3s3d3_tt_offsets() {
        let o: Vec<_> = S3s3d3Tt::LAYOUT.iter().map(|f| f.offset).collect();
        assert_eq!(o, [12, 13, 14, 15, 16, 32, 48]);
    }

    /// A hand-built TensorTensor body: fp32 (src0) × bf16 (src1) → bf16, MULT, 64 channels.
    #[test]
    fn golden_s3s3d3_tt_bytes() {
        let mut b = [0u8; 64];
        b[0] = 0x41;
        b[1] = 0x10;
        b[12] = 0x6A; // lo = fp32 (src0), hi = bf16 (src1)
        b[13] = 0x06;
        b[14] = 0x06; // MULT
        b[15] = 64;
        b[16..20].copy_from_slice(&0x100u32.to_le_bytes());
        b[32..36].copy_from_slice(&0x800u32.to_le_bytes());
        b[48..52].copy_from_slice(&0x1000u32.to_le_bytes());
        b[26..28].copy_from_slice(&7u16.to_le_bytes()); // src0 num_elem[0]
        let s = S3s3d3Tt::parse(&b);
        assert_eq!(s.in0_in1_dtype.lo(), Dtype::FP32);
        assert_eq!(s.in0_in1_dtype.hi(), Dtype::BFLOAT16);
        assert_eq!((s.out_dtype, s.op), (Dtype::BFLOAT16, AluOp::MULT));
        assert_eq!(s.num_active_channels, 64);
        assert_eq!(s.src0_mem_pattern.start_addr.0, 0x100);
        assert_eq!(s.src0_mem_pattern.num_elem[0], 7);
        assert_eq!(s.src1_mem_pattern.start_addr.0, 0x800);
        assert_eq!(s.dst_mem_pattern.start_addr.0, 0x1000);
        let mut out = b;
        out[12..].fill(0);
        s.emit(&mut out);
        assert_eq!(out, b);
    }
}
