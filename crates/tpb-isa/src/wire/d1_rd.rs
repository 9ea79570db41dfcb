//! `NEURON_ISA_TPB_D1_RD_STRUCT`: the accumulator drains DveReadAccumulator (0x9b) and
//! ActivationReadAccumulator (0x24). Byte map from `docs/reference/isa-dve-state.md`
//! "D1_RD" (isa-facts-dve-pool §13.1: gcc-verified, identical on all four generations).

use super::descriptor::Tensor1;
use super::field::Bytes;
use super::wire_struct;
use crate::tables::Dtype;

wire_struct! {
    /// `NEURON_ISA_TPB_D1_RD_STRUCT` — DveReadAccumulator 0x9b / ActivationReadAccumulator
    /// 0x24 (isa-facts-dve-pool §13.1): read each active lane's fp32 accumulator into the
    /// single element of that lane's destination.
    pub struct D1Rd, bytes 12..64 {
        /// Bytes 12..28: must be 0.
        reserved0: Bytes<16> = 12,
        /// Bytes 28..32: must be 1 (`read_accumulator_dst_size`).
        dst_element_count: u32 = 28,
        /// Byte 32: the output dtype.
        dtype: Dtype = 32,
        /// Byte 33: 0 or 1; negate before the conversion (0x9b only; 0x24 needs 0).
        negated: u8 = 33,
        /// Byte 34: lanes to read.
        num_active_channels: u8 = 34,
        /// Bytes 35..44: must be 0.
        reserved1: Bytes<9> = 35,
        /// Bytes 44..52: `TENSOR1D` destination, one element per lane.
        dst_mem_pattern: Tensor1 = 44,
        /// Bytes 52..64: must be 0.
        reserved2: Bytes<12> = 52,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // isa-facts-dve-pool §13.1: header@0 events@4 reserved0@12 dst_element_count@28 dtype@32
    // negated@33 num_active_channels@34 reserved1@35 dst_mem_pattern@44 reserved2@52.
    #[test]
    fn d1_rd_offsets() {
        let o: Vec<_> = D1Rd::LAYOUT
            .iter()
            .map(|f| (f.name, f.offset, f.size))
            .collect();
        assert_eq!(
            o,
            [
                ("reserved0", 12, 16),
                ("dst_element_count", 28, 4),
                ("dtype", 32, 1),
                ("negated", 33, 1),
                ("num_active_channels", 34, 1),
                ("reserved1", 35, 9),
                ("dst_mem_pattern", 44, 8),
                ("reserved2", 52, 12),
            ]
        );
    }

    /// A hand-built drain: bf16, negated, 64 lanes, dst at SBUF partition 0 byte 0x40.
    #[test]
    fn golden_d1_rd_bytes() {
        let mut b = [0u8; 64];
        b[28..32].copy_from_slice(&1u32.to_le_bytes());
        b[32] = 0x06; // bf16
        b[33] = 1;
        b[34] = 64;
        b[44..48].copy_from_slice(&0x40u32.to_le_bytes());
        b[48..50].copy_from_slice(&1i16.to_le_bytes());
        b[50..52].copy_from_slice(&1u16.to_le_bytes());
        let s = D1Rd::parse(&b);
        assert_eq!(s.dst_element_count, 1);
        assert_eq!(
            (s.dtype, s.negated, s.num_active_channels),
            (Dtype::BFLOAT16, 1, 64)
        );
        assert_eq!(s.dst_mem_pattern.start_addr.0, 0x40);
        assert_eq!(
            (s.dst_mem_pattern.step_elem, s.dst_mem_pattern.num_elem),
            ([1], [1])
        );
        let mut out = [0u8; 64];
        s.emit(&mut out);
        assert_eq!(out, b);
    }
}
