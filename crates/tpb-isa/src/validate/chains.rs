//! One validator chain per operand struct, clause by clause in header order.

use super::common::*;
use super::{Confidence, Ctx};
use crate::gen::Gen;
use crate::opcode::{Opcode, StructKind};
use crate::tables::{
    AccumCmd, AffineSelectCmp, AluOp, CodeEnum, Dtype, ImmSrc, RevOps, TensorSubdim,
};
use crate::wire::{
    Body, D4Iota, Data4d, ImmVal, Instruction, S2Bn, S2d2Rs, S2d2TsAs, S3d3Ts, S3d3TsSelect,
    S4d4Tsm, Tensor4,
};
use Confidence::{Assumed, Inferred, Observed};

// ---- rules, grouped by chain -------------------------------------------------------------

rule!(
    OPCODE_STRUCT,
    "has_<struct>_opcode",
    "the opcode binds the struct the body holds",
    "instruction_mapping.json struct2opcode",
    Observed
);

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
    "reverse_operands ∈ {None, Both} (any for the sunda Dual 0x87)",
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

rule!(
    AS_COUNT_SRC_DST,
    "s2d2_ts_as_valid_elem_count",
    "t2d_element_count(src) == t2d_element_count(dst)",
    "seed 002 §3.5",
    Observed
);
rule!(
    AS_COUNT_MASK,
    "s2d2_ts_as_valid_elem_count",
    "d4d_element_count(mask) == t2d_element_count(src)",
    "seed 002 §3.1",
    Observed
);
rule!(
    AS_CMP,
    "is_valid_enum",
    "fill_mode ∈ {gt, ge, eq, ne}",
    "seed 002 §3.3",
    Observed
);

rule!(
    IOTA_RESERVED,
    "d4_iota_reserved_zero",
    "reserved0..reserved2 are zero",
    "isa-facts §9",
    Observed
);
rule!(
    IOTA_COUNT,
    "d4_iota_same_src_dst_count",
    "d4d_element_count(src) == t4d_element_count(dst)",
    "isa-facts §9",
    Observed
);

rule!(
    TS_OPS_ENUM,
    "tensor_scalar_valid_ops",
    "op0 and op1 are valid ALU_OPs, neither Divide/Pow/Mod",
    "isa-facts §7",
    Observed
);
rule!(
    TS_OPS_BITVEC,
    "tensor_scalar_valid_ops",
    "bitvec ⇒ is_bitvec_op(op0) && is_bitvec_op(op1)",
    "isa-facts §7, §5.2 conflict 1",
    Observed
);
rule!(TS_OPS_ARITH, "tensor_scalar_valid_ops", "arith ⇒ both is_general_arith_op, or Rsqrt+Bypass with zero immediates (maverick: or both in is_valid_int_aluop_dve)", "isa-facts §7", Observed);
rule!(
    TS_OPS_ORDER,
    "tensor_scalar_valid_ops",
    "(op0 != Bypass) || (op1 == Bypass)",
    "isa-facts §7",
    Observed
);
rule!(
    TS_TYPES,
    "tensor_scalar_valid_types",
    "bitvec ⇒ in_dtype == out_dtype ∈ {int8, uint8, int16, uint16, int32, uint32}",
    "isa-facts §7",
    Observed
);
rule!(
    TS_IMM_WIDTH,
    "ts_imm_chk",
    "a bitvec instruction immediate fits the input width (32-bit only for 4-byte types)",
    "isa-facts §5.3",
    Observed
);
rule!(TS_PTR_IMM, "ts_ptr_imm_chk", "pointer immediate: an SBUF/PSUM address aligned (arith: 4 bytes; bitvec: in_dtype) with room for the channels", "isa-facts §7", Observed);
rule!(
    TS_PTR_SRC,
    "tensor_scalar_ptr_imm_src",
    "TensorScalarPtr forces imm0_src == imm1_src == 0",
    "isa-facts §7",
    Observed
);
rule!(
    TS_SRC_ENUM,
    "is_valid_enum",
    "imm*_src ∈ IMM_SRC",
    "isa-facts §7",
    Observed
);
rule!(
    TS_SHIFT,
    "tensor_scalar_shift_chk",
    "ArithShiftRight, or ShiftLeft then ShiftRight, needs a 4-byte dtype",
    "isa-facts §5.2",
    Observed
);
rule!(
    TS_REVERSE,
    "tensor_scalar_reverse_chk",
    "reverse_operands is a valid TENS_SCALAR_REV_OPS",
    "isa-facts §7",
    Observed
);
rule!(
    TS_RESERVED,
    "s3d3_ts_reserved_zero",
    "reserved0 is zero",
    "isa-facts §7",
    Observed
);
rule!(
    TS_ACCUM,
    "has_zero_accum_cmd_field",
    "accumulator_cmd == Idle",
    "isa-facts §7",
    Observed
);
rule!(
    TS_COUNT,
    "same_element_count_m3d",
    "element count of src == of dst",
    "isa-facts §7",
    Observed
);

