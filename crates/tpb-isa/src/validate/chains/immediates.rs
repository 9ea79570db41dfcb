//! Scalar immediates by source (`tensor_scalar_immediates_check`, `ts_ptr_imm_chk`), shared by
//! TensorScalar, TensorScalarSelect and RangeSelect (isa-facts §5.3, §7).

use super::super::common::*;
use super::super::{Confidence, Ctx, Flow};
use crate::tables::{Dtype, ImmSrc};
use crate::wire::ImmVal;
use Confidence::Observed;

rule!(
    TS_IMM_WIDTH,
    "ts_imm_chk",
    "a bitvec instruction immediate fits the input width (32-bit only for 4-byte types)",
    "isa-facts §5.3",
    Observed
);
rule!(
    TS_PTR_IMM,
    "ts_ptr_imm_chk",
    "pointer immediate: an SBUF/PSUM address aligned to the dtype it points at (arith: fp32; \
     bitvec: in_dtype; an ACT bias: its own dtype) with room for the channels",
    "isa-facts §7, isa-facts-pe-act-dma §2.2",
    Observed
);
rule!(
    TS_SRC_ENUM,
    "is_valid_enum",
    "imm*_src ∈ IMM_SRC",
    "isa-facts §7",
    Observed
);

/// Checks one immediate by its source (`tensor_scalar_immediates_check`): an arithmetic
/// immediate is fp32 (a pointer to it 4-byte aligned), a bit-vector one has the input's width.
#[inline(always)]
pub(super) fn imm_by_src<const M: u8>(
    cx: &mut Ctx<M>,
    src: ImmSrc,
    v: ImmVal,
    src_at: Loc,
    at: Loc,
    bitvec: bool,
    in_dtype: Dtype,
    n: u8,
) -> Flow {
    let pointee = if bitvec { in_dtype } else { Dtype::FP32 };
    by_src(
        cx,
        src,
        v,
        (src_at, at),
        bitvec.then_some(in_dtype),
        pointee,
        n,
    )
}

/// Checks an immediate whose pointer form reads `pointee` values (an Activate / ActivateQuantize
/// bias reads its own dtype, `dtype_hi`: 2-byte aligned for bf16/fp16, isa-facts-pe-act-dma
/// §2.2, §2.4); its instruction form is an fp32 value.
#[inline(always)]
pub(super) fn typed_imm_by_src<const M: u8>(
    cx: &mut Ctx<M>,
    src: ImmSrc,
    v: ImmVal,
    src_at: Loc,
    at: Loc,
    pointee: Dtype,
    n: u8,
) -> Flow {
    by_src(cx, src, v, (src_at, at), None, pointee, n)
}

/// The immediate checks by source: `width` is the input dtype a bit-vector instruction
/// immediate must fit; `pointee` the dtype a pointer reads.
#[inline(always)]
fn by_src<const M: u8>(
    cx: &mut Ctx<M>,
    src: ImmSrc,
    v: ImmVal,
    (src_at, at): (Loc, Loc),
    width: Option<Dtype>,
    pointee: Dtype,
    n: u8,
) -> Flow {
    let gen = cx.gen;
    match src {
        ImmSrc::INSTRUCTION => {
            if let Some(in_dtype) = width {
                let ok = match in_dtype.size() {
                    Some(4) => true,
                    Some(2) => v.0 & 0xFFFF_0000 == 0,
                    Some(1) => v.0 & 0xFFFF_FF00 == 0,
                    _ => false,
                };
                cx.check(&TS_IMM_WIDTH, ok, || {
                    detail(at, format!("{:#x}", v.0), format!("fits {in_dtype}"))
                })?;
            }
        }
        ImmSrc::POINTER => {
            ptr_imm_chk(cx, v, at, pointee, n)?;
        }
        ImmSrc::REG_PTR => {
            cx.check(&IMM_REG, v.0 < crate::geometry::NUM_REGISTERS, || {
                detail(at, v.0, "register 0..=63")
            })?;
        }
        _ => {
            cx.check(&TS_SRC_ENUM, false, || {
                detail(src_at, src, enum_names::<ImmSrc>(gen))
            })?;
        }
    }
    Ok(())
}

/// `ts_ptr_imm_chk`: `tpb_addr_active_channels(ptr, n)` and alignment (arith: fp32;
/// bitvec: the input dtype).
#[inline(always)]
pub(super) fn ts_ptr_imm_chk<const M: u8>(
    cx: &mut Ctx<M>,
    v: ImmVal,
    at: Loc,
    bitvec: bool,
    in_dtype: Dtype,
    n: u8,
) -> Flow {
    let pointee = if bitvec { in_dtype } else { Dtype::FP32 };
    ptr_imm_chk(cx, v, at, pointee, n)
}

/// A pointer to `n` lanes' values of `pointee`: in SBUF/PSUM, room for the channels, aligned
/// to the pointee's size.
#[inline(always)]
fn ptr_imm_chk<const M: u8>(cx: &mut Ctx<M>, v: ImmVal, at: Loc, pointee: Dtype, n: u8) -> Flow {
    let gen = cx.gen;
    let a = crate::wire::Addr4(v.0);
    let located = a.locate(gen);
    let align = pointee.size().unwrap_or(1);
    let ok = match located {
        Some((space, p, o)) => {
            let g = crate::geometry::Geometry::of(gen);
            p + n as u32 <= g.partitions
                && o < g.active_bytes(space)
                && aligned(a.byte_addr(), Some(align))
        }
        None => false,
    };
    cx.check(&TS_PTR_IMM, ok, || {
        use crate::wire::Field;
        detail(at, a.to_text(gen), format!("an SBUF/PSUM address aligned to {align} bytes with {n} channels from its partition"))
    })?;
    Ok(())
}
