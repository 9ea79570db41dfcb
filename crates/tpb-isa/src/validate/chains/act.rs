//! The ACT structs and DVE Exponential: Activate 0x21 (`S3D3_AC`), ActivateQuantize 0x22
//! (`S3D3_AQ`), ActivationReadAccumulator 0x24 (`D1_RD`), Activate2 0x25 (`S2D2_AC`) and
//! Exponential 0x30 (`S3D3_TS`) (isa-facts-pe-act-dma §2.2–§2.6, §2.12).

use super::super::common::*;
use super::super::{Confidence, Ctx, Flow};
use super::immediates::{imm_by_src, typed_imm_by_src};
use crate::gen::Gen;
use crate::tables::{AccumCmd, AluOp, Dtype, ImmSrc, ImmSrcN, ReduceCmd, RevOps};
use crate::wire::{D1Rd, Header, S2d2Ac, S3d3Ac, S3d3Aq, S3d3Ts, Tensor, View};
use Confidence::{Assumed, Inferred, Observed};

rule!(
    ACT_ACCUM_CMD,
    "act_valid_accumulator_cmd",
    "accumulator_cmd ∈ ACCUM_CMD {idle, zero, accumulate, zero_accumulate, load_accumulate}",
    "isa-facts-pe-act-dma §2.3",
    Observed
);
rule!(
    ACT_BIAS_SRC,
    "act_valid_bias_src",
    "bias_src_n ∈ IMM_SRC_N {pointer 0, instruction 1, reg_ptr 2}",
    "isa-facts-pe-act-dma §2.2",
    Observed
);
rule!(
    ACT_FUNC_KNOWN,
    "act_function_in_catalog",
    "activation_func is an id of the compiler's function catalog (the ISA has no enum: the \
     loaded tables match the id)",
    "isa-facts-pe-act-dma §2.9",
    Inferred,
    lint
);
rule!(
    ACT_COUNT,
    "same_element_count_t3d",
    "element count of src == of dst",
    "isa-facts-pe-act-dma §2.2",
    Observed
);
rule!(
    AQ_OUT_UINT8,
    "activate_quantize_out_dtype",
    "out_dtype is uint8",
    "isa-facts-pe-act-dma §2.4",
    Observed
);
rule!(
    AQ_IN_DTYPE,
    "activate_quantize_in_dtype",
    "the input is fp32 or int32; the bias is fp32, bfloat16 or fp16",
    "isa-facts-pe-act-dma §2.4",
    Observed
);
rule!(
    AQ_SCALES,
    "activate_quantize_scales",
    "quant_scale_value and dequant_scale_value are non-zero",
    "isa-facts-pe-act-dma §2.4",
    Observed
);
rule!(
    AQ_NO_PRELU,
    "activate_quantize_func",
    "parametric relu (prelu) is not allowed",
    "isa-facts-pe-act-dma §2.4",
    Observed
);
rule!(
    RD_RESERVED,
    "d1_rd_reserved_zero",
    "reserved0, reserved1 and reserved2 are zero",
    "isa-facts-pe-act-dma §2.5",
    Observed
);
rule!(
    RD_COUNT,
    "read_accumulator_dst_size",
    "dst_element_count = 1 and the destination holds one element per lane",
    "isa-facts-pe-act-dma §2.5",
    Observed
);
rule!(
    RD_DTYPE,
    "act_read_accumulator_dtype",
    "dtype ∈ {fp16, bfloat16, fp32, fp32r}",
    "isa-facts-pe-act-dma §2.5",
    Observed
);
rule!(
    RD_NEGATED,
    "act_read_accumulator_negated",
    "negated = 0 on ACT",
    "isa-facts-pe-act-dma §2.5",
    Observed
);
rule!(
    A2_OPS,
    "activate2_valid_ops",
    "(op0, op1) ∈ {(mult, add), (mult, subtract), (mult, bypass), (add, bypass), \
     (subtract, bypass), (bypass, bypass)}",
    "isa-facts-pe-act-dma §2.6",
    Observed
);
rule!(
    A2_REDUCE,
    "has_valid_reduce_op",
    "(reduce_cmd = idle and reduce_op = 0) or (reduce_cmd ≠ idle and reduce_op ≠ 0)",
    "isa-facts-pe-act-dma §2.6",
    Observed
);
rule!(
    A2_REVERSE,
    "activate2_reverse_operands",
    "reverse_operands ∈ {0, 1, 2, 3} and reserved0 is zero",
    "isa-facts-pe-act-dma §2.6",
    Assumed
);
rule!(
    EXP_WIRED,
    "exponential_wired",
    "Exponential is wired in the firmware from mariana only (unsupported before v4)",
    "isa-facts-pe-act-dma §2.12, decision 18",
    Observed
);
rule!(
    EXP_OPS,
    "is_valid_exponential",
    "op0 = op1 = bypass and reverse_operands = none; in_dtype is not fp32r",
    "isa-facts-pe-act-dma §2.12",
    Observed
);
rule!(
    EXP_ACCUM,
    "exponential_accumulator_contract",
    "(zero_accumulate, idle or accumulate with imm1 from the instruction and imm1 = 0) or \
     load_accumulate",
    "isa-facts-pe-act-dma §2.12",
    Observed
);
rule!(
    EXP_PARITY,
    "exponential_element_parity",
    "idle, or (in ∈ {fp32, uint32, int32} or a non-unit step or num_elem[0] even) and the \
     upper dims even",
    "isa-facts-pe-act-dma §2.12",
    Observed
);

