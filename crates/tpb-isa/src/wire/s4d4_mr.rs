//! `NEURON_ISA_TPB_S4D4_MR_STRUCT`: MatchReplace8 0x6f (its sole occupant). Byte map:
//! `docs/reference/isa-dve-state.md` "S4D4_MR" (isa-facts-dve-pool §16.2).

use super::descriptor::{F32Bits, Tensor4};
use super::field::Bytes;
use super::wire_struct;
use crate::tables::Dtype;

wire_struct! {
    /// `NEURON_ISA_TPB_S4D4_MR_STRUCT` (isa-facts-dve-pool §16.2).
    pub struct S4d4Mr, bytes 12..64 {
        /// Bytes 12..32: `TENSOR4D` input, at most 16384 elements per lane.
        src_mem_pattern: Tensor4 = 12,
        /// Byte 32.
        in_dtype: Dtype = 32,
        /// Byte 33.
        out_dtype: Dtype = 33,
        /// Byte 34: partitions 1..=128.
        num_active_channels: u8 = 34,
        /// Bytes 35..40: must be 0.
        reserved0: Bytes<5> = 35,
        /// Bytes 40..44: the fp32 replacement value.
        immediate: F32Bits = 40,
        /// Bytes 44..64: `TENSOR4D` output, same element count as src.
        dst_mem_pattern: Tensor4 = 44,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // isa-facts-dve-pool §16.2.
    #[test]
    fn s4d4_mr_offsets() {
        let o: Vec<_> = S4d4Mr::LAYOUT.iter().map(|f| f.offset).collect();
        assert_eq!(o, [12, 32, 33, 34, 35, 40, 44]);
        let mut b = [0u8; 64];
        b[40..44].copy_from_slice(&f32::NEG_INFINITY.to_bits().to_le_bytes());
        let s = S4d4Mr::parse(&b);
        assert_eq!(s.immediate.value(), f32::NEG_INFINITY);
        let mut out = [0u8; 64];
        s.emit(&mut out);
        assert_eq!(out, b);
    }
}
