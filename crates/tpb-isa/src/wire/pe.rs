//! The PE structs: `S3D3_MM` (Matmul 0x02) and `S3_LW` (LoadWeights 0x01). Byte maps from
//! `docs/reference/pe-act.md` (isa-facts-pe-act-dma §1.3, §1.4; G header, compile-verified).
//!
//! Both keep one front on every generation (src @16, in_dtype @32, fp32_mode @33; Matmul's
//! dst @48); the bytes between differ per generation and are a [`gen_block`] named by the
//! tables below. `S3_LW` is complete only for maverick: its sunda/cayman/mariana names are
//! the sheet's deltas plus the ASSUMED S3D3_MM offsets (§8 item 1), listed in
//! `tpb_sim::assumptions`.

use super::descriptor::Tensor3;
use super::field::Bytes;
use super::gen_block::{gen_block, sub, Sub, SubKind::*};
use super::wire_struct;
use crate::gen::Gen;
use crate::tables::{Dtype, PeFp32Mode};

/// `S3D3_MM` bytes 34..48, per generation (isa-facts-pe-act-dma §1.3).
fn mm_subs(gen: Gen) -> &'static [Sub] {
    const SUNDA: &[Sub] = &[
        sub("perf_opt", 35, 1, Num),
        sub("quant_offset", 36, 2, Hex),
        sub("num_active_rows", 38, 1, Num),
        sub("num_active_cols", 39, 1, Num),
        sub("psum_accumulate_flags", 43, 1, Num),
        sub("row_grp", 44, 1, Hex),
        sub("col_grp", 45, 1, Hex),
        sub("xbus_sel", 46, 1, Hex),
        sub("psum_zero_region", 47, 1, Num),
    ];
    const CAYMAN: &[Sub] = &[
        sub("transpose_mode", 34, 1, Num),
        sub("perf_opt", 35, 1, Num),
        sub("num_active_rows", 38, 1, Num),
        sub("num_active_cols", 39, 1, Num),
        sub("out_dtype", 40, 1, OutDtype),
        sub("psum_accumulate_flags", 43, 1, Num),
        sub("row_grp", 44, 1, Hex),
        sub("col_grp", 45, 1, Hex),
        sub("psum_zero_region", 47, 1, Num),
    ];
    const MARIANA: &[Sub] = &[
        sub("transpose_mode", 34, 1, Num),
        sub("perf_opt", 35, 1, Num),
        sub("num_active_rows", 38, 1, Num),
        sub("num_active_cols", 39, 1, Num),
        sub("out_dtype", 40, 1, OutDtype),
        sub("flags", 42, 1, Hex),
        sub("psum_accumulate_flags", 43, 1, Num),
        sub("row_grp", 44, 1, Hex),
        sub("col_grp", 45, 1, Hex),
        sub("psum_zero_region", 47, 1, Num),
    ];
    const MAVERICK: &[Sub] = &[
        sub("out_dtype", 34, 1, OutDtype),
        sub("num_active_rows", 35, 1, Num),
        sub("num_active_cols", 36, 1, Num),
        sub("tile_size", 37, 1, Hex),
        sub("tile_sel", 38, 1, Hex),
        sub("flags", 39, 1, Hex),
        sub("perf_mode", 40, 1, Num),
    ];
    match gen {
        Gen::Sunda => SUNDA,
        Gen::Cayman => CAYMAN,
        Gen::Mariana => MARIANA,
        Gen::Maverick => MAVERICK,
    }
}

/// `S3_LW` bytes 34..64, per generation (isa-facts-pe-act-dma §1.4; sunda/cayman/mariana
/// partly ASSUMED, §8 item 1).
fn lw_subs(gen: Gen) -> &'static [Sub] {
    const SUNDA: &[Sub] = &[
        sub("perf_opt", 35, 1, Num),
        sub("quant_offset", 36, 2, Hex),
        sub("num_active_rows", 38, 1, Num),
        sub("num_active_cols", 39, 1, Num),
        sub("row_grp", 44, 1, Hex),
        sub("col_grp", 45, 1, Hex),
        sub("xbus_sel", 46, 1, Hex),
    ];
    const CAYMAN: &[Sub] = &[
        sub("transpose_mode", 34, 1, Num),
        sub("perf_opt", 35, 1, Num),
        sub("quant_offset", 36, 2, Hex),
        sub("num_active_rows", 38, 1, Num),
        sub("num_active_cols", 39, 1, Num),
        sub("row_grp", 44, 1, Hex),
        sub("col_grp", 45, 1, Hex),
        sub("xbus_sel", 46, 1, Hex),
    ];
    const MARIANA: &[Sub] = &[
        sub("transpose_mode", 34, 1, Num),
        sub("perf_opt", 35, 1, Num),
        sub("num_active_rows", 38, 1, Num),
        sub("num_active_cols", 39, 1, Num),
        sub("row_grp", 44, 1, Hex),
        sub("col_grp", 45, 1, Hex),
        sub("flags", 47, 1, Hex),
    ];
    const MAVERICK: &[Sub] = &[
        sub("num_active_rows", 34, 1, Num),
        sub("num_active_cols", 35, 1, Num),
        sub("tile_size", 36, 1, Hex),
        sub("tile_sel", 37, 1, Hex),
        sub("flags", 38, 1, Hex),
        sub("perf_mode", 39, 1, Num),
    ];
    match gen {
        Gen::Sunda => SUNDA,
        Gen::Cayman => CAYMAN,
        Gen::Mariana => MARIANA,
        Gen::Maverick => MAVERICK,
    }
}

