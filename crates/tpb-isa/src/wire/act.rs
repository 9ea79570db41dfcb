//! The ACT structs: `S3D3_AC` (Activate 0x21), `S3D3_AQ` (ActivateQuantize 0x22) and
//! `S2D2_AC` (Activate2 0x25). Byte maps from `docs/reference/pe-act.md`
//! (isa-facts-pe-act-dma §2.2, §2.4, §2.6; G header, identical on every generation that has
//! the struct).

use super::descriptor::{DtypePair, F32Bits, ImmVal, Tensor2, Tensor3};
use super::field::Bytes;
use super::wire_struct;
use crate::tables::{AccumCmd, ActFunc, AluOp, Dtype, ImmSrc, ImmSrcN, ReduceCmd};

wire_struct! {
    /// `NEURON_ISA_TPB_S3D3_AC_STRUCT` — Activate 0x21 (isa-facts-pe-act-dma §2.2):
    /// `out = func(scale · in + bias)` per element, with the per-lane accumulator command.
    pub struct S3d3Ac, bytes 12..64 {
        /// Byte 12: `IMM_SRC` of `imm` (@44).
        imm_src: ImmSrc = 12,
        /// Byte 13: `IMM_SRC` of `scale_value` (@36).
        scale_src: ImmSrc = 13,
        /// Byte 14: `ACCUM_CMD`, the ACT accumulator command.
        accumulator_cmd: AccumCmd = 14,
        /// Byte 15: `IMM_SRC_N` of `bias` (@40) — pointer is 0 here.
        bias_src_n: ImmSrcN = 15,
        /// Bytes 16..32: the input (SBUF or PSUM).
        src_mem_pattern: Tensor3 = 16,
        /// Byte 32: `DTYPE_PAIR`: input dtype in the low nibble, bias dtype in the high.
        in_bias_dtype: DtypePair = 32,
        /// Byte 33: the output dtype.
        out_dtype: Dtype = 33,
        /// Byte 34: lanes, 1..128.
        num_active_channels: u8 = 34,
        /// Byte 35: the function id (§2.9).
        activation_func: ActFunc = 35,
        /// Bytes 36..40: `ACTIVATION_IMM` scale (fp32, pointer or register per `scale_src`).
        scale_value: ImmVal = 36,
        /// Bytes 40..44: `ACTIVATION_IMM` bias (per `bias_src_n`).
        bias: ImmVal = 40,
        /// Bytes 44..48: `ACTIVATION_IMM` parameter (per `imm_src`), e.g. the prelu alpha.
        imm: ImmVal = 44,
        /// Bytes 48..64: the output (SBUF or PSUM).
        dst_mem_pattern: Tensor3 = 48,
    }
}

wire_struct! {
    /// `NEURON_ISA_TPB_S3D3_AQ_STRUCT` — ActivateQuantize 0x22 (isa-facts-pe-act-dma §2.4):
    /// `out = u8(quant_scale · func(in · dequant_scale + bias[p]) + quant_zero)`.
    pub struct S3d3Aq, bytes 12..64 {
        /// Bytes 12..16: fp32 quantisation scale.
        quant_scale_value: F32Bits = 12,
        /// Bytes 16..32: the input (FP32 or INT32).
        src_mem_pattern: Tensor3 = 16,
        /// Byte 32: `DTYPE_PAIR`: input dtype low, bias dtype high.
        in_bias_dtype: DtypePair = 32,
        /// Byte 33: the output dtype (the validator forces UINT8).
        out_dtype: Dtype = 33,
        /// Byte 34: lanes, 1..128.
        num_active_channels: u8 = 34,
        /// Byte 35: the function id.
        activation_func: ActFunc = 35,
        /// Bytes 36..40: fp32 de-quantisation scale.
        dequant_scale_value: F32Bits = 36,
        /// Bytes 40..44: `PARTITION_OFFSET` of the per-lane bias.
        bias_addr: ImmVal = 40,
        /// Bytes 44..48: the zero point (fp32, ASSUMED §8 item 18).
        quant_zero_value: F32Bits = 44,
        /// Bytes 48..64: the output.
        dst_mem_pattern: Tensor3 = 48,
    }
}

