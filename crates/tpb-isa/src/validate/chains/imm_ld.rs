//! `S2_BN`: `is_valid_tsm_immediates_load` (isa-facts §6) and the two siblings that share the
//! struct, BatchNormParamLoad and MatchValueLoad (isa-facts §6 "S2_BN sibling rules").

use super::super::common::*;
use super::super::{Confidence, Ctx, Flow, Rule};
use crate::gen::Gen;
use crate::opcode::sem;
use crate::tables::{Dtype, ImmSrc};
use crate::wire::{ImmVal, S2Bn, View};
use Confidence::Observed;

rule!(
    BN_COUNT,
    "has_tsm_immediates_load_src_element_cnt",
    "1 <= num_elem[0]·num_elem[1] <= 8 (cayman+: or shape from register)",
    "isa-facts §6",
    Observed
);
rule!(
    BN_ZERO_IMM,
    "has_s2_bn_zero_immediates",
    "imm0_ptr == 0.0, imm0_src == 0, imm1 == 0.0 (compared as fp32)",
    "isa-facts §6",
    Observed
);
rule!(
    BN_DTYPES,
    "tsm_immld_dtypes",
    "arith: fp32, fp16, bf16, fp8 ×3, u32, u16, u8, i32, i16, i8; bitvec: u32, u16, u8, i32",
    "isa-facts §6",
    Observed
);
rule!(
    BN_RESERVED,
    "s2_bn_reserved_zero",
    "reserved0..reserved3 are zero",
    "isa-facts §6",
    Observed
);

#[inline(always)]
pub(super) fn check<const M: u8>(cx: &mut Ctx<M>, v: sem::ImmLd, s: &View<'_, S2Bn>) -> Flow {
    let gen = cx.gen;
    let t = &s.src_mem_pattern();
    let src_at = at!(S2Bn.src_mem_pattern);
    let cnt = t.num_elem[0] as u32 * t.num_elem[1] as u32;
    let escape = gen != Gen::Sunda && t.start_addr.shape_from_register();
    cx.check(&BN_COUNT, (1..=8).contains(&cnt) || escape, || {
        detail(
            src_at.num_elem::<2>(),
            format!("{cnt} ({}×{})", t.num_elem[0], t.num_elem[1]),
            "1..=8 scalars per channel",
        )
    })?;
    zero_immediates(cx, &BN_ZERO_IMM, s)?;
    let d = s.dtype();
    let bitvec = match v {
        sem::ImmLd::Arith => false,
        sem::ImmLd::Bitvec => true,
    };
    let dtype_at = at!(S2Bn.dtype);
    let ok = if bitvec {
        matches!(
            d,
            Dtype::UINT32 | Dtype::UINT16 | Dtype::UINT8 | Dtype::INT32
        )
    } else {
        d.is_valid_dtype(false)
    };
    cx.check(&BN_DTYPES, ok, || {
        detail(
            dtype_at,
            d,
            if bitvec {
                "uint32, uint16, uint8, int32"
            } else {
                PLAIN_DTYPES
            },
        )
    })?;
    shared(cx, s)?;
    Ok(())
}

/// `imm0_ptr == 0.0 && imm0_src == 0 && imm1 == 0.0` under `rule`.
#[inline(always)]
fn zero_immediates<const M: u8>(cx: &mut Ctx<M>, rule: &'static Rule, s: &View<'_, S2Bn>) -> Flow {
    let fzero = |v: ImmVal| v.0 & 0x7FFF_FFFF == 0; // `== 0.0` in fp32: −0.0 passes too
    cx.check(rule, fzero(s.imm0_ptr()), || {
        detail(
            at!(S2Bn.imm0_ptr),
            format!("{:#010x}", s.imm0_ptr().0),
            "0.0",
        )
    })?;
    cx.check(rule, s.imm0_src() == ImmSrc::INSTRUCTION, || {
        detail(at!(S2Bn.imm0_src), s.imm0_src(), "0")
    })?;
    cx.check(rule, fzero(s.imm1()), || {
        detail(at!(S2Bn.imm1), format!("{:#010x}", s.imm1().0), "0.0")
    })?;
    Ok(())
}

