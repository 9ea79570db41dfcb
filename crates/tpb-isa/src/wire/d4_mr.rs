//! `NEURON_ISA_TPB_D4_MR_STRUCT`: Memset 0x49 and DveReadIndices 0xe9
//! (docs/reference/isa.md "D4_MR"; isa-facts-dve-pool §6.2, §13.2).

use super::descriptor::Tensor4;
use super::field::Bytes;
use super::wire_struct;
use crate::tables::Dtype;

wire_struct! {
    /// `NEURON_ISA_TPB_D4_MR_STRUCT` (64 B, gcc-verified, identical on all four generations):
    /// Memset 0x49 and, from cayman, DveReadIndices 0xe9 (isa-facts-dve-pool §6.2, §13.2).
    pub struct D4Mr, bytes 12..64 {
        /// Bytes 12..28: must be 0.
        reserved0: Bytes<16> = 12,
        /// Bytes 28..32: the element count per partition (Memset: the dst pattern's count;
        /// DveReadIndices: 8).
        dst_element_count: u32 = 28,
        /// Byte 32: the fill dtype (Memset) or index dtype (DveReadIndices: uint16/uint32).
        dtype: Dtype = 32,
        /// Byte 33: must be 0.
        reserved1: Bytes<1> = 33,
        /// Byte 34: partitions 1..=128.
        num_active_channels: u8 = 34,
        /// Byte 35: must be 0.
        reserved2: Bytes<1> = 35,
        /// Byte 36: `REG_SERIAL_MODE`, must be `Serial` (0, ASSUMED:
        /// `d4_mr_serial_mode_value`).
        serialization_mode: u8 = 36,
        /// Bytes 37..40: must be 0.
        reserved3: Bytes<3> = 37,
        /// Bytes 40..44: the fill value's raw bits, right-aligned (DveReadIndices: 0).
        set_value: u32 = 40,
        /// Bytes 44..64: `TENSOR4D` destination.
        dst_mem_pattern: Tensor4 = 44,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::opcode::StructKind;
    use crate::wire::Body;

    // isa-facts-dve-pool §6.2: gcc offsetof output.
    #[test]
    fn d4_mr_offsets() {
        let o: Vec<_> = D4Mr::LAYOUT.iter().map(|f| (f.name, f.offset)).collect();
        assert_eq!(
            o,
            [
                ("reserved0", 12),
                ("dst_element_count", 28),
                ("dtype", 32),
                ("reserved1", 33),
                ("num_active_channels", 34),
                ("reserved2", 35),
                ("serialization_mode", 36),
                ("reserved3", 37),
                ("set_value", 40),
                ("dst_mem_pattern", 44)
            ]
        );
    }

    /// A hand-built Memset body (fill 0x3F80 bf16 1.0 over 128 × 512), field by field.
    #[test]
    fn golden_d4_mr_bytes() {
        let mut b = [0u8; 64];
        b[0] = 0x49;
        b[1] = 0x10;
        b[28..32].copy_from_slice(&512u32.to_le_bytes());
        b[32] = 0x06; // bf16
        b[34] = 128;
        b[40..44].copy_from_slice(&0x3F80u32.to_le_bytes());
        b[44..48].copy_from_slice(&0x400u32.to_le_bytes());
        b[48..50].copy_from_slice(&1i16.to_le_bytes());
        b[56..58].copy_from_slice(&512u16.to_le_bytes());
        let s = D4Mr::parse(&b);
        assert_eq!(s.dst_element_count, 512);
        assert_eq!(s.dtype, Dtype::BFLOAT16);
        assert_eq!(s.num_active_channels, 128);
        assert_eq!(s.serialization_mode, 0);
        assert_eq!(s.set_value, 0x3F80);
        assert_eq!(s.dst_mem_pattern.start_addr.0, 0x400);
        assert_eq!(s.dst_mem_pattern.step_elem[0], 1);
        assert_eq!(s.dst_mem_pattern.num_elem[0], 512);
        let mut out = b;
        out[12..].fill(0);
        s.emit(&mut out);
        assert_eq!(out, b);
        // Through the generic body: a lossless round trip of arbitrary bytes.
        let raw = [0xA5u8; 64];
        let body = Body::parse(Some(StructKind::D4Mr), &raw);
        let mut again = [0xA5u8; 64];
        again[12..].fill(0);
        body.emit(&mut again);
        assert_eq!(again, raw);
    }
}
