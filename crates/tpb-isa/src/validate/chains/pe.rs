//! `S3_LW` / `S3D3_MM`: LoadWeights 0x01 and Matmul 0x02 (isa-facts-pe-act-dma §1.3–§1.12).
//! Each clause is one rule citing its sheet section; the per-generation control bytes are
//! read through the generation tables of `wire::pe`.

use super::super::common::*;
use super::super::{Confidence, Ctx, Flow};
use crate::gen::Gen;
use crate::tables::{Dtype, PeFp32Mode};
use crate::wire::gen_block::Sub;
use crate::wire::{matmul_out_dtypes, matmul_psum_dtype, LwCtrl, MmCtrl, S3Lw, S3d3Mm, View};
use Confidence::{Assumed, Inferred, Observed};

rule!(
    PE_RESERVED,
    "s3d3_mm_reserved_zero",
    "reserved bytes (reserved0 and every control byte the generation does not name) are zero",
    "isa-facts-pe-act-dma §1.3, §1.4",
    Observed
);
rule!(
    PE_IN_DTYPE,
    "pe_valid_in_dtype",
    "in_dtype is fp8_exp3/4/5, bfloat16, fp16 or fp32 (uint8 also on sunda)",
    "isa-facts-pe-act-dma §1.7",
    Observed
);
rule!(
    PE_FP32_MODE,
    "pe_valid_fp32_mode",
    "fp32 input: fp32_mode ∈ {low, high, low_high}; any other input: fp32_mode = none",
    "isa-facts-pe-act-dma §1.5.1",
    Observed
);
rule!(
    MM_OUT_DTYPE,
    "has_valid_mm_out_dtype",
    "out_dtype = 0 (fp32) on cayman; ∈ {0, fp32, bfloat16} from mariana, and the PSUM elements \
     have that dtype (the generic 4-byte PSUM-write clause does not apply)",
    "isa-facts-pe-act-dma §1.6",
    Observed
);
rule!(
    MM_ACC_FLAGS,
    "mm_psum_flags",
    "psum_accumulate_flags ∈ {0,1,2,3} on sunda, {0,1,2,3,4,6} on cayman/mariana",
    "isa-facts-pe-act-dma §1.5.2, decision 6 (cayman = mariana ASSUMED)",
    Observed
);
rule!(
    MM_ZERO_REGION,
    "mm_psum_zero_region",
    "psum_zero_region = 0 (SIZE2048) on sunda/cayman; ≤ 3 on mariana",
    "isa-facts-pe-act-dma §1.5.5",
    Observed
);
rule!(
    PE_ROWS,
    "pe_num_active_rows",
    "1 ≤ num_active_rows ≤ 128 (the array's rows = the contraction depth)",
    "isa-facts-pe-act-dma §1.2, §1.4",
    Observed
);
rule!(
    PE_COLS,
    "pe_num_active_cols",
    "1 ≤ num_active_cols ≤ 128 on sunda..mariana (maverick: 0 means 256)",
    "isa-facts-pe-act-dma §1.2, §1.4",
    Observed
);
rule!(
    PE_COL_GRP,
    "pe_col_grp_quadrant",
    "col_grp is a quadrant mask of the table (0xf, 0x3, 0xc, 0x1, 0x2, 0x4, 0x8; 0x8 not on \
     sunda), num_active_cols fits it, and the PSUM destination starts at its partition",
    "isa-facts-pe-act-dma §1.5.8",
    Observed
);
rule!(
    PE_ROW_GRP,
    "pe_row_grp_quadrant",
    "row_grp is a quadrant mask of the table, num_active_rows fits it, and the SBUF source \
     starts at its partition",
    "isa-facts-pe-act-dma §1.5.8",
    Inferred
);
rule!(
    PE_TRANSPOSE,
    "pe_transpose_mode",
    "transpose_mode (and mariana's bg_xpose_mode) ∈ {0 off, 1 bit-accurate transpose}",
    "isa-facts-pe-act-dma §1.8, §8 item 3",
    Assumed
);
rule!(
    PE_PERF_OPT,
    "pe_perf_opt",
    "perf_opt ∈ {0 None, 1 DoubleRow, 2 DoubleColumn, 3 DoublePixel}; DoubleRow needs fp8 input",
    "isa-facts-pe-act-dma §1.2, §8 item 2",
    Assumed
);
rule!(
    PE_FLAGS,
    "pe_flags_scalar_mode",
    "MATMUL_FLAGS / LD_WEIGHT_FLAGS: scalar_mode = 0 and the reserved bits are 0",
    "isa-facts-pe-act-dma §1.5.3, §1.5.4, §8 item 4",
    Assumed
);
rule!(
    PE_TILE_SEL,
    "pe_tile_sel",
    "maverick tile_sel: row_sel ≤ 1 and col_sel ≤ 1",
    "isa-facts-pe-act-dma §1.5.6",
    Observed
);
rule!(
    LW_COUNT,
    "ldweights_cols_elements",
    "each source partition holds num_active_cols elements (one per array column)",
    "isa-facts-pe-act-dma §8 item 6",
    Assumed
);
rule!(
    MM_COUNT,
    "same_element_count_t3d",
    "each PSUM partition receives as many elements as each moving partition streams",
    "isa-facts-pe-act-dma §1.2",
    Inferred
);