rule!(
    SEL_DTYPE_PRED,
    "tensor_scalar_select_dtypes",
    "pred_imm_dtype is an 8/16/32-bit integer of the same width as dtype",
    "isa-facts §10.1",
    Inferred
);
rule!(
    SEL_REVERSED,
    "tensor_scalar_select_valid",
    "reversed_pred ∈ {0, 1}",
    "isa-facts §10.1",
    Inferred
);
rule!(
    SEL_PRED_INLINE,
    "tensor_scalar_select_valid",
    "an instruction-immediate predicate is 0 or 1",
    "isa-facts §10.1",
    Inferred
);
rule!(
    SEL_RESERVED,
    "s3d3_ts_select_reserved_zero",
    "reserved0 and reserved1 are zero",
    "isa-facts §10.1",
    Assumed
);
rule!(
    SEL_COUNT,
    "same_element_count_m3d",
    "element count of src0 == of dst",
    "isa-facts §10.1",
    Inferred
);

rule!(
    RS_GEN,
    "has_valid_nc_rs",
    "RangeSelect exists from cayman (NC-v3)",
    "isa-facts §10.2",
    Observed
);
rule!(
    RS_REDUCE_CMD,
    "range_select_valid",
    "reduce_cmd ∈ {Idle, Accumulate, ZeroAccumulate}",
    "isa-facts §10.2",
    Observed
);
rule!(
    RS_REDUCE_OP,
    "range_select_valid",
    "reduce_op == Max",
    "isa-facts §10.2",
    Observed
);
rule!(
    RS_FILL,
    "range_select_valid",
    "fill_val bits == 0xff7fffff (−FLT_MAX)",
    "isa-facts §10.2",
    Observed
);
rule!(
    RS_BASE,
    "range_select_valid",
    "base + element count <= 2^24",
    "isa-facts §10.2",
    Observed
);
rule!(
    RS_CMP,
    "range_select_valid",
    "comp_op ∈ {is_eq, is_gt, is_ge, is_le, is_lt}",
    "isa-facts §10.2",
    Observed
);
rule!(
    RS_DTYPE_IN,
    "is_valid_fp_dtype_datapath",
    "input is fp8 ×3, fp16, bf16 or fp32",
    "isa-facts §10.2",
    Observed
);
rule!(
    RS_DTYPE_OUT,
    "is_valid_fp_dtype_datapath",
    "output is fp8 ×3, fp16, bf16, fp32 or fp32r",
    "isa-facts §10.2",
    Observed
);
rule!(
    RS_COUNT,
    "has_same_elem_count_rs_src_dst",
    "element count of src == of dst",
    "isa-facts §10.2",
    Observed
);
rule!(
    RS_RESERVED,
    "s2d2_rs_reserved_zero",
    "reserved1 is zero",
    "isa-facts §10.2",
    Assumed
);

// ---- dispatch -----------------------------------------------------------------------------

pub(crate) fn check<const M: u8>(cx: &mut Ctx<M>, inst: &Instruction) {
    let gen = cx.gen;
    let op = inst.header.opcode;
    let info = op.info(gen);
    header_and_events(cx, &inst.header, &inst.events, info.is_some());
    let Some(info) = info else { return };
    if !cx.check(&OPCODE_STRUCT, inst.body.kind() == Some(info.kind), || {
        detail(
            "body",
            12..64,
            format!("{:?}", inst.body.kind().map(StructKind::header_name)),
            info.kind.header_name(),
        )
    }) {
        return;
    }
    match &inst.body {
        Body::S4d4Tsm(s) => ptr_multi(cx, op, s),
        Body::S2Bn(s) => imm_ld(cx, op, s),
        Body::S2d2TsAs(s) => affine_select(cx, s),
        Body::D4Iota(s) => iota(cx, s),
        Body::S3d3Ts(s) => tensor_scalar(cx, op, s),
        Body::S3d3TsSelect(s) => ts_select(cx, s),
        Body::S2d2Rs(s) => range_select(cx, s),
        Body::Opaque(_) => {}
    }
}

