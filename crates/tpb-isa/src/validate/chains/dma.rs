//! The DMA chains (isa-facts-pe-act-dma §3.3–§3.11) and MEM_2D (§3.14). Each clause is a
//! small named predicate (`fn` below the rules) so that it ports to the one-definition rule
//! set unchanged; the rules cite the sheet section they come from.

use super::super::common::*;
use super::super::{Confidence, Ctx, Flow};
use crate::gen::Gen;
use crate::geometry::{Space, NUM_REGISTERS};
use crate::opcode::sem;
use crate::tables::{CodeEnum, DataSrc, DgeComputeOp, DgeOpcode, Dtype};
use crate::wire::{
    Addr4, Addr8, Addr8Form, AddrForm, DmaDirect2d, DmaDirect2dXpose, DmaGatherXpose,
    DmaIndirect1d, DmaLoc, DmaPattern, Mem2d, PseudoDmaDirect2d, PseudoDmaExt,
};
use Confidence::{Assumed, Inferred, Observed};

rule!(
    DMA_ADDR8,
    "is_valid_addr8",
    "ADDR8 is an immediate in tpb's DMA map (HBM, or on chip with bit 55), a register pair < 64, a table or a shape-register form",
    "isa-facts-pe-act-dma §3.2 (map ASSUMED §8 Q20)",
    Inferred
);
rule!(
    DMA_SHAPE_REG_ZERO,
    "zero_num_step_elem_shape_reg_mode",
    "with a SHAPE_REG marker, num_elem == 0 and step_elem[1] == 0",
    "isa-facts-pe-act-dma §3.4",
    Observed
);
rule!(
    DMA_SHAPE_REG_NUMBER,
    "is_valid_dge_shape_reg",
    "shape register number < 4 (NUM_DGE_SHAPE_REGISTERS): not checked, the byte holding the number is not public",
    "isa-facts-pe-act-dma §3.4",
    Assumed,
    lint
);
rule!(
    DMA_DTYPES,
    "are_valid_memcpy_dtypes",
    "in_dtype and out_dtype are valid dtypes with a byte size (FP32R has SDMA size 0)",
    "isa-facts-pe-act-dma §3.4, §3.5",
    Observed
);
rule!(
    DMA_BOUND_REG,
    "has_valid_bound_check_reg",
    "BOUND_CHECK_REG is all zero, or bc_enabled with bc_reg + 1 < 64",
    "isa-facts-pe-act-dma §3.3",
    Observed
);
rule!(
    DMA_IDX_BOUND_REG,
    "has_valid_idx_bound_check_reg",
    "the index bound register is valid, and idx_bound_is_err == 1 or bc_disable_oob_error_notif == 0",
    "isa-facts-pe-act-dma §3.3",
    Observed
);
rule!(
    DMA_COMPUTE_OP,
    "is_valid_dge_compute_op",
    "compute_op ∈ DGE_COMPUTE_OP (none, add, multiply, max, min)",
    "isa-facts-pe-act-dma §3.3",
    Observed
);
rule!(
    DMA_CONFIGS,
    "is_valid_dma_configs",
    "priority_class <= 4 and the 5 reserved bits are 0",
    "isa-facts-pe-act-dma §3.3",
    Observed
);
rule!(
    DMA_PLAIN_BYTES,
    "dma_memcpy_no_cce",
    "without CCE (compute_op none, in_dtype == out_dtype) the byte counts match: src_num·src_elem_size == dst_num·dst_elem_size",
    "isa-facts-pe-act-dma §3.4",
    Observed
);
rule!(
    DMA_CCE_ALIGNED,
    "dma_memcpy_cce_aligned",
    "with CCE (a compute_op or a cast) addresses, steps and element sizes are multiples of the dtype sizes",
    "isa-facts-pe-act-dma §3.4",
    Observed
);
rule!(
    DMA_CCE_COUNTS,
    "dma_memcpy_cce_counts",
    "with CCE the source and destination hold the same number of dtype values",
    "isa-facts-pe-act-dma §3.4 (transfer model INFERRED)",
    Inferred
);
rule!(
    DMA_DGE_OP,
    "is_valid_dge_opcode",
    "dge_op ∈ DGE_OPCODE for the generation (sunda: direct2d, indirect1d)",
    "isa-facts-pe-act-dma §3.1, §3.6",
    Observed
);
rule!(
    DMA_EXT_TILE,
    "pseudo_ext_tile_shape",
    "tile_src_rows ∈ {16, 0} and tile_src_cols ∈ {128, 0}",
    "isa-facts-pe-act-dma §3.6",
    Observed
);
rule!(
    DMA_RESERVED,
    "dma_reserved_zero",
    "reserved bytes are 0",
    "isa-facts-pe-act-dma §3.6–§3.9 layouts; tpb's choice",
    Assumed
);
rule!(
    DMA_IDX_NAC,
    "check_dma_indirect_indices",
    "idx_num_active_channels == 128",
    "isa-facts-pe-act-dma §3.7, §3.9",
    Observed
);
rule!(
    DMA_INDIRECT_FLAGS,
    "dma_indirect_flags",
    "indirect_mode ∈ {SRC 0, DST 1, SRC_DST 2}",
    "isa-facts-pe-act-dma §3.7",
    Observed
);
rule!(
    DMA_INDEX_ARRAY,
    "dma_index_array",
    "an index array (UINT32) is an immediate SBUF address in partition 0, 4-byte aligned",
    "isa-facts-pe-act-dma §3.7, §3.9",
    Observed
);
rule!(
    DMA_XPOSE_SAME_DTYPE,
    "dma_xpose_no_cast",
    "in_dtype == out_dtype (a transpose does not cast)",
    "isa-facts-pe-act-dma §3.8, §3.9",
    Observed
);
rule!(
    DMA_XPOSE_DTYPE_SIZE,
    "dma_xpose_dtype_size",
    "0xBD: 2- or 4-byte data; 0xF1: 2-byte data only",
    "isa-facts-pe-act-dma §3.8, §3.9",
    Observed
);
rule!(
    DMA_XPOSE_DST,
    "dma_xpose_dst",
    "dst is in SBUF and 32-byte aligned; a dst step is 32-byte aligned unless its count is 1",
    "isa-facts-pe-act-dma §3.8, §3.9",
    Observed
);
rule!(
    DMA_XPOSE_TILE,
    "dma_xpose_tile",
    "tile_src_rows == 16; tile_src_cols 1..=128 (2-byte data) or 1..=64 (4-byte data)",
    "isa-facts-pe-act-dma §3.8",
    Observed
);
rule!(
    DMA_GATHER_SHAPE,
    "dma_gather_xpose_shape",
    "src_num_elem[1] % 16 == 0 and src_num_elem[1] == dst_num_elem[0]; elem_size 2..=256 and even; src 2-byte aligned",
    "isa-facts-pe-act-dma §3.9",
    Observed
);
rule!(
    DMA_GATHER_DIM,
    "dma_gather_dim",
    "gather_dim == Y",
    "isa-facts-pe-act-dma §3.9",
    Observed
);
rule!(
    MEM2D_DTYPE,
    "is_valid_mem2d_dtype",
    "dtype ∈ {u8, i8, u16, i16, i32, u32, fp32, u64}",
    "isa-facts-pe-act-dma §3.14",
    Observed
);
rule!(
    MEM2D_COUNTS,
    "mem2d_num_elem",
    "num_elem[0] and num_elem[1] in 1..=32, their product <= 32",
    "isa-facts-pe-act-dma §3.14",
    Observed
);
rule!(
    MEM2D_LOAD_REGISTER,
    "tensor_load_datasrc",
    "TensorLoad: src_datasrc == REGISTER",
    "isa-facts-pe-act-dma §3.14",
    Observed
);
rule!(
    MEM2D_IMM_CAPACITY,
    "tensor_store_imm_capacity",
    "TensorStore from immediates: at most 32 / sizeof(dtype) values (u8 32, u16 16, u32 8, u64 4)",
    "isa-facts-pe-act-dma §3.14",
    Observed
);
rule!(
    MEM2D_ALIGNED,
    "mem2d_addr_aligned",
    "start_addr and every element are dtype-aligned, inside one aligned 16 MB window",
    "isa-facts-pe-act-dma §3.14",
    Observed
);
rule!(
    MEM2D_REGISTERS,
    "mem2d_register_range",
    "data[0] names the first sequencer register; the registers used stay below 64",
    "isa-facts-pe-act-dma §3.14 (register naming ASSUMED)",
    Assumed
);

