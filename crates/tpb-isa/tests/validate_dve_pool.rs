//! Issue 17a validators: each baseline (a docs/syntax.md example) is valid, and each test
//! mutates one field and names the clause that fails (isa-facts-dve-pool §1–§15), with the
//! fast verdict agreeing with the report.

use tpb_isa::text::{asm, AsmOptions};
use tpb_isa::validate::{is_valid, validate};
use tpb_isa::wire::*;
use tpb_isa::*;

fn one(line: &str, gen: Gen) -> Instruction {
    let a = asm(
        line,
        &AsmOptions {
            gen,
            directives: Vec::new(),
        },
    )
    .unwrap_or_else(|e| panic!("{line}: {e:?}"));
    let first = a.instructions().next().map(|s| s.inst);
    first.expect("one instruction")
}

fn failures(i: &Instruction, gen: Gen) -> Vec<(String, String)> {
    let r = validate(i, gen);
    assert_eq!(r.is_valid(), is_valid(i, gen), "fast verdict disagrees");
    r.failures()
        .map(|f| (f.rule.name.to_string(), f.field.clone()))
        .collect()
}

fn assert_valid(i: &Instruction, gen: Gen) {
    let f = failures(i, gen);
    assert!(f.is_empty(), "expected valid on {gen}: {f:?}");
}

fn assert_fails(i: &Instruction, gen: Gen, rule: &str) {
    let f = failures(i, gen);
    assert!(
        f.iter().any(|(r, _)| r == rule),
        "expected {rule} to fail on {gen}; failures: {f:?}"
    );
}

const TT: &str = "tt_arith in0_in1_dtype=fp32->bf16 out_dtype=bf16 op=mult src0_mem_pattern=sbuf[p0..128]+0x0:[[1,256]] src1_mem_pattern=sbuf[p0..128]+0x400:[[1,256]] dst=sbuf[p0..128]+0x800:[[1,256]]";
const TTB: &str = "tt_bitvec in0_in1_dtype=uint32->uint32 out_dtype=uint32 op=xor src0_mem_pattern=sbuf[p0..128]+0x0:[[1,64]] src1_mem_pattern=sbuf[p0..128]+0x100:[[1,64]] dst=sbuf[p0..128]+0x200:[[1,64]]";
const CP: &str = "copy_predicated in0_in1_dtype=uint8->fp32 out_dtype=fp32 op=bypass src0_mem_pattern=sbuf[p0..128]+0x0:[[1,128]] src1_mem_pattern=sbuf[p0..128]+0x400:[[1,128]] dst=sbuf[p0..128]+0x800:[[1,128]]";
const CPS: &str = "copy_predicated_scalar pred_mem_pattern=sbuf[p0..128]+0x0:[[1,128]] pred_dtype=uint8 reversed_pred=1 in=fp32 out=fp32 src0_imm_src=0 src0_imm=0xff800000 dst=sbuf[p0..128]+0x400:[[1,128]]";
const COPY: &str = "copy src=sbuf[p0..128]+0x0:[[1,512]] in=bf16 out=bf16 op=bypass dst=sbuf[p0..128]+0x800:[[1,512]]";
const RECIP: &str = "reciprocal src=sbuf[p0..128]+0x0:[[1,512]] in=fp32 out=fp32 op=bypass dst=sbuf[p0..128]+0x800:[[1,512]]";
const MEMSET: &str =
    "memset dst_element_count=512 dtype=bf16 set_value=0x3f80 dst=sbuf[p0..128]+0x0:[[1,512]]";
