//! One passing and one failing case per validator rule, per generation where rules differ.
//! Baselines are valid bundles; each test mutates one field and names the rule that fails.

use tpb_isa::geometry::Space;
use tpb_isa::validate::{is_valid, rule_walk, validate};
use tpb_isa::wire::*;
use tpb_isa::*;

fn sbuf(gen: Gen, p: u32, off: u32) -> Addr4 {
    Addr4::at(gen, Space::Sbuf, p, off).unwrap()
}

fn t4(a: Addr4, nums: [u16; 4]) -> Tensor4 {
    Tensor4 {
        start_addr: a,
        step_elem: [1, 1, 1, 1],
        num_elem: nums,
    }
}

fn t2(a: Addr4, nums: [u16; 2]) -> Tensor2 {
    Tensor2 {
        start_addr: a,
        step_elem: [1, 1],
        num_elem: nums,
    }
}

fn t3(a: Addr4, nums: [u16; 3]) -> Tensor3 {
    Tensor3 {
        start_addr: a,
        step_elem: [1, 1, 1],
        num_elem: nums,
    }
}

fn inst(op: Opcode, gen: Gen, body: Body) -> Instruction {
    let mut i = Instruction::new(op, gen);
    i.body = body;
    i
}

/// PtrMultiArith: fp32 → fp32, W = 8, 128 channels, mult, XYZ, reverse None.
fn ptr_multi(gen: Gen, opcode: u8) -> Instruction {
    let s = S4d4Tsm {
        src_mem_pattern: t4(sbuf(gen, 0, 0), [16, 1, 1, 8]),
        in_dtype: Dtype::FP32,
        out_dtype: Dtype::FP32,
        num_active_channels: 128,
        op: AluOp::MULT,
        op_dim: TensorSubdim::XYZ,
        dst_mem_pattern: t4(sbuf(gen, 0, 0x1000), [16, 1, 1, 8]),
        ..Default::default()
    };
    inst(Opcode(opcode), gen, Body::S4d4Tsm(s))
}

fn imm_ld(gen: Gen, opcode: u8) -> Instruction {
    let s = S2Bn {
        src_mem_pattern: t2(sbuf(gen, 0, 0x100), [8, 1]),
        dtype: Dtype::FP32,
        num_active_channels: 128,
        ..Default::default()
    };
    inst(Opcode(opcode), gen, Body::S2Bn(s))
}

fn affine_select(gen: Gen) -> Instruction {
    let s = S2d2TsAs {
        num_active_channels: 128,
        in_out_dtype: DtypePair::new(Dtype::FP32, Dtype::FP32),
        fill_mode: AffineSelectCmp::GREATER_THAN_EQ,
        fill_reg: 3,
        mask_pattern: Data4d {
            base: 0,
            step_elem: [-1, 1, 1, 1],
            num_elem: [512, 1, 1, 1],
        },
        src_mem_pattern: t2(sbuf(gen, 0, 0), [512, 1]),
        dst_mem_pattern: t2(sbuf(gen, 0, 0x800), [512, 1]),
        channel_multiplier: 1,
    };
    inst(Opcode::TENSOR_SCALAR_AFFINE_SELECT, gen, Body::S2d2TsAs(s))
}

fn iota(gen: Gen) -> Instruction {
    let s = D4Iota {
        src_data_pattern: Data4d {
            base: 0,
            step_elem: [1, 1, 1, 1],
            num_elem: [64, 2, 1, 1],
        },
        out_dtype: Dtype::INT32,
        num_active_channels: 64,
        dst_mem_pattern: t4(sbuf(gen, 64, 0), [128, 1, 1, 1]),
        ..Default::default()
    };
    inst(Opcode::IOTA, gen, Body::D4Iota(s))
}

fn tensor_scalar(gen: Gen, opcode: u8) -> Instruction {
    let bitvec = opcode & 0xF0 == 0x50;
    let s = S3d3Ts {
        src_mem_pattern: t3(sbuf(gen, 0, 0), [32, 2, 1]),
        in_dtype: if bitvec {
            Dtype::UINT32
        } else {
            Dtype::BFLOAT16
        },
        out_dtype: if bitvec { Dtype::UINT32 } else { Dtype::FP32 },
        num_active_channels: 32,
        op0: if bitvec {
            AluOp::BITWISE_AND
        } else {
            AluOp::MULT
        },
        op1: if bitvec { AluOp::BYPASS } else { AluOp::ADD },
        imm0: ImmVal(if bitvec { 0xFF } else { 0x4000_0000 }),
        imm1: ImmVal(0x3F80_0000 * u32::from(!bitvec)),
        dst_mem_pattern: t3(sbuf(gen, 0, 0x400), [64, 1, 1]),
        ..Default::default()
    };
    let mut i = inst(Opcode(opcode), gen, Body::S3d3Ts(s));
    if opcode & 0x0F == 0x04 {
        // TensorScalarPtr: both immediates are pointers with src 0.
        let Body::S3d3Ts(s) = &mut i.body else {
            unreachable!()
        };
        s.imm0 = ImmVal(sbuf(gen, 0, 0x2000).0);
        s.imm1 = ImmVal(sbuf(gen, 0, 0x2004).0);
    }
    i
}

