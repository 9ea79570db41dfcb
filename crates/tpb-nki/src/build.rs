//! Pure instruction builders: tiles and scalars in, one [`Instruction`] out. No machine state
//! is touched here; [`crate::Core`] validates and runs what these return.

use crate::error::NkiError;
use crate::tile::{Tile, ViewError};
use tpb_isa::geometry::{Geometry, Space};
use tpb_isa::pack::{pack, Packed};
use tpb_isa::wire::{op, D4Iota, F32Bits};
use tpb_isa::wire::{Data4d, DtypePair, ImmVal, S2d2Rs, S2d2TsAs, S3d3Ts, S3d3TsSelect};
use tpb_isa::{AccumCmd, AffineSelectCmp, AluOp, Dtype, Gen, ImmSrc, Instruction, RevOps};

/// Packs a whole tile the way the compiler packs an operand (seed 001 packer).
pub(crate) fn packed<const N: usize>(
    gen: Gen,
    tile: &Tile,
    operand: &'static str,
) -> Result<Packed<N>, NkiError> {
    let ap = tile.access_pattern().map_err(|e| match e {
        ViewError::NotSupported(detail) => NkiError::Shape { operand, detail },
        other => other.into(),
    })?;
    pack::<N>(gen, &ap).map_err(|e| NkiError::Pack {
        operand,
        detail: e.to_string(),
    })
}

/// The `DATA4D` of an NKI `pattern` (outermost first, at most 4 `[step, num]` pairs; missing
/// dims are size 1): slot 0 is the innermost pair (seed 002 §3.1), unused slots `{1, 1}`.
pub(crate) fn data4d(pattern: &[[i64; 2]], base: i64) -> Result<Data4d, NkiError> {
    let bad = |detail: String| NkiError::Pattern { detail };
    if pattern.len() > 4 {
        return Err(bad(format!(
            "{} [step, num] pairs given; DATA4D holds at most 4",
            pattern.len()
        )));
    }
    let base = i32::try_from(base).map_err(|_| bad(format!("offset {base} is not an int32")))?;
    let mut d = Data4d {
        base,
        ..Data4d::default()
    };
    for (slot, &[step, num]) in pattern.iter().rev().enumerate() {
        d.step_elem[slot] = i16::try_from(step).map_err(|_| {
            bad(format!(
                "step {step} does not fit the signed 16-bit step word"
            ))
        })?;
        d.num_elem[slot] = u16::try_from(num)
            .ok()
            .filter(|&n| n >= 1)
            .ok_or_else(|| bad(format!("num {num} is not in 1..=65535")))?;
    }
    Ok(d)
}

/// A pointer immediate to a `(P, 1)` tile: its ADDR4 start address (isa-facts §7,
/// `ts_ptr_imm_chk`).
pub(crate) fn pointer(gen: Gen, tile: &Tile, operand: &'static str) -> Result<ImmVal, NkiError> {
    tile.check()?;
    if tile.free_elements() != 1 {
        return Err(NkiError::Shape {
            operand,
            detail: format!(
                "a per-partition scalar operand must have shape (P, 1), not {:?}",
                tile.shape
            ),
        });
    }
    let offset = u32::try_from(tile.offset).ok();
    Geometry::of(gen)
        .address(tile.space, tile.start_partition, offset.unwrap_or(u32::MAX))
        .map(ImmVal)
        .ok_or_else(|| NkiError::Pack {
            operand,
            detail: format!("{tile} has no address on {gen}"),
        })
}

/// Iota (0x7E): `dst[c, k] = base + Σ index_d(k)·step_d + c·channel_multiplier`.
pub(crate) fn iota(
    gen: Gen,
    dst: &Tile,
    pattern: Data4d,
    channel_multiplier: i32,
) -> Result<Instruction, NkiError> {
    let d = packed::<4>(gen, dst, "dst")?;
    let body = D4Iota {
        src_data_pattern: pattern,
        out_dtype: dst.dtype,
        num_active_channels: d.num_active_channels,
        channel_multiplier,
        dst_mem_pattern: d.tensor,
        ..D4Iota::default()
    };
    Ok(Instruction::build(op::IOTA, body))
}

/// AffineSelect (0x92): `dst = (mask cmp 0) ? cast(src) : fill`, fill read from `fill_reg`.
pub(crate) fn affine_select(
    gen: Gen,
    dst: &Tile,
    src: &Tile,
    pattern: Data4d,
    channel_multiplier: i32,
    cmp: AffineSelectCmp,
    fill_reg: u8,
) -> Result<Instruction, NkiError> {
    let s = packed::<2>(gen, src, "on_true_tile")?;
    let d = packed::<2>(gen, dst, "dst")?;
    let body = S2d2TsAs {
        num_active_channels: d.num_active_channels,
        in_out_dtype: DtypePair::new(src.dtype, dst.dtype),
        fill_mode: cmp,
        fill_reg,
        mask_pattern: pattern,
        src_mem_pattern: s.tensor,
        dst_mem_pattern: d.tensor,
        channel_multiplier,
    };
    Ok(Instruction::build(op::TENSOR_SCALAR_AFFINE_SELECT, body))
}