/// `has_valid_mm_out_dtype` (isa-facts-pe-act-dma §1.6), declared once: the `out_dtype` codes
/// a Matmul may carry on `gen`, each with the dtype of the PSUM elements it writes. 0 is read
/// as fp32 on every generation that has the byte; from mariana fp32 and bfloat16 may also be
/// named (the fp32 sum is rounded to bf16 as it is written). Sunda has no `out_dtype` byte: its
/// result is fp32 (see [`matmul_psum_dtype`]).
pub const fn matmul_out_dtypes(gen: Gen) -> &'static [(Dtype, Dtype)] {
    const ZERO: (Dtype, Dtype) = (Dtype::INVALID, Dtype::FP32);
    match gen {
        Gen::Sunda | Gen::Cayman => &[ZERO],
        Gen::Mariana | Gen::Maverick => &[
            ZERO,
            (Dtype::FP32, Dtype::FP32),
            (Dtype::BFLOAT16, Dtype::BFLOAT16),
        ],
    }
}

/// The PSUM element dtype a Matmul writes on `gen` for its `out_dtype` byte (`None`: the
/// generation has no such byte, so fp32), or `None` when `has_valid_mm_out_dtype` refuses it.
pub fn matmul_psum_dtype(gen: Gen, out_dtype: Option<Dtype>) -> Option<Dtype> {
    match out_dtype {
        None => Some(Dtype::FP32),
        Some(o) => matmul_out_dtypes(gen)
            .iter()
            .find(|(code, _)| *code == o)
            .map(|&(_, psum)| psum),
    }
}

/// `S3_LW` bytes 12..16, per generation (isa-facts-pe-act-dma §1.4, §0.2 decision 3): mariana
/// names byte 12 `bg_xpose_mode` (`BG_XPOSE_MODE`; then `reserved0[3]`), the only operand struct
/// in which byte 12 is live; on the other generations the four bytes are `reserved0[4]`.
fn lw_front_subs(gen: Gen) -> &'static [Sub] {
    const MARIANA: &[Sub] = &[sub("bg_xpose_mode", 12, 1, Num)];
    match gen {
        Gen::Mariana => MARIANA,
        Gen::Sunda | Gen::Cayman | Gen::Maverick => &[],
    }
}

gen_block! {
    /// `S3_LW` bytes 12..16: mariana's `bg_xpose_mode`, reserved elsewhere
    /// (isa-facts-pe-act-dma §1.4).
    LwFront, 12, 4, lw_front_subs
}

gen_block! {
    /// `S3D3_MM` bytes 34..48: the per-generation matmul controls (isa-facts-pe-act-dma §1.3).
    MmCtrl, 34, 14, mm_subs
}

gen_block! {
    /// `S3_LW` bytes 34..64: the per-generation LoadWeights controls (isa-facts-pe-act-dma §1.4).
    LwCtrl, 34, 30, lw_subs
}

wire_struct! {
    /// `NEURON_ISA_TPB_S3D3_MM_STRUCT` — Matmul 0x02 ("MultiplyMoving", isa-facts-pe-act-dma
    /// §1.3): stream the moving tile through the loaded weights into PSUM.
    pub struct S3d3Mm, bytes 12..64 {
        /// Bytes 12..16: must be 0.
        reserved0: Bytes<4> = 12,
        /// Bytes 16..32: the moving tile (SBUF); `TENSOR3D` on v2/v3, `MEM_PATTERN3D` from v4.
        src_mem_pattern: Tensor3 = 16,
        /// Byte 32: the input dtype.
        in_dtype: Dtype = 32,
        /// Byte 33: `PE_FP32MODE`.
        fp32_mode: PeFp32Mode = 33,
        /// Bytes 34..48: the per-generation controls.
        ctrl: MmCtrl = 34,
        /// Bytes 48..64: the PSUM destination.
        dst_mem_pattern: Tensor3 = 48,
    }
}

wire_struct! {
    /// `NEURON_ISA_TPB_S3_LW_STRUCT` — LoadWeights 0x01 ("LoadStationary",
    /// isa-facts-pe-act-dma §1.4): load the stationary tile into the PE array.
    pub struct S3Lw, bytes 12..64 {
        /// Bytes 12..16: `bg_xpose_mode` @12 on mariana, reserved elsewhere (named per
        /// generation, [`LwFront`]).
        front: LwFront = 12,
        /// Bytes 16..32: the stationary tile (SBUF).
        src_mem_pattern: Tensor3 = 16,
        /// Byte 32: the input dtype (ASSUMED offset on v2–v4, §8 item 1).
        in_dtype: Dtype = 32,
        /// Byte 33: `PE_FP32MODE` (ASSUMED offset on v2–v4).
        fp32_mode: PeFp32Mode = 33,
        /// Bytes 34..64: the per-generation controls.
        ctrl: LwCtrl = 34,
    }
}

