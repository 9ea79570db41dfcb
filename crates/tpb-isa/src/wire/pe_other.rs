//! The PE's other instructions (isa-facts-pe-act-dma §1.10): MATMUL_SPARSE 0x07 (`S4D3_MM`) and
//! PE_MANAGE_SEED 0x08 (`S2S1D2_PE_SEED`), whose byte maps are given whole, and the ones given
//! only by name or in part (PE_REG_WRITE 0x03, LDTAGS 0x06 `S3_LT`, LDWEIGHTS_MX 0x09
//! `SMX1_LW`, MATMUL_MX 0x0A `SMX1D3_MM`, CONV_LUT_LOAD 0xE4 `S2_CONVLUT`), kept as raw body
//! bytes. All decode losslessly; none runs (the opcode table names the missing fact).

use super::descriptor::{Tensor1, Tensor2, Tensor3, Tensor4};
use super::field::Bytes;
use super::wire_struct;
use crate::tables::{Dtype, PeFp32Mode, PeSeedMode};

wire_struct! {
    /// `NEURON_ISA_TPB_S4D3_MM_STRUCT` — MATMUL_SPARSE 0x07 (isa-facts-pe-act-dma §1.10.1,
    /// cayman+; one view, the page does not say which generation's copy). The sparse format
    /// (`active_row_mode`, the fourth source dimension) is not given.
    pub struct S4d3Mm, bytes 12..64 {
        /// Bytes 12..32: the moving tile, `TENSOR4D`.
        src_mem_pattern: Tensor4 = 12,
        /// Byte 32.
        in_dtype: Dtype = 32,
        /// Byte 33: `PE_FP32MODE`.
        fp32_mode: PeFp32Mode = 33,
        /// Byte 34.
        out_dtype: Dtype = 34,
        /// Byte 35: `PERF_OPT_MODE`.
        perf_opt: u8 = 35,
        /// Bytes 36..38: `reserved_quant[2]`.
        reserved_quant: Bytes<2> = 36,
        /// Byte 38.
        num_active_rows: u8 = 38,
        /// Byte 39.
        num_active_cols: u8 = 39,
        /// Bytes 40..43: `reserved[3]`.
        reserved: Bytes<3> = 40,
        /// Byte 43 (the compiler writes fp32-pass flags here for the sparse op, §1.10.1).
        psum_accumulate_flags: u8 = 43,
        /// Byte 44.
        row_grp: u8 = 44,
        /// Byte 45.
        col_grp: u8 = 45,
        /// Byte 46: meaning not given.
        active_row_mode: u8 = 46,
        /// Byte 47: `MATMUL_ZERO_REGION`.
        psum_zero_region: u8 = 47,
        /// Bytes 48..64: the PSUM destination, `TENSOR3D`.
        dst_mem_pattern: Tensor3 = 48,
    }
}

wire_struct! {
    /// `NEURON_ISA_TPB_S2S1D2_PE_SEED_STRUCT` — PE_MANAGE_SEED 0x08 (isa-facts-pe-act-dma
    /// §1.10.3, validity `nc == V4`): loads or saves the PSUM stochastic-rounding seeds.
    pub struct S2s1d2PeSeed, bytes 12..64 {
        /// Bytes 12..24: the seeds to load, `TENSOR2D`.
        src_seed: Tensor2 = 12,
        /// Bytes 24..32: `TENSOR1D`.
        identity: Tensor1 = 24,
        /// Byte 32.
        identity_dtype: Dtype = 32,
        /// Byte 33: `PE_SEED_MODE`.
        mode: PeSeedMode = 33,
        /// Byte 34: must be 16.
        num_active_rows: u8 = 34,
        /// Byte 35: must be 128.
        num_active_cols: u8 = 35,
        /// Bytes 36..48: where SaveSeed writes, `TENSOR2D` (UINT32 at the PSUM base).
        dst_seed: Tensor2 = 36,
        /// Bytes 48..64: `reserved[16]`.
        reserved: Bytes<16> = 48,
    }
}