fn is_bitvec_opcode(op: Opcode) -> bool {
    // The family's low-nibble convention: high nibble 5 / 0x71 / 0x88 are the bitvec twins.
    matches!(op.0, 0x53 | 0x54 | 0x5F | 0x71 | 0x88)
}

fn four_byte(d: Dtype) -> bool {
    d.size() == Some(4)
}

// ---- S4D4_TSM: is_valid_tensor_scalar_ptr_multi (seed 000 §5c) -----------------------------

fn ptr_multi<const M: u8>(cx: &mut Ctx<M>, opcode: Opcode, s: &S4d4Tsm) {
    let gen = cx.gen;
    let dual = matches!(opcode.0, 0x87 | 0x88);
    let bitvec = is_bitvec_opcode(opcode);
    let w = s.src_mem_pattern.num_elem[3];
    let w_off = 12 + Tensor4::num_offset(3);
    if dual {
        cx.check(&TSM_SLICES_DUAL, (1..=4).contains(&w), || {
            detail("src_mem_pattern.num_elem[3]", w_off..w_off + 2, w, "1..=4")
        });
    } else {
        cx.check(&TSM_SLICES, (1..=8).contains(&w), || {
            detail("src_mem_pattern.num_elem[3]", w_off..w_off + 2, w, "1..=8")
        });
    }
    let op = s.op;
    cx.check(
        &TSM_OPS_ENUM,
        op.defined_on(gen) && !matches!(op, AluOp::DIVIDE | AluOp::POW | AluOp::MOD),
        || {
            detail(
                "op",
                36..37,
                op,
                "any ALU_OP of this generation except divide, pow, mod",
            )
        },
    );
    if bitvec {
        cx.check(&TSM_OPS_BITVEC, op.is_bitvec_op(), || {
            detail("op", 36..37, op, names(|o| o.is_bitvec_op()))
        });
        let ok = s.in_dtype == s.out_dtype
            && matches!(
                s.in_dtype,
                Dtype::INT32 | Dtype::UINT32 | Dtype::UINT16 | Dtype::UINT8
            );
        cx.check(&TSM_TYPES, ok, || {
            detail(
                "in_dtype/out_dtype",
                32..34,
                format!("{} -> {}", s.in_dtype, s.out_dtype),
                "in == out ∈ {int32, uint32, uint16, uint8}",
            )
        });
    } else {
        cx.check(&TSM_OPS_ARITH, op.is_general_arith_op(gen), || {
            detail("op", 36..37, op, names(|o| o.is_general_arith_op(gen)))
        });
    }
    let rev = s.reverse_operands;
    let rev_ok =
        rev.is_valid(gen) && (opcode.0 == 0x87 || rev == RevOps::NONE || rev == RevOps::BOTH);
    cx.check(&TSM_REVERSE, rev_ok, || {
        detail(
            "reverse_operands",
            38..39,
            rev,
            if opcode.0 == 0x87 {
                "none, first, second, both"
            } else {
                "none, both"
            },
        )
    });
    reserved_zero(cx, &TSM_RESERVED, "reserved0", 35, &s.reserved0.0);
    reserved_zero(cx, &TSM_RESERVED, "reserved1", 39, &s.reserved1.0);
    dtype_in(cx, s.in_dtype, "in_dtype", 32..33);
    dtype_out(cx, s.out_dtype, "out_dtype", 33..34);
    aluop_valid(cx, op, "op", 36);
    cx.check(&TSM_SUBDIM, s.op_dim == TensorSubdim::XYZ, || {
        detail("op_dim", 37..38, s.op_dim, "xyz")
    });
    let n = s.num_active_channels;
    channel_range(cx, n, 34);
    start_addr_active_channels(cx, s.src_mem_pattern.start_addr, n, "src_mem_pattern", 12);
    start_addr_active_channels(cx, s.dst_mem_pattern.start_addr, n, "dst_mem_pattern", 44);
    let rw = |name, off, dtype, write| Operand {
        name,
        off,
        dtype,
        write,
        psum: true,
        sbuf: true,
    };
    tensor_valid(
        cx,
        &s.src_mem_pattern,
        rw("src_mem_pattern", 12, s.in_dtype, false),
    );
    tensor_valid(
        cx,
        &s.dst_mem_pattern,
        rw("dst_mem_pattern", 44, s.out_dtype, true),
    );
    let (a, b) = (&s.src_mem_pattern, &s.dst_mem_pattern);
    cx.check(&TSM_COUNT, a.element_count() == b.element_count(), || {
        detail(
            "dst_mem_pattern.num_elem",
            56..64,
            count_text(b),
            format!("src count {}", count_text(a)),
        )
    });
}