fn rw(at: Loc, dtype: Dtype, write: bool) -> Operand {
    Operand {
        at,
        dtype,
        write,
        psum: true,
        sbuf: true,
    }
}

/// The IMM_SRC a bias source (IMM_SRC_N) means, `None` for an undefined value.
pub(crate) fn bias_src(b: ImmSrcN) -> Option<ImmSrc> {
    match b {
        ImmSrcN::POINTER => Some(ImmSrc::POINTER),
        ImmSrcN::INSTRUCTION => Some(ImmSrc::INSTRUCTION),
        ImmSrcN::REG_PTR => Some(ImmSrc::REG_PTR),
        _ => None,
    }
}

/// Activate 0x21.
#[inline(always)]
pub(super) fn check_activate<const M: u8>(cx: &mut Ctx<M>, s: &View<'_, S3d3Ac>) -> Flow {
    let gen = cx.gen;
    let n = s.num_active_channels();
    channel_range(cx, n, at!(S3d3Ac.num_active_channels))?;
    let pair = s.in_bias_dtype();
    dtype_in(cx, pair.lo(), at!(S3d3Ac.in_bias_dtype).part(".dtype_lo"))?;
    dtype_in(cx, pair.hi(), at!(S3d3Ac.in_bias_dtype).part(".dtype_hi"))?;
    dtype_out(cx, s.out_dtype(), at!(S3d3Ac.out_dtype))?;
    let cmd = s.accumulator_cmd();
    cx.check(&ACT_ACCUM_CMD, cmd.defined_on(gen), || {
        detail(
            at!(S3d3Ac.accumulator_cmd),
            cmd,
            enum_names::<AccumCmd>(gen),
        )
    })?;
    let f = s.activation_func();
    cx.check(&ACT_FUNC_KNOWN, f.defined_on(gen), || {
        detail(at!(S3d3Ac.activation_func), f, "a catalog id (§2.9)")
    })?;
    // Scale and imm are fp32 (a pointer to them 4-byte aligned); the bias has its own dtype
    // (§2.2: a pointer to it is aligned to dtype_hi).
    imm_by_src(
        cx,
        s.scale_src(),
        s.scale_value(),
        at!(S3d3Ac.scale_src),
        at!(S3d3Ac.scale_value),
        false,
        Dtype::FP32,
        n,
    )?;
    imm_by_src(
        cx,
        s.imm_src(),
        s.imm(),
        at!(S3d3Ac.imm_src),
        at!(S3d3Ac.imm),
        false,
        Dtype::FP32,
        n,
    )?;
    let b = s.bias_src_n();
    match bias_src(b) {
        Some(src) => typed_imm_by_src(
            cx,
            src,
            s.bias(),
            at!(S3d3Ac.bias_src_n),
            at!(S3d3Ac.bias),
            pair.hi(),
            n,
        )?,
        None => {
            cx.check(&ACT_BIAS_SRC, false, || {
                detail(at!(S3d3Ac.bias_src_n), b, enum_names::<ImmSrcN>(gen))
            })?;
        }
    }
    let (src, dst) = (s.src_mem_pattern(), s.dst_mem_pattern());
    act_operands(
        cx,
        (&src, at!(S3d3Ac.src_mem_pattern), pair.lo()),
        (&dst, at!(S3d3Ac.dst_mem_pattern), s.out_dtype()),
        n,
    )
}