// ---- predicates ----------------------------------------------------------------------------

/// `is_valid_addr8` as tpb reads it (`allow_var`: a pseudo's NEFF variable id).
pub fn addr8_valid(a: Addr8, gen: Gen, allow_var: bool) -> bool {
    match a.form() {
        Addr8Form::Immediate => a.locate(gen).is_some(),
        Addr8Form::Register { lo, hi } => {
            u32::from(lo) < NUM_REGISTERS
                && u32::from(hi) < NUM_REGISTERS
                && a.0 & 0x00FF_FFFF_FFFF_0000 == 0
        }
        Addr8Form::ShapeFromRegister | Addr8Form::Table => true,
        Addr8Form::Variable => allow_var,
        Addr8Form::Other => false,
    }
}

/// `zero_num_step_elem_shape_reg_mode`.
pub fn shape_reg_zero<const N: usize>(p: &DmaPattern<N>) -> bool {
    !p.addr.shape_from_register()
        || (p.num_elem.iter().all(|&n| n == 0) && p.step_elem.get(1).is_none_or(|&s| s == 0))
}

/// `has_valid_bound_check_reg`: all zero, or enabled with a register pair < 64.
pub const fn bound_reg_valid(b: u8) -> bool {
    b == 0 || (b & 0x80 != 0 && (b & 0x3F) + 1 < NUM_REGISTERS as u8)
}

