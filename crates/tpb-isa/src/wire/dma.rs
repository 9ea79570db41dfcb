//! The DMA structs (isa-facts-pe-act-dma §3.4–§3.11) and `MEM_2D` (TensorLoad/TensorStore,
//! §3.14). Every layout is the same on every generation that defines the opcode; offsets are
//! the compile-verified header's (G:dma-transpose-opcode-cluster, G:dma-field-tables).
//!
//! A header's `src` + `src_step_elem[N]` + `src_num_elem[N]` run is one [`DmaPattern`]
//! field named `src` (likewise `dst`) where the three are adjacent; where they are not
//! (GATHER_XPOSE's dst, COPY2D, MEM_2D) each part is its own field.

use super::addr8::{Addr8, DmaPattern};
use super::descriptor::{Addr4, DtypePair};
use super::field::Bytes;
use super::wire_struct;
use crate::tables::{DataSrc, DgeComputeOp, DgeOpcode, Dtype};

wire_struct! {
    /// `DMA_DIRECT2D` — DMAMEMCPY 0xB8 (§3.4), identical in all generations.
    pub struct DmaDirect2d, bytes 12..64 {
        /// Byte 12: `DMA_CONFIGS` (`priority_class:3`, `reserved:5`).
        dma_configs: u8 = 12,
        /// Byte 13: the semaphore the DGE bumps when the data movement completes.
        semaphore: u8 = 13,
        /// Byte 14: the increment (0 = no increment).
        sem_increment: u8 = 14,
        /// Byte 15: `DGE_COMPUTE_OP` (B = A, or B op= A).
        compute_op: DgeComputeOp = 15,
        /// Bytes 16..36: `src` ADDR8, `src_step_elem[2]` (i32, bytes), `src_num_elem[2]`.
        src: DmaPattern<2> = 16,
        /// Bytes 36..38: bytes per element (0 means 64 KiB).
        src_elem_size: u16 = 36,
        /// Byte 38: `BOUND_CHECK_REG` of the source.
        src_bound_reg: u8 = 38,
        /// Byte 39: `BOUND_CHECK_REG` of the destination.
        dst_bound_reg: u8 = 39,
        /// Bytes 40..60: `dst` ADDR8, `dst_step_elem[2]`, `dst_num_elem[2]`.
        dst: DmaPattern<2> = 40,
        /// Bytes 60..62: bytes per destination element (0 means 64 KiB).
        dst_elem_size: u16 = 60,
        /// Byte 62.
        in_dtype: Dtype = 62,
        /// Byte 63.
        out_dtype: Dtype = 63,
    }
}

wire_struct! {
    /// PSEUDO_DMA_DIRECT2D 0xD4 (§3.6): the DIRECT2D layout with byte 15 = `dge_op` and
    /// `PSEUDO_ADDR8` addresses (marker 0x10 = a NEFF variable id). Host only: lowered to
    /// 0xB8 / 0xBB / 0xBD / 0xF1 before the device sees it.
    pub struct PseudoDmaDirect2d, bytes 12..64 {
        /// Byte 12: `DMA_CONFIGS`.
        dma_configs: u8 = 12,
        /// Byte 13.
        semaphore: u8 = 13,
        /// Byte 14.
        sem_increment: u8 = 14,
        /// Byte 15: `DGE_OPCODE`, the instruction the runtime emits.
        dge_op: DgeOpcode = 15,
        /// Bytes 16..36: `PSEUDO_ADDR8` src and its pattern.
        src: DmaPattern<2> = 16,
        /// Bytes 36..38.
        src_elem_size: u16 = 36,
        /// Byte 38.
        src_bound_reg: u8 = 38,
        /// Byte 39.
        dst_bound_reg: u8 = 39,
        /// Bytes 40..60: `PSEUDO_ADDR8` dst and its pattern.
        dst: DmaPattern<2> = 40,
        /// Bytes 60..62.
        dst_elem_size: u16 = 60,
        /// Byte 62.
        in_dtype: Dtype = 62,
        /// Byte 63.
        out_dtype: Dtype = 63,
    }
}