const RI: &str = "dve_read_indices dst_element_count=8 dtype=uint32 dst=sbuf[p0..128]+0x0:[[1,8]]";
const RED: &str = "tensor_reduce_arith src=sbuf[p0..128]+0x0:[[1,64],[64,8]] in=bf16 out=fp32 negated=1 op=add op_dim=x dst=sbuf[p0..128]+0x1000:[[1,8]]";
const REDB: &str = "tensor_reduce_bitvec src=sbuf[p0..128]+0x0:[[1,64]] in=uint32 out=uint32 op=or op_dim=x dst=sbuf[p0..128]+0x1000:[[1,1]]";
const SHUF: &str = "stream_shuffle src=sbuf[p0..32]+0x0:[[1,64]] in=fp32 out=fp32 op=bypass dst=sbuf[p0..32]+0x400:[[1,64]]";
const TRANS: &str = "stream_transpose src=sbuf[p0..32]+0x0:[[1,32]] in=bf16 out=bf16 op=bypass dst=sbuf[p0..32]+0x400:[[1,32]]";
const TT_BF16: &str = "tt_add_bf16 in0_in1_dtype=bf16->bf16 out_dtype=fp32 op=add src0_mem_pattern=sbuf[p0..128]+0x0:[[1,64]] src1_mem_pattern=sbuf[p0..128]+0x100:[[1,64]] dst=sbuf[p0..128]+0x200:[[1,64]]";
const RED_BF16: &str = "tensor_reduce_add_bf16 src=sbuf[p0..128]+0x0:[[1,64]] in=bf16 out=fp32 op=add op_dim=x dst=sbuf[p0..128]+0x1000:[[1,1]]";

fn tt(i: &mut Instruction) -> &mut S3s3d3Tt {
    match &mut i.body {
        Body::S3s3d3Tt(s) => s,
        _ => unreachable!(),
    }
}
fn tr(i: &mut Instruction) -> &mut S4d4Tr {
    match &mut i.body {
        Body::S4d4Tr(s) => s,
        _ => unreachable!(),
    }
}
fn mr(i: &mut Instruction) -> &mut D4Mr {
    match &mut i.body {
        Body::D4Mr(s) => s,
        _ => unreachable!(),
    }
}
fn cps(i: &mut Instruction) -> &mut S3d3CpPredScalar {
    match &mut i.body {
        Body::S3d3CpPredScalar(s) => s,
        _ => unreachable!(),
    }
}

/// Applies `m` to the baseline `line` on `gen` and expects `rule` to fail.
fn fails(line: &str, gen: Gen, rule: &str, m: impl FnOnce(&mut Instruction)) {
    let mut i = one(line, gen);
    assert_valid(&i, gen);
    m(&mut i);
    assert_fails(&i, gen, rule);
}

#[test]
fn baselines_are_valid() {
    for g in Gen::ALL {
        for l in [
            TT, TTB, CP, CPS, COPY, RECIP, MEMSET, RED, REDB, SHUF, TRANS,
        ] {
            assert_valid(&one(l, g), g);
        }
    }
    for g in [Gen::Cayman, Gen::Mariana, Gen::Maverick] {
        assert_valid(&one(RI, g), g);
    }
    assert_valid(&one(TT_BF16, Gen::Sunda), Gen::Sunda);
    assert_valid(&one(RED_BF16, Gen::Sunda), Gen::Sunda);
}