/// `has_valid_idx_bound_check_reg(bcr, flags)` (§3.3).
pub const fn idx_bound_reg_valid(b: u8, idx_bound_is_err: bool) -> bool {
    bound_reg_valid(b) && (idx_bound_is_err || b & 0x40 == 0)
}

/// `is_valid_dma_configs`.
pub const fn dma_configs_valid(c: u8) -> bool {
    c & 0x07 <= 4 && c & 0xF8 == 0
}

/// `are_valid_memcpy_dtypes` (one dtype).
pub const fn memcpy_dtype_valid(d: Dtype) -> bool {
    d.is_valid_dtype(false)
}

/// Bytes a DMA pattern moves: elements × element size (0 = 64 KiB).
pub fn pattern_bytes<const N: usize>(p: &DmaPattern<N>, elem_size: u16) -> u64 {
    p.element_count() * elem_bytes(elem_size)
}

/// An element size field's bytes (0 means 64 KiB, §3.4).
pub const fn elem_bytes(elem_size: u16) -> u64 {
    if elem_size == 0 {
        1 << 16
    } else {
        elem_size as u64
    }
}

/// Whether a DIRECT2D uses the compute/cast engine (CCE, §3.4).
pub fn uses_cce(s: &DmaDirect2d) -> bool {
    s.compute_op != DgeComputeOp::NONE || s.in_dtype != s.out_dtype
}

/// The CCE alignment clause: address, steps and element size multiples of `size`.
fn cce_aligned<const N: usize>(p: &DmaPattern<N>, elem_size: u16, size: u64) -> bool {
    let addr_ok = match p.addr.form() {
        Addr8Form::Immediate => {
            (p.addr.0 & crate::wire::addr8::ADDR8_IMM_MASK).is_multiple_of(size)
        }
        _ => true,
    };
    addr_ok
        && p.step_elem.iter().all(|&s| i64::from(s) % size as i64 == 0)
        && elem_bytes(elem_size).is_multiple_of(size)
}

/// An index array: immediate SBUF address in partition 0, 4-byte aligned (§3.7).
fn index_array_valid(a: Addr4, gen: Gen) -> bool {
    match a.form() {
        AddrForm::Immediate => matches!(
            a.locate(gen),
            Some((Space::Sbuf, 0, off)) if off % 4 == 0
        ),
        AddrForm::Register(r) => u32::from(r) < NUM_REGISTERS,
        _ => false,
    }
}

/// Whether an ADDR8 is an immediate SBUF address aligned to 32 bytes.
fn sbuf_aligned_32(a: Addr8, gen: Gen) -> bool {
    matches!(a.locate(gen), Some(DmaLoc::OnChip(Space::Sbuf, _, off)) if off % 32 == 0)
}

/// The MEM_2D dtypes (§3.14).
pub const fn mem2d_dtype_valid(d: Dtype) -> bool {
    matches!(
        d,
        Dtype::UINT8
            | Dtype::INT8
            | Dtype::UINT16
            | Dtype::INT16
            | Dtype::INT32
            | Dtype::UINT32
            | Dtype::FP32
            | Dtype::UINT64
    )
}

/// MEM_2D counts: each 1..=32, product <= 32.
pub const fn mem2d_counts_valid(n0: u8, n1: u8) -> bool {
    n0 >= 1 && n0 <= 32 && n1 >= 1 && n1 <= 32 && (n0 as u32) * (n1 as u32) <= 32
}

/// The byte offsets of MEM_2D's elements from `start_addr` (element-scaled steps), in order.
pub fn mem2d_offsets(s: &Mem2d) -> impl Iterator<Item = i64> + '_ {
    let size = s.dtype.size().unwrap_or(1) as i64;
    (0..i64::from(s.num_elem_1)).flat_map(move |j| {
        (0..i64::from(s.num_elem_0))
            .map(move |i| (i * i64::from(s.step_elem_0) + j * i64::from(s.step_elem_1)) * size)
    })
}