wire_struct! {
    /// `PSEUDO_DMA_EXT_STRUCT` — PSEUDO_EXTENSION 0xDA (§3.6), the record after a 0xD4.
    /// Its bytes 1..12 (`flags` @1, `idx_nac` @2, `compute_op` @3, `src_idx` ADDR4 @4,
    /// `dst_idx` ADDR4 @8) overlay the header and EVENTS fields of the common preamble, which
    /// keep them losslessly (the text shows them under the preamble's names; the validator
    /// does not read them as a header or EVENTS).
    pub struct PseudoDmaExt, bytes 12..64 {
        /// Bytes 12..16.
        src_bound_size_bytes: u32 = 12,
        /// Bytes 16..20.
        dst_bound_size_bytes: u32 = 16,
        /// Bytes 20..24.
        tile_src_row_step: i32 = 20,
        /// Byte 24: valid {16, 0}.
        tile_src_rows: u8 = 24,
        /// Byte 25: valid {128, 0}.
        tile_src_cols: u8 = 25,
        /// Bytes 26..56: `reserved1[30]`.
        reserved1: Bytes<30> = 26,
        /// Bytes 56..60: the src address's upper 32 bits.
        src_upper: u32 = 56,
        /// Bytes 60..64: the dst address's upper 32 bits.
        dst_upper: u32 = 60,
    }
}

wire_struct! {
    /// `DMA_INDIRECT1D` — DMA_INDIRECT 0xBB (§3.7), all generations.
    pub struct DmaIndirect1d, bytes 12..64 {
        /// Byte 12.
        semaphore: u8 = 12,
        /// Byte 13 (0 = no increment).
        sem_increment: u8 = 13,
        /// Byte 14: must be 128.
        idx_num_active_channels: u8 = 14,
        /// Byte 15: `indirect_mode:2`, `idx_bound_is_err:1`, `non_unique_dst_idx:1`,
        /// `gather_dim:2`, `scatter_dim:2`.
        flags: u8 = 15,
        /// Bytes 16..30: `src` ADDR8, `src_step_elem` (i32), `src_num_elem` (u16).
        src: DmaPattern<1> = 16,
        /// Bytes 30..32.
        src_elem_size: u16 = 30,
        /// Bytes 32..46: `dst` ADDR8, `dst_step_elem`, `dst_num_elem`.
        dst: DmaPattern<1> = 32,
        /// Bytes 46..48.
        dst_elem_size: u16 = 46,
        /// Bytes 48..52: the source index array (ADDR4).
        src_idx: Addr4 = 48,
        /// Bytes 52..56: the destination index array (ADDR4).
        dst_idx: Addr4 = 52,
        /// Byte 56.
        in_dtype: Dtype = 56,
        /// Byte 57.
        out_dtype: Dtype = 57,
        /// Byte 58: `BOUND_CHECK_REG` of the source index array.
        src_idx_bound_reg: u8 = 58,
        /// Byte 59: `BOUND_CHECK_REG` of the destination index array.
        dst_idx_bound_reg: u8 = 59,
        /// Byte 60.
        compute_op: DgeComputeOp = 60,
        /// Byte 61: `DMA_CONFIGS`.
        dma_configs: u8 = 61,
        /// Bytes 62..64: `reserved[2]`.
        reserved: Bytes<2> = 62,
    }
}

wire_struct! {
    /// `DMA_DIRECT2D_XPOSE` — DMA_TRANSPOSE 0xBD (§3.8), cayman+.
    pub struct DmaDirect2dXpose, bytes 12..64 {
        /// Byte 12.
        src_bound_reg: u8 = 12,
        /// Byte 13.
        dst_bound_reg: u8 = 13,
        /// Byte 14.
        in_dtype: Dtype = 14,
        /// Byte 15.
        out_dtype: Dtype = 15,
        /// Bytes 16..36: `src` and its 2-D pattern.
        src: DmaPattern<2> = 16,
        /// Bytes 36..40: bytes between source rows of a tile.
        tile_src_row_step: i32 = 36,
        /// Bytes 40..60: `dst` and its 2-D pattern.
        dst: DmaPattern<2> = 40,
        /// Byte 60: must be 16.
        tile_src_rows: u8 = 60,
        /// Byte 61: 1..128 (2-byte data), 1..64 (4-byte data).
        tile_src_cols: u8 = 61,
        /// Byte 62 (no increment byte: +1, ASSUMED §8 Q23).
        semaphore: u8 = 62,
        /// Byte 63: `DMA_CONFIGS`.
        dma_configs: u8 = 63,
    }
}