// isa-facts-dve-pool §1.3.
#[test]
fn tensor_tensor_clauses() {
    let g = Gen::Cayman;
    fails(TT, g, "is_valid_dtype_64", |i| {
        tt(i).out_dtype = Dtype::INVALID
    });
    fails(TT, g, "is_valid_dtype_64", |i| {
        tt(i).in0_in1_dtype = DtypePair::new(Dtype::FP32R, Dtype::FP32)
    });
    fails(TT, g, "s3s3d3_tt_valid_op", |i| tt(i).op = AluOp::DIVIDE);
    fails(TT, g, "s3s3d3_tt_valid_op", |i| tt(i).op = AluOp::RSQRT);
    fails(TTB, g, "s3s3d3_tt_valid_op", |i| tt(i).op = AluOp::ADD);
    fails(TTB, g, "s3s3d3_tt_dtype", |i| {
        let s = tt(i);
        s.out_dtype = Dtype::FP32;
        s.in0_in1_dtype = DtypePair::new(Dtype::FP32, Dtype::FP32);
    });
    fails(TTB, g, "s3s3d3_tt_src_dst_dtype", |i| {
        tt(i).in0_in1_dtype = DtypePair::new(Dtype::INT32, Dtype::UINT32)
    });
    fails(TT, g, "s3s3d3_tt_valid_int_signness", |i| {
        let s = tt(i);
        s.op = AluOp::ADD_INT;
        s.in0_in1_dtype = DtypePair::new(Dtype::INT32, Dtype::UINT32);
        s.out_dtype = Dtype::INT32;
        s.dst_mem_pattern.start_addr = Addr4(0x2000);
    });
    fails(TT, g, "s3s3d3_tt_src_element_cnt_check", |i| {
        tt(i).src1_mem_pattern.num_elem[0] = 255
    });
    fails(TT, g, "s3s3d3_tt_dst_element_cnt_check", |i| {
        tt(i).dst_mem_pattern.num_elem[0] = 255
    });
    fails(TT, g, "tt_valid_partitions", |i| {
        // src1 in another quadrant than src0 (both SBUF).
        let a = Addr4::at(g, tpb_isa::geometry::Space::Sbuf, 32, 0x400).unwrap();
        let s = tt(i);
        s.num_active_channels = 32;
        s.src0_mem_pattern.start_addr = Addr4::at(g, tpb_isa::geometry::Space::Sbuf, 0, 0).unwrap();
        s.src1_mem_pattern.start_addr = a;
        s.dst_mem_pattern.start_addr =
            Addr4::at(g, tpb_isa::geometry::Space::Sbuf, 0, 0x800).unwrap();
    });
    fails(TT, g, "has_valid_active_channel_range", |i| {
        tt(i).num_active_channels = 0
    });
    // An int-aluop with all-signed dtypes passes the signedness clause.
    let mut i = one(TT, g);
    let s = tt(&mut i);
    s.op = AluOp::ADD_INT;
    s.in0_in1_dtype = DtypePair::new(Dtype::INT32, Dtype::INT32);
    s.out_dtype = Dtype::INT32;
    s.src0_mem_pattern.num_elem[0] = 128;
    s.src1_mem_pattern.num_elem[0] = 128;
    s.dst_mem_pattern.num_elem[0] = 128;
    assert_valid(&i, g);
}

// isa-facts-dve-pool §1.7.
#[test]
fn tensor_tensor_bf16_clauses() {
    let g = Gen::Sunda;
    fails(TT_BF16, g, "has_valid_tensor_tensor_bf16_op", |i| {
        tt(i).op = AluOp::MULT
    });
    fails(TT_BF16, g, "has_valid_tensor_tensor_bf16_in_dtype", |i| {
        tt(i).in0_in1_dtype = DtypePair::new(Dtype::FP32, Dtype::BFLOAT16)
    });
    fails(TT_BF16, g, "tensor_tensor_bf16_access_pattern_check", |i| {
        tt(i).src0_mem_pattern.num_elem[0] = 63
    });
    fails(TT_BF16, g, "tensor_tensor_bf16_access_pattern_check", |i| {
        tt(i).src1_mem_pattern.step_elem[0] = 2
    });
    // Not defined off sunda.
    let i = one(TT_BF16, Gen::Sunda);
    assert_fails(&i, Gen::Cayman, "has_valid_neuron_header");
}

// isa-facts-dve-pool §2.3.
#[test]
fn copy_cast_predicated_clauses() {
    let g = Gen::Cayman;
    fails(CP, g, "is_valid_dtype", |i| tt(i).out_dtype = Dtype::FP32R);
    fails(CP, g, "s3s3d3_copy_pred_src0_dtype", |i| {
        tt(i).in0_in1_dtype = DtypePair::new(Dtype::FP32, Dtype::FP32)
    });
    fails(CP, g, "s3s3d3_copy_cast_pred_src1_dst_dtype", |i| {
        tt(i).out_dtype = Dtype::INT32
    });
    fails(CP, g, "s3s3d3_tt_is_zero_op", |i| tt(i).op = AluOp::ADD);
    // CastPredicated may change the dtype.
    let mut i = one(CP, g);
    i.header.opcode = Opcode::CAST_PREDICATED;
    tt(&mut i).out_dtype = Dtype::INT32;
    assert_valid(&i, g);
}

