//! `NEURON_ISA_TPB_S4D2_BN_STRUCT`: Max8 0x6c and FindIndex8 0x6e (shared with the
//! BatchNormStats family). Byte map: `docs/reference/isa-dve-state.md` "S4D2_BN"
//! (isa-facts-dve-pool §16.1, gcc-verified).

use super::descriptor::{F32Bits, Tensor2, Tensor4};
use super::field::Bytes;
use super::wire_struct;
use crate::tables::Dtype;

wire_struct! {
    /// `NEURON_ISA_TPB_S4D2_BN_STRUCT` (isa-facts-dve-pool §16.1).
    pub struct S4d2Bn, bytes 12..64 {
        /// Bytes 12..32: `TENSOR4D` search input (8..16384 elements per lane).
        src_mem_pattern: Tensor4 = 12,
        /// Byte 32: converted to fp32 internally.
        in_dtype: Dtype = 32,
        /// Byte 33: Max8 the value dtype; FindIndex8 UINT16 / UINT32.
        out_dtype: Dtype = 33,
        /// Byte 34: partitions 1..=128.
        num_active_channels: u8 = 34,
        /// Bytes 35..40: must be 0.
        reserved0: Bytes<5> = 35,
        /// Bytes 40..44: must be 0.0 for Max8 / FindIndex8.
        even_count: F32Bits = 40,
        /// Bytes 44..48: must be 0.0 for Max8 / FindIndex8.
        odd_count: F32Bits = 44,
        /// Bytes 48..60: `TENSOR2D` destination, 8 outputs per lane.
        dst_mem_pattern: Tensor2 = 48,
        /// Bytes 60..64: must be 0.
        reserved1: Bytes<4> = 60,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // isa-facts-dve-pool §16.1.
    #[test]
    fn s4d2_bn_offsets() {
        let o: Vec<_> = S4d2Bn::LAYOUT.iter().map(|f| f.offset).collect();
        assert_eq!(o, [12, 32, 33, 34, 35, 40, 44, 48, 60]);
        let mut b = [0u8; 64];
        b[33] = 0x09;
        b[48..52].copy_from_slice(&0x200u32.to_le_bytes());
        b[56..58].copy_from_slice(&8u16.to_le_bytes());
        let s = S4d2Bn::parse(&b);
        assert_eq!(s.out_dtype, Dtype::UINT32);
        assert_eq!(s.dst_mem_pattern.num_elem, [8, 0]);
        let mut out = [0u8; 64];
        s.emit(&mut out);
        assert_eq!(out, b);
    }
}