/// ActivateQuantize 0x22.
#[inline(always)]
pub(super) fn check_activate_quantize<const M: u8>(cx: &mut Ctx<M>, s: &View<'_, S3d3Aq>) -> Flow {
    let gen = cx.gen;
    let n = s.num_active_channels();
    channel_range(cx, n, at!(S3d3Aq.num_active_channels))?;
    let pair = s.in_bias_dtype();
    let ok = matches!(pair.lo(), Dtype::FP32 | Dtype::INT32)
        && matches!(pair.hi(), Dtype::FP32 | Dtype::BFLOAT16 | Dtype::FP16);
    cx.check(&AQ_IN_DTYPE, ok, || {
        detail(
            at!(S3d3Aq.in_bias_dtype),
            format!("{}->{}", pair.lo(), pair.hi()),
            "fp32|int32 -> fp32|bfloat16|fp16",
        )
    })?;
    cx.check(&AQ_OUT_UINT8, s.out_dtype() == Dtype::UINT8, || {
        detail(at!(S3d3Aq.out_dtype), s.out_dtype(), "uint8")
    })?;
    let scales = [
        s.quant_scale_value().value(),
        s.dequant_scale_value().value(),
    ];
    cx.check(&AQ_SCALES, scales.iter().all(|v| *v != 0.0), || {
        detail(
            at!(S3d3Aq.quant_scale_value),
            format!("{} / {}", scales[0], scales[1]),
            "both non-zero",
        )
    })?;
    let f = s.activation_func();
    cx.check(&ACT_FUNC_KNOWN, f.defined_on(gen), || {
        detail(at!(S3d3Aq.activation_func), f, "a catalog id (§2.9)")
    })?;
    cx.check(&AQ_NO_PRELU, f != crate::tables::ActFunc::PRELU, || {
        detail(at!(S3d3Aq.activation_func), f, "any function but prelu")
    })?;
    typed_imm_by_src(
        cx,
        ImmSrc::POINTER,
        s.bias_addr(),
        at!(S3d3Aq.bias_addr),
        at!(S3d3Aq.bias_addr),
        pair.hi(),
        n,
    )?;
    let (src, dst) = (s.src_mem_pattern(), s.dst_mem_pattern());
    act_operands(
        cx,
        (&src, at!(S3d3Aq.src_mem_pattern), pair.lo()),
        (&dst, at!(S3d3Aq.dst_mem_pattern), Dtype::UINT8),
        n,
    )
}

/// ActivationReadAccumulator 0x24.
#[inline(always)]
pub(super) fn check_act_read_accumulator<const M: u8>(cx: &mut Ctx<M>, s: &View<'_, D1Rd>) -> Flow {
    let n = s.num_active_channels();
    channel_range(cx, n, at!(D1Rd.num_active_channels))?;
    reserved_zero(cx, &RD_RESERVED, at!(D1Rd.reserved0), &s.reserved0().0)?;
    reserved_zero(cx, &RD_RESERVED, at!(D1Rd.reserved1), &s.reserved1().0)?;
    reserved_zero(cx, &RD_RESERVED, at!(D1Rd.reserved2), &s.reserved2().0)?;
    let d = s.dtype();
    let ok = matches!(
        d,
        Dtype::FP16 | Dtype::BFLOAT16 | Dtype::FP32 | Dtype::FP32R
    );
    cx.check(&RD_DTYPE, ok, || {
        detail(at!(D1Rd.dtype), d, "fp16, bfloat16, fp32, fp32r")
    })?;
    cx.check(&RD_NEGATED, s.negated() == 0, || {
        detail(at!(D1Rd.negated), s.negated(), "0")
    })?;
    let dst = s.dst_mem_pattern();
    let count = s.dst_element_count();
    cx.check(&RD_COUNT, count == 1 && dst.element_count() == 1, || {
        detail(
            at!(D1Rd.dst_element_count),
            format!("{count} (descriptor {})", count_text(&dst)),
            "1",
        )
    })?;
    let out = if d == Dtype::FP32R { Dtype::FP32 } else { d };
    tensor_valid(cx, &dst, rw(at!(D1Rd.dst_mem_pattern), out, true))?;
    start_addr_active_channels(cx, dst.start_addr, n, at!(D1Rd.dst_mem_pattern))?;
    Ok(())
}