// isa-facts-dve-pool §3.3.
#[test]
fn copy_predicated_scalar_clauses() {
    let g = Gen::Cayman;
    fails(CPS, g, "s3d3_cp_pred_scalar_reserved_zero", |i| {
        cps(i).reserved1.0[2] = 1
    });
    fails(CPS, g, "is_valid_int_dtype_datapath", |i| {
        cps(i).pred_dtype = Dtype::FP32
    });
    fails(CPS, g, "has_same_inout_dtype", |i| {
        cps(i).out_dtype = Dtype::INT32
    });
    fails(CPS, g, "has_valid_reversed_pred", |i| {
        cps(i).reversed_pred = 2
    });
    fails(CPS, g, "same_element_count_t3d", |i| {
        cps(i).dst_mem_pattern.num_elem[0] = 64
    });
    fails(CPS, g, "is_valid_imm_reg", |i| {
        let s = cps(i);
        s.src0_imm_src = ImmSrc::REG_PTR;
        s.src0_imm = ImmVal(99);
    });
}

// isa-facts-dve-pool §4.3, §5, §14.1, §15.
#[test]
fn s4d4_tr_copy_class_clauses() {
    let g = Gen::Cayman;
    fails(COPY, g, "s4d4_tr_reserved_zero", |i| {
        tr(i).reserved1.0[0] = 1
    });
    fails(COPY, g, "mask_enable_zero", |i| tr(i).mask_enable = 1);
    fails(COPY, g, "is_zero_subdim", |i| {
        tr(i).op_dim = TensorSubdim::XY
    });
    fails(COPY, g, "s4d4_tr_same_src_dst_count", |i| {
        tr(i).dst_mem_pattern.num_elem[0] = 256
    });
    fails(COPY, g, "s4d4_tr_op_bypass", |i| tr(i).op = AluOp::ADD);
    fails(COPY, g, "s4d4_tr_same_src_dst_type", |i| {
        tr(i).out_dtype = Dtype::FP32
    });
    fails(COPY, g, "has_zero_negated_field", |i| tr(i).negated = 1);
    fails(COPY, g, "is_valid_dtype", |i| tr(i).in_dtype = Dtype::FP32R);
    // Cast and Reciprocal may change the dtype.
    for op in [Opcode::CAST, Opcode::RECIPROCAL] {
        let mut i = one(COPY, g);
        i.header.opcode = op;
        tr(&mut i).out_dtype = Dtype::FP32;
        assert_valid(&i, g);
    }
    fails(RECIP, g, "s4d4_tr_op_bypass", |i| tr(i).op = AluOp::MULT);
    fails(SHUF, g, "has_multiple_32_channels", |i| {
        let s = tr(i);
        s.num_active_channels = 16;
    });
    fails(SHUF, g, "s4d4_tr_same_src_dst_type", |i| {
        tr(i).out_dtype = Dtype::BFLOAT16
    });
    fails(TRANS, g, "mask_enable_valid", |i| tr(i).mask_enable = 2);
    fails(TRANS, g, "has_transpose_src_element_count_t4d", |i| {
        let s = tr(i);
        s.src_mem_pattern.num_elem[0] = 31;
        s.dst_mem_pattern.num_elem[0] = 31;
    });
    fails(TRANS, g, "s4d4_tr_transpose_src_dst_count", |i| {
        tr(i).dst_mem_pattern.num_elem[0] = 64
    });
    let mut i = one(TRANS, g);
    tr(&mut i).mask_enable = 1;
    assert_valid(&i, g);
}

