//! `NEURON_ISA_TPB_S2S2D2_STT_STRUCT`: ScalarTensorTensor 0x9d / 0x9e, TensorTensorScan 0xe5,
//! SelectReduce 0xea. Byte map: `docs/reference/isa-dve-state.md` "S2S2D2_STT"
//! (isa-facts-dve-pool §9.2, gcc-verified, identical on all four generations; for 0xea the
//! header's slots win over the compiler-side reading, §0.2 decision 2).

use super::descriptor::{DtypePair, ImmVal, Tensor2};
use super::field::Bytes;
use super::wire_struct;
use crate::tables::{AccumCmd, AluOp, Dtype, ImmSrc, RevOps};

wire_struct! {
    /// `NEURON_ISA_TPB_S2S2D2_STT_STRUCT` (isa-facts-dve-pool §9.2). Roles for SelectReduce
    /// 0xea: src0 = predicate, src1 = data (§11.2).
    pub struct S2s2d2Stt, bytes 12..64 {
        /// Bytes 12..24: `TENSOR2D` tensor A (SelectReduce: the predicate).
        src0_mem_pattern: Tensor2 = 12,
        /// Bytes 24..36: `TENSOR2D` tensor B (SelectReduce: the data).
        src1_mem_pattern: Tensor2 = 24,
        /// Byte 36: the first stage's op.
        op0: AluOp = 36,
        /// Byte 37: the second stage's op.
        op1: AluOp = 37,
        /// Byte 38: `TENS_SCALAR_REV_OPS`.
        reverse_operands: RevOps = 38,
        /// Byte 39: where imm0 comes from.
        imm0_src: ImmSrc = 39,
        /// Byte 40: src0 dtype (low nibble), src1 dtype (high nibble).
        in0_in1_dtype: DtypePair = 40,
        /// Byte 41: FP32R allowed.
        out_dtype: Dtype = 41,
        /// Byte 42: partitions 1..=128.
        num_active_channels: u8 = 42,
        /// Byte 43: the scalar's dtype.
        imm0_dtype: Dtype = 43,
        /// Byte 44: `ACCUM_CMD`.
        accumulator_cmd: AccumCmd = 44,
        /// Bytes 45..48: must be 0.
        reserved: Bytes<3> = 45,
        /// Bytes 48..60: `TENSOR2D` destination.
        dst_mem_pattern: Tensor2 = 48,
        /// Bytes 60..64: the scalar (FP32 bits, pointer or register).
        imm0: ImmVal = 60,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // isa-facts-dve-pool §9.2: src0@12 src1@24 op0@36 op1@37 reverse@38 imm0_src@39
    // dtypes@40 out@41 channels@42 imm0_dtype@43 accumulator_cmd@44 reserved@45 dst@48 imm0@60.
    #[test]
    fn s2s2d2_stt_offsets() {
        let o: Vec<_> = S2s2d2Stt::LAYOUT.iter().map(|f| f.offset).collect();
        assert_eq!(o, [12, 24, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 48, 60]);
    }

    /// `dst = 0.5 · A + B` (op0 mult, op1 add) over 128 × 512 fp32, golden bytes.
    #[test]
    fn golden_stt_bytes() {
        let mut b = [0u8; 64];
        b[12..16].copy_from_slice(&0x0u32.to_le_bytes());
        b[16..18].copy_from_slice(&1i16.to_le_bytes());
        b[20..22].copy_from_slice(&512u16.to_le_bytes());
        b[22..24].copy_from_slice(&1u16.to_le_bytes());
        b[24..28].copy_from_slice(&0x800u32.to_le_bytes());
        b[36] = 0x06; // mult
        b[37] = 0x04; // add
        b[40] = 0xAA; // fp32, fp32
        b[41] = 0x0A;
        b[42] = 128;
        b[43] = 0x0A;
        b[44] = 2; // accumulate
        b[48..52].copy_from_slice(&0x1000u32.to_le_bytes());
        b[60..64].copy_from_slice(&0.5f32.to_bits().to_le_bytes());
        let s = S2s2d2Stt::parse(&b);
        assert_eq!(s.src0_mem_pattern.num_elem, [512, 1]);
        assert_eq!(s.src1_mem_pattern.start_addr.0, 0x800);
        assert_eq!((s.op0, s.op1), (AluOp::MULT, AluOp::ADD));
        assert_eq!(
            (s.in0_in1_dtype.lo(), s.in0_in1_dtype.hi()),
            (Dtype::FP32, Dtype::FP32)
        );
        assert_eq!(
            (s.num_active_channels, s.accumulator_cmd),
            (128, AccumCmd::ACCUMULATE)
        );
        assert_eq!(s.dst_mem_pattern.start_addr.0, 0x1000);
        assert_eq!(f32::from_bits(s.imm0.0), 0.5);
        let mut out = [0u8; 64];
        s.emit(&mut out);
        assert_eq!(out, b);
    }
}