/// MEM_2D alignment: every element dtype-aligned and inside the 16 MB window of the first.
fn mem2d_aligned(s: &Mem2d) -> bool {
    let Some(size) = s.dtype.size() else {
        return false;
    };
    if !matches!(s.start_addr.form(), Addr8Form::Immediate) {
        return true;
    }
    let base = (s.start_addr.0 & crate::wire::addr8::ADDR8_IMM_MASK) as i64;
    const WINDOW: i64 = 16 << 20;
    let window = base.div_euclid(WINDOW);
    mem2d_offsets(s).all(|o| {
        let a = base + o;
        a >= 0
            && a % size as i64 == 0
            && a.div_euclid(WINDOW) == window
            && (a + size as i64 - 1).div_euclid(WINDOW) == window
    })
}

/// Registers a MEM_2D load or register store uses: one per element (two for u64).
pub fn mem2d_registers(s: &Mem2d) -> u32 {
    let per = if s.dtype == Dtype::UINT64 { 2 } else { 1 };
    u32::from(s.num_elem_0) * u32::from(s.num_elem_1) * per
}

// ---- chains --------------------------------------------------------------------------------

fn addr8<const M: u8>(cx: &mut Ctx<M>, a: Addr8, at: Loc, allow_var: bool) -> Flow {
    let gen = cx.gen;
    cx.check(&DMA_ADDR8, addr8_valid(a, gen, allow_var), || {
        detail(
            at,
            crate::wire::addr8::addr8_text(a, gen),
            "hbm+ADDR, sbuf[pN]+OFF, psum[pN]+OFF, reg[LO,HI], a table or shape-register marker",
        )
    })?;
    Ok(())
}

fn pattern<const N: usize, const M: u8>(
    cx: &mut Ctx<M>,
    p: &DmaPattern<N>,
    at: Loc,
    allow_var: bool,
) -> Flow {
    addr8(cx, p.addr, at, allow_var)?;
    cx.check(&DMA_SHAPE_REG_ZERO, shape_reg_zero(p), || {
        detail(
            at,
            format!("num {:?}, step {:?}", p.num_elem, p.step_elem),
            "num_elem 0, step_elem[1] 0",
        )
    })?;
    cx.check(&DMA_SHAPE_REG_NUMBER, !p.addr.shape_from_register(), || {
        detail(
            at,
            format!("marker {:#04x}", p.addr.marker()),
            "an immediate shape (the register number's byte is not public)",
        )
    })?;
    Ok(())
}

fn bound<const M: u8>(cx: &mut Ctx<M>, b: u8, at: Loc) -> Flow {
    cx.check(&DMA_BOUND_REG, bound_reg_valid(b), || {
        detail(
            at,
            format!("{b:#04x}"),
            "0, or bc_enabled (0x80) with bc_reg <= 62",
        )
    })?;
    Ok(())
}

fn configs<const M: u8>(cx: &mut Ctx<M>, c: u8, at: Loc) -> Flow {
    cx.check(&DMA_CONFIGS, dma_configs_valid(c), || {
        detail(
            at,
            format!("{c:#04x}"),
            "priority_class 0..=4, reserved bits 0",
        )
    })?;
    Ok(())
}

fn dtypes<const M: u8>(cx: &mut Ctx<M>, i: Dtype, o: Dtype, ai: Loc, ao: Loc) -> Flow {
    cx.check(
        &DMA_DTYPES,
        memcpy_dtype_valid(i) && memcpy_dtype_valid(o),
        || {
            detail2(
                ai,
                ao,
                format!("{i}, {o}"),
                "byte-sized dtypes other than fp32r",
            )
        },
    )?;
    Ok(())
}

fn compute<const M: u8>(cx: &mut Ctx<M>, op: DgeComputeOp, at: Loc) -> Flow {
    let gen = cx.gen;
    cx.check(&DMA_COMPUTE_OP, op.is_valid(gen), || {
        detail(at, op, enum_names::<DgeComputeOp>(gen))
    })?;
    Ok(())
}

/// The DIRECT2D clauses shared by 0xB8 and the 0xD4 pseudo (§3.4, §3.6).
fn direct2d_common<const M: u8>(
    cx: &mut Ctx<M>,
    src: &DmaPattern<2>,
    dst: &DmaPattern<2>,
    bounds: (u8, u8),
    io: (Dtype, Dtype),
    pseudo: bool,
    at: [Loc; 6],
) -> Flow {
    pattern(cx, src, at[0], pseudo)?;
    pattern(cx, dst, at[1], pseudo)?;
    dtypes(cx, io.0, io.1, at[2], at[3])?;
    bound(cx, bounds.0, at[4])?;
    bound(cx, bounds.1, at[5])?;
    Ok(())
}

