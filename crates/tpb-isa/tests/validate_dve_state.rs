//! Issue 17b validators: each baseline (the docs/syntax.md example) is valid; each case
//! changes one field (by editing the text line, or appending a field) and names the clause
//! that fails (isa-facts-dve-pool §8.3, §9.3, §10, §11.3, §12.3, §13.1, §14.2, §16.3); the fast
//! verdict agrees with the report every time.

use tpb_isa::text::{asm, AsmOptions};
use tpb_isa::validate::{is_valid, rule_walk, validate};
use tpb_isa::Gen;

const STT: &str = "stt_arith src0_mem_pattern=sbuf[p0..128]+0x0:[[1,512]] src1_mem_pattern=sbuf[p0..128]+0x800:[[1,512]] op0=mult op1=add dtypes=fp32->fp32 out=fp32 imm0_dtype=fp32 imm0=0.5 dst=sbuf[p0..128]+0x1000:[[1,512]]";
const STTB: &str = "stt_bitvec src0_mem_pattern=sbuf[p0..128]+0x0:[[1,512]] src1_mem_pattern=sbuf[p0..128]+0x800:[[1,512]] op0=bitwise_and op1=bitwise_or dtypes=uint32->uint32 out=uint32 imm0_dtype=uint32 imm0=0xff dst=sbuf[p0..128]+0x1000:[[1,512]]";
const SCAN: &str = "tt_scan src0_mem_pattern=sbuf[p0..128]+0x0:[[1,512]] src1_mem_pattern=sbuf[p0..128]+0x800:[[1,512]] op0=mult op1=add dtypes=fp32->fp32 out=fp32 imm0_dtype=fp32 imm0=0.0 dst=sbuf[p0..128]+0x1000:[[1,512]]";
const SR: &str = "select_reduce src0_mem_pattern=sbuf[p0..128]+0x0:[[1,512]] src1_mem_pattern=sbuf[p0..128]+0x800:[[1,512]] op0=bypass op1=max reverse=first dtypes=uint8->fp32 out=fp32 imm0_dtype=fp32 imm0=-3.0e38 accumulator_cmd=zero_accumulate dst=sbuf[p0..128]+0x1000:[[1,512]]";
const CR: &str = "ts_cache_reduce accumulator_cmd=zero_accumulate src=sbuf[p0..128]+0x0:[[1,512]] in=fp32 out=fp32 op0=mult op1=add imm0=2.0 dst=sbuf[p0..128]+0x800:[[1,512]]";
const CC: &str = "ts_cache_cumulative accumulator_cmd=zero_accumulate src=sbuf[p0..128]+0x0:[[1,512]] in=fp32 out=fp32 op0=bypass op1=add dst=sbuf[p0..128]+0x800:[[1,512]]";
const RD: &str = "dve_read_acc dst_element_count=1 dtype=fp32 dst=sbuf[p0..128]+0x1000:[[1,1]]";
const XL: &str = "cross_lane_reduce_arith src=sbuf[p0..128]+0x0:[[1,64]] in=fp32 out=fp32 reduce_op=average reduce_axis=partitions scale=0.0078125 dst=sbuf[p0]+0x800:[[1,64]]";
const XLB: &str = "cross_lane_reduce_bitvec src=sbuf[p0..32]+0x0:[[1,16]] in=uint32 out=uint32 reduce_op=bitwise_or reduce_axis=all dst=sbuf[p0]+0x800:[[1,1]]";
const MAX8: &str =
    "max8 src=sbuf[p0..128]+0x0:[[1,1024]] in=fp32 out=fp32 dst=sbuf[p0..128]+0x8000:[[1,8]]";
const FI8: &str = "find_index8 src=sbuf[p0..128]+0x0:[[1,1024]] in=fp32 out=uint32 dst=sbuf[p0..128]+0x8100:[[1,8]]";
const MR8: &str = "match_replace8 src=sbuf[p0..128]+0x0:[[1,1024]] in=fp32 out=fp32 immediate=-inf dst=sbuf[p0..128]+0x0:[[1,1024]]";
const LMS: &str =
    "load_mask_select immediate=1f1e1d1c1b1a191817161514131211100f0e0d0c0b0a09080706050403020100";

const G: Gen = Gen::Cayman;

fn failures(line: &str) -> Vec<String> {
    let a = asm(
        line,
        &AsmOptions {
            gen: G,
            directives: Vec::new(),
        },
    )
    .unwrap_or_else(|e| panic!("{line}: {e:?}"));
    let i = a.instructions().next().expect("one instruction").inst;
    let r = validate(&i, G);
    assert_eq!(
        r.is_valid(),
        is_valid(&i, G),
        "fast verdict disagrees: {line}"
    );
    r.failures().map(|f| f.rule.name.to_string()).collect()
}