fn names(pred: impl Fn(AluOp) -> bool) -> String {
    AluOp::TABLE
        .iter()
        .map(|r| AluOp(r.value))
        .filter(|o| pred(*o))
        .map(|o| o.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

// ---- S2_BN: is_valid_tsm_immediates_load (isa-facts §6) ------------------------------------

fn imm_ld<const M: u8>(cx: &mut Ctx<M>, opcode: Opcode, s: &S2Bn) {
    let gen = cx.gen;
    let t = &s.src_mem_pattern;
    let cnt = t.num_elem[0] as u32 * t.num_elem[1] as u32;
    let escape = gen != Gen::Sunda && t.start_addr.shape_from_register();
    cx.check(&BN_COUNT, (1..=8).contains(&cnt) || escape, || {
        detail(
            "src_mem_pattern.num_elem",
            16 + 8..16 + 12,
            format!("{cnt} ({}×{})", t.num_elem[0], t.num_elem[1]),
            "1..=8 scalars per channel",
        )
    });
    let fzero = |v: ImmVal| v.0 & 0x7FFF_FFFF == 0; // `== 0.0` in fp32: −0.0 passes too
    cx.check(&BN_ZERO_IMM, fzero(s.imm0_ptr), || {
        detail("imm0_ptr", 44..48, format!("{:#010x}", s.imm0_ptr.0), "0.0")
    });
    cx.check(&BN_ZERO_IMM, s.imm0_src == ImmSrc::INSTRUCTION, || {
        detail("imm0_src", 48..49, s.imm0_src, "0")
    });
    cx.check(&BN_ZERO_IMM, fzero(s.imm1), || {
        detail("imm1", 28..32, format!("{:#010x}", s.imm1.0), "0.0")
    });
    let d = s.dtype;
    let bitvec = is_bitvec_opcode(opcode);
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
            "dtype",
            32..33,
            d,
            if bitvec {
                "uint32, uint16, uint8, int32"
            } else {
                PLAIN_DTYPES
            },
        )
    });
    dtype_in(cx, d, "dtype", 32..33);
    reserved_zero(cx, &BN_RESERVED, "reserved0", 12, &s.reserved0.0);
    reserved_zero(cx, &BN_RESERVED, "reserved1", 33, &s.reserved1.0);
    reserved_zero(cx, &BN_RESERVED, "reserved2", 35, &s.reserved2.0);
    reserved_zero(cx, &BN_RESERVED, "reserved3", 49, &s.reserved3.0);
    let n = s.num_active_channels;
    channel_range(cx, n, 34);
    tensor_valid(
        cx,
        t,
        Operand {
            name: "src_mem_pattern",
            off: 16,
            dtype: d,
            write: false,
            psum: true,
            sbuf: true,
        },
    );
    // Presumed part of the chain, as in sibling ops (isa-facts §6; its rules are ASSUMED).
    start_addr_active_channels(cx, t.start_addr, n, "src_mem_pattern", 16);
}

// ---- S2D2_TS_AS: is_valid_s2d2_ts_as (seed 002 §3.5) ---------------------------------------

fn affine_select<const M: u8>(cx: &mut Ctx<M>, s: &S2d2TsAs) {
    let gen = cx.gen;
    let n = s.num_active_channels;
    let (lo, hi) = (s.in_out_dtype.lo(), s.in_out_dtype.hi());
    channel_range(cx, n, 12);
    let psum = gen == Gen::Sunda; // seed 002 §7: SUNDA True, CAYMAN+ False
    tensor_valid(
        cx,
        &s.src_mem_pattern,
        Operand {
            name: "src_mem_pattern",
            off: 36,
            dtype: lo,
            write: false,
            psum,
            sbuf: true,
        },
    );
    tensor_valid(
        cx,
        &s.dst_mem_pattern,
        Operand {
            name: "dst_mem_pattern",
            off: 48,
            dtype: hi,
            write: true,
            psum,
            sbuf: true,
        },
    );
    start_addr_active_channels(cx, s.src_mem_pattern.start_addr, n, "src_mem_pattern", 36);
    start_addr_active_channels(cx, s.dst_mem_pattern.start_addr, n, "dst_mem_pattern", 48);
    let escape = gen != Gen::Sunda
        && (s.src_mem_pattern.start_addr.shape_from_register()
            || s.dst_mem_pattern.start_addr.shape_from_register());
    let (src, dst, mask) = (&s.src_mem_pattern, &s.dst_mem_pattern, &s.mask_pattern);
    cx.check(
        &AS_COUNT_SRC_DST,
        escape || src.element_count() == dst.element_count(),
        || {
            detail(
                "dst_mem_pattern.num_elem",
                56..60,
                count_text(dst),
                format!("src count {}", count_text(src)),
            )
        },
    );
    cx.check(
        &AS_COUNT_MASK,
        escape || mask.element_count() == src.element_count(),
        || {
            detail(
                "mask_pattern.num_elem",
                28..36,
                data_count_text(mask),
                format!("src count {}", count_text(src)),
            )
        },
    );
    dtype_out(cx, hi, "in_out_dtype.dtype_hi", 13..14);
    dtype_in(cx, lo, "in_out_dtype.dtype_lo", 13..14);
    cx.check(&AS_CMP, s.fill_mode.is_valid(gen), || {
        detail(
            "fill_mode",
            14..15,
            s.fill_mode,
            enum_names::<AffineSelectCmp>(gen),
        )
    });
    cx.check(
        &REGISTER_READ,
        (s.fill_reg as u32) < crate::geometry::NUM_REGISTERS,
        || detail("fill_reg", 15..16, s.fill_reg, "0..=63"),
    );
}