wire_struct! {
    /// `DMA_GATHER_XPOSE` — DMA_GATHER_TRANSPOSE 0xF1 (§3.9), cayman+.
    pub struct DmaGatherXpose, bytes 12..64 {
        /// Byte 12.
        semaphore: u8 = 12,
        /// Byte 13: `DMA_CONFIGS`.
        dma_configs: u8 = 13,
        /// Byte 14: must be 128.
        idx_nac: u8 = 14,
        /// Byte 15: `BOUND_CHECK_REG` of the index (`_no_flags` form).
        src_idx_bound_reg: u8 = 15,
        /// Bytes 16..36: `src` and its 2-D pattern.
        src: DmaPattern<2> = 16,
        /// Bytes 36..40: the UINT32 index vector.
        src_idx: Addr4 = 36,
        /// Bytes 40..48.
        dst: Addr8 = 40,
        /// Bytes 48..51: `reserved[3]`.
        reserved: Bytes<3> = 48,
        /// Byte 51: `BOUND_CHECK_REG` of the destination.
        dst_bound_reg: u8 = 51,
        /// Bytes 52..56: the dst dim-1 step (dim 0 is implied: `sizeof(dtype_hi)`).
        dst_step_elem_1: i32 = 52,
        /// Bytes 56..58: `dst_num_elem[0]`.
        dst_num_elem_0: u16 = 56,
        /// Bytes 58..60: `dst_num_elem[1]`.
        dst_num_elem_1: u16 = 58,
        /// Bytes 60..62: bytes per transpose row (2..256, even).
        elem_size: u16 = 60,
        /// Byte 62: `DTYPE_PAIR` (lo = src, hi = dst).
        dtype: DtypePair = 62,
        /// Byte 63: `gather_dim:2` (must be Y).
        flags: u8 = 63,
    }
}

wire_struct! {
    /// `DMA_COPY2D` — DMA_MEMCPY2 0xB9 (§3.10), maverick only. Its bytes 4..12 are its own
    /// wait band (`wait_sema_value` u32 @4, `wait_sema_idx` @8, `wait_sema_mode` @9,
    /// `dma_engines` @10, `dma_flags` @11), kept losslessly by the preamble's EVENTS fields.
    pub struct DmaCopy2d, bytes 12..64 {
        /// Byte 12: `DMA_ADDR_MODE_PAIR` (src low nibble, dst high nibble).
        addr_mode: u8 = 12,
        /// Byte 13: `DMA_SEMA_UPDATES` (rd_done low nibble, wr_done high nibble).
        sema_update_mode: u8 = 13,
        /// Bytes 14..16.
        rd_done_sema_update_idx: u16 = 14,
        /// Bytes 16..24: `DMA_ADDR_UNION` (imm64, or base/offset/inc registers + offset_imm).
        src_addr: u64 = 16,
        /// Bytes 24..28.
        src_step_elem_0: i32 = 24,
        /// Bytes 28..32.
        src_step_elem_1: i32 = 28,
        /// Bytes 32..34.
        src_num_elem_0: u16 = 32,
        /// Bytes 34..36.
        src_num_elem_1: u16 = 34,
        /// Bytes 36..38.
        src_elem_size: u16 = 36,
        /// Bytes 38..40.
        wr_done_sema_update_idx: u16 = 38,
        /// Bytes 40..48: `DMA_ADDR_UNION`.
        dst_addr: u64 = 40,
        /// Bytes 48..52.
        dst_step_elem_0: i32 = 48,
        /// Bytes 52..56.
        dst_step_elem_1: i32 = 52,
        /// Bytes 56..58.
        dst_num_elem_0: u16 = 56,
        /// Bytes 58..60.
        dst_num_elem_1: u16 = 58,
        /// Bytes 60..62.
        dst_elem_size: u16 = 60,
        /// Byte 62.
        remote_core_id: u8 = 62,
        /// Byte 63.
        reserved: u8 = 63,
    }
}