pub(super) fn check_memcpy<const M: u8>(cx: &mut Ctx<M>, s: &DmaDirect2d) -> Flow {
    direct2d_common(
        cx,
        &s.src,
        &s.dst,
        (s.src_bound_reg, s.dst_bound_reg),
        (s.in_dtype, s.out_dtype),
        false,
        [
            at!(DmaDirect2d.src),
            at!(DmaDirect2d.dst),
            at!(DmaDirect2d.in_dtype),
            at!(DmaDirect2d.out_dtype),
            at!(DmaDirect2d.src_bound_reg),
            at!(DmaDirect2d.dst_bound_reg),
        ],
    )?;
    compute(cx, s.compute_op, at!(DmaDirect2d.compute_op))?;
    configs(cx, s.dma_configs, at!(DmaDirect2d.dma_configs))?;
    let (sb, db) = (
        pattern_bytes(&s.src, s.src_elem_size),
        pattern_bytes(&s.dst, s.dst_elem_size),
    );
    let shaped = s.src.addr.shape_from_register() || s.dst.addr.shape_from_register();
    if !uses_cce(s) {
        cx.check(&DMA_PLAIN_BYTES, shaped || sb == db, || {
            detail2(
                at!(DmaDirect2d.src),
                at!(DmaDirect2d.dst_elem_size),
                format!("{sb} source bytes, {db} destination bytes"),
                "equal byte counts",
            )
        })?;
    } else if let (Some(i), Some(o)) = (s.in_dtype.size(), s.out_dtype.size()) {
        let ok = cce_aligned(&s.src, s.src_elem_size, i as u64)
            && cce_aligned(&s.dst, s.dst_elem_size, o as u64);
        cx.check(&DMA_CCE_ALIGNED, ok, || {
            detail2(
                at!(DmaDirect2d.src),
                at!(DmaDirect2d.dst_elem_size),
                format!("{} / {} byte dtypes", i, o),
                "addresses, steps and element sizes multiples of the dtype sizes",
            )
        })?;
        cx.check(
            &DMA_CCE_COUNTS,
            shaped || sb / i as u64 == db / o as u64,
            || {
                detail2(
                    at!(DmaDirect2d.src),
                    at!(DmaDirect2d.dst_elem_size),
                    format!(
                        "{} source values, {} destination values",
                        sb / i as u64,
                        db / o as u64
                    ),
                    "equal value counts",
                )
            },
        )?;
    }
    Ok(())
}

pub(super) fn check_pseudo<const M: u8>(cx: &mut Ctx<M>, s: &PseudoDmaDirect2d) -> Flow {
    direct2d_common(
        cx,
        &s.src,
        &s.dst,
        (s.src_bound_reg, s.dst_bound_reg),
        (s.in_dtype, s.out_dtype),
        true,
        [
            at!(PseudoDmaDirect2d.src),
            at!(PseudoDmaDirect2d.dst),
            at!(PseudoDmaDirect2d.in_dtype),
            at!(PseudoDmaDirect2d.out_dtype),
            at!(PseudoDmaDirect2d.src_bound_reg),
            at!(PseudoDmaDirect2d.dst_bound_reg),
        ],
    )?;
    configs(cx, s.dma_configs, at!(PseudoDmaDirect2d.dma_configs))?;
    let gen = cx.gen;
    cx.check(&DMA_DGE_OP, s.dge_op.is_valid(gen), || {
        detail(
            at!(PseudoDmaDirect2d.dge_op),
            s.dge_op,
            enum_names::<DgeOpcode>(gen),
        )
    })?;
    Ok(())
}

pub(super) fn check_pseudo_ext<const M: u8>(cx: &mut Ctx<M>, s: &PseudoDmaExt) -> Flow {
    cx.check(
        &DMA_EXT_TILE,
        matches!(s.tile_src_rows, 0 | 16) && matches!(s.tile_src_cols, 0 | 128),
        || {
            detail2(
                at!(PseudoDmaExt.tile_src_rows),
                at!(PseudoDmaExt.tile_src_cols),
                format!("{}, {}", s.tile_src_rows, s.tile_src_cols),
                "rows 16 or 0, cols 128 or 0",
            )
        },
    )?;
    reserved_zero(
        cx,
        &DMA_RESERVED,
        at!(PseudoDmaExt.reserved1),
        &s.reserved1.0,
    )?;
    Ok(())
}