fn ts_select(gen: Gen) -> Instruction {
    let s = S3d3TsSelect {
        src0_mem_pattern: t3(sbuf(gen, 0, 0), [16, 1, 1]),
        num_active_channels: 16,
        dtype: Dtype::FP32,
        pred_imm_dtype: Dtype::INT32,
        pred_imm: ImmVal(1),
        src1_imm: ImmVal(0x3F80_0000),
        dst_mem_pattern: t3(sbuf(gen, 0, 0x100), [16, 1, 1]),
        ..Default::default()
    };
    inst(Opcode::TENSOR_SCALAR_SELECT, gen, Body::S3d3TsSelect(s))
}

fn range_select(gen: Gen) -> Instruction {
    let s = S2d2Rs {
        num_active_channels: 128,
        in_out_dtype: DtypePair::new(Dtype::FP32, Dtype::BFLOAT16),
        reduce_cmd: AccumCmd::IDLE,
        reduce_op: AluOp::MAX,
        base: F32Bits(0),
        fill_val: F32Bits(0xFF7F_FFFF),
        src_mem_pattern: t2(sbuf(gen, 0, 0), [256, 1]),
        comp_op0: AluOp::IS_GE,
        comp_op1: AluOp::IS_LT,
        bound0: ImmVal(0),
        bound1: ImmVal(0x4300_0000),
        dst_mem_pattern: t2(sbuf(gen, 0, 0x400), [256, 1]),
        ..Default::default()
    };
    inst(Opcode::RANGE_SELECT, gen, Body::S2d2Rs(s))
}

/// The (rule name, field) pairs that fail.
fn failures(i: &Instruction, gen: Gen) -> Vec<(String, String)> {
    let r = validate(i, gen);
    assert_eq!(
        r.is_valid(),
        is_valid(i, gen),
        "fast path disagrees with the report"
    );
    r.failures()
        .map(|f| (f.rule.name.to_string(), f.field.clone()))
        .collect()
}

fn assert_valid(i: &Instruction, gen: Gen) {
    let f = failures(i, gen);
    assert!(f.is_empty(), "expected valid on {gen}, got {f:?}");
}

fn assert_fails(i: &Instruction, gen: Gen, rule: &str, field: &str) {
    let f = failures(i, gen);
    assert!(
        f.iter().any(|(r, fl)| r == rule && fl == field),
        "expected {rule} on `{field}` to fail on {gen}; failures: {f:?}"
    );
}

fn ptr(i: &mut Instruction) -> &mut S4d4Tsm {
    match &mut i.body {
        Body::S4d4Tsm(s) => s,
        _ => unreachable!(),
    }
}

#[test]
fn baselines_are_valid_on_every_generation() {
    for g in Gen::ALL {
        for op in [0x4F, 0x5F] {
            let mut i = ptr_multi(g, op);
            if op == 0x5F {
                let s = ptr(&mut i);
                (s.in_dtype, s.out_dtype, s.op) =
                    (Dtype::UINT32, Dtype::UINT32, AluOp::BITWISE_XOR);
            }
            assert_valid(&i, g);
        }
        assert_valid(&imm_ld(g, 0x70), g);
        assert_valid(&affine_select(g), g);
        assert_valid(&iota(g), g);
        for op in [0x43, 0x53, 0x44, 0x54] {
            assert_valid(&tensor_scalar(g, op), g);
        }
        assert_valid(&ts_select(g), g);
        if g != Gen::Sunda {
            assert_valid(&range_select(g), g);
        }
    }
    let mut dual = ptr_multi(Gen::Sunda, 0x87);
    ptr(&mut dual).src_mem_pattern.num_elem[3] = 4;
    ptr(&mut dual).dst_mem_pattern.num_elem[3] = 4;
    assert_valid(&dual, Gen::Sunda);
}

// ---- header / events ----------------------------------------------------------------------

#[test]
fn header_word_len_and_opcode() {
    let mut i = ptr_multi(Gen::Cayman, 0x4F);
    i.header.inst_word_len = 0x40; // the core-barrier example's byte (isa-facts §1.2 conflict)
    assert_fails(
        &i,
        Gen::Cayman,
        "has_valid_neuron_header",
        "header.inst_word_len",
    );
    let opaque = Instruction::decode(&[0x93; 64], Gen::Cayman);
    assert_fails(
        &opaque,
        Gen::Cayman,
        "has_valid_neuron_header",
        "header.opcode",
    );
}

// seed 000 §3 / decisions §1.6: 0x87 only on sunda; on cayman+ it is undefined.
#[test]
fn dual_opcode_only_on_sunda() {
    let b = ptr_multi(Gen::Sunda, 0x87).encode();
    for g in [Gen::Cayman, Gen::Mariana, Gen::Maverick] {
        let i = Instruction::decode(&b, g);
        assert_fails(&i, g, "has_valid_neuron_header", "header.opcode");
        let msg = validate(&i, g).failures().next().unwrap().to_string();
        assert!(msg.contains("0x87"), "{msg}");
    }
}

