//! `NEURON_ISA_TPB_S4D4_CR_STRUCT`: CrossLaneReduce 0x7c / 0x7d. Byte map:
//! `docs/reference/isa-dve-state.md` "S4D4_CR" (isa-facts-dve-pool §8.2, gcc-verified).

use super::descriptor::{F32Bits, Tensor4};
use super::field::Bytes;
use super::wire_struct;
use crate::tables::{Dtype, ReduceAxis, ReduceOp};

wire_struct! {
    /// `NEURON_ISA_TPB_S4D4_CR_STRUCT` (isa-facts-dve-pool §8.2): fold across partitions.
    pub struct S4d4Cr, bytes 12..64 {
        /// Bytes 12..32: `TENSOR4D` input over `num_active_channels` partitions.
        src_mem_pattern: Tensor4 = 12,
        /// Byte 32: no FP32R.
        in_dtype: Dtype = 32,
        /// Byte 33: FP32R allowed.
        out_dtype: Dtype = 33,
        /// Byte 34: partitions folded.
        num_active_channels: u8 = 34,
        /// Byte 35: `REDUCE_OP`.
        reduce_op: ReduceOp = 35,
        /// Byte 36: `REDUCE_AXIS`.
        reduce_axis: ReduceAxis = 36,
        /// Bytes 37..40: must be 0.
        reserved0: Bytes<3> = 37,
        /// Bytes 40..44: fp32 multiplier used by AVERAGE.
        scale: F32Bits = 40,
        /// Bytes 44..64: `TENSOR4D` output, one partition.
        dst_mem_pattern: Tensor4 = 44,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // isa-facts-dve-pool §8.2: src@12 in@32 out@33 channels@34 op@35 axis@36 reserved0@37
    // scale@40 dst@44.
    #[test]
    fn s4d4_cr_offsets() {
        let o: Vec<_> = S4d4Cr::LAYOUT.iter().map(|f| f.offset).collect();
        assert_eq!(o, [12, 32, 33, 34, 35, 36, 37, 40, 44]);
        let mut b = [0u8; 64];
        b[35] = 1;
        b[36] = 1;
        b[40..44].copy_from_slice(&0.25f32.to_bits().to_le_bytes());
        let s = S4d4Cr::parse(&b);
        assert_eq!(
            (s.reduce_op, s.reduce_axis),
            (ReduceOp::AVERAGE, ReduceAxis::PARTITIONS)
        );
        assert_eq!(s.scale.value(), 0.25);
        let mut out = [0u8; 64];
        s.emit(&mut out);
        assert_eq!(out, b);
    }
}