pub(super) fn check_indirect<const M: u8>(cx: &mut Ctx<M>, s: &DmaIndirect1d) -> Flow {
    let gen = cx.gen;
    pattern(cx, &s.src, at!(DmaIndirect1d.src), false)?;
    pattern(cx, &s.dst, at!(DmaIndirect1d.dst), false)?;
    dtypes(
        cx,
        s.in_dtype,
        s.out_dtype,
        at!(DmaIndirect1d.in_dtype),
        at!(DmaIndirect1d.out_dtype),
    )?;
    compute(cx, s.compute_op, at!(DmaIndirect1d.compute_op))?;
    configs(cx, s.dma_configs, at!(DmaIndirect1d.dma_configs))?;
    cx.check(&DMA_IDX_NAC, s.idx_num_active_channels == 128, || {
        detail(
            at!(DmaIndirect1d.idx_num_active_channels),
            s.idx_num_active_channels,
            "128",
        )
    })?;
    cx.check(&DMA_INDIRECT_FLAGS, s.flags & 0x3 <= 2, || {
        detail(
            at!(DmaIndirect1d.flags),
            format!("indirect_mode {}", s.flags & 3),
            "0 (src), 1 (dst), 2 (src_dst)",
        )
    })?;
    let err = s.flags & 0x4 != 0;
    for (b, at) in [
        (s.src_idx_bound_reg, at!(DmaIndirect1d.src_idx_bound_reg)),
        (s.dst_idx_bound_reg, at!(DmaIndirect1d.dst_idx_bound_reg)),
    ] {
        cx.check(&DMA_IDX_BOUND_REG, idx_bound_reg_valid(b, err), || {
            detail(at, format!("{b:#04x}"), "a valid bound register; with bc_disable_oob_error_notif set, idx_bound_is_err must be 1")
        })?;
    }
    let mode = s.flags & 3;
    for (a, used, at) in [
        (s.src_idx, mode != 1, at!(DmaIndirect1d.src_idx)),
        (s.dst_idx, mode != 0, at!(DmaIndirect1d.dst_idx)),
    ] {
        if used {
            cx.check(&DMA_INDEX_ARRAY, index_array_valid(a, gen), || {
                detail(
                    at,
                    format!("{:#010x}", a.0),
                    "sbuf[p0]+OFF with OFF % 4 == 0",
                )
            })?;
        }
    }
    reserved_zero(
        cx,
        &DMA_RESERVED,
        at!(DmaIndirect1d.reserved),
        &s.reserved.0,
    )?;
    Ok(())
}

pub(super) fn check_transpose<const M: u8>(cx: &mut Ctx<M>, s: &DmaDirect2dXpose) -> Flow {
    let gen = cx.gen;
    pattern(cx, &s.src, at!(DmaDirect2dXpose.src), false)?;
    pattern(cx, &s.dst, at!(DmaDirect2dXpose.dst), false)?;
    bound(cx, s.src_bound_reg, at!(DmaDirect2dXpose.src_bound_reg))?;
    bound(cx, s.dst_bound_reg, at!(DmaDirect2dXpose.dst_bound_reg))?;
    configs(cx, s.dma_configs, at!(DmaDirect2dXpose.dma_configs))?;
    let (i, o) = (
        at!(DmaDirect2dXpose.in_dtype),
        at!(DmaDirect2dXpose.out_dtype),
    );
    cx.check(&DMA_XPOSE_SAME_DTYPE, s.in_dtype == s.out_dtype, || {
        detail2(i, o, format!("{}, {}", s.in_dtype, s.out_dtype), "equal")
    })?;
    let size = s.in_dtype.size();
    cx.check(&DMA_XPOSE_DTYPE_SIZE, matches!(size, Some(2 | 4)), || {
        detail(i, s.in_dtype, "a 2- or 4-byte dtype")
    })?;
    let steps_ok = (0..2).all(|k| s.dst.num_elem[k] == 1 || s.dst.step_elem[k] % 32 == 0);
    cx.check(
        &DMA_XPOSE_DST,
        sbuf_aligned_32(s.dst.addr, gen) && steps_ok,
        || {
            detail(
                at!(DmaDirect2dXpose.dst),
                crate::wire::addr8::addr8_text(s.dst.addr, gen),
                "a 32-byte-aligned SBUF address; steps % 32 == 0 where num != 1",
            )
        },
    )?;
    let max_cols = if size == Some(4) { 64 } else { 128 };
    cx.check(
        &DMA_XPOSE_TILE,
        s.tile_src_rows == 16 && (1..=max_cols).contains(&s.tile_src_cols),
        || {
            detail2(
                at!(DmaDirect2dXpose.tile_src_rows),
                at!(DmaDirect2dXpose.tile_src_cols),
                format!("{}, {}", s.tile_src_rows, s.tile_src_cols),
                format!("rows 16, cols 1..={max_cols}"),
            )
        },
    )?;
    Ok(())
}