#[test]
fn events_enums() {
    let mut i = iota(Gen::Sunda);
    i.events.wait_mode = WaitMode(8);
    assert_fails(
        &i,
        Gen::Sunda,
        "has_valid_neuron_events",
        "events.wait_mode",
    );
    i.events.wait_mode = WaitMode::SEM_GE_REG;
    i.events.update_mode = UpdateMode(6);
    assert_fails(
        &i,
        Gen::Sunda,
        "has_valid_neuron_events",
        "events.update_mode",
    );
    i.events.update_mode = UpdateMode::SEM_SUB_REG_READ; // 0x87 is a valid UPDATE_MODE everywhere
    assert_valid(&i, Gen::Cayman);
}

// ---- S4D4_TSM (seed 000) ------------------------------------------------------------------

#[test]
fn seed000_w_range_singular_and_dual() {
    let mut i = ptr_multi(Gen::Cayman, 0x4F);
    ptr(&mut i).src_mem_pattern.num_elem[3] = 9;
    ptr(&mut i).dst_mem_pattern.num_elem[3] = 9;
    assert_fails(
        &i,
        Gen::Cayman,
        "has_valid_src_slices_tsm_singular",
        "src_mem_pattern.num_elem[3]",
    );
    let mut d = ptr_multi(Gen::Sunda, 0x87);
    ptr(&mut d).src_mem_pattern.num_elem[3] = 5;
    ptr(&mut d).dst_mem_pattern.num_elem[3] = 5;
    assert_fails(
        &d,
        Gen::Sunda,
        "has_valid_src_slices_tsm_dual",
        "src_mem_pattern.num_elem[3]",
    );
    let f = validate(&d, Gen::Sunda);
    let first = f.failures().next().unwrap();
    assert_eq!(first.bytes, 30..32);
    assert_eq!(first.value, "5");
    assert_eq!(first.allowed, "1..=4");
}

#[test]
fn seed000_reverse_none_or_both_except_dual() {
    for (rev, ok) in [
        (RevOps::NONE, true),
        (RevOps::FIRST, false),
        (RevOps::SECOND, false),
        (RevOps::BOTH, true),
    ] {
        let mut i = ptr_multi(Gen::Mariana, 0x4F);
        ptr(&mut i).reverse_operands = rev;
        if ok {
            assert_valid(&i, Gen::Mariana);
        } else {
            assert_fails(
                &i,
                Gen::Mariana,
                "tensor_scalar_ptr_multi_reverse_chk",
                "reverse_operands",
            );
        }
        let mut d = ptr_multi(Gen::Sunda, 0x87);
        ptr(&mut d).src_mem_pattern.num_elem[3] = 2;
        ptr(&mut d).dst_mem_pattern.num_elem[3] = 2;
        ptr(&mut d).reverse_operands = rev;
        assert_valid(&d, Gen::Sunda);
    }
    let mut i = ptr_multi(Gen::Sunda, 0x87);
    ptr(&mut i).src_mem_pattern.num_elem[3] = 2;
    ptr(&mut i).dst_mem_pattern.num_elem[3] = 2;
    ptr(&mut i).reverse_operands = RevOps(4);
    assert_fails(
        &i,
        Gen::Sunda,
        "tensor_scalar_ptr_multi_reverse_chk",
        "reverse_operands",
    );
}

// seed 000 §6a: PtrMultiBitvec admits CRC32 (is_bitvec_op), arith rejects it.
#[test]
fn seed000_op_class_split() {
    let mut b = ptr_multi(Gen::Cayman, 0x5F);
    let s = ptr(&mut b);
    (s.in_dtype, s.out_dtype, s.op) = (Dtype::UINT16, Dtype::UINT16, AluOp::CRC32);
    assert_valid(&b, Gen::Cayman);
    ptr(&mut b).op = AluOp::ADD;
    assert_fails(&b, Gen::Cayman, "tensor_scalar_ptr_multi_valid_ops", "op");
    let mut a = ptr_multi(Gen::Cayman, 0x4F);
    ptr(&mut a).op = AluOp::CRC32;
    assert_fails(&a, Gen::Cayman, "tensor_scalar_ptr_multi_valid_ops", "op");
    for banned in [AluOp::DIVIDE, AluOp::POW, AluOp::MOD] {
        ptr(&mut a).op = banned;
        assert_fails(&a, Gen::Cayman, "tensor_scalar_ptr_multi_valid_ops", "op");
    }
    // ABS_MAX is general-arith only where the enum defines it (mariana+).
    ptr(&mut a).op = AluOp::ABS_MAX;
    assert_valid(&a, Gen::Mariana);
    assert_fails(&a, Gen::Cayman, "tensor_scalar_ptr_multi_valid_ops", "op");
    assert_fails(&a, Gen::Cayman, "is_valid_aluop", "op");
}