/// A PE struct known only by name or in part: its body bytes, verbatim.
macro_rules! raw_pe_struct {
    ($($(#[$m:meta])* $S:ident;)*) => {$(
        wire_struct! {
            $(#[$m])*
            pub struct $S, bytes 12..64 {
                /// Bytes 12..64, verbatim: tpb does not decode this byte map.
                raw: Bytes<52> = 12,
            }
        }
    )*};
}

raw_pe_struct! {
    /// PE_REG_WRITE 0x03 (isa-facts-pe-act-dma §1.10.2): only the name is public, not even the
    /// struct's.
    PeRegWrite;
    /// `S3_LT` — LDTAGS 0x06 (isa-facts-pe-act-dma §1.10.2): only the struct name is public.
    S3Lt;
    /// `SMX1_LW` — LDWEIGHTS_MX 0x09 (isa-facts-pe-act-dma §1.10.4): a partial byte map (src
    /// `MXMEM_PATTERN1D` @16, in_dtype @32, num_active_rows @38, num_active_cols @39, row_grp
    /// @44, col_grp @45).
    Smx1Lw;
    /// `SMX1D3_MM` — MATMUL_MX 0x0A (isa-facts-pe-act-dma §1.10.4): a partial byte map (the
    /// `SMX1_LW` fields plus out_dtype @40, psum_accumulate_flags @43, psum_zero_region @47,
    /// dst `MEM_PATTERN3D` @48).
    Smx1d3Mm;
    /// `S2_CONVLUT` — CONV_LUT_LOAD 0xE4 (isa-facts-pe-act-dma §1.10.2): only the struct name
    /// is public.
    S2Convlut;
}

#[cfg(test)]
mod tests {
    use super::*;

    fn layout(l: &[crate::wire::FieldMeta]) -> Vec<(&str, usize, usize)> {
        l.iter().map(|f| (f.name, f.offset, f.size)).collect()
    }

    // isa-facts-pe-act-dma §1.10.1: S4D3_MM src TENSOR4D @12 … dst TENSOR3D @48.
    #[test]
    fn s4d3_mm_offsets() {
        assert_eq!(
            layout(S4d3Mm::LAYOUT),
            [
                ("src_mem_pattern", 12, 20),
                ("in_dtype", 32, 1),
                ("fp32_mode", 33, 1),
                ("out_dtype", 34, 1),
                ("perf_opt", 35, 1),
                ("reserved_quant", 36, 2),
                ("num_active_rows", 38, 1),
                ("num_active_cols", 39, 1),
                ("reserved", 40, 3),
                ("psum_accumulate_flags", 43, 1),
                ("row_grp", 44, 1),
                ("col_grp", 45, 1),
                ("active_row_mode", 46, 1),
                ("psum_zero_region", 47, 1),
                ("dst_mem_pattern", 48, 16),
            ]
        );
    }

    // isa-facts-pe-act-dma §1.10.3: src_seed @12, identity @24, identity_dtype @32, mode @33,
    // rows @34, cols @35, dst_seed @36, reserved @48.
    #[test]
    fn s2s1d2_pe_seed_offsets() {
        assert_eq!(
            layout(S2s1d2PeSeed::LAYOUT),
            [
                ("src_seed", 12, 12),
                ("identity", 24, 8),
                ("identity_dtype", 32, 1),
                ("mode", 33, 1),
                ("num_active_rows", 34, 1),
                ("num_active_cols", 35, 1),
                ("dst_seed", 36, 12),
                ("reserved", 48, 16),
            ]
        );
        let mut b = [0u8; 64];
        b[33] = 2;
        b[34] = 16;
        b[35] = 128;
        let s = S2s1d2PeSeed::parse(&b);
        assert_eq!(s.mode, PeSeedMode::SAVE_SEED);
        assert_eq!((s.num_active_rows, s.num_active_cols), (16, 128));
        let mut out = [0u8; 64];
        s.emit(&mut out);
        assert_eq!(out, b);
    }
}