pub(super) fn check_gather_transpose<const M: u8>(cx: &mut Ctx<M>, s: &DmaGatherXpose) -> Flow {
    let gen = cx.gen;
    pattern(cx, &s.src, at!(DmaGatherXpose.src), false)?;
    addr8(cx, s.dst, at!(DmaGatherXpose.dst), false)?;
    bound(cx, s.dst_bound_reg, at!(DmaGatherXpose.dst_bound_reg))?;
    cx.check(
        &DMA_IDX_BOUND_REG,
        idx_bound_reg_valid(s.src_idx_bound_reg, true),
        || {
            detail(
                at!(DmaGatherXpose.src_idx_bound_reg),
                format!("{:#04x}", s.src_idx_bound_reg),
                "a valid bound register (`_no_flags` form)",
            )
        },
    )?;
    configs(cx, s.dma_configs, at!(DmaGatherXpose.dma_configs))?;
    cx.check(&DMA_IDX_NAC, s.idx_nac == 128, || {
        detail(at!(DmaGatherXpose.idx_nac), s.idx_nac, "128")
    })?;
    let (lo, hi) = (s.dtype.lo(), s.dtype.hi());
    let at_d = at!(DmaGatherXpose.dtype);
    cx.check(&DMA_XPOSE_SAME_DTYPE, lo == hi, || {
        detail(at_d, format!("{lo}->{hi}"), "equal")
    })?;
    cx.check(&DMA_XPOSE_DTYPE_SIZE, lo.size() == Some(2), || {
        detail(at_d, lo, "a 2-byte dtype")
    })?;
    let src_aligned = match s.src.addr.form() {
        Addr8Form::Immediate => s.src.addr.0.is_multiple_of(2),
        _ => true,
    };
    cx.check(
        &DMA_GATHER_SHAPE,
        s.src.num_elem[1].is_multiple_of(16)
            && s.src.num_elem[1] == s.dst_num_elem_0
            && (2..=256).contains(&s.elem_size)
            && s.elem_size.is_multiple_of(2)
            && src_aligned,
        || {
            detail(
                at!(DmaGatherXpose.src),
                format!(
                    "src_num_elem[1] {}, dst_num_elem[0] {}, elem_size {}",
                    s.src.num_elem[1], s.dst_num_elem_0, s.elem_size
                ),
                "src_num_elem[1] % 16 == 0, == dst_num_elem[0]; elem_size even in 2..=256",
            )
        },
    )?;
    cx.check(
        &DMA_XPOSE_DST,
        sbuf_aligned_32(s.dst, gen) && (s.dst_step_elem_1 % 32 == 0 || s.dst_num_elem_1 == 1),
        || {
            detail(at!(DmaGatherXpose.dst), crate::wire::addr8::addr8_text(s.dst, gen), "a 32-byte-aligned SBUF address; dst_step_elem_1 % 32 == 0 unless dst_num_elem[1] == 1")
        },
    )?;
    cx.check(&DMA_INDEX_ARRAY, index_array_valid(s.src_idx, gen), || {
        detail(
            at!(DmaGatherXpose.src_idx),
            format!("{:#010x}", s.src_idx.0),
            "sbuf[p0]+OFF with OFF % 4 == 0",
        )
    })?;
    cx.check(
        &DMA_GATHER_DIM,
        s.flags & 3 == 1 && s.flags & 0xFC == 0,
        || {
            detail(
                at!(DmaGatherXpose.flags),
                format!("{:#04x}", s.flags),
                "gather_dim Y (1), other bits 0",
            )
        },
    )?;
    reserved_zero(
        cx,
        &DMA_RESERVED,
        at!(DmaGatherXpose.reserved),
        &s.reserved.0,
    )?;
    Ok(())
}