#[test]
fn seed000_bitvec_types() {
    let mut b = ptr_multi(Gen::Cayman, 0x5F);
    let s = ptr(&mut b);
    (s.in_dtype, s.out_dtype, s.op) = (Dtype::INT16, Dtype::INT16, AluOp::BYPASS);
    assert_fails(
        &b,
        Gen::Cayman,
        "tensor_scalar_ptr_multi_valid_types",
        "in_dtype/out_dtype",
    );
    let s = ptr(&mut b);
    (s.in_dtype, s.out_dtype) = (Dtype::UINT8, Dtype::UINT16);
    assert_fails(
        &b,
        Gen::Cayman,
        "tensor_scalar_ptr_multi_valid_types",
        "in_dtype/out_dtype",
    );
}

#[test]
fn seed000_reserved_subdim_dtypes_count() {
    let g = Gen::Maverick;
    let mut i = ptr_multi(g, 0x4F);
    ptr(&mut i).reserved1.0[4] = 1;
    assert_fails(&i, g, "s4d4_tsm_reserved_zero", "reserved1");
    let mut i = ptr_multi(g, 0x4F);
    ptr(&mut i).reserved0.0[0] = 1;
    assert_fails(&i, g, "s4d4_tsm_reserved_zero", "reserved0");
    let mut i = ptr_multi(g, 0x4F);
    ptr(&mut i).op_dim = TensorSubdim::XYZW;
    assert_fails(&i, g, "is_valid_tsm_subdim", "op_dim");
    let mut i = ptr_multi(g, 0x4F);
    ptr(&mut i).in_dtype = Dtype::FP32R;
    assert_fails(&i, g, "is_valid_dtype", "in_dtype");
    let mut i = ptr_multi(g, 0x4F);
    ptr(&mut i).out_dtype = Dtype::FP32R;
    assert_valid(&i, g);
    ptr(&mut i).out_dtype = Dtype::INT64;
    assert_fails(&i, g, "is_valid_dtype", "out_dtype");
    let mut i = ptr_multi(g, 0x4F);
    ptr(&mut i).dst_mem_pattern.num_elem = [8, 1, 1, 8];
    assert_fails(&i, g, "same_element_count_t4d", "dst_mem_pattern.num_elem");
}

#[test]
fn channel_range_and_placement() {
    for g in Gen::ALL {
        let mut i = ptr_multi(g, 0x4F);
        ptr(&mut i).num_active_channels = 0;
        let rule = if g == Gen::Maverick {
            "has_valid_active_channel_range_with_tile"
        } else {
            "has_valid_active_channel_range"
        };
        assert_fails(&i, g, rule, "num_active_channels");
        ptr(&mut i).num_active_channels = 129;
        assert_fails(&i, g, rule, "num_active_channels");
    }
    let g = Gen::Cayman;
    let mut i = ptr_multi(g, 0x4F);
    ptr(&mut i).num_active_channels = 64;
    ptr(&mut i).src_mem_pattern.start_addr = sbuf(g, 65, 0);
    assert_fails(
        &i,
        g,
        "start_addr_active_channels",
        "src_mem_pattern.start_addr",
    );
    // Placement is a lint, not a failure: partition 16 with 16 channels.
    ptr(&mut i).num_active_channels = 16;
    ptr(&mut i).src_mem_pattern.start_addr = sbuf(g, 16, 0);
    let r = validate(&i, g);
    assert!(r.is_valid());
    assert_eq!(r.lints().count(), 1);
}

// decisions §2.2: the byte offset must lie inside the partition's active bytes per gen.
#[test]
fn active_bytes_per_generation() {
    let off = 200 * 1024; // beyond sunda's 192 KiB, inside cayman's 224 KiB
    let mut s = ptr_multi(Gen::Sunda, 0x4F);
    ptr(&mut s).src_mem_pattern.start_addr = sbuf(Gen::Sunda, 0, off);
    assert_fails(
        &s,
        Gen::Sunda,
        "start_addr_active_channels",
        "src_mem_pattern.start_addr",
    );
    let mut c = ptr_multi(Gen::Cayman, 0x4F);
    ptr(&mut c).src_mem_pattern.start_addr = sbuf(Gen::Cayman, 0, off);
    assert_valid(&c, Gen::Cayman);
}