/// The clauses every `S2_BN` opcode shares: dtype, reserved bytes, channels, the source.
#[inline(always)]
fn shared<const M: u8>(cx: &mut Ctx<M>, s: &View<'_, S2Bn>) -> Flow {
    let (t, d, src_at) = (&s.src_mem_pattern(), s.dtype(), at!(S2Bn.src_mem_pattern));
    dtype_in(cx, d, at!(S2Bn.dtype))?;
    reserved_zero(cx, &BN_RESERVED, at!(S2Bn.reserved0), &s.reserved0().0)?;
    reserved_zero(cx, &BN_RESERVED, at!(S2Bn.reserved1), &s.reserved1().0)?;
    reserved_zero(cx, &BN_RESERVED, at!(S2Bn.reserved2), &s.reserved2().0)?;
    reserved_zero(cx, &BN_RESERVED, at!(S2Bn.reserved3), &s.reserved3().0)?;
    let n = s.num_active_channels();
    channel_range(cx, n, at!(S2Bn.num_active_channels))?;
    tensor_valid(
        cx,
        t,
        Operand {
            at: src_at,
            dtype: d,
            write: false,
            psum: true,
            sbuf: true,
        },
    )?;
    // Presumed part of the chain, as in sibling ops (isa-facts §6; its rules are ASSUMED).
    start_addr_active_channels(cx, t.start_addr, n, src_at)?;
    Ok(())
}

rule!(
    BNP_COUNT,
    "is_valid_batch_norm_param_load",
    "num_elem[0]·num_elem[1] == 3 (the three batch-norm parameters)",
    "isa-facts §6 (S2_BN sibling rules)",
    Observed
);
rule!(
    BNP_DTYPE,
    "is_valid_batch_norm_param_load",
    "dtype ∈ {fp32, fp16, bfloat16}",
    "isa-facts §6 (S2_BN sibling rules)",
    Observed
);
rule!(
    MVL_SHAPE,
    "is_valid_match_value_load",
    "(num_elem[0], num_elem[1]) ∈ {(1,8), (2,4), (4,2), (8,1)}",
    "isa-facts §6 (S2_BN sibling rules)",
    Observed
);
rule!(
    MVL_ZERO_IMM,
    "is_valid_match_value_load",
    "imm0_ptr == 0.0, imm0_src == 0, imm1 == 0.0 (compared as fp32)",
    "isa-facts §6 (S2_BN sibling rules)",
    Observed
);

/// BatchNormParamLoad (0x64): three source elements; imm1 (N) and imm0_ptr (the batch mean)
/// are live values, so they are not checked.
#[inline(always)]
pub(super) fn check_batch_norm_param_load<const M: u8>(
    cx: &mut Ctx<M>,
    s: &View<'_, S2Bn>,
) -> Flow {
    let t = &s.src_mem_pattern();
    let cnt = u32::from(t.num_elem[0]) * u32::from(t.num_elem[1]);
    cx.check(&BNP_COUNT, cnt == 3, || {
        detail(
            at!(S2Bn.src_mem_pattern).num_elem::<2>(),
            format!("{cnt} ({}×{})", t.num_elem[0], t.num_elem[1]),
            "3",
        )
    })?;
    let d = s.dtype();
    cx.check(
        &BNP_DTYPE,
        matches!(d, Dtype::FP32 | Dtype::FP16 | Dtype::BFLOAT16),
        || detail(at!(S2Bn.dtype), d, "fp32, fp16, bfloat16"),
    )?;
    shared(cx, s)?;
    Ok(())
}

/// MatchValueLoad (0x6D): eight keys in a 1×8, 2×4, 4×2 or 8×1 shape, immediates zero.
#[inline(always)]
pub(super) fn check_match_value_load<const M: u8>(cx: &mut Ctx<M>, s: &View<'_, S2Bn>) -> Flow {
    let t = &s.src_mem_pattern();
    let shape = (t.num_elem[0], t.num_elem[1]);
    cx.check(
        &MVL_SHAPE,
        matches!(shape, (1, 8) | (2, 4) | (4, 2) | (8, 1)),
        || {
            detail(
                at!(S2Bn.src_mem_pattern).num_elem::<2>(),
                format!("{}×{}", shape.0, shape.1),
                "1×8, 2×4, 4×2, 8×1",
            )
        },
    )?;
    zero_immediates(cx, &MVL_ZERO_IMM, s)?;
    shared(cx, s)?;
    Ok(())
}