wire_struct! {
    /// `DMA_IMMEDIATE` — 0xBA (§3.11), maverick only: wait band at 4/8/9 as in COPY2D,
    /// then up to three raw 16-byte hardware descriptors (§3.12).
    pub struct DmaImmediate, bytes 12..64 {
        /// Byte 12: `num_descriptors:2`, `desc0_src:1`, `desc1_src:1`, `desc2_src:1`,
        /// reserved:3 (`DMA_DESC_MODE`: IMMEDIATE 0 / REGISTER 1).
        descriptor_flags: u8 = 12,
        /// Bytes 13..16: `descriptor_reg[3]`.
        descriptor_reg: Bytes<3> = 13,
        /// Bytes 16..64: `descriptor_imm[3]`, three 16-byte descriptors.
        descriptor_imm: Bytes<48> = 16,
    }
}

wire_struct! {
    /// `MEM_2D` — TensorLoad 0xAA / TensorStore 0xAB (§3.14): sequencer registers ↔ memory,
    /// every engine, all generations.
    pub struct Mem2d, bytes 12..64 {
        /// Byte 12: u8, i8, u16, i16, i32, u32, fp32 or u64.
        dtype: Dtype = 12,
        /// Byte 13: where a store's data comes from (TensorLoad forces REGISTER).
        src_datasrc: DataSrc = 13,
        /// Byte 14: `num_elem[0]` (1..32).
        num_elem_0: u8 = 14,
        /// Byte 15: `num_elem[1]` (1..32; the product at most 32).
        num_elem_1: u8 = 15,
        /// Bytes 16..24: `start_addr` (ADDR8).
        start_addr: Addr8 = 16,
        /// Bytes 24..28: `step_elem[0]`, in **elements**.
        step_elem_0: i32 = 24,
        /// Bytes 28..32: `step_elem[1]`, in elements.
        step_elem_1: i32 = 28,
        /// Bytes 32..64: `data[32]`: a store's immediates; for a load (and a register
        /// store) `data[0]` is the first sequencer register (ASSUMED, §3.14 does not say
        /// which bytes name the registers).
        data: Bytes<32> = 32,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gen::Gen;
    use crate::opcode::Opcode;
    use crate::wire::{Body, Instruction};

    fn offsets(l: &[crate::wire::FieldMeta]) -> Vec<usize> {
        l.iter().map(|f| f.offset).collect()
    }

    // isa-facts-pe-act-dma §3.4, §3.7–§3.11, §3.14: every byte offset of every table.
    #[test]
    fn dma_struct_offsets() {
        assert_eq!(
            offsets(DmaDirect2d::LAYOUT),
            [12, 13, 14, 15, 16, 36, 38, 39, 40, 60, 62, 63]
        );
        assert_eq!(
            offsets(DmaIndirect1d::LAYOUT),
            [12, 13, 14, 15, 16, 30, 32, 46, 48, 52, 56, 57, 58, 59, 60, 61, 62]
        );
        assert_eq!(
            offsets(DmaDirect2dXpose::LAYOUT),
            [12, 13, 14, 15, 16, 36, 40, 60, 61, 62, 63]
        );
        assert_eq!(
            offsets(DmaGatherXpose::LAYOUT),
            [12, 13, 14, 15, 16, 36, 40, 48, 51, 52, 56, 58, 60, 62, 63]
        );
        assert_eq!(
            offsets(DmaCopy2d::LAYOUT),
            [12, 13, 14, 16, 24, 28, 32, 34, 36, 38, 40, 48, 52, 56, 58, 60, 62, 63]
        );
        assert_eq!(offsets(DmaImmediate::LAYOUT), [12, 13, 16]);
        assert_eq!(offsets(Mem2d::LAYOUT), [12, 13, 14, 15, 16, 24, 28, 32]);
        assert_eq!(
            offsets(PseudoDmaExt::LAYOUT),
            [12, 16, 20, 24, 25, 26, 56, 60]
        );
    }

    /// A hand-built DMAMEMCPY: 128 rows of 512 bytes from HBM 0x1000 to SBUF partitions
    /// 0..128 at offset 0x400, semaphore 5 += 1 (§3.4).
    #[test]
    fn golden_dma_direct2d_bundle() {
        let mut b = [0u8; 64];
        b[0] = 0xB8;
        b[1] = 0x10;
        b[12] = 2; // priority class 2
        b[13] = 5;
        b[14] = 1;
        b[16..24].copy_from_slice(&0x1000u64.to_le_bytes());
        b[24..28].copy_from_slice(&512i32.to_le_bytes());
        b[28..32].copy_from_slice(&0i32.to_le_bytes());
        b[32..34].copy_from_slice(&128u16.to_le_bytes());
        b[34..36].copy_from_slice(&1u16.to_le_bytes());
        b[36..38].copy_from_slice(&512u16.to_le_bytes());
        let dst = Addr8::on_chip(Gen::Cayman, crate::geometry::Space::Sbuf, 0, 0x400).unwrap();
        b[40..48].copy_from_slice(&dst.0.to_le_bytes());
        b[48..52].copy_from_slice(&(1i32 << 18).to_le_bytes());
        b[56..58].copy_from_slice(&128u16.to_le_bytes());
        b[58..60].copy_from_slice(&1u16.to_le_bytes());
        b[60..62].copy_from_slice(&512u16.to_le_bytes());
        b[62] = 0x0A;
        b[63] = 0x0A;
        for g in Gen::ALL {
            let i = Instruction::decode(&b, g);
            let Body::DmaDirect2d(s) = i.body else {
                panic!("{g}: {:?}", i.body)
            };
            assert_eq!(i.opcode(), Opcode::DMA_MEMCPY);
            assert_eq!((s.dma_configs, s.semaphore, s.sem_increment), (2, 5, 1));
            assert_eq!(s.compute_op, DgeComputeOp::NONE);
            assert_eq!(s.src.addr, Addr8(0x1000));
            assert_eq!((s.src.step_elem, s.src.num_elem), ([512, 0], [128, 1]));
            assert_eq!(s.src_elem_size, 512);
            assert_eq!(s.dst.addr, dst);
            assert_eq!(s.dst.step_elem[0], 1 << 18);
            assert_eq!((s.in_dtype, s.out_dtype), (Dtype::FP32, Dtype::FP32));
            assert_eq!(i.encode(), b);
        }
    }

    /// A hand-built TensorStore of two u32 immediates (§3.14).
    #[test]
    fn golden_tensor_store_bundle() {
        let mut b = [0u8; 64];
        b[0] = 0xAB;
        b[1] = 0x10;
        b[12] = 0x09;
        b[13] = 1;
        b[14] = 2;
        b[15] = 1;
        b[16..24].copy_from_slice(&0x40u64.to_le_bytes());
        b[24..28].copy_from_slice(&1i32.to_le_bytes());
        b[32..36].copy_from_slice(&7u32.to_le_bytes());
        b[36..40].copy_from_slice(&9u32.to_le_bytes());
        let i = Instruction::decode(&b, Gen::Sunda);
        let Body::Mem2d(s) = i.body else { panic!() };
        assert_eq!(s.dtype, Dtype::UINT32);
        assert_eq!(s.src_datasrc, DataSrc::IMMEDIATE);
        assert_eq!((s.num_elem_0, s.num_elem_1), (2, 1));
        assert_eq!(s.start_addr, Addr8(0x40));
        assert_eq!(&s.data.0[..8], &[7, 0, 0, 0, 9, 0, 0, 0]);
        assert_eq!(i.encode(), b);
    }
}
