//! `S4D4_TSM`: `is_valid_tensor_scalar_ptr_multi` (seed 000 §5c), incl. the sunda Dual form.

use super::super::common::*;
use super::super::{Confidence, Ctx, Flow};
use super::names;
use crate::opcode::sem;
use crate::tables::{AluOp, CodeEnum, Dtype, RevOps, TensorSubdim};
use crate::wire::{S4d4Tsm, View};
use Confidence::Observed;

rule!(
    TSM_SLICES,
    "has_valid_src_slices_tsm_singular",
    "1 <= W = src.num_elem[3] <= 8",
    "seed 000 §5a (s4d4_tsm.h:197)",
    Observed
);
rule!(
    TSM_SLICES_DUAL,
    "has_valid_src_slices_tsm_dual",
    "1 <= W = src.num_elem[3] <= 4 (scalar pairs)",
    "isa-facts §8 (sunda s4d4_tsm.h)",
    Observed
);
rule!(
    TSM_OPS_ENUM,
    "tensor_scalar_ptr_multi_valid_ops",
    "op is a valid ALU_OP, not Divide/Pow/Mod",
    "seed 000 §6 (s4d4_tsm.h:172)",
    Observed
);
rule!(
    TSM_OPS_BITVEC,
    "tensor_scalar_ptr_multi_valid_ops",
    "bitvec opcode ⇒ is_bitvec_op(op) (CRC32 admitted)",
    "seed 000 §6a",
    Observed
);
rule!(
    TSM_OPS_ARITH,
    "tensor_scalar_ptr_multi_valid_ops",
    "arith opcode ⇒ is_general_arith_op(op)",
    "seed 000 §6a",
    Observed
);
rule!(
    TSM_TYPES,
    "tensor_scalar_ptr_multi_valid_types",
    "bitvec ⇒ in_dtype == out_dtype ∈ {int32, uint32, uint16, uint8}",
    "seed 000 §6b",
    Observed
);
rule!(
    TSM_REVERSE,
    "tensor_scalar_ptr_multi_reverse_chk",
    "reverse_operands ∈ {None, Both} (any for the sunda Dual Arith)",
    "seed 000 §4b (s4d4_tsm.h:202), isa-facts §8",
    Observed
);
rule!(
    TSM_RESERVED,
    "s4d4_tsm_reserved_zero",
    "reserved0[0] and reserved1[0..4] are zero",
    "seed 000 §5c",
    Observed
);
rule!(
    TSM_SUBDIM,
    "is_valid_tsm_subdim",
    "op_dim == XYZ",
    "seed 000 §4b (s4d4_tsm.h:193)",
    Observed
);
rule!(
    TSM_COUNT,
    "same_element_count_t4d",
    "W·Z·Y·X of src == of dst",
    "seed 000 §5c",
    Observed
);

#[inline(always)]
pub(super) fn check<const M: u8>(cx: &mut Ctx<M>, v: sem::PtrMulti, s: &View<'_, S4d4Tsm>) -> Flow {
    let gen = cx.gen;
    let (dual, bitvec) = match v {
        sem::PtrMulti::MultiArith => (false, false),
        sem::PtrMulti::MultiBitvec => (false, true),
        sem::PtrMulti::DualArith => (true, false),
        sem::PtrMulti::DualBitvec => (true, true),
    };
    let (src_at, dst_at) = (at!(S4d4Tsm.src_mem_pattern), at!(S4d4Tsm.dst_mem_pattern));
    let w = s.src_mem_pattern().num_elem[3];
    let w_at = src_at.num_elem_at::<4>(3);
    if dual {
        cx.check(&TSM_SLICES_DUAL, (1..=4).contains(&w), || {
            detail(w_at, w, "1..=4")
        })?;
    } else {
        cx.check(&TSM_SLICES, (1..=8).contains(&w), || {
            detail(w_at, w, "1..=8")
        })?;
    }
    let op = s.op();
    let op_at = at!(S4d4Tsm.op);
    cx.check(
        &TSM_OPS_ENUM,
        op.defined_on(gen) && !matches!(op, AluOp::DIVIDE | AluOp::POW | AluOp::MOD),
        || {
            detail(
                op_at,
                op,
                "any ALU_OP of this generation except divide, pow, mod",
            )
        },
    )?;
    let (in_at, out_at) = (at!(S4d4Tsm.in_dtype), at!(S4d4Tsm.out_dtype));
    if bitvec {
        cx.check(&TSM_OPS_BITVEC, op.is_bitvec_op(), || {
            detail(op_at, op, names(|o| o.is_bitvec_op()))
        })?;
        let ok = s.in_dtype() == s.out_dtype()
            && matches!(
                s.in_dtype(),
                Dtype::INT32 | Dtype::UINT32 | Dtype::UINT16 | Dtype::UINT8
            );
        cx.check(&TSM_TYPES, ok, || {
            detail2(
                in_at,
                out_at,
                format!("{} -> {}", s.in_dtype(), s.out_dtype()),
                "in == out ∈ {int32, uint32, uint16, uint8}",
            )
        })?;
    } else {
        cx.check(&TSM_OPS_ARITH, op.is_general_arith_op(gen), || {
            detail(op_at, op, names(|o| o.is_general_arith_op(gen)))
        })?;
    }
    let rev = s.reverse_operands();
    // The Dual Arith form takes any valid order (isa-facts §8).
    let any_order = dual && !bitvec;
    let rev_ok = rev.is_valid(gen) && (any_order || rev == RevOps::NONE || rev == RevOps::BOTH);
    cx.check(&TSM_REVERSE, rev_ok, || {
        detail(
            at!(S4d4Tsm.reverse_operands),
            rev,
            if any_order {
                "none, first, second, both"
            } else {
                "none, both"
            },
        )
    })?;
    reserved_zero(cx, &TSM_RESERVED, at!(S4d4Tsm.reserved0), &s.reserved0().0)?;
    reserved_zero(cx, &TSM_RESERVED, at!(S4d4Tsm.reserved1), &s.reserved1().0)?;
    dtype_in(cx, s.in_dtype(), in_at)?;
    dtype_out(cx, s.out_dtype(), out_at)?;
    aluop_valid(cx, op, op_at)?;
    cx.check(&TSM_SUBDIM, s.op_dim() == TensorSubdim::XYZ, || {
        detail(at!(S4d4Tsm.op_dim), s.op_dim(), "xyz")
    })?;
    let n = s.num_active_channels();
    channel_range(cx, n, at!(S4d4Tsm.num_active_channels))?;
    start_addr_active_channels(cx, s.src_mem_pattern().start_addr, n, src_at)?;
    start_addr_active_channels(cx, s.dst_mem_pattern().start_addr, n, dst_at)?;
    let rw = |at, dtype, write| Operand {
        at,
        dtype,
        write,
        psum: true,
        sbuf: true,
    };
    tensor_valid(cx, &s.src_mem_pattern(), rw(src_at, s.in_dtype(), false))?;
    tensor_valid(cx, &s.dst_mem_pattern(), rw(dst_at, s.out_dtype(), true))?;
    let (a, b) = (&s.src_mem_pattern(), &s.dst_mem_pattern());
    cx.check(&TSM_COUNT, a.element_count() == b.element_count(), || {
        detail(
            dst_at.num_elem::<4>(),
            count_text(b),
            format!("src count {}", count_text(a)),
        )
    })?;
    Ok(())
}