#[test]
fn descriptor_rules() {
    let g = Gen::Cayman;
    let mut i = ptr_multi(g, 0x4F);
    ptr(&mut i).src_mem_pattern.num_elem[1] = 0;
    ptr(&mut i).dst_mem_pattern.num_elem[1] = 0;
    assert_fails(&i, g, "tensor4d_valid", "src_mem_pattern.num_elem[1]");
    let mut i = ptr_multi(g, 0x4F);
    ptr(&mut i).src_mem_pattern.start_addr = Addr4(0x2); // fp32 needs 4-byte alignment
    assert_fails(&i, g, "addr_aligned_dtype", "src_mem_pattern.start_addr");
    let mut i = ptr_multi(g, 0x4F);
    ptr(&mut i).src_mem_pattern.start_addr = Addr4(0x0300_0000); // beyond PSUM
    assert_fails(
        &i,
        g,
        "tensor_start_addr_valid",
        "src_mem_pattern.start_addr",
    );
    let mut i = ptr_multi(g, 0x4F);
    ptr(&mut i).src_mem_pattern.start_addr = Addr4(0x6000_0000); // marker 0x60 is malformed
    assert_fails(
        &i,
        g,
        "tensor_start_addr_valid",
        "src_mem_pattern.start_addr",
    );
    let mut i = ptr_multi(g, 0x4F);
    ptr(&mut i).src_mem_pattern.start_addr = Addr4::register(63);
    assert_valid(&i, g);
    ptr(&mut i).src_mem_pattern.start_addr = Addr4::register(64);
    assert!(!is_valid(&i, g));
    // A PSUM write needs a 4-byte dtype.
    let mut i = ptr_multi(g, 0x4F);
    ptr(&mut i).dst_mem_pattern.start_addr = Addr4::at(g, Space::Psum, 0, 0).unwrap();
    assert_valid(&i, g);
    ptr(&mut i).out_dtype = Dtype::BFLOAT16;
    assert_fails(
        &i,
        g,
        "tensor_start_addr_valid",
        "dst_mem_pattern.start_addr",
    );
    // Zero steps are legal (broadcast, decisions §2.4).
    let mut i = ptr_multi(g, 0x4F);
    ptr(&mut i).src_mem_pattern.step_elem = [0, 0, 0, 0];
    assert_valid(&i, g);
}

// ---- S2_BN (isa-facts §6) -----------------------------------------------------------------

fn bn(i: &mut Instruction) -> &mut S2Bn {
    match &mut i.body {
        Body::S2Bn(s) => s,
        _ => unreachable!(),
    }
}

#[test]
fn imm_ld_rules() {
    let g = Gen::Cayman;
    let mut i = imm_ld(g, 0x70);
    bn(&mut i).src_mem_pattern.num_elem = [3, 3];
    assert_fails(
        &i,
        g,
        "has_tsm_immediates_load_src_element_cnt",
        "src_mem_pattern.num_elem",
    );
    // cayman+: shape from register escapes the count check; sunda has no escape.
    bn(&mut i).src_mem_pattern.start_addr = Addr4(0x4000_0100);
    assert_valid(&i, g);
    let mut s = imm_ld(Gen::Sunda, 0x70);
    bn(&mut s).src_mem_pattern.num_elem = [3, 3];
    bn(&mut s).src_mem_pattern.start_addr = Addr4(0x4000_0100);
    assert_fails(
        &s,
        Gen::Sunda,
        "has_tsm_immediates_load_src_element_cnt",
        "src_mem_pattern.num_elem",
    );

    let mut i = imm_ld(g, 0x70);
    bn(&mut i).imm1 = ImmVal(0x8000_0000); // −0.0 == 0.0 in fp32
    assert_valid(&i, g);
    bn(&mut i).imm1 = ImmVal(1);
    assert_fails(&i, g, "has_s2_bn_zero_immediates", "imm1");
    let mut i = imm_ld(g, 0x70);
    bn(&mut i).imm0_src = ImmSrc::POINTER;
    assert_fails(&i, g, "has_s2_bn_zero_immediates", "imm0_src");

    let mut b = imm_ld(g, 0x71);
    bn(&mut b).dtype = Dtype::INT16;
    assert_fails(&b, g, "tsm_immld_dtypes", "dtype");
    bn(&mut b).dtype = Dtype::UINT16;
    assert_valid(&b, g);
    let mut a = imm_ld(g, 0x70);
    bn(&mut a).dtype = Dtype::INT16;
    assert_valid(&a, g);
    bn(&mut a).dtype = Dtype::FP32R;
    assert_fails(&a, g, "is_valid_dtype", "dtype");

    let mut i = imm_ld(g, 0x71);
    bn(&mut i).reserved3.0[14] = 9;
    assert_fails(&i, g, "s2_bn_reserved_zero", "reserved3");
    // The source may be in PSUM.
    let mut i = imm_ld(g, 0x70);
    bn(&mut i).src_mem_pattern.start_addr = Addr4::at(g, Space::Psum, 0, 0).unwrap();
    assert_valid(&i, g);
}

// ---- S2D2_TS_AS (seed 002) ----------------------------------------------------------------

fn asel(i: &mut Instruction) -> &mut S2d2TsAs {
    match &mut i.body {
        Body::S2d2TsAs(s) => s,
        _ => unreachable!(),
    }
}

// seed 002 §7: PSUM allowed only on sunda.
#[test]
fn seed002_psum_only_on_sunda() {
    for g in [Gen::Sunda, Gen::Cayman, Gen::Mariana] {
        let mut i = affine_select(g);
        asel(&mut i).src_mem_pattern.start_addr = Addr4::at(g, Space::Psum, 0, 0).unwrap();
        if g == Gen::Sunda {
            assert_valid(&i, g);
        } else {
            assert_fails(
                &i,
                g,
                "tensor_start_addr_valid",
                "src_mem_pattern.start_addr",
            );
        }
    }
}