wire_struct! {
    /// `NEURON_ISA_TPB_S2D2_AC_STRUCT` — Activate2 0x25 (v4 ACT, v5 DVE;
    /// isa-facts-pe-act-dma §2.6): up to two ALU ops with immediates, the function, and a
    /// free-dimension reduce into the accumulator.
    pub struct S2d2Ac, bytes 12..64 {
        /// Bytes 12..24: the input (`MEM_PATTERN2D`).
        src_mem_pattern: Tensor2 = 12,
        /// Byte 24: `IMM_SRC` of `relu_param`.
        relu_param_src: ImmSrc = 24,
        /// Byte 25: `IMM_SRC` of `imm0`.
        imm0_src: ImmSrc = 25,
        /// Byte 26: `REDUCE_CMD`.
        reduce_cmd: ReduceCmd = 26,
        /// Byte 27: `IMM_SRC` of `imm1`.
        imm1_src: ImmSrc = 27,
        /// Byte 28: the immediates' dtype.
        imm_dtype: Dtype = 28,
        /// Byte 29: the first ALU op.
        op0: AluOp = 29,
        /// Byte 30: the second ALU op.
        op1: AluOp = 30,
        /// Byte 31: the reduce op.
        reduce_op: AluOp = 31,
        /// Byte 32: the input dtype.
        in_dtype: Dtype = 32,
        /// Byte 33: the output dtype.
        out_dtype: Dtype = 33,
        /// Byte 34: lanes (checked against `DVE_NUM_CHANNELS`).
        num_active_channels: u8 = 34,
        /// Byte 35: the function id.
        activation_func: ActFunc = 35,
        /// Bytes 36..40: the first immediate.
        imm0: ImmVal = 36,
        /// Bytes 40..44: the second immediate.
        imm1: ImmVal = 40,
        /// Bytes 44..48: the relu parameter.
        relu_param: ImmVal = 44,
        /// Bytes 48..60: the output (`MEM_PATTERN2D`).
        dst_mem_pattern: Tensor2 = 48,
        /// Byte 60: the packed reverse bits {0,1,2,3} (C decode).
        reverse_operands: u8 = 60,
        /// Bytes 61..64: not listed (ASSUMED reserved, must be 0).
        reserved0: Bytes<3> = 61,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn offsets(l: &[crate::wire::FieldMeta]) -> Vec<(&'static str, usize)> {
        l.iter().map(|f| (f.name, f.offset)).collect()
    }

    // isa-facts-pe-act-dma §2.2 byte map.
    #[test]
    fn s3d3_ac_offsets() {
        assert_eq!(
            offsets(S3d3Ac::LAYOUT),
            [
                ("imm_src", 12),
                ("scale_src", 13),
                ("accumulator_cmd", 14),
                ("bias_src_n", 15),
                ("src_mem_pattern", 16),
                ("in_bias_dtype", 32),
                ("out_dtype", 33),
                ("num_active_channels", 34),
                ("activation_func", 35),
                ("scale_value", 36),
                ("bias", 40),
                ("imm", 44),
                ("dst_mem_pattern", 48),
            ]
        );
    }

    // §2.4 and §2.6 byte maps.
    #[test]
    fn s3d3_aq_and_s2d2_ac_offsets() {
        assert_eq!(
            offsets(S3d3Aq::LAYOUT),
            [
                ("quant_scale_value", 12),
                ("src_mem_pattern", 16),
                ("in_bias_dtype", 32),
                ("out_dtype", 33),
                ("num_active_channels", 34),
                ("activation_func", 35),
                ("dequant_scale_value", 36),
                ("bias_addr", 40),
                ("quant_zero_value", 44),
                ("dst_mem_pattern", 48),
            ]
        );
        let o = offsets(S2d2Ac::LAYOUT);
        assert_eq!(o[0], ("src_mem_pattern", 12));
        assert_eq!(o[8], ("reduce_op", 31));
        assert_eq!(o[12], ("activation_func", 35));
        assert_eq!(o[16], ("dst_mem_pattern", 48));
        assert_eq!(o[17], ("reverse_operands", 60));
    }

    /// An exp on 64 lanes, bias through an instruction immediate, scale 2.0 (golden bytes).
    #[test]
    fn golden_activate_bytes() {
        let mut b = [0u8; 64];
        b[13] = 0; // scale from the instruction
        b[14] = 3; // zero_accumulate
        b[15] = 1; // bias from the instruction (IMM_SRC_N)
        b[16..20].copy_from_slice(&0x100u32.to_le_bytes());
        b[32] = 0xAA; // fp32 in, fp32 bias
        b[33] = 0x06; // bf16 out
        b[34] = 64;
        b[35] = 7; // exp
        b[36..40].copy_from_slice(&2.0f32.to_bits().to_le_bytes());
        b[40..44].copy_from_slice(&(-1.0f32).to_bits().to_le_bytes());
        let s = S3d3Ac::parse(&b);
        assert_eq!(s.activation_func, ActFunc::EXP);
        assert_eq!(s.bias_src_n, ImmSrcN::INSTRUCTION);
        assert_eq!(s.accumulator_cmd, AccumCmd::ZERO_ACCUMULATE);
        assert_eq!(f32::from_bits(s.scale_value.0), 2.0);
        assert_eq!(
            (s.in_bias_dtype.lo(), s.in_bias_dtype.hi()),
            (Dtype::FP32, Dtype::FP32)
        );
        let mut out = [0u8; 64];
        s.emit(&mut out);
        assert_eq!(out, b);
    }
}