/// The PE input dtypes (isa-facts-pe-act-dma §1.7).
pub fn pe_in_dtype_ok(d: Dtype, gen: Gen) -> bool {
    matches!(
        d,
        Dtype::FP8_EXP3 | Dtype::FP8_EXP4 | Dtype::FP8_EXP5 | Dtype::BFLOAT16 | Dtype::FP16
    ) || d == Dtype::FP32
        || (gen == Gen::Sunda && d == Dtype::UINT8)
}

/// `col_grp` / `row_grp` quadrant masks: (mask, start partition, max span)
/// (isa-facts-pe-act-dma §1.5.8, the sunda header's table).
pub const QUADRANTS: [(u8, u32, u32); 7] = [
    (0xF, 0, 128),
    (0x3, 0, 64),
    (0xC, 64, 64),
    (0x1, 0, 32),
    (0x2, 32, 32),
    (0x4, 64, 32),
    (0x8, 96, 32),
];

/// The common clauses of both PE structs.
#[inline(always)]
fn pe_common<const M: u8>(
    cx: &mut Ctx<M>,
    in_dtype: Dtype,
    fp32_mode: PeFp32Mode,
    in_at: Loc,
    mode_at: Loc,
) -> Flow {
    let gen = cx.gen;
    cx.check(&PE_IN_DTYPE, pe_in_dtype_ok(in_dtype, gen), || {
        detail(
            in_at,
            in_dtype,
            "fp8_exp3, fp8_exp4, fp8_exp5, bfloat16, fp16, fp32",
        )
    })?;
    let ok = if in_dtype == Dtype::FP32 {
        (1..=3).contains(&fp32_mode.0)
    } else {
        fp32_mode == PeFp32Mode::NONE
    };
    cx.check(&PE_FP32_MODE, ok, || {
        let allowed = if in_dtype == Dtype::FP32 {
            "low, high, low_high"
        } else {
            "none"
        };
        detail(mode_at, fp32_mode, allowed)
    })?;
    Ok(())
}

/// Rows, columns, quadrant masks, transpose, perf and flags, as far as the generation has
/// them. `get` reads a named control byte.
#[inline(always)]
fn pe_controls<const M: u8>(
    cx: &mut Ctx<M>,
    subs: &[Sub],
    get: impl Fn(&str) -> Option<u16>,
    in_dtype: Dtype,
    src_part: Option<u32>,
    dst_part: Option<u32>,
    flags_layout: FlagsLayout,
    ctrl_at: Loc,
) -> Flow {
    let gen = cx.gen;
    // A control byte is reported as the whole `ctrl` field: its bytes differ per generation
    // (the rule names the sub-field).
    let sub_loc = |_: &str, _: &[Sub]| ctrl_at;
    let rows = get("num_active_rows").unwrap_or(0);
    cx.check(&PE_ROWS, (1..=128).contains(&rows), || {
        detail(sub_loc("num_active_rows", subs), rows, "1..=128")
    })?;
    let cols = get("num_active_cols").unwrap_or(0);
    let cols_ok = if gen == Gen::Maverick {
        true
    } else {
        (1..=128).contains(&cols)
    };
    cx.check(&PE_COLS, cols_ok, || {
        detail(sub_loc("num_active_cols", subs), cols, "1..=128")
    })?;
    if let Some(cg) = get("col_grp") {
        let q = QUADRANTS.iter().find(|q| u16::from(q.0) == cg);
        let ok = match q {
            Some(&(m, start, span)) => {
                !(gen == Gen::Sunda && m == 0x8)
                    && u32::from(cols) <= span
                    && dst_part.is_none_or(|p| p == start)
            }
            None => false,
        };
        cx.check(&PE_COL_GRP, ok, || {
            detail(
                sub_loc("col_grp", subs),
                format!("{cg:#x} with {cols} columns, destination partition {dst_part:?}"),
                "a quadrant mask whose span holds the columns and whose start is the PSUM start partition",
            )
        })?;
    }
    if let Some(rg) = get("row_grp") {
        let ok = match QUADRANTS.iter().find(|q| u16::from(q.0) == rg) {
            Some(&(_, start, span)) => {
                u32::from(rows) <= span && src_part.is_none_or(|p| p == start)
            }
            None => false,
        };
        cx.check(&PE_ROW_GRP, ok, || {
            detail(
                sub_loc("row_grp", subs),
                format!("{rg:#x} with {rows} rows, source partition {src_part:?}"),
                "a quadrant mask whose span holds the rows and whose start is the source start partition",
            )
        })?;
    }
    if let Some(t) = get("transpose_mode") {
        cx.check(&PE_TRANSPOSE, t <= 1, || {
            detail(sub_loc("transpose_mode", subs), t, "0, 1")
        })?;
    }
    if let Some(p) = get("perf_opt") {
        let fp8 = matches!(in_dtype, Dtype::FP8_EXP4 | Dtype::FP8_EXP5);
        cx.check(&PE_PERF_OPT, p <= 3 && (p != 1 || fp8), || {
            detail(
                sub_loc("perf_opt", subs),
                p,
                "0..=3; 1 (DoubleRow) only for fp8 input",
            )
        })?;
    }
    if let Some(f) = get("flags") {
        let ok = match flags_layout {
            // MATMUL_FLAGS: scalar_mode:2 (bits 0-1), seed:2, accumulate:1, xpose:1, rsv:2.
            FlagsLayout::Matmul => f & 0b11 == 0 && f & 0xC0 == 0,
            // LD_WEIGHT_FLAGS: xpose:1, scalar_mode:2 (bits 1-2), seed:2, order:1, rsv:2.
            FlagsLayout::LoadWeights => f & 0b110 == 0 && f & 0xC0 == 0,
        };
        cx.check(&PE_FLAGS, ok, || {
            detail(
                sub_loc("flags", subs),
                format!("{f:#04x}"),
                "scalar_mode 0, reserved bits 0",
            )
        })?;
    }
    if let Some(t) = get("tile_sel") {
        cx.check(&PE_TILE_SEL, t & 0xF <= 1 && t >> 4 <= 1, || {
            detail(
                sub_loc("tile_sel", subs),
                format!("{t:#04x}"),
                "row_sel ≤ 1, col_sel ≤ 1",
            )
        })?;
    }
    Ok(())
}

