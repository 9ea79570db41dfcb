//! `NEURON_ISA_TPB_S4D4_TR_STRUCT`: Copy 0x46, Cast 0x47, Reciprocal 0x48, the reduces
//! 0x42/0x52/0x83/0x84 (sunda 0x8c/0x8d), StreamShuffle 0x6a and StreamTranspose 0x6b
//! (docs/reference/isa.md "S4D4_TR"; isa-facts-dve-pool §4.2).

use super::descriptor::Tensor4;
use super::field::Bytes;
use super::wire_struct;
use crate::tables::{AluOp, Dtype, TensorSubdim};

wire_struct! {
    /// `NEURON_ISA_TPB_S4D4_TR_STRUCT` (64 B, `s4d4_tr.h`, gcc-verified; the patterns are
    /// `MEM_PATTERN4D` on mariana/maverick, same bytes).
    pub struct S4d4Tr, bytes 12..64 {
        /// Bytes 12..32: `TENSOR4D` input.
        src_mem_pattern: Tensor4 = 12,
        /// Byte 32.
        in_dtype: Dtype = 32,
        /// Byte 33.
        out_dtype: Dtype = 33,
        /// Byte 34: partitions 1..=128.
        num_active_channels: u8 = 34,
        /// Byte 35: the reduce negate flag (0 or 1); 0 for the other ops.
        negated: u8 = 35,
        /// Byte 36: the reduce operator; Bypass for the copy-class ops.
        op: AluOp = 36,
        /// Byte 37: the reduce axes; UNUSED or X for the copy-class ops.
        op_dim: TensorSubdim = 37,
        /// Byte 38: 0, except StreamTranspose (0 or 1).
        mask_enable: u8 = 38,
        /// Bytes 39..44: must be 0.
        reserved1: Bytes<5> = 39,
        /// Bytes 44..64: `TENSOR4D` output.
        dst_mem_pattern: Tensor4 = 44,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // isa-facts-dve-pool §4.2: `header@0 events@4 src@12 in_dtype@32 out_dtype@33 nac@34
    // negated@35 op@36 op_dim@37 mask_enable@38 reserved1@39 dst@44`.
    #[test]
    fn s4d4_tr_offsets() {
        let o: Vec<_> = S4d4Tr::LAYOUT.iter().map(|f| f.offset).collect();
        assert_eq!(o, [12, 32, 33, 34, 35, 36, 37, 38, 39, 44]);
    }

    /// A hand-built TensorReduce body: fp32 → bf16, ADD over XY, negated, 128 channels.
    #[test]
    fn golden_s4d4_tr_bytes() {
        let mut b = [0u8; 64];
        b[0] = 0x42;
        b[1] = 0x10;
        b[12..16].copy_from_slice(&0x40u32.to_le_bytes());
        b[24..26].copy_from_slice(&16u16.to_le_bytes());
        b[32] = 0x0A;
        b[33] = 0x06;
        b[34] = 128;
        b[35] = 1;
        b[36] = 0x04; // ADD
        b[37] = 0x03; // XY
        b[44..48].copy_from_slice(&0x2000u32.to_le_bytes());
        let s = S4d4Tr::parse(&b);
        assert_eq!(s.src_mem_pattern.start_addr.0, 0x40);
        assert_eq!(s.src_mem_pattern.num_elem[0], 16);
        assert_eq!((s.in_dtype, s.out_dtype), (Dtype::FP32, Dtype::BFLOAT16));
        assert_eq!((s.num_active_channels, s.negated), (128, 1));
        assert_eq!((s.op, s.op_dim), (AluOp::ADD, TensorSubdim::XY));
        assert_eq!(s.mask_enable, 0);
        assert_eq!(s.dst_mem_pattern.start_addr.0, 0x2000);
        let mut out = b;
        out[12..].fill(0);
        s.emit(&mut out);
        assert_eq!(out, b);
    }
}