/// The baseline is valid, and `base` with `from` replaced by `to` fails `rule`.
fn case(base: &str, from: &str, to: &str, rule: &str) {
    assert!(failures(base).is_empty(), "{base}: {:?}", failures(base));
    let line = if from.is_empty() {
        format!("{base} {to}")
    } else {
        assert!(base.contains(from), "{from} not in {base}");
        base.replacen(from, to, 1)
    };
    let f = failures(&line);
    assert!(
        f.iter().any(|r| r == rule),
        "{line}\nexpected {rule}; got {f:?}"
    );
}

// §9.3: every STT clause, pass and fail.
#[test]
fn scalar_tensor_tensor_clauses() {
    case(
        STT,
        "op1=add",
        "op1=bitwise_or",
        "has_valid_scalar_tensor_tensor_op",
    );
    case(
        STTB,
        "op1=bitwise_or",
        "op1=add",
        "has_valid_scalar_tensor_tensor_op",
    );
    case(
        STT,
        "imm0_dtype=fp32",
        "imm0_dtype=bf16",
        "s2s2d2_stt_imm0_dtype",
    );
    // A pointer scalar may have any dtype (is_const_ptr_dve).
    assert!(failures(&STT.replace(
        "imm0_dtype=fp32 imm0=0.5",
        "imm0_dtype=bf16 imm0_src=ptr imm0=0x40"
    ))
    .is_empty());
    case(
        STTB,
        "dtypes=uint32->uint32 out=uint32 imm0_dtype=uint32",
        "dtypes=fp32->fp32 out=fp32 imm0_dtype=fp32",
        "has_valid_scalar_tensor_tensor_dtypes",
    );
    case(STTB, "out=uint32", "out=int32", "s2s2d2_stt_src_dst_dtype");
    case(
        STT,
        "",
        "accumulator_cmd=load_accumulate",
        "has_valid_s2s2d2_stt_accum_cmd",
    );
    assert!(failures(&format!("{STT} accumulator_cmd=accumulate")).is_empty());
    case(
        STTB,
        "",
        "accumulator_cmd=accumulate",
        "has_valid_s2s2d2_stt_accum_cmd",
    );
    case(
        STT,
        "0x800:[[1,512]]",
        "0x800:[[1,256]]",
        "s2s2d2_stt_src_element_cnt_check",
    );
    case(
        STT,
        "0x1000:[[1,512]]",
        "0x1000:[[1,500]]",
        "s2s2d2_stt_dst_element_cnt_check",
    );
    let stt32 = STT.replace("p0..128", "p0..32");
    case(
        &stt32,
        "src1_mem_pattern=sbuf[p0..32]",
        "src1_mem_pattern=sbuf[p32..64]",
        "tt_valid_partitions",
    );
    case(STT, "", "reverse=0x7", "is_valid_enum");
    case(STT, "", "reserved=010000", "has_s2s2d2_stt_reserved_zero");
    case(STT, "imm0=0.5", "imm0_src=reg imm0=70", "is_valid_imm_reg");
    case(STT, "imm0=0.5", "imm0_src=ptr imm0=0x41", "ts_ptr_imm_chk");
    case(
        STT,
        "dtypes=fp32->fp32",
        "dtypes=fp32r->fp32",
        "is_valid_dtype",
    );
    // The unknown quadrant erratum is listed by the rule walk (explain) as a lint.
    let a = asm(
        STT,
        &AsmOptions {
            gen: G,
            directives: Vec::new(),
        },
    )
    .unwrap();
    let i = a.instructions().next().unwrap().inst;
    assert!(rule_walk(&i, G)
        .findings
        .iter()
        .any(|f| f.rule.name == "s2s2d2_stt_quadrant_check" && f.rule.lint));
}

// §10 and §11.3.
#[test]
fn scan_and_select_reduce_clauses() {
    case(
        SCAN,
        "op1=add",
        "op1=bitwise_or",
        "has_valid_tensor_tensor_scan_op",
    );
    case(SCAN, "", "accumulator_cmd=accumulate", "has_zero_accum_cmd");
    case(
        SCAN,
        "dtypes=fp32->fp32",
        "dtypes=int64->fp32",
        "is_valid_dtype",
    );
    case(
        SR,
        "dtypes=uint8->fp32",
        "dtypes=fp32->fp32",
        "has_valid_select_reduce_dtypes",
    );
    case(
        SR,
        "dtypes=uint8->fp32",
        "dtypes=uint8->int32",
        "has_valid_select_reduce_dtypes",
    );
    case(SR, "op1=max", "op1=add", "has_valid_select_reduce_op");
    case(SR, "op0=bypass", "op0=mult", "has_valid_select_reduce_op");
    case(
        SR,
        "accumulator_cmd=zero_accumulate",
        "accumulator_cmd=zero",
        "has_valid_s2s2d2_cpr_accum_cmd",
    );
    case(
        SR,
        "reverse=first",
        "reverse=second",
        "has_valid_select_reduce_rev_ops",
    );
}