#[derive(Clone, Copy)]
enum FlagsLayout {
    Matmul,
    LoadWeights,
}

fn start_partition(a: crate::wire::Addr4, gen: Gen) -> Option<u32> {
    a.locate(gen).map(|(_, p, _)| p)
}

/// LoadWeights 0x01.
#[inline(always)]
pub(super) fn check_load_weights<const M: u8>(cx: &mut Ctx<M>, s: &View<'_, S3Lw>) -> Flow {
    let gen = cx.gen;
    let subs = LwCtrl::subs(gen);
    let ctrl = s.ctrl();
    // Bytes 12..16: bg_xpose_mode @12 on mariana only, reserved elsewhere (§1.4).
    let front = s.front();
    let unnamed = front.nonzero_unnamed(gen);
    cx.check(&PE_RESERVED, unnamed.is_empty(), || {
        detail(
            at!(S3Lw.front),
            format!("non-zero bytes at {unnamed:?}"),
            "all zero",
        )
    })?;
    let unnamed = ctrl.nonzero_unnamed(gen);
    cx.check(&PE_RESERVED, unnamed.is_empty(), || {
        detail(
            at!(S3Lw.ctrl),
            format!("non-zero bytes at {unnamed:?}"),
            "all zero",
        )
    })?;
    if let Some(x) = front.get(gen, "bg_xpose_mode") {
        cx.check(&PE_TRANSPOSE, x <= 1, || {
            detail(at!(S3Lw.front), format!("bg_xpose_mode {x}"), "0, 1")
        })?;
    }
    pe_common(
        cx,
        s.in_dtype(),
        s.fp32_mode(),
        at!(S3Lw.in_dtype),
        at!(S3Lw.fp32_mode),
    )?;
    let src = s.src_mem_pattern();
    pe_controls(
        cx,
        subs,
        |n| ctrl.get(gen, n),
        s.in_dtype(),
        start_partition(src.start_addr, gen),
        None,
        FlagsLayout::LoadWeights,
        at!(S3Lw.ctrl),
    )?;
    let rows = ctrl.get(gen, "num_active_rows").unwrap_or(0).min(255) as u8;
    let cols = u64::from(match ctrl.get(gen, "num_active_cols") {
        Some(0) if gen == Gen::Maverick => 256,
        Some(c) => c,
        None => 0,
    });
    tensor_valid(
        cx,
        &src,
        Operand {
            at: at!(S3Lw.src_mem_pattern),
            dtype: s.in_dtype(),
            write: false,
            psum: false,
            sbuf: true,
        },
    )?;
    cx.check(&LW_COUNT, src.element_count() == cols, || {
        detail(
            at!(S3Lw.src_mem_pattern).num_elem::<3>(),
            count_text(&src),
            format!("{cols} (num_active_cols)"),
        )
    })?;
    start_addr_active_channels(cx, src.start_addr, rows, at!(S3Lw.src_mem_pattern))?;
    Ok(())
}