#[test]
fn seed002_counts_cmp_register_dtypes() {
    let g = Gen::Cayman;
    let mut i = affine_select(g);
    asel(&mut i).mask_pattern.num_elem = [256, 1, 1, 1];
    assert_fails(
        &i,
        g,
        "s2d2_ts_as_valid_elem_count",
        "mask_pattern.num_elem",
    );
    // Extra ramp dims fold into the same total (seed 002 §3.1 GOTCHA).
    asel(&mut i).mask_pattern.num_elem = [256, 2, 1, 1];
    assert_valid(&i, g);
    let mut i = affine_select(g);
    asel(&mut i).dst_mem_pattern.num_elem = [511, 1];
    assert_fails(
        &i,
        g,
        "s2d2_ts_as_valid_elem_count",
        "dst_mem_pattern.num_elem",
    );
    // cayman+: shape from register waives the count check; sunda does not.
    asel(&mut i).dst_mem_pattern.start_addr = Addr4(0x4000_0800);
    assert_valid(&i, g);
    let mut i = affine_select(g);
    asel(&mut i).fill_mode = AffineSelectCmp(4);
    assert_fails(&i, g, "is_valid_enum", "fill_mode");
    let mut i = affine_select(g);
    asel(&mut i).fill_reg = 64;
    assert_fails(&i, g, "is_valid_register_read", "fill_reg");
    let mut i = affine_select(g);
    asel(&mut i).in_out_dtype = DtypePair::new(Dtype::FP32R, Dtype::FP32);
    assert_fails(&i, g, "is_valid_dtype", "in_out_dtype.dtype_lo");
    asel(&mut i).in_out_dtype = DtypePair::new(Dtype::INT8, Dtype::FP32R);
    assert_valid(&i, g);
    asel(&mut i).in_out_dtype = DtypePair::new(Dtype::INT8, Dtype::UINT64);
    assert_fails(&i, g, "is_valid_dtype", "in_out_dtype.dtype_hi");
}

// ---- D4_IOTA ------------------------------------------------------------------------------

#[test]
fn iota_rules() {
    let g = Gen::Mariana;
    fn body(i: &mut Instruction) -> &mut D4Iota {
        match &mut i.body {
            Body::D4Iota(s) => s,
            _ => unreachable!(),
        }
    }
    let mut i = iota(g);
    body(&mut i).reserved2.0[0] = 1;
    assert_fails(&i, g, "d4_iota_reserved_zero", "reserved2");
    let mut i = iota(g);
    body(&mut i).dst_mem_pattern.num_elem[0] = 127;
    assert_fails(
        &i,
        g,
        "d4_iota_same_src_dst_count",
        "dst_mem_pattern.num_elem",
    );
    let mut i = iota(g);
    body(&mut i).out_dtype = Dtype::INVALID;
    assert_fails(&i, g, "is_valid_dtype", "out_dtype");
}

// ---- S3D3_TS ------------------------------------------------------------------------------

fn ts(i: &mut Instruction) -> &mut S3d3Ts {
    match &mut i.body {
        Body::S3d3Ts(s) => s,
        _ => unreachable!(),
    }
}

#[test]
fn tensor_scalar_rules() {
    let g = Gen::Cayman;
    let mut i = tensor_scalar(g, 0x43);
    ts(&mut i).op0 = AluOp::BYPASS;
    assert_fails(&i, g, "tensor_scalar_valid_ops", "op1");
    let mut i = tensor_scalar(g, 0x43);
    ts(&mut i).op0 = AluOp::RSQRT;
    ts(&mut i).op1 = AluOp::BYPASS;
    assert_fails(&i, g, "tensor_scalar_valid_ops", "op0/op1");
    ts(&mut i).imm0 = ImmVal(0);
    ts(&mut i).imm1 = ImmVal(0);
    assert_valid(&i, g); // the Rsqrt special case
    let mut i = tensor_scalar(g, 0x43);
    ts(&mut i).accumulator_cmd = AccumCmd::ACCUMULATE;
    assert_fails(&i, g, "has_zero_accum_cmd_field", "accumulator_cmd");
    let mut i = tensor_scalar(g, 0x53);
    ts(&mut i).imm0 = ImmVal(0x1_0000_u32.wrapping_mul(0x100)); // fine for u32
    assert_valid(&i, g);
    let s = ts(&mut i);
    (s.in_dtype, s.out_dtype, s.imm0) = (Dtype::UINT8, Dtype::UINT8, ImmVal(0x100));
    assert_fails(&i, g, "ts_imm_chk", "imm0");
    let s = ts(&mut i);
    (s.imm0, s.op0) = (ImmVal(3), AluOp::ARITH_SHIFT_RIGHT);
    assert_fails(&i, g, "tensor_scalar_shift_chk", "in_dtype");
    let mut i = tensor_scalar(g, 0x53);
    ts(&mut i).op1 = AluOp::ADD;
    assert_fails(&i, g, "tensor_scalar_valid_ops", "op1");
    // Maverick's DVE integer arm admits add_int in TensorScalarArith.
    let mut m = tensor_scalar(Gen::Maverick, 0x43);
    ts(&mut m).op0 = AluOp::ADD_INT;
    ts(&mut m).op1 = AluOp::BYPASS;
    assert_valid(&m, Gen::Maverick);
    let mut c = tensor_scalar(g, 0x43);
    ts(&mut c).op0 = AluOp::ADD_INT;
    ts(&mut c).op1 = AluOp::BYPASS;
    assert_fails(&c, g, "tensor_scalar_valid_ops", "op0/op1");
    // Pointer and register immediates.
    let mut p = tensor_scalar(g, 0x43);
    ts(&mut p).imm0_src = ImmSrc::POINTER;
    ts(&mut p).imm0 = ImmVal(sbuf(g, 0, 0x2002).0);
    assert_fails(&p, g, "ts_ptr_imm_chk", "imm0");
    ts(&mut p).imm0_src = ImmSrc::REG_PTR;
    ts(&mut p).imm0 = ImmVal(70);
    assert_fails(&p, g, "is_valid_imm_reg", "imm0");
    // TensorScalarPtr forces both srcs to 0.
    let mut q = tensor_scalar(g, 0x44);
    ts(&mut q).imm1_src = ImmSrc::POINTER;
    assert_fails(&q, g, "tensor_scalar_ptr_imm_src", "imm0_src/imm1_src");
}