fn data_count_text(d: &Data4d) -> String {
    let dims: Vec<String> = d.num_elem.iter().map(|n| n.to_string()).collect();
    format!("{} ({})", d.element_count(), dims.join("×"))
}

// ---- D4_IOTA: is_valid_iota (isa-facts §9) --------------------------------------------------

fn iota<const M: u8>(cx: &mut Ctx<M>, s: &D4Iota) {
    reserved_zero(cx, &IOTA_RESERVED, "reserved0", 32, &s.reserved0.0);
    reserved_zero(cx, &IOTA_RESERVED, "reserved1", 35, &s.reserved1.0);
    reserved_zero(cx, &IOTA_RESERVED, "reserved2", 40, &s.reserved2.0);
    dtype_out(cx, s.out_dtype, "out_dtype", 33..34);
    let n = s.num_active_channels;
    channel_range(cx, n, 34);
    start_addr_active_channels(cx, s.dst_mem_pattern.start_addr, n, "dst_mem_pattern", 44);
    let dst = &s.dst_mem_pattern;
    tensor_valid(
        cx,
        dst,
        Operand {
            name: "dst_mem_pattern",
            off: 44,
            dtype: s.out_dtype,
            write: true,
            psum: true,
            sbuf: true,
        },
    );
    cx.check(
        &IOTA_COUNT,
        s.src_data_pattern.element_count() == dst.element_count(),
        || {
            detail(
                "dst_mem_pattern.num_elem",
                56..64,
                count_text(dst),
                format!(
                    "src_data_pattern count {}",
                    data_count_text(&s.src_data_pattern)
                ),
            )
        },
    );
}

// ---- S3D3_TS: is_valid_tensor_scalar_op / _ptr_op (isa-facts §7) ----------------------------