pub(super) fn check_mem2d<const M: u8>(cx: &mut Ctx<M>, v: sem::Mem2d, s: &Mem2d) -> Flow {
    let gen = cx.gen;
    let load = match v {
        sem::Mem2d::Load => true,
        sem::Mem2d::Store => false,
    };
    cx.check(&MEM2D_DTYPE, mem2d_dtype_valid(s.dtype), || {
        detail(
            at!(Mem2d.dtype),
            s.dtype,
            "uint8, int8, uint16, int16, int32, uint32, fp32, uint64",
        )
    })?;
    cx.check(
        &MEM2D_COUNTS,
        mem2d_counts_valid(s.num_elem_0, s.num_elem_1),
        || {
            detail2(
                at!(Mem2d.num_elem_0),
                at!(Mem2d.num_elem_1),
                format!("{}, {}", s.num_elem_0, s.num_elem_1),
                "each 1..=32, product <= 32",
            )
        },
    )?;
    if load {
        cx.check(
            &MEM2D_LOAD_REGISTER,
            s.src_datasrc == DataSrc::REGISTER,
            || detail(at!(Mem2d.src_datasrc), s.src_datasrc, "register"),
        )?;
    } else {
        cx.check(&MEM2D_DTYPE, s.src_datasrc.is_valid(gen), || {
            detail(
                at!(Mem2d.src_datasrc),
                s.src_datasrc,
                enum_names::<DataSrc>(gen),
            )
        })?;
    }
    let n = u32::from(s.num_elem_0) * u32::from(s.num_elem_1);
    if !load && s.src_datasrc == DataSrc::IMMEDIATE {
        let cap = s.dtype.size().map_or(0, |z| 32 / z as u32);
        cx.check(&MEM2D_IMM_CAPACITY, n <= cap, || {
            detail(
                at!(Mem2d.data),
                format!("{n} values of {}", s.dtype),
                format!("at most {cap}"),
            )
        })?;
    } else {
        let regs = mem2d_registers(s);
        cx.check(
            &MEM2D_REGISTERS,
            u32::from(s.data.0[0]) + regs <= NUM_REGISTERS,
            || {
                detail(
                    at!(Mem2d.data),
                    format!(
                        "registers {}..{}",
                        s.data.0[0],
                        u32::from(s.data.0[0]) + regs
                    ),
                    "below 64",
                )
            },
        )?;
    }
    addr8(cx, s.start_addr, at!(Mem2d.start_addr), false)?;
    cx.check(&MEM2D_ALIGNED, mem2d_aligned(s), || {
        detail(
            at!(Mem2d.start_addr),
            crate::wire::addr8::addr8_text(s.start_addr, gen),
            "dtype-aligned elements inside one aligned 16 MB window",
        )
    })?;
    Ok(())
}

rule!(
    COPY2D_ADDR_MODE,
    "is_valid_dma_addr_mode",
    "each nibble of addr_mode ∈ DMA_ADDR_MODE (0x0..=0xb)",
    "isa-facts-pe-act-dma §3.10",
    Observed
);
rule!(
    COPY2D_SEMA_MODE,
    "is_valid_dma_sema_update_mode",
    "each nibble of sema_update_mode ∈ DMA_SEMA_UPDATE_MODE {0, 1, 3, 5, 9, 0xb, 0xd}",
    "isa-facts-pe-act-dma §3.10",
    Observed
);
rule!(
    IMMEDIATE_FLAGS,
    "dma_immediate_descriptor_flags",
    "descriptor_flags reserved bits 5..7 are 0",
    "isa-facts-pe-act-dma §3.11",
    Observed
);

/// `DMA_SEMA_UPDATE_MODE` values (§3.10).
const fn sema_mode_valid(m: u8) -> bool {
    matches!(m, 0x0 | 0x1 | 0x3 | 0x5 | 0x9 | 0xb | 0xd)
}

pub(super) fn check_copy2d<const M: u8>(cx: &mut Ctx<M>, s: &crate::wire::DmaCopy2d) -> Flow {
    use crate::wire::DmaCopy2d;
    cx.check(
        &COPY2D_ADDR_MODE,
        s.addr_mode & 0xF <= 0xB && s.addr_mode >> 4 <= 0xB,
        || {
            detail(
                at!(DmaCopy2d.addr_mode),
                format!("{:#04x}", s.addr_mode),
                "nibbles 0x0..=0xb",
            )
        },
    )?;
    cx.check(
        &COPY2D_SEMA_MODE,
        sema_mode_valid(s.sema_update_mode & 0xF) && sema_mode_valid(s.sema_update_mode >> 4),
        || {
            detail(
                at!(DmaCopy2d.sema_update_mode),
                format!("{:#04x}", s.sema_update_mode),
                "nibbles in {0, 1, 3, 5, 9, 0xb, 0xd}",
            )
        },
    )?;
    reserved_zero(cx, &DMA_RESERVED, at!(DmaCopy2d.reserved), &[s.reserved])?;
    Ok(())
}

pub(super) fn check_immediate<const M: u8>(cx: &mut Ctx<M>, s: &crate::wire::DmaImmediate) -> Flow {
    use crate::wire::DmaImmediate;
    cx.check(&IMMEDIATE_FLAGS, s.descriptor_flags & 0xE0 == 0, || {
        detail(
            at!(DmaImmediate.descriptor_flags),
            format!("{:#04x}", s.descriptor_flags),
            "bits 5..7 zero",
        )
    })?;
    Ok(())
}