#[test]
fn select_and_range_select_rules() {
    let g = Gen::Cayman;
    let mut i = ts_select(g);
    if let Body::S3d3TsSelect(s) = &mut i.body {
        s.pred_imm = ImmVal(2);
    }
    assert_fails(&i, g, "tensor_scalar_select_valid", "pred_imm");
    let mut i = ts_select(g);
    if let Body::S3d3TsSelect(s) = &mut i.body {
        s.pred_imm_dtype = Dtype::INT16;
    }
    assert_fails(&i, g, "tensor_scalar_select_dtypes", "pred_imm_dtype");
    // isa-facts §10.1 (ASSUMED rule): both reserved fields must be zero.
    for (field, set) in [
        (
            "reserved0",
            (|s: &mut S3d3TsSelect| s.reserved0.0[3] = 1) as fn(&mut S3d3TsSelect),
        ),
        ("reserved1", |s: &mut S3d3TsSelect| s.reserved1.0[1] = 0x80),
    ] {
        let mut i = ts_select(g);
        assert_valid(&i, g);
        if let Body::S3d3TsSelect(s) = &mut i.body {
            set(s);
        }
        assert_fails(&i, g, "s3d3_ts_select_reserved_zero", field);
    }

    let rs = range_select(Gen::Cayman).encode();
    let sunda = Instruction::decode(&rs, Gen::Sunda);
    assert_fails(
        &sunda,
        Gen::Sunda,
        "has_valid_neuron_header",
        "header.opcode",
    );
    let mut i = range_select(g);
    if let Body::S2d2Rs(s) = &mut i.body {
        s.fill_val = F32Bits(0xFF80_0000);
        s.comp_op1 = AluOp::IS_NE;
        s.in_out_dtype = DtypePair::new(Dtype::INT32, Dtype::FP32);
    }
    let f = failures(&i, g);
    assert!(
        f.contains(&("range_select_valid".into(), "fill_val".into())),
        "{f:?}"
    );
    assert!(
        f.contains(&("range_select_valid".into(), "comp_op1".into())),
        "{f:?}"
    );
    assert!(
        f.contains(&(
            "is_valid_fp_dtype_datapath".into(),
            "in_out_dtype.dtype_lo".into()
        )),
        "{f:?}"
    );
}

// decisions §2.1: every failure is reported, not just the first; the rule walk shows passes.
#[test]
fn every_failure_is_reported_and_walk_lists_passes() {
    let g = Gen::Cayman;
    let mut i = ptr_multi(g, 0x4F);
    let s = ptr(&mut i);
    s.src_mem_pattern.num_elem[3] = 9;
    s.op_dim = TensorSubdim::X;
    s.reverse_operands = RevOps::FIRST;
    let r = validate(&i, g);
    assert!(r.failures().count() >= 3);
    let walk = rule_walk(&i, g);
    assert!(walk.findings.iter().filter(|f| f.passed).count() > 10);
    let line = r.failures().next().unwrap().to_string();
    assert!(
        line.starts_with("FAIL has_valid_src_slices_tsm_singular"),
        "{line}"
    );
    assert!(line.contains("seed 000 §5a"), "{line}");
    assert!(line.contains("HIGH/OBSERVED"), "{line}");
}