/// Activate2 0x25 (mariana+).
#[inline(always)]
pub(super) fn check_activate2<const M: u8>(cx: &mut Ctx<M>, s: &View<'_, S2d2Ac>) -> Flow {
    let gen = cx.gen;
    let n = s.num_active_channels();
    channel_range(cx, n, at!(S2d2Ac.num_active_channels))?;
    dtype_in(cx, s.in_dtype(), at!(S2d2Ac.in_dtype))?;
    dtype_out(cx, s.out_dtype(), at!(S2d2Ac.out_dtype))?;
    let (o0, o1) = (s.op0(), s.op1());
    use AluOp as A;
    let ok = matches!(
        (o0, o1),
        (A::MULT, A::ADD)
            | (A::MULT, A::SUBTRACT)
            | (A::MULT, A::BYPASS)
            | (A::ADD, A::BYPASS)
            | (A::SUBTRACT, A::BYPASS)
            | (A::BYPASS, A::BYPASS)
    );
    cx.check(&A2_OPS, ok, || {
        detail(
            at!(S2d2Ac.op0),
            format!("({o0}, {o1})"),
            "(mult, add), (mult, subtract), (mult, bypass), (add, bypass), (subtract, bypass), (bypass, bypass)",
        )
    })?;
    let (cmd, rop) = (s.reduce_cmd(), s.reduce_op());
    let ok = (cmd == ReduceCmd::IDLE && rop.0 == 0) || (cmd != ReduceCmd::IDLE && rop.0 != 0);
    cx.check(&A2_REDUCE, ok && cmd.defined_on(gen), || {
        detail(
            at!(S2d2Ac.reduce_op),
            format!("reduce_cmd {cmd}, reduce_op {rop}"),
            "idle with 0, or a command with an op",
        )
    })?;
    cx.check(
        &A2_REVERSE,
        s.reverse_operands() <= 3 && s.reserved0().is_zero(),
        || {
            detail(
                at!(S2d2Ac.reverse_operands),
                s.reverse_operands(),
                "0..=3, reserved0 zero",
            )
        },
    )?;
    let f = s.activation_func();
    cx.check(&ACT_FUNC_KNOWN, f.defined_on(gen), || {
        detail(at!(S2d2Ac.activation_func), f, "a catalog id (§2.9)")
    })?;
    for (src, v, sat, at) in [
        (
            s.imm0_src(),
            s.imm0(),
            at!(S2d2Ac.imm0_src),
            at!(S2d2Ac.imm0),
        ),
        (
            s.imm1_src(),
            s.imm1(),
            at!(S2d2Ac.imm1_src),
            at!(S2d2Ac.imm1),
        ),
        (
            s.relu_param_src(),
            s.relu_param(),
            at!(S2d2Ac.relu_param_src),
            at!(S2d2Ac.relu_param),
        ),
    ] {
        imm_by_src(cx, src, v, sat, at, false, Dtype::FP32, n)?;
    }
    let (src, dst) = (s.src_mem_pattern(), s.dst_mem_pattern());
    act_operands(
        cx,
        (&src, at!(S2d2Ac.src_mem_pattern), s.in_dtype()),
        (&dst, at!(S2d2Ac.dst_mem_pattern), s.out_dtype()),
        n,
    )
}