/// A scalar operand as the instruction carries it: its source and its 4 bytes.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Scalar {
    pub src: ImmSrc,
    pub imm: ImmVal,
}

impl Scalar {
    pub const ZERO: Scalar = Scalar {
        src: ImmSrc::INSTRUCTION,
        imm: ImmVal(0),
    };
}

/// TensorScalar (0x43 arith / 0x53 bitvec): `(data op0 s0) op1 s1` with per-stage reversal.
#[allow(clippy::too_many_arguments)]
pub(crate) fn tensor_scalar(
    gen: Gen,
    dst: &Tile,
    data: &Tile,
    bitvec: bool,
    ops: [AluOp; 2],
    scalars: [Scalar; 2],
    reverse: [bool; 2],
) -> Result<Instruction, NkiError> {
    let s = packed::<3>(gen, data, "data")?;
    let d = packed::<3>(gen, dst, "dst")?;
    let body = S3d3Ts {
        accumulator_cmd: AccumCmd::IDLE,
        src_mem_pattern: s.tensor,
        in_dtype: data.dtype,
        out_dtype: dst.dtype,
        num_active_channels: d.num_active_channels,
        imm0_src: scalars[0].src,
        op0: ops[0],
        op1: ops[1],
        reverse_operands: RevOps(u8::from(reverse[0]) | (u8::from(reverse[1]) << 1)),
        imm1_src: scalars[1].src,
        imm0: scalars[0].imm,
        imm1: scalars[1].imm,
        dst_mem_pattern: d.tensor,
        ..S3d3Ts::default()
    };
    let opcode = if bitvec {
        op::TENSOR_SCALAR_BITVEC
    } else {
        op::TENSOR_SCALAR_ARITH
    };
    Ok(Instruction::build(opcode, body))
}

/// RangeSelect (0xBC): keep `x = base + k` where `x cmp0 b0 && x cmp1 b1`, else the fill.
#[allow(clippy::too_many_arguments)]
pub(crate) fn range_select(
    gen: Gen,
    dst: &Tile,
    src: &Tile,
    comps: [AluOp; 2],
    bounds: [Scalar; 2],
    base: f32,
    fill: f32,
) -> Result<Instruction, NkiError> {
    let s = packed::<2>(gen, src, "on_true_tile")?;
    if op::RANGE_SELECT.opcode().info(gen).is_none() {
        return Err(NkiError::NotSupported {
            what: format!(
                "range_select: RangeSelect ({}) does not exist on {gen}",
                op::RANGE_SELECT.opcode()
            ),
        });
    }
    let d = packed::<2>(gen, dst, "dst")?;
    let body = S2d2Rs {
        num_active_channels: d.num_active_channels,
        in_out_dtype: DtypePair::new(src.dtype, dst.dtype),
        reduce_cmd: AccumCmd::IDLE,
        reduce_op: AluOp::MAX,
        base: F32Bits(base.to_bits()),
        fill_val: F32Bits(fill.to_bits()),
        src_mem_pattern: s.tensor,
        comp_op0: comps[0],
        comp_op1: comps[1],
        bound0_src: bounds[0].src,
        bound1_src: bounds[1].src,
        bound0: bounds[0].imm,
        bound1: bounds[1].imm,
        dst_mem_pattern: d.tensor,
        ..S2d2Rs::default()
    };
    Ok(Instruction::build(op::RANGE_SELECT, body))
}

/// TensorScalarSelect (0x98): `dst = pred ? src0 : src1` (swapped when `reversed`).
pub(crate) fn select(
    gen: Gen,
    dst: &Tile,
    src0: &Tile,
    src1: Scalar,
    pred: Scalar,
    pred_dtype: Dtype,
    reversed: bool,
) -> Result<Instruction, NkiError> {
    let s = packed::<3>(gen, src0, "on_true_tile")?;
    let d = packed::<3>(gen, dst, "dst")?;
    let body = S3d3TsSelect {
        src0_mem_pattern: s.tensor,
        reversed_pred: u8::from(reversed),
        num_active_channels: d.num_active_channels,
        dtype: src0.dtype,
        pred_imm_dtype: pred_dtype,
        src1_imm_src: src1.src,
        pred_imm_src: pred.src,
        src1_imm: src1.imm,
        pred_imm: pred.imm,
        dst_mem_pattern: d.tensor,
        ..S3d3TsSelect::default()
    };
    Ok(Instruction::build(op::TENSOR_SCALAR_SELECT, body))
}

/// Usable bytes per partition of `space` on `gen` (0 where the space does not exist:
/// maverick has no PSUM).
pub(crate) fn space_bytes(gen: Gen, space: Space) -> u64 {
    let g = Geometry::of(gen);
    if space == Space::Psum && g.psum_buf_sz == 0 {
        return 0;
    }
    u64::from(g.active_bytes(space))
}