fn tensor_scalar<const M: u8>(cx: &mut Ctx<M>, opcode: Opcode, s: &S3d3Ts) {
    let gen = cx.gen;
    let bitvec = is_bitvec_opcode(opcode);
    let ptr_form = matches!(opcode.0, 0x44 | 0x54);
    let (op0, op1) = (s.op0, s.op1);
    let banned = |o: AluOp| matches!(o, AluOp::DIVIDE | AluOp::POW | AluOp::MOD);
    for (o, name, off) in [(op0, "op0", 36), (op1, "op1", 37)] {
        cx.check(&TS_OPS_ENUM, o.defined_on(gen) && !banned(o), || {
            detail(
                name,
                off..off + 1,
                o,
                "any ALU_OP of this generation except divide, pow, mod",
            )
        });
    }
    if bitvec {
        for (o, name, off) in [(op0, "op0", 36), (op1, "op1", 37)] {
            cx.check(&TS_OPS_BITVEC, o.is_bitvec_op(), || {
                detail(name, off..off + 1, o, names(|o| o.is_bitvec_op()))
            });
        }
        let ok = s.in_dtype == s.out_dtype && s.in_dtype.is_int_datapath();
        cx.check(&TS_TYPES, ok, || {
            detail(
                "in_dtype/out_dtype",
                32..34,
                format!("{} -> {}", s.in_dtype, s.out_dtype),
                "in == out ∈ {int8, uint8, int16, uint16, int32, uint32}",
            )
        });
    } else {
        let general = op0.is_general_arith_op(gen) && op1.is_general_arith_op(gen);
        let rsqrt = op0 == AluOp::RSQRT
            && op1 == AluOp::BYPASS
            && s.imm0.0 == 0
            && s.imm0_src == ImmSrc::INSTRUCTION
            && s.imm1.0 == 0
            && s.imm1_src == ImmSrc::INSTRUCTION;
        let dve_int =
            gen == Gen::Maverick && op0.is_valid_int_aluop_dve() && op1.is_valid_int_aluop_dve();
        cx.check(&TS_OPS_ARITH, general || rsqrt || dve_int, || {
            detail(
                "op0/op1",
                36..38,
                format!("{op0}, {op1}"),
                names(|o| o.is_general_arith_op(gen)),
            )
        });
    }
    cx.check(
        &TS_OPS_ORDER,
        op0 != AluOp::BYPASS || op1 == AluOp::BYPASS,
        || detail("op1", 37..38, op1, "bypass when op0 is bypass"),
    );
    cx.check(&TS_TYPES, true, || {
        detail("in_dtype", 32..33, s.in_dtype, "any (arith)")
    });
    if ptr_form {
        cx.check(&TS_PTR_SRC, s.imm0_src.0 == 0 && s.imm1_src.0 == 0, || {
            detail(
                "imm0_src/imm1_src",
                35..40,
                format!("{}, {}", s.imm0_src, s.imm1_src),
                "0 (both are pointers)",
            )
        });
        for (v, name, off) in [(s.imm0, "imm0", 40), (s.imm1, "imm1", 44)] {
            ts_ptr_imm_chk(cx, v, name, off, bitvec, s.in_dtype, s.num_active_channels);
        }
    } else {
        for (src, v, name, soff, off) in [
            (s.imm0_src, s.imm0, "imm0", 35, 40),
            (s.imm1_src, s.imm1, "imm1", 39, 44),
        ] {
            imm_by_src(
                cx,
                src,
                v,
                name,
                soff,
                off,
                bitvec,
                s.in_dtype,
                s.num_active_channels,
            );
        }
    }
    let shift_bad = (op0 == AluOp::ARITH_SHIFT_RIGHT || op1 == AluOp::ARITH_SHIFT_RIGHT)
        || (matches!(op0, AluOp::ARITH_SHIFT_LEFT | AluOp::LOGICAL_SHIFT_LEFT)
            && matches!(op1, AluOp::ARITH_SHIFT_RIGHT | AluOp::LOGICAL_SHIFT_RIGHT));
    cx.check(&TS_SHIFT, !shift_bad || four_byte(s.in_dtype), || {
        detail(
            "in_dtype",
            32..33,
            s.in_dtype,
            "a 4-byte dtype for this shift combination",
        )
    });
    let (src, dst) = (&s.src_mem_pattern, &s.dst_mem_pattern);
    let rw = |name, off, dtype, write| Operand {
        name,
        off,
        dtype,
        write,
        psum: true,
        sbuf: true,
    };
    tensor_valid(cx, src, rw("src_mem_pattern", 16, s.in_dtype, false));
    tensor_valid(cx, dst, rw("dst_mem_pattern", 48, s.out_dtype, true));
    cx.check(
        &TS_COUNT,
        src.element_count() == dst.element_count(),
        || {
            detail(
                "dst_mem_pattern.num_elem",
                58..64,
                count_text(dst),
                format!("src count {}", count_text(src)),
            )
        },
    );
    cx.check(&TS_REVERSE, s.reverse_operands.is_valid(gen), || {
        detail(
            "reverse_operands",
            38..39,
            s.reverse_operands,
            enum_names::<RevOps>(gen),
        )
    });
    reserved_zero(cx, &TS_RESERVED, "reserved0", 13, &s.reserved0.0);
    dtype_in(cx, s.in_dtype, "in_dtype", 32..33);
    dtype_out(cx, s.out_dtype, "out_dtype", 33..34);
    aluop_valid(cx, op0, "op0", 36);
    aluop_valid(cx, op1, "op1", 37);
    cx.check(&TS_ACCUM, s.accumulator_cmd == AccumCmd::IDLE, || {
        detail("accumulator_cmd", 12..13, s.accumulator_cmd, "idle")
    });
    let n = s.num_active_channels;
    channel_range(cx, n, 34);
    start_addr_active_channels(cx, src.start_addr, n, "src_mem_pattern", 16);
    start_addr_active_channels(cx, dst.start_addr, n, "dst_mem_pattern", 48);
}