/// Exponential 0x30 (DVE, mariana+).
#[inline(always)]
pub(super) fn check_exponential<const M: u8>(cx: &mut Ctx<M>, s: &View<'_, S3d3Ts>) -> Flow {
    let gen = cx.gen;
    cx.check(
        &EXP_WIRED,
        matches!(gen, Gen::Mariana | Gen::Maverick),
        || {
            detail(
                at!(Header.opcode).under("header."),
                format!("0x30 on {gen}"),
                "mariana, maverick",
            )
        },
    )?;
    let n = s.num_active_channels();
    channel_range(cx, n, at!(S3d3Ts.num_active_channels))?;
    dtype_in(cx, s.in_dtype(), at!(S3d3Ts.in_dtype))?;
    dtype_out(cx, s.out_dtype(), at!(S3d3Ts.out_dtype))?;
    let ok = s.op0() == AluOp::BYPASS
        && s.op1() == AluOp::BYPASS
        && s.reverse_operands() == RevOps::default();
    cx.check(&EXP_OPS, ok, || {
        detail(
            at!(S3d3Ts.op0),
            format!("{} {} {}", s.op0(), s.op1(), s.reverse_operands()),
            "bypass bypass none",
        )
    })?;
    let cmd = s.accumulator_cmd();
    let ok = cmd == AccumCmd::LOAD_ACCUMULATE
        || (matches!(
            cmd,
            AccumCmd::ZERO_ACCUMULATE | AccumCmd::IDLE | AccumCmd::ACCUMULATE
        ) && s.imm1_src() == ImmSrc::INSTRUCTION
            && s.imm1().0 == 0);
    cx.check(&EXP_ACCUM, ok, || {
        detail(
            at!(S3d3Ts.accumulator_cmd),
            format!("{cmd}, imm1_src {}, imm1 {:#x}", s.imm1_src(), s.imm1().0),
            "see the clause",
        )
    })?;
    let src = s.src_mem_pattern();
    let wide = matches!(s.in_dtype(), Dtype::FP32 | Dtype::UINT32 | Dtype::INT32);
    let upper_even = src.num_elem[1..].iter().all(|&m| m % 2 == 0 || m == 1);
    let ok = cmd == AccumCmd::IDLE
        || ((wide || src.step_elem[0] != 1 || src.num_elem[0] % 2 == 0) && upper_even);
    cx.check(&EXP_PARITY, ok, || {
        detail(
            at!(S3d3Ts.src_mem_pattern).num_elem::<3>(),
            count_text(&src),
            "see the clause",
        )
    })?;
    imm_by_src(
        cx,
        s.imm0_src(),
        s.imm0(),
        at!(S3d3Ts.imm0_src),
        at!(S3d3Ts.imm0),
        false,
        Dtype::FP32,
        n,
    )?;
    let dst = s.dst_mem_pattern();
    act_operands(
        cx,
        (&src, at!(S3d3Ts.src_mem_pattern), s.in_dtype()),
        (&dst, at!(S3d3Ts.dst_mem_pattern), s.out_dtype()),
        n,
    )
}

/// The operand checks the ACT instructions and Exponential share: each tensor valid for its
/// dtype, one element count (`ACT_COUNT`), both starts on the active channels.
#[inline(always)]
fn act_operands<const N: usize, const M: u8>(
    cx: &mut Ctx<M>,
    (src, src_at, in_dtype): (&Tensor<N>, Loc, Dtype),
    (dst, dst_at, out_dtype): (&Tensor<N>, Loc, Dtype),
    n: u8,
) -> Flow {
    tensor_valid(cx, src, rw(src_at, in_dtype, false))?;
    tensor_valid(cx, dst, rw(dst_at, out_dtype, true))?;
    cx.check(
        &ACT_COUNT,
        src.element_count() == dst.element_count(),
        || {
            detail(
                dst_at.num_elem::<N>(),
                count_text(dst),
                format!("src count {}", count_text(src)),
            )
        },
    )?;
    start_addr_active_channels(cx, src.start_addr, n, src_at)?;
    start_addr_active_channels(cx, dst.start_addr, n, dst_at)
}