// Issue 8 item 14 — seed 001 "mem4d_valid — the destination check" (indirect branch) and
// "QUIRK — an indirect 4D descriptor reinterprets +4 as a second address": with marker 0x20
// the word at +4 is a second address, checked as one, and the count sweep is skipped.
#[test]
fn seed001_mem4d_indirect_second_address_is_checked_and_counts_skipped() {
    let g = Gen::Cayman;
    let mut i = ptr_multi(g, 0x4F);
    // The reproducer: dst 0x20001000 with +4 = 0xFFFFFFFF validated before.
    ptr(&mut i).dst_mem_pattern.start_addr = Addr4(0x2000_1000);
    ptr(&mut i).dst_mem_pattern.step_elem[0] = -1;
    ptr(&mut i).dst_mem_pattern.step_elem[1] = -1;
    assert_fails(
        &i,
        g,
        "tensor_start_addr_valid",
        "dst_mem_pattern.indirect_addr",
    );
    // A second address inside SBUF passes, even with a zero count (no count sweep), and
    // misalignment of the second address for the operand's dtype (fp32) fails.
    let second = sbuf(g, 0, 0x2000).0;
    ptr(&mut i).dst_mem_pattern.step_elem[0] = second as u16 as i16;
    ptr(&mut i).dst_mem_pattern.step_elem[1] = (second >> 16) as u16 as i16;
    let f = failures(&i, g);
    assert!(
        !f.iter()
            .any(|(_, fl)| fl.starts_with("dst_mem_pattern.indirect")
                || fl.starts_with("dst_mem_pattern.num_elem[")
                || fl == "dst_mem_pattern.start_addr"),
        "{f:?}"
    );
    ptr(&mut i).dst_mem_pattern.num_elem[2] = 0;
    let f = failures(&i, g);
    assert!(!f.iter().any(|(r, _)| r == "tensor4d_valid"), "{f:?}");
    ptr(&mut i).dst_mem_pattern.step_elem[0] = (second + 2) as u16 as i16;
    assert_fails(&i, g, "addr_aligned_dtype", "dst_mem_pattern.indirect_addr");
    // `explain` labels +4 as the second address, not as step_elem[0..1].
    let parts = ptr(&mut i).dst_mem_pattern.parts(g);
    assert!(parts.iter().any(|(n, off, size, v)| n == ".indirect_addr"
        && (*off, *size) == (4, 4)
        && v.starts_with("second address")));
    assert!(!parts
        .iter()
        .any(|(n, ..)| n == ".step_elem[0]" || n == ".step_elem[1]"));
    // The source (tensor4d_valid, a read) keeps the plain reading.
    let mut j = ptr_multi(g, 0x4F);
    ptr(&mut j).src_mem_pattern.start_addr = Addr4(0x2000_0000);
    ptr(&mut j).src_mem_pattern.num_elem[0] = 0;
    assert_fails(&j, g, "tensor4d_valid", "src_mem_pattern.num_elem[0]");
}

// Issue 8 item 15 — seed 001 "tensor4d_valid — the source check" (v4 bound) and
// "mem4d_valid" (marker 0x20): tpb's documented choices (docs/reference/assumptions.md
// `v4-tensor4d-bound`, `indirect-marker`). A mariana 4D source from partition 32 or in PSUM
// stays valid (the compiler model's ≤ 0x3FFFFF bound is not applied), and marker 0x20 is the
// indirect form, never read as PSUM.
#[test]
fn seed001_v4_source_bound_not_applied_and_marker_0x20_is_indirect() {
    let g = Gen::Mariana;
    let mut i = ptr_multi(g, 0x4F);
    ptr(&mut i).num_active_channels = 32;
    ptr(&mut i).src_mem_pattern.start_addr = sbuf(g, 32, 0);
    ptr(&mut i).dst_mem_pattern.start_addr = sbuf(g, 32, 0x1000);
    assert!(ptr(&mut i).src_mem_pattern.start_addr.0 > 0x3F_FFFF);
    assert_valid(&i, g);
    let psum = Addr4::at(g, Space::Psum, 0, 0).unwrap();
    ptr(&mut i).src_mem_pattern.start_addr = Addr4::at(g, Space::Psum, 32, 0).unwrap();
    assert_ne!(psum.0 & 0x1E00_0000, 0);
    assert_valid(&i, g);
    let marked = u32::from(Addr4::MARKER_INDIRECT) << 24;
    assert_eq!(Addr4(marked).form(), AddrForm::Indirect);
    assert_eq!(Addr4(marked).locate(g), None, "0x20 is not a PSUM flag");
}

// Issue 16 item 6 (seed audit): a PtrMulti operand may be in SBUF or PSUM (isa-facts §8,
// seed 000 §5b), so both placement clauses name that set, whether they pass or fail; the
// allowed set comes from the operand's flags, not from the failure text.
#[test]
fn placement_clauses_name_the_operands_allowed_set() {
    for gen in Gen::ALL {
        let walk = rule_walk(&ptr_multi(gen, 0x4F), gen);
        let placement: Vec<_> = walk
            .findings
            .iter()
            .filter(|f| {
                f.rule.clause.starts_with("allowed_in_psum")
                    || f.rule.clause.starts_with("allowed_in_sbuf")
            })
            .collect();
        assert_eq!(placement.len(), 4, "{gen}: two operands × two clauses");
        for f in placement {
            assert!(f.passed, "{gen}: {f}");
            assert_eq!(f.allowed, format!("SBUF or PSUM for this operand on {gen}"));
        }
    }
}