/// Checks one immediate by its source (`tensor_scalar_immediates_check`).
fn imm_by_src<const M: u8>(
    cx: &mut Ctx<M>,
    src: ImmSrc,
    v: ImmVal,
    name: &str,
    soff: usize,
    off: usize,
    bitvec: bool,
    in_dtype: Dtype,
    n: u8,
) {
    let gen = cx.gen;
    match src {
        ImmSrc::INSTRUCTION => {
            if bitvec {
                let ok = match in_dtype.size() {
                    Some(4) => true,
                    Some(2) => v.0 & 0xFFFF_0000 == 0,
                    Some(1) => v.0 & 0xFFFF_FF00 == 0,
                    _ => false,
                };
                cx.check(&TS_IMM_WIDTH, ok, || {
                    detail(
                        name,
                        off..off + 4,
                        format!("{:#x}", v.0),
                        format!("fits {in_dtype}"),
                    )
                });
            }
        }
        ImmSrc::POINTER => ts_ptr_imm_chk(cx, v, name, off, bitvec, in_dtype, n),
        ImmSrc::REG_PTR => {
            cx.check(&IMM_REG, v.0 < crate::geometry::NUM_REGISTERS, || {
                detail(name, off..off + 4, v.0, "register 0..=63")
            });
        }
        _ => {
            cx.check(&TS_SRC_ENUM, false, || {
                detail(
                    format!("{name}_src"),
                    soff..soff + 1,
                    src,
                    enum_names::<ImmSrc>(gen),
                )
            });
        }
    }
}

/// `ts_ptr_imm_chk`: `tpb_addr_active_channels(ptr, n)` and alignment.
fn ts_ptr_imm_chk<const M: u8>(
    cx: &mut Ctx<M>,
    v: ImmVal,
    name: &str,
    off: usize,
    bitvec: bool,
    in_dtype: Dtype,
    n: u8,
) {
    let gen = cx.gen;
    let a = crate::wire::Addr4(v.0);
    let located = a.locate(gen);
    let align = if bitvec {
        in_dtype.size().unwrap_or(1)
    } else {
        4
    };
    let ok = match located {
        Some((space, p, o)) => {
            let g = crate::geometry::Geometry::of(gen);
            p + n as u32 <= g.partitions
                && o < g.active_bytes(space)
                && (a.byte_addr() as usize).is_multiple_of(align)
        }
        None => false,
    };
    cx.check(&TS_PTR_IMM, ok, || {
        use crate::wire::Field;
        detail(name, off..off + 4, a.to_text(gen), format!("an SBUF/PSUM address aligned to {align} bytes with {n} channels from its partition"))
    });
}

// ---- S3D3_TS_SELECT (isa-facts §10.1) -------------------------------------------------------

fn ts_select<const M: u8>(cx: &mut Ctx<M>, s: &S3d3TsSelect) {
    dtype_in(cx, s.dtype, "dtype", 34..35);
    let p = s.pred_imm_dtype;
    cx.check(
        &SEL_DTYPE_PRED,
        p.is_int_datapath() && p.size() == s.dtype.size(),
        || {
            detail(
                "pred_imm_dtype",
                35..36,
                p,
                format!("an integer type of {} bytes", s.dtype.size().unwrap_or(0)),
            )
        },
    );
    cx.check(&SEL_REVERSED, s.reversed_pred <= 1, || {
        detail("reversed_pred", 32..33, s.reversed_pred, "0, 1")
    });
    if s.pred_imm_src == ImmSrc::INSTRUCTION {
        cx.check(&SEL_PRED_INLINE, s.pred_imm.0 <= 1, || {
            detail("pred_imm", 44..48, s.pred_imm.0, "0, 1")
        });
    } else {
        imm_by_src(
            cx,
            s.pred_imm_src,
            s.pred_imm,
            "pred_imm",
            39,
            44,
            true,
            p,
            s.num_active_channels,
        );
    }
    if s.src1_imm_src != ImmSrc::INSTRUCTION {
        imm_by_src(
            cx,
            s.src1_imm_src,
            s.src1_imm,
            "src1_imm",
            38,
            40,
            true,
            s.dtype,
            s.num_active_channels,
        );
    }
    reserved_zero(cx, &SEL_RESERVED, "reserved0", 12, &s.reserved0.0);
    reserved_zero(cx, &SEL_RESERVED, "reserved1", 36, &s.reserved1.0);
    let n = s.num_active_channels;
    channel_range(cx, n, 33);
    let (src, dst) = (&s.src0_mem_pattern, &s.dst_mem_pattern);
    let rw = |name, off, write| Operand {
        name,
        off,
        dtype: s.dtype,
        write,
        psum: true,
        sbuf: true,
    };
    tensor_valid(cx, src, rw("src0_mem_pattern", 16, false));
    tensor_valid(cx, dst, rw("dst_mem_pattern", 48, true));
    cx.check(
        &SEL_COUNT,
        src.element_count() == dst.element_count(),
        || {
            detail(
                "dst_mem_pattern.num_elem",
                58..64,
                count_text(dst),
                format!("src0 count {}", count_text(src)),
            )
        },
    );
    start_addr_active_channels(cx, src.start_addr, n, "src0_mem_pattern", 16);
    start_addr_active_channels(cx, dst.start_addr, n, "dst_mem_pattern", 48);
}