/// Matmul 0x02.
#[inline(always)]
pub(super) fn check_matmul<const M: u8>(cx: &mut Ctx<M>, s: &View<'_, S3d3Mm>) -> Flow {
    let gen = cx.gen;
    let subs = MmCtrl::subs(gen);
    let ctrl = s.ctrl();
    reserved_zero(cx, &PE_RESERVED, at!(S3d3Mm.reserved0), &s.reserved0().0)?;
    let unnamed = ctrl.nonzero_unnamed(gen);
    cx.check(&PE_RESERVED, unnamed.is_empty(), || {
        detail(
            at!(S3d3Mm.ctrl),
            format!("non-zero bytes at {unnamed:?}"),
            "all zero",
        )
    })?;
    pe_common(
        cx,
        s.in_dtype(),
        s.fp32_mode(),
        at!(S3d3Mm.in_dtype),
        at!(S3d3Mm.fp32_mode),
    )?;
    let (src, dst) = (s.src_mem_pattern(), s.dst_mem_pattern());
    pe_controls(
        cx,
        subs,
        |n| ctrl.get(gen, n),
        s.in_dtype(),
        start_partition(src.start_addr, gen),
        start_partition(dst.start_addr, gen),
        FlagsLayout::Matmul,
        at!(S3d3Mm.ctrl),
    )?;
    let out = ctrl.get(gen, "out_dtype").map(|v| Dtype(v as u8));
    let psum_dtype = matmul_psum_dtype(gen, out);
    if let Some(o) = out {
        cx.check(&MM_OUT_DTYPE, psum_dtype.is_some(), || {
            let allowed: Vec<String> = matmul_out_dtypes(gen)
                .iter()
                .map(|&(code, psum)| match code.0 {
                    0 => format!("0 ({psum})"),
                    _ => code.to_string(),
                })
                .collect();
            detail(at!(S3d3Mm.ctrl), o, allowed.join(", "))
        })?;
    }
    if let Some(f) = ctrl.get(gen, "psum_accumulate_flags") {
        let ok = match gen {
            Gen::Sunda => f <= 3,
            _ => matches!(f, 0..=4 | 6),
        };
        cx.check(&MM_ACC_FLAGS, ok, || {
            let allowed = if gen == Gen::Sunda {
                "0, 1, 2, 3"
            } else {
                "0, 1, 2, 3, 4, 6"
            };
            detail(at!(S3d3Mm.ctrl), f, allowed)
        })?;
    }
    if let Some(z) = ctrl.get(gen, "psum_zero_region") {
        let max = if gen == Gen::Mariana { 3 } else { 0 };
        cx.check(&MM_ZERO_REGION, z <= max, || {
            detail(at!(S3d3Mm.ctrl), z, format!("0..={max}"))
        })?;
    }
    let rows = ctrl.get(gen, "num_active_rows").unwrap_or(0).min(255) as u8;
    let cols = ctrl.get(gen, "num_active_cols").unwrap_or(0).min(255) as u8;
    tensor_valid(
        cx,
        &src,
        Operand {
            at: at!(S3d3Mm.src_mem_pattern),
            dtype: s.in_dtype(),
            write: false,
            psum: false,
            sbuf: true,
        },
    )?;
    // The PSUM elements have the dtype the out-dtype rule gives (fp32, or bf16 rounded as it
    // is written from mariana, §1.6); that rule, not the generic 4-byte PSUM-write clause,
    // decides what a Matmul may write (an out_dtype it refuses failed above: fp32 here).
    tensor_valid_writing(
        cx,
        &dst,
        Operand {
            at: at!(S3d3Mm.dst_mem_pattern),
            dtype: psum_dtype.unwrap_or(Dtype::FP32),
            write: true,
            psum: true,
            sbuf: false,
        },
        PsumWrite::DecidedByOutDtypeRule,
    )?;
    cx.check(
        &MM_COUNT,
        src.element_count() == dst.element_count(),
        || {
            detail(
                at!(S3d3Mm.dst_mem_pattern).num_elem::<3>(),
                count_text(&dst),
                format!("the moving count {}", count_text(&src)),
            )
        },
    )?;
    start_addr_active_channels(cx, src.start_addr, rows, at!(S3d3Mm.src_mem_pattern))?;
    start_addr_active_channels(cx, dst.start_addr, cols, at!(S3d3Mm.dst_mem_pattern))?;
    Ok(())
}