// §12.3 and §13.1.
#[test]
fn cache_op_and_drain_clauses() {
    for base in [CR, CC] {
        case(
            base,
            "op1=add",
            "op1=bypass",
            "tensor_scalar_cache_reduce_valid_ops",
        );
        case(
            base,
            "in=fp32",
            "in=int32",
            "tensor_scalar_cache_reduce_valid_types",
        );
        case(
            base,
            "",
            "imm1=1.0",
            "tensor_scalar_cache_reduce_immediates_check",
        );
        case(
            base,
            "0x800:[[1,512]]",
            "0x800:[[1,511]]",
            "same_element_count_m3d",
        );
        case(
            base,
            "",
            "reverse=first",
            "tensor_scalar_cache_reduce_reverse_chk",
        );
        case(base, "", "reserved0=000100", "s3d3_ts_reserved_zero");
        case(
            base,
            "accumulator_cmd=zero_accumulate",
            "accumulator_cmd=idle",
            "has_valid_tensor_scalar_cache_reduce_accum_cmd",
        );
    }
    assert!(failures(
        &CR.replace("zero_accumulate", "load_accumulate")
            .replace("imm0=2.0", "imm0=2.0 imm1=5.0")
    )
    .is_empty());
    case(
        RD,
        "dtype=fp32",
        "dtype=int32",
        "dve_read_accumulator_type_check",
    );
    case(
        RD,
        "dst_element_count=1",
        "dst_element_count=2",
        "read_accumulator_dst_size",
    );
    case(RD, "", "negated=2", "d1_rd_has_valid_negated_field");
    case(
        RD,
        "",
        "reserved1=000000000000000001",
        "d1_rd_reserved_zero",
    );
    case(
        RD,
        "dst=sbuf[p0..128]+0x1000",
        "dst=sbuf[p0..128]+0x1002",
        "addr_aligned_dtype",
    );
}

// §8.3 (and the ASSUMED Q12 pairing).
#[test]
fn cross_lane_reduce_clauses() {
    case(XL, "", "reserved0=000001", "s4d4_cr_reserved_zero");
    case(XL, "in=fp32", "in=fp32r", "is_valid_dtype");
    case(
        XL,
        "src=sbuf[p0..128]+0x0",
        "src=psum[p0..128]+0x0",
        "tensor_start_addr_valid",
    );
    case(
        XL,
        "reduce_axis=partitions",
        "reduce_axis=2",
        "valid_reduce_axis_enum",
    );
    case(
        XL,
        "dst=sbuf[p0]+0x800:[[1,64]]",
        "dst=sbuf[p0]+0x800:[[1,32]]",
        "valid_axis_dst_element_cnt",
    );
    case(
        XLB,
        "dst=sbuf[p0]+0x800:[[1,1]]",
        "dst=sbuf[p0]+0x800:[[1,2]]",
        "valid_axis_dst_element_cnt",
    );
    case(
        XL,
        "reduce_op=average",
        "reduce_op=bitwise_or",
        "valid_reduce_op_for_opcode",
    );
    case(
        XLB,
        "reduce_op=bitwise_or",
        "reduce_op=add",
        "valid_reduce_op_for_opcode",
    );
    case(XLB, "out=uint32", "out=int32", "valid_reduce_op_for_opcode");
}

// §16.3 and §14.2.
#[test]
fn search_and_mask_select_clauses() {
    case(
        MAX8,
        "[[1,1024]]",
        "[[1,7]]",
        "is_valid_max8 / is_valid_find_index8",
    );
    case(
        MAX8,
        "[[1,1024]]",
        "[[1,16385]]",
        "is_valid_max8 / is_valid_find_index8",
    );
    case(
        MAX8,
        "0x8000:[[1,8]]",
        "0x8000:[[1,9]]",
        "is_valid_max8 / is_valid_find_index8",
    );
    case(MAX8, "", "even_count=1.0", "s4d2_bn_zero_counts");
    case(
        MAX8,
        "",
        "reserved1=00000001",
        "s4d2_bn_reserved_zero / s4d4_mr_reserved_zero",
    );
    case(FI8, "out=uint32", "out=fp32", "has_find_index8_dst_type");
    assert!(failures(&MAX8.replace("out=fp32", "out=fp32r")).is_empty());
    case(
        MR8,
        "src=sbuf[p0..128]+0x0:[[1,1024]]",
        "src=sbuf[p0..128]+0x0:[[1,1024],[0,17]]",
        "is_valid_match_replace8",
    );
    case(
        MR8,
        "dst=sbuf[p0..128]+0x0:[[1,1024]]",
        "dst=sbuf[p0..128]+0x0:[[1,1000]]",
        "is_valid_match_replace8",
    );
    case(MR8, "in=fp32", "in=int8", "match_replace_dtypes");
    case(MR8, "out=fp32", "out=fp32r", "match_replace_dtypes");
    case(LMS, "1f1e", "401e", "has_valid_masksel_data");
    assert!(failures(&LMS.replace("1f1e", "ff1e")).is_empty());
    case(LMS, "", "param_ram_offset=0100", "has_zero_pram_offset");
    case(LMS, "", "imm_ptr_select=1", "ctrl_imm_ptr_select_zero");
    case(
        LMS,
        "",
        "reserved0=0000000000000000000000000000000001",
        "ctrl_im_reserved_zero",
    );
}