// ---- S2D2_RS (isa-facts §10.2) --------------------------------------------------------------

fn range_select<const M: u8>(cx: &mut Ctx<M>, s: &S2d2Rs) {
    let gen = cx.gen;
    cx.check(&RS_GEN, gen != Gen::Sunda, || {
        detail("header.opcode", 0..1, "0xbc", "cayman, mariana, maverick")
    });
    let rc = s.reduce_cmd;
    cx.check(
        &RS_REDUCE_CMD,
        matches!(
            rc,
            AccumCmd::IDLE | AccumCmd::ACCUMULATE | AccumCmd::ZERO_ACCUMULATE
        ),
        || {
            detail(
                "reduce_cmd",
                14..15,
                rc,
                "idle, accumulate, zero_accumulate",
            )
        },
    );
    cx.check(&RS_REDUCE_OP, s.reduce_op == AluOp::MAX, || {
        detail("reduce_op", 15..16, s.reduce_op, "max")
    });
    cx.check(&RS_FILL, s.fill_val.0 == 0xFF7F_FFFF, || {
        detail(
            "fill_val",
            20..24,
            format!("{:#010x}", s.fill_val.0),
            "0xff7fffff",
        )
    });
    let count = s.src_mem_pattern.element_count() as f64;
    let base = s.base.value() as f64;
    cx.check(&RS_BASE, base + count <= 16_777_216.0, || {
        detail(
            "base",
            16..20,
            format!("{} + {count}", s.base.value()),
            "<= 2^24",
        )
    });
    for (o, name, off) in [(s.comp_op0, "comp_op0", 36), (s.comp_op1, "comp_op1", 37)] {
        cx.check(&RS_CMP, matches!(o.0, 0x12..=0x16), || {
            detail(name, off..off + 1, o, "is_eq, is_gt, is_ge, is_le, is_lt")
        });
    }
    let (lo, hi) = (s.in_out_dtype.lo(), s.in_out_dtype.hi());
    cx.check(&RS_DTYPE_IN, lo.is_fp_datapath(false), || {
        detail(
            "in_out_dtype.dtype_lo",
            13..14,
            lo,
            "fp8_exp3, fp8_exp4, fp8_exp5, fp16, bfloat16, fp32",
        )
    });
    cx.check(&RS_DTYPE_OUT, hi.is_fp_datapath(true), || {
        detail(
            "in_out_dtype.dtype_hi",
            13..14,
            hi,
            "fp8 ×3, fp16, bfloat16, fp32, fp32r",
        )
    });
    let n = s.num_active_channels;
    channel_range(cx, n, 12);
    let (src, dst) = (&s.src_mem_pattern, &s.dst_mem_pattern);
    tensor_valid(
        cx,
        src,
        Operand {
            name: "src_mem_pattern",
            off: 24,
            dtype: lo,
            write: false,
            psum: true,
            sbuf: true,
        },
    );
    tensor_valid(
        cx,
        dst,
        Operand {
            name: "dst_mem_pattern",
            off: 48,
            dtype: hi,
            write: true,
            psum: true,
            sbuf: true,
        },
    );
    cx.check(
        &RS_COUNT,
        src.element_count() == dst.element_count(),
        || {
            detail(
                "dst_mem_pattern.num_elem",
                56..60,
                count_text(dst),
                format!("src count {}", count_text(src)),
            )
        },
    );
    for (src_kind, v, name, soff, off) in [
        (s.bound0_src, s.bound0, "bound0", 38, 40),
        (s.bound1_src, s.bound1, "bound1", 39, 44),
    ] {
        if src_kind == ImmSrc::INSTRUCTION {
            continue; // any FP32 value
        }
        imm_by_src(cx, src_kind, v, name, soff, off, false, Dtype::FP32, n);
    }
    start_addr_active_channels(cx, src.start_addr, n, "src_mem_pattern", 24);
    start_addr_active_channels(cx, dst.start_addr, n, "dst_mem_pattern", 48);
    reserved_zero(cx, &RS_RESERVED, "reserved1", 60, &s.reserved1.0);
}