impl S3Lw {
    /// `bg_xpose_mode` (byte 12), a live field on mariana only.
    pub fn bg_xpose_mode(&self, gen: Gen) -> Option<u8> {
        self.front.get(gen, "bg_xpose_mode").map(|v| v as u8)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::Field;

    // isa-facts-pe-act-dma §1.3: reserved0@12 src@16 in_dtype@32 fp32_mode@33 … dst@48.
    #[test]
    fn s3d3_mm_offsets() {
        let o: Vec<_> = S3d3Mm::LAYOUT
            .iter()
            .map(|f| (f.name, f.offset, f.size))
            .collect();
        assert_eq!(
            o,
            [
                ("reserved0", 12, 4),
                ("src_mem_pattern", 16, 16),
                ("in_dtype", 32, 1),
                ("fp32_mode", 33, 1),
                ("ctrl", 34, 14),
                ("dst_mem_pattern", 48, 16),
            ]
        );
    }

    // §1.3 per-generation table: the same byte has a different name on each generation.
    #[test]
    fn mm_ctrl_names_per_generation() {
        let mut b = [0u8; 64];
        b[34] = 0x06; // maverick out_dtype bf16 / cayman transpose_mode 6
        b[38] = 64; // v2-v4 num_active_rows / v5 tile_sel
        b[43] = 3; // psum_accumulate_flags (v2-v4)
        let s = S3d3Mm::parse(&b);
        assert_eq!(s.ctrl.get(Gen::Sunda, "num_active_rows"), Some(64));
        assert_eq!(s.ctrl.get(Gen::Cayman, "transpose_mode"), Some(6));
        assert_eq!(s.ctrl.get(Gen::Maverick, "out_dtype"), Some(6));
        assert_eq!(s.ctrl.get(Gen::Maverick, "tile_sel"), Some(64));
        assert_eq!(s.ctrl.get(Gen::Maverick, "psum_accumulate_flags"), None);
        assert_eq!(s.ctrl.get(Gen::Mariana, "psum_accumulate_flags"), Some(3));
        // byte 43 is reserved on maverick: it shows as rsv43 and survives the text.
        assert_eq!(s.ctrl.nonzero_unnamed(Gen::Maverick), vec![43]);
        for g in &Gen::ALL {
            let t = s.ctrl.to_text(*g);
            assert_eq!(MmCtrl::parse_text(&t, *g).unwrap(), s.ctrl, "{g}: {t}");
        }
        let mut out = [0u8; 64];
        s.emit(&mut out);
        assert_eq!(out, b);
    }

    /// A cayman matmul: bf16 moving 128 rows × 512 at sbuf+0x0 into psum, single group.
    #[test]
    fn golden_matmul_cayman() {
        let t = "[transpose_mode:0,perf_opt:0,num_active_rows:128,num_active_cols:128,\
                 out_dtype:fp32,psum_accumulate_flags:3,row_grp:0xf,col_grp:0xf,psum_zero_region:0]";
        let c = MmCtrl::parse_text(t, Gen::Cayman).unwrap();
        let mut want = [0u8; 14];
        want[38 - 34] = 128;
        want[39 - 34] = 128;
        want[40 - 34] = 0x0A;
        want[43 - 34] = 3;
        want[44 - 34] = 0xF;
        want[45 - 34] = 0xF;
        assert_eq!(c.0, want);
        assert_eq!(c.to_text(Gen::Cayman), t.replace(' ', ""));
        assert!(MmCtrl::parse_text("[flags:1]", Gen::Cayman).is_err());
        assert!(MmCtrl::parse_text("[rsv38:1]", Gen::Cayman).is_err());
        assert!(MmCtrl::parse_text("[num_active_rows:256]", Gen::Cayman).is_err());
    }

    // §1.4: maverick S3_LW complete; mariana's byte 12 is bg_xpose_mode.
    #[test]
    fn s3_lw_layout() {
        let mut b = [0u8; 64];
        b[12] = 1;
        b[34] = 128;
        b[35] = 0; // 0 means 256 columns on maverick
        b[38] = 0b0010_0000; // LD_WEIGHT_FLAGS.load_order
        let s = S3Lw::parse(&b);
        assert_eq!(s.front.nonzero_unnamed(Gen::Cayman), vec![12]);
        assert!(s.front.nonzero_unnamed(Gen::Mariana).is_empty());
        assert_eq!(s.ctrl.get(Gen::Maverick, "num_active_rows"), Some(128));
        assert_eq!(s.ctrl.get(Gen::Maverick, "flags"), Some(0x20));
        assert_eq!(s.bg_xpose_mode(Gen::Mariana), Some(1));
        assert_eq!(s.bg_xpose_mode(Gen::Cayman), None);
        assert_eq!(s.ctrl.get(Gen::Cayman, "transpose_mode"), Some(128));
        let mut out = [0u8; 64];
        s.emit(&mut out);
        assert_eq!(out, b);
    }
}