// isa-facts-dve-pool §7.3, §7.5.
#[test]
fn tensor_reduce_clauses() {
    let g = Gen::Cayman;
    fails(RED, g, "is_valid_subdim", |i| {
        tr(i).op_dim = TensorSubdim::UNUSED
    });
    fails(RED, g, "tensor_reduce_collapse_contract", |i| {
        tr(i).dst_mem_pattern.num_elem[0] = 4
    });
    fails(RED, g, "tensor_reduce_valid_alu_op", |i| {
        tr(i).op = AluOp::DIVIDE
    });
    fails(RED, g, "has_valid_reduce_negated", |i| tr(i).negated = 2);
    fails(RED, g, "mask_enable_zero", |i| tr(i).mask_enable = 1);
    fails(REDB, g, "tensor_reduce_valid_dtype", |i| {
        let s = tr(i);
        s.in_dtype = Dtype::INT8;
        s.out_dtype = Dtype::INT8;
    });
    fails(REDB, g, "tensor_reduce_valid_alu_op", |i| {
        tr(i).op = AluOp::ADD
    });
    fails(REDB, g, "has_valid_reduce_negated", |i| tr(i).negated = 1);
    // XY reduces both slots: one output.
    let mut i = one(RED, g);
    let s = tr(&mut i);
    s.op_dim = TensorSubdim::XY;
    s.dst_mem_pattern.num_elem[0] = 1;
    assert_valid(&i, g);
    fails(RED_BF16, Gen::Sunda, "tensor_reduce_bf16_op", |i| {
        tr(i).op = AluOp::MAX
    });
    fails(
        RED_BF16,
        Gen::Sunda,
        "has_valid_tensor_reduce_bf16_in_dtype",
        |i| tr(i).in_dtype = Dtype::FP32,
    );
    fails(
        RED_BF16,
        Gen::Sunda,
        "tensor_reduce_bf16_access_pattern_check",
        |i| {
            let s = tr(i);
            s.src_mem_pattern.num_elem[0] = 63;
            s.src_mem_pattern.start_addr = Addr4(s.src_mem_pattern.start_addr.0 + 2);
        },
    );
}

// isa-facts-dve-pool §6.3, §13.2.
#[test]
fn d4_mr_clauses() {
    let g = Gen::Cayman;
    fails(MEMSET, g, "memset_set_value_type", |i| {
        mr(i).set_value = 0x1_0000
    });
    fails(MEMSET, g, "memset_set_value_type", |i| {
        let s = mr(i);
        s.dtype = Dtype::FP32R;
        s.set_value = 0;
    });
    fails(MEMSET, g, "d4_mr_zero_serialization", |i| {
        mr(i).serialization_mode = 1
    });
    fails(MEMSET, g, "d4_mr_reserved_zero", |i| {
        mr(i).reserved0.0[5] = 1
    });
    fails(MEMSET, g, "d4_mr_dst_element_count", |i| {
        mr(i).dst_element_count = 511
    });
    let mut i = one(MEMSET, g);
    let s = mr(&mut i);
    s.dtype = Dtype::FP32;
    s.set_value = 0xFFFF_FFFF;
    assert_valid(&i, g);
    fails(RI, g, "is_valid_dtype_dve_read_indices", |i| {
        mr(i).dtype = Dtype::FP32
    });
    fails(RI, g, "dve_read_indices_elem_count_8", |i| {
        mr(i).dst_element_count = 7
    });
    fails(RI, g, "dve_read_indices_set_value_zero", |i| {
        mr(i).set_value = 1
    });
    // DveReadIndices does not exist on sunda; on cayman it runs over the index flops
    // (issue 17b), so the validator reports no refusal lint.
    let i = one(RI, g);
    assert_fails(&i, Gen::Sunda, "has_valid_neuron_header");
    let lints: Vec<_> = validate(&i, g).lints().map(|f| f.rule.name).collect();
    assert!(!lints.contains(&"not_simulated"), "{lints:?}");
}
