//! Hand-checked cases for every instruction, events, faults and warnings.
#![allow(clippy::needless_range_loop)] // plain index loops read like the expectations

mod support;

use support::*;
use tpb_isa::geometry::Space;
use tpb_isa::wire::{Addr4, DtypePair, F32Bits, ImmVal};
use tpb_isa::{
    AccumCmd, AluOp, Body, Dtype, Gen, ImmSrc, Instruction, RevOps, TensorSubdim, UpdateMode,
    WaitMode,
};
use tpb_sim::{Config, FaultCause, FlopKind, Flops, Machine, WarningKind};

fn imm_ld(gen: Gen, arith: bool, dtype: Dtype, n: u8, off: u32, w: u16) -> Instruction {
    let mut i = inst(if arith { 0x70 } else { 0x71 }, gen);
    let Body::S2Bn(s) = &mut i.body else {
        unreachable!()
    };
    s.dtype = dtype;
    s.num_active_channels = n;
    s.src_mem_pattern = tensor(sbuf(gen, 0, off), &[(1, w)]);
    i
}

#[allow(clippy::too_many_arguments)]
fn ptr_multi(
    gen: Gen,
    op_code: u8,
    op: AluOp,
    rev: RevOps,
    dt: (Dtype, Dtype),
    n: u8,
    src: (u32, [u16; 4]),
    dst_off: u32,
) -> Instruction {
    let mut i = inst(op_code, gen);
    let Body::S4d4Tsm(s) = &mut i.body else {
        unreachable!()
    };
    let nums = src.1;
    let count: u16 = nums.iter().product();
    s.src_mem_pattern = tensor(
        sbuf(gen, 0, src.0),
        &[
            (1, nums[0]),
            (nums[0] as i16, nums[1]),
            ((nums[0] * nums[1]) as i16, nums[2]),
            ((nums[0] * nums[1] * nums[2]) as i16, nums[3]),
        ],
    );
    s.dst_mem_pattern = tensor(sbuf(gen, 0, dst_off), &[(1, count)]);
    s.in_dtype = dt.0;
    s.out_dtype = dt.1;
    s.num_active_channels = n;
    s.op = op;
    s.op_dim = TensorSubdim::XYZ;
    s.reverse_operands = rev;
    i
}

#[test]
fn imm_ld_then_ptr_multi_mult_per_w_slice() {
    let gen = Gen::Cayman;
    let mut m = Machine::new(Config::new(gen));
    // Scalars per channel as bf16 at 0x40: channel 0 → [2, -1], channel 1 → [0.5, 3].
    let sc = [[2f32, -1.0], [0.5, 3.0]];
    let rows: Vec<Vec<u32>> = sc
        .iter()
        .map(|r| {
            r.iter()
                .map(|&x| half::bf16::from_f32(x).to_bits() as u32)
                .collect()
        })
        .collect();
    write_rows(&mut m, Space::Sbuf, 0, 0x40, Dtype::BFLOAT16, &rows);
    let r = m
        .step(&imm_ld(gen, true, Dtype::BFLOAT16, 2, 0x40, 2))
        .unwrap();
    assert_eq!(r.flops_loaded, Some((2, 2)));
    assert_eq!(m.flops()[1].slots[..2], [0.5f32.to_bits(), 3f32.to_bits()]);
    assert_eq!(
        (m.flops()[0].loaded, m.flops()[0].kind),
        (2, Some(FlopKind::Arith))
    );
    // src [W=2, Z=1, Y=1, X=3] fp32 at 0x100: channel c, element k = 10c + k.
    let src: Vec<Vec<f32>> = (0..2)
        .map(|c| (0..6).map(|k| (10 * c + k) as f32).collect())
        .collect();
    write_rows(&mut m, Space::Sbuf, 0, 0x100, Dtype::FP32, &f32_rows(&src));
    let pm = ptr_multi(
        gen,
        0x4F,
        AluOp::MULT,
        RevOps::NONE,
        (Dtype::FP32, Dtype::FP32),
        2,
        (0x100, [3, 1, 1, 2]),
        0x200,
    );
    let r = m.step(&pm).unwrap();
    assert!(r.warnings.is_empty(), "{:?}", r.warnings);
    assert_eq!(r.elements, 12);
    assert_eq!(r.bytes_written, 48);
    let got = read_rows(&m, Space::Sbuf, 0, 2, 0x200, Dtype::FP32, 6);
    let want = [
        [0.0, 2.0, 4.0, -3.0, -4.0, -5.0],
        [5.0, 5.5, 6.0, 39.0, 42.0, 45.0],
    ];
    for c in 0..2 {
        for k in 0..6 {
            assert_eq!(f32::from_bits(got[c][k]), want[c][k], "c{c} k{k}");
        }
    }
}

#[test]
fn ptr_multi_both_reverses_to_scalar_op_tensor() {
    let gen = Gen::Mariana;
    let mut m = Machine::new(Config::new(gen));
    m.set_flops(
        0,
        Flops {
            slots: [10f32.to_bits(), 0, 0, 0, 0, 0, 0, 0],
            loaded: 1,
            kind: Some(FlopKind::Arith),
        },
    )
    .unwrap();
    write_rows(
        &mut m,
        Space::Sbuf,
        0,
        0,
        Dtype::FP32,
        &f32_rows(&[vec![1.0, 2.0, 3.0]]),
    );
    let pm = |rev| {
        ptr_multi(
            gen,
            0x4F,
            AluOp::SUBTRACT,
            rev,
            (Dtype::FP32, Dtype::FP32),
            1,
            (0, [3, 1, 1, 1]),
            0x40,
        )
    };
    m.step(&pm(RevOps::BOTH)).unwrap();
    let got = read_rows(&m, Space::Sbuf, 0, 1, 0x40, Dtype::FP32, 3);
    assert_eq!(got[0], f32_rows(&[vec![9.0, 8.0, 7.0]])[0]); // 10 - t
    m.step(&pm(RevOps::NONE)).unwrap();
    let got = read_rows(&m, Space::Sbuf, 0, 1, 0x40, Dtype::FP32, 3);
    assert_eq!(got[0], f32_rows(&[vec![-9.0, -8.0, -7.0]])[0]); // t - 10
}

#[test]
fn ptr_multi_bitvec_and_loader_warnings() {
    let gen = Gen::Sunda;
    let mut m = Machine::new(Config::new(gen));
    write_rows(
        &mut m,
        Space::Sbuf,
        0,
        0,
        Dtype::UINT32,
        &[vec![0xF0, 0x0F, 0xFF]],
    );
    // ImmLdBitvec loads 2 scalars; PtrMulti reads W = 3 → loader warning (stale slot 2 = 0).
    m.step(&imm_ld(gen, false, Dtype::UINT32, 1, 0, 2)).unwrap();
    assert_eq!(m.flops()[0].kind, Some(FlopKind::Bitvec));
    write_rows(
        &mut m,
        Space::Sbuf,
        0,
        0x40,
        Dtype::UINT8,
        &[vec![0xFF, 0xFF, 0x3C]],
    );
    let pm = ptr_multi(
        gen,
        0x5F,
        AluOp::BITWISE_AND,
        RevOps::NONE,
        (Dtype::UINT8, Dtype::UINT8),
        1,
        (0x40, [1, 1, 1, 3]),
        0x80,
    );
    let r = m.step(&pm).unwrap();
    assert_eq!(r.warnings.len(), 1);
    assert_eq!(r.warnings[0].kind, WarningKind::LoaderMismatch);
    assert!(
        r.warnings[0].to_string().contains("instruction #1 (0x5f"),
        "{}",
        r.warnings[0]
    );
    assert!(
        r.warnings[0].message.contains("only 2 loaded"),
        "{}",
        r.warnings[0]
    );
    assert_eq!(
        read_rows(&m, Space::Sbuf, 0, 1, 0x80, Dtype::UINT8, 3),
        vec![vec![0xF0, 0x0F, 0x00]]
    );
    // An arith PtrMulti over bitvec-loaded flops: kind warning; strict: a fault, no change.
    let pa = ptr_multi(
        gen,
        0x4F,
        AluOp::ADD,
        RevOps::NONE,
        (Dtype::UINT8, Dtype::FP32),
        1,
        (0x40, [1, 1, 1, 2]),
        0x100,
    );
    let r = m.clone().step(&pa).unwrap();
    assert_eq!(r.warnings[0].kind, WarningKind::LoaderMismatch);
    let mut strict = Machine::new(Config {
        strict: true,
        ..Config::new(gen)
    });
    write_rows(
        &mut strict,
        Space::Sbuf,
        0,
        0x40,
        Dtype::UINT8,
        &[vec![1, 2]],
    );
    let before = strict.clone();
    let e = strict.step(&pa).unwrap_err();
    assert!(
        matches!(e.cause, FaultCause::Strict(WarningKind::LoaderMismatch, _)),
        "{e}"
    );
    assert!(strict == before);
}

#[test]
fn sunda_dual_pairs_and_disabled_bitvec() {
    let gen = Gen::Sunda;
    let mut m = Machine::new(Config::new(gen));
    // pairs: (add 1, mult 2), (add 10, mult -1)
    m.set_flops(
        0,
        Flops {
            slots: [1f32, 2.0, 10.0, -1.0, 0.0, 0.0, 0.0, 0.0].map(f32::to_bits),
            loaded: 4,
            kind: Some(FlopKind::Arith),
        },
    )
    .unwrap();
    write_rows(
        &mut m,
        Space::Sbuf,
        0,
        0,
        Dtype::FP32,
        &f32_rows(&[vec![1.0, 2.0, 3.0, 4.0]]),
    );
    let d = ptr_multi(
        gen,
        0x87,
        AluOp::ADD,
        RevOps::NONE,
        (Dtype::FP32, Dtype::FP32),
        1,
        (0, [2, 1, 1, 2]),
        0x40,
    );
    m.step(&d).unwrap();
    let got = read_rows(&m, Space::Sbuf, 0, 1, 0x40, Dtype::FP32, 4);
    // (t + 1) * 2 for slice 0, (t + 10) * -1 for slice 1.
    assert_eq!(got[0], f32_rows(&[vec![4.0, 6.0, -13.0, -14.0]])[0]);
    let mut b = d;
    b.header.opcode = tpb_isa::Opcode(0x88);
    if let Body::S4d4Tsm(s) = &mut b.body {
        s.op = AluOp::BITWISE_AND;
        s.in_dtype = Dtype::UINT32;
        s.out_dtype = Dtype::UINT32;
    }
    let e = m.step(&b).unwrap_err();
    assert!(matches!(e.cause, FaultCause::Disabled { .. }), "{e}");
    // Off sunda, 0x87 is not an opcode at all: invalid.
    let mut c = Machine::new(Config::new(Gen::Cayman));
    let e = c.step(&d).unwrap_err();
    assert!(matches!(e.cause, FaultCause::Invalid { .. }), "{e}");
}

fn iota(gen: Gen, out: Dtype, n: u8, base: i32, cm: i32, pairs: &[(i16, u16)]) -> Instruction {
    let mut i = inst(0x7E, gen);
    let Body::D4Iota(s) = &mut i.body else {
        unreachable!()
    };
    let count: u16 = pairs.iter().map(|p| p.1).product();
    s.out_dtype = out;
    s.num_active_channels = n;
    s.channel_multiplier = cm;
    s.src_data_pattern = data4d(base, pairs);
    s.dst_mem_pattern = tensor(sbuf(gen, 0, 0x400), &[(1, count)]);
    i
}

#[test]
fn iota_ramps_and_output_conversions() {
    let gen = Gen::Maverick;
    let mut m = Machine::new(Config::new(gen));
    // attention_bwd: iota(pattern [[T, n]], offset 1, channel_multiplier 1) → p + T·j + 1.
    m.step(&iota(gen, Dtype::FP32, 3, 1, 1, &[(8, 4)])).unwrap();
    let got = read_rows(&m, Space::Sbuf, 0, 3, 0x400, Dtype::FP32, 4);
    for p in 0..3 {
        for j in 0..4 {
            assert_eq!(f32::from_bits(got[p][j]), (p + 8 * j + 1) as f32);
        }
    }
    // 2-D ramp, negative step; int8 wraps: 120 + 5x - 100y + 7c.
    m.step(&iota(gen, Dtype::INT8, 2, 120, 7, &[(5, 3), (-100, 2)]))
        .unwrap();
    let got = read_rows(&m, Space::Sbuf, 0, 2, 0x400, Dtype::INT8, 6);
    assert_eq!(got[0], vec![120, 125, 130, 20, 25, 30]);
    assert_eq!(got[1], vec![127, 132, 137, 27, 32, 37]);
    // Wrapping i32 ramp: base i32::MAX + 1 → i32::MIN.
    m.step(&iota(gen, Dtype::INT32, 1, i32::MAX, 0, &[(1, 2)]))
        .unwrap();
    let got = read_rows(&m, Space::Sbuf, 0, 1, 0x400, Dtype::INT32, 2);
    assert_eq!(got[0], vec![i32::MAX as u32, i32::MIN as u32]);
    // bf16: 257 → fp32 257 → bf16 RNE 256 (0x4380); 259 → 260 (0x4382).
    m.step(&iota(gen, Dtype::BFLOAT16, 1, 257, 0, &[(2, 2)]))
        .unwrap();
    let got = read_rows(&m, Space::Sbuf, 0, 1, 0x400, Dtype::BFLOAT16, 2);
    assert_eq!(got[0], vec![0x4380, 0x4382]);
}

#[allow(clippy::too_many_arguments)]
fn ts(
    gen: Gen,
    op_code: u8,
    ops: (AluOp, AluOp),
    rev: RevOps,
    dt: (Dtype, Dtype),
    n: u8,
    imms: ((ImmSrc, u32), (ImmSrc, u32)),
    count: u16,
) -> Instruction {
    let mut i = inst(op_code, gen);
    let Body::S3d3Ts(s) = &mut i.body else {
        unreachable!()
    };
    s.src_mem_pattern = tensor(sbuf(gen, 0, 0), &[(1, count)]);
    s.dst_mem_pattern = tensor(sbuf(gen, 0, 0x100), &[(1, count)]);
    s.in_dtype = dt.0;
    s.out_dtype = dt.1;
    s.num_active_channels = n;
    s.op0 = ops.0;
    s.op1 = ops.1;
    s.reverse_operands = rev;
    s.imm0_src = imms.0 .0;
    s.imm0 = ImmVal(imms.0 .1);
    s.imm1_src = imms.1 .0;
    s.imm1 = ImmVal(imms.1 .1);
    i
}

#[test]
fn tensor_scalar_formula_reverse_and_pointers() {
    let gen = Gen::Cayman;
    let mut m = Machine::new(Config::new(gen));
    write_rows(
        &mut m,
        Space::Sbuf,
        0,
        0,
        Dtype::FP32,
        &f32_rows(&[vec![1.0, 2.0], vec![3.0, 4.0]]),
    );
    let imm = |x: f32| (ImmSrc::INSTRUCTION, x.to_bits());
    // None: (t * 2) + 1.
    m.step(&ts(
        gen,
        0x43,
        (AluOp::MULT, AluOp::ADD),
        RevOps::NONE,
        (Dtype::FP32, Dtype::FP32),
        2,
        (imm(2.0), imm(1.0)),
        2,
    ))
    .unwrap();
    let got = read_rows(&m, Space::Sbuf, 0, 2, 0x100, Dtype::FP32, 2);
    assert_eq!(got, f32_rows(&[vec![3.0, 5.0], vec![7.0, 9.0]]));
    // Both: s1 - (s0 - t) with s0 = 10, s1 = 100 → 90 + t.
    m.step(&ts(
        gen,
        0x43,
        (AluOp::SUBTRACT, AluOp::SUBTRACT),
        RevOps::BOTH,
        (Dtype::FP32, Dtype::FP32),
        2,
        (imm(10.0), imm(100.0)),
        2,
    ))
    .unwrap();
    let got = read_rows(&m, Space::Sbuf, 0, 2, 0x100, Dtype::FP32, 2);
    assert_eq!(got, f32_rows(&[vec![91.0, 92.0], vec![93.0, 94.0]]));
    // Second: s1 - (t - s0); op1 BYPASS reversed still passes the data (assumption).
    m.step(&ts(
        gen,
        0x43,
        (AluOp::SUBTRACT, AluOp::BYPASS),
        RevOps::SECOND,
        (Dtype::FP32, Dtype::INT32),
        2,
        (imm(0.5), imm(100.0)),
        2,
    ))
    .unwrap();
    let got = read_rows(&m, Space::Sbuf, 0, 2, 0x100, Dtype::INT32, 2);
    // 0.5 → 0 (RNE), 1.5 → 2, 2.5 → 2, 3.5 → 4.
    assert_eq!(got, vec![vec![0, 2], vec![2, 4]]);
    // Pointer scalars: per channel fp32 at 0x80; RegPtr via register 9 holding 0x84.
    write_rows(
        &mut m,
        Space::Sbuf,
        0,
        0x80,
        Dtype::FP32,
        &f32_rows(&[vec![2.0, 5.0], vec![3.0, 7.0]]),
    );
    m.set_register(9, 0x84).unwrap();
    m.step(&ts(
        gen,
        0x43,
        (AluOp::MULT, AluOp::ADD),
        RevOps::NONE,
        (Dtype::FP32, Dtype::FP32),
        2,
        ((ImmSrc::POINTER, 0x80), (ImmSrc::REG_PTR, 9)),
        2,
    ))
    .unwrap();
    let got = read_rows(&m, Space::Sbuf, 0, 2, 0x100, Dtype::FP32, 2);
    assert_eq!(got, f32_rows(&[vec![7.0, 9.0], vec![16.0, 19.0]]));
    // TensorScalarPtr 0x44: both immediates are pointers (src fields 0).
    m.step(&ts(
        gen,
        0x44,
        (AluOp::MULT, AluOp::ADD),
        RevOps::NONE,
        (Dtype::FP32, Dtype::FP32),
        2,
        ((ImmSrc::INSTRUCTION, 0x80), (ImmSrc::INSTRUCTION, 0x84)),
        2,
    ))
    .unwrap();
    let got = read_rows(&m, Space::Sbuf, 0, 2, 0x100, Dtype::FP32, 2);
    assert_eq!(got, f32_rows(&[vec![7.0, 9.0], vec![16.0, 19.0]]));
}

#[test]
fn tensor_scalar_bitvec_and_crc32_refused() {
    let gen = Gen::Mariana;
    let mut m = Machine::new(Config::new(gen));
    write_rows(
        &mut m,
        Space::Sbuf,
        0,
        0,
        Dtype::UINT16,
        &[vec![0x00F0, 0x8001]],
    );
    let imm = |x: u32| (ImmSrc::INSTRUCTION, x);
    // (t << 4) ^ 0x00FF, on 16 bits.
    m.step(&ts(
        gen,
        0x53,
        (AluOp::LOGICAL_SHIFT_LEFT, AluOp::BITWISE_XOR),
        RevOps::NONE,
        (Dtype::UINT16, Dtype::UINT16),
        1,
        (imm(4), imm(0xFF)),
        2,
    ))
    .unwrap();
    let got = read_rows(&m, Space::Sbuf, 0, 1, 0x100, Dtype::UINT16, 2);
    assert_eq!(got[0], vec![0x0FFF, 0x00EF]);
    let before = m.clone();
    let e = m
        .step(&ts(
            gen,
            0x53,
            (AluOp::CRC32, AluOp::BYPASS),
            RevOps::NONE,
            (Dtype::UINT16, Dtype::UINT16),
            1,
            (imm(0), imm(0)),
            2,
        ))
        .unwrap_err();
    assert!(e.is_unsupported(), "{e}");
    assert!(
        e.to_string()
            .contains("not supported: semantics not public"),
        "{e}"
    );
    assert!(m == before);
}

#[test]
fn maverick_integer_arm_wraps_in_32_bits() {
    let gen = Gen::Maverick;
    let mut m = Machine::new(Config::new(gen));
    write_rows(
        &mut m,
        Space::Sbuf,
        0,
        0,
        Dtype::INT32,
        &[vec![i32::MAX as u32, (-5i32) as u32]],
    );
    m.step(&ts(
        gen,
        0x43,
        (AluOp::ADD_INT, AluOp::BYPASS),
        RevOps::NONE,
        (Dtype::INT32, Dtype::INT32),
        1,
        ((ImmSrc::INSTRUCTION, 1), (ImmSrc::INSTRUCTION, 0)),
        2,
    ))
    .unwrap();
    let got = read_rows(&m, Space::Sbuf, 0, 1, 0x100, Dtype::INT32, 2);
    assert_eq!(got[0], vec![i32::MIN as u32, (-4i32) as u32]);
}

fn ts_select(
    gen: Gen,
    dtype: Dtype,
    pred: (ImmSrc, u32),
    src1: (ImmSrc, u32),
    rev: u8,
) -> Instruction {
    let mut i = inst(0x98, gen);
    let Body::S3d3TsSelect(s) = &mut i.body else {
        unreachable!()
    };
    s.src0_mem_pattern = tensor(sbuf(gen, 0, 0), &[(1, 3)]);
    s.dst_mem_pattern = tensor(sbuf(gen, 0, 0x100), &[(1, 3)]);
    s.num_active_channels = 2;
    s.dtype = dtype;
    s.pred_imm_dtype = Dtype::UINT16;
    s.reversed_pred = rev;
    s.pred_imm_src = pred.0;
    s.pred_imm = ImmVal(pred.1);
    s.src1_imm_src = src1.0;
    s.src1_imm = ImmVal(src1.1);
    i
}

#[test]
fn ts_select_copies_or_fills() {
    let gen = Gen::Cayman;
    let mut m = Machine::new(Config::new(gen));
    write_rows(
        &mut m,
        Space::Sbuf,
        0,
        0,
        Dtype::BFLOAT16,
        &[vec![1, 2, 3], vec![4, 5, 6]],
    );
    let rd = |m: &Machine| read_rows(m, Space::Sbuf, 0, 2, 0x100, Dtype::BFLOAT16, 3);
    m.step(&ts_select(
        gen,
        Dtype::BFLOAT16,
        (ImmSrc::INSTRUCTION, 1),
        (ImmSrc::INSTRUCTION, 0xABCD_7777),
        0,
    ))
    .unwrap();
    assert_eq!(rd(&m), vec![vec![1, 2, 3], vec![4, 5, 6]]);
    m.step(&ts_select(
        gen,
        Dtype::BFLOAT16,
        (ImmSrc::INSTRUCTION, 1),
        (ImmSrc::INSTRUCTION, 0xABCD_7777),
        1,
    ))
    .unwrap();
    assert_eq!(rd(&m), vec![vec![0x7777; 3], vec![0x7777; 3]]);
    // Pointer predicate per channel (uint16 at 0x80): channel 0 false, channel 1 true.
    write_rows(
        &mut m,
        Space::Sbuf,
        0,
        0x80,
        Dtype::UINT16,
        &[vec![0], vec![9]],
    );
    m.step(&ts_select(
        gen,
        Dtype::BFLOAT16,
        (ImmSrc::POINTER, 0x80),
        (ImmSrc::INSTRUCTION, 0x1111),
        0,
    ))
    .unwrap();
    assert_eq!(rd(&m), vec![vec![0x1111; 3], vec![4, 5, 6]]);
}

#[test]
fn range_select_keeps_index_window() {
    let gen = Gen::Cayman;
    let mut m = Machine::new(Config::new(gen));
    let row: Vec<f32> = (0..8).map(|x| x as f32 + 0.5).collect();
    write_rows(&mut m, Space::Sbuf, 0, 0, Dtype::FP32, &f32_rows(&[row]));
    let mut i = inst(0xBC, gen);
    if let Body::S2d2Rs(s) = &mut i.body {
        s.num_active_channels = 1;
        s.in_out_dtype = DtypePair::new(Dtype::FP32, Dtype::FP32);
        s.reduce_op = AluOp::MAX;
        s.base = F32Bits(1f32.to_bits());
        s.fill_val = F32Bits(0xFF7F_FFFF);
        s.src_mem_pattern = tensor(sbuf(gen, 0, 0), &[(1, 8)]);
        s.dst_mem_pattern = tensor(sbuf(gen, 0, 0x100), &[(1, 8)]);
        s.comp_op0 = AluOp::IS_GE;
        s.comp_op1 = AluOp::IS_LT;
        s.bound0 = ImmVal(3f32.to_bits());
        s.bound1 = ImmVal(6f32.to_bits());
    }
    m.step(&i).unwrap();
    // index = 1 + k: kept where 3 <= 1 + k < 6, i.e. k = 2, 3, 4.
    let got = read_rows(&m, Space::Sbuf, 0, 1, 0x100, Dtype::FP32, 8);
    let f = 0xFF7F_FFFF;
    assert_eq!(
        got[0],
        vec![
            f,
            f,
            2.5f32.to_bits(),
            3.5f32.to_bits(),
            4.5f32.to_bits(),
            f,
            f,
            f
        ]
    );
    if let Body::S2d2Rs(s) = &mut i.body {
        s.reduce_cmd = AccumCmd::ACCUMULATE;
    }
    assert!(m.step(&i).unwrap_err().is_unsupported());
}

#[test]
fn events_wait_update_and_conflicts() {
    let gen = Gen::Cayman;
    let mut m = Machine::new(Config::new(gen));
    write_rows(
        &mut m,
        Space::Sbuf,
        0,
        0,
        Dtype::FP32,
        &f32_rows(&[vec![1.0]]),
    );
    let mut i = ts(
        gen,
        0x43,
        (AluOp::ADD, AluOp::BYPASS),
        RevOps::NONE,
        (Dtype::FP32, Dtype::FP32),
        1,
        ((ImmSrc::INSTRUCTION, 0), (ImmSrc::INSTRUCTION, 0)),
        1,
    );
    i.events.wait_mode = WaitMode::SEM_GE_IMM;
    i.events.wait_idx = 3;
    i.events.semaphore_value = 2;
    i.events.update_mode = UpdateMode::SEM_INC_COMPLETE;
    i.events.update_idx = 3;
    let before = m.clone();
    let e = m.step(&i).unwrap_err();
    assert!(matches!(e.cause, FaultCause::WaitUnsatisfied { .. }), "{e}");
    assert!(e.to_string().contains("semaphore 3 >= 2"), "{e}");
    assert!(m == before);
    m.set_semaphore(3, 2);
    m.step(&i).unwrap();
    assert_eq!(m.semaphores()[3], 3);
    // Event: wait set-then-clear on 5 and set 5 again in the update.
    i.events.wait_mode = WaitMode::EVT_SET_THEN_CLEAR;
    i.events.wait_idx = 5;
    i.events.update_mode = UpdateMode::EVT_SET_READ;
    i.events.update_idx = 5;
    assert!(m.clone().step(&i).is_err()); // event 5 is clear
    m.set_event(5, true);
    m.step(&i).unwrap();
    assert!(m.events()[5]);
    // Setting an event that is set is a fault.
    i.events.wait_mode = WaitMode::NONE;
    let e = m.step(&i).unwrap_err();
    assert!(matches!(e.cause, FaultCause::Event { .. }), "{e}");
    // Register-form semaphore write.
    i.events.update_mode = UpdateMode::SEM_WR_REG_COMPLETE;
    i.events.update_idx = 9;
    i.events.semaphore_value = 4;
    m.set_register(4, (-7i32) as u32).unwrap();
    m.step(&i).unwrap();
    assert_eq!(m.semaphores()[9], -7);
}

#[test]
fn faults_name_the_instruction_and_change_nothing() {
    let gen = Gen::Sunda;
    let mut m = Machine::new(Config::new(gen));
    write_rows(
        &mut m,
        Space::Sbuf,
        0,
        0,
        Dtype::FP32,
        &f32_rows(&[vec![1.0; 4]]),
    );
    let good = ts(
        gen,
        0x43,
        (AluOp::ADD, AluOp::BYPASS),
        RevOps::NONE,
        (Dtype::FP32, Dtype::FP32),
        1,
        ((ImmSrc::INSTRUCTION, 0), (ImmSrc::INSTRUCTION, 0)),
        4,
    );
    // Invalid: num_active_channels 0.
    let mut bad = good;
    if let Body::S3d3Ts(s) = &mut bad.body {
        s.num_active_channels = 0;
    }
    // Out of range: a negative step from offset 0.
    let mut oob = good;
    if let Body::S3d3Ts(s) = &mut oob.body {
        s.src_mem_pattern.step_elem[0] = -1;
    }
    // Indirect address.
    let mut ind = good;
    if let Body::S3d3Ts(s) = &mut ind.body {
        s.src_mem_pattern.start_addr = Addr4(0x2000_0000);
    }
    // Register-form address whose register holds a marker.
    let mut reg = good;
    if let Body::S3d3Ts(s) = &mut reg.body {
        s.dst_mem_pattern.start_addr = Addr4::register(3);
    }
    m.set_register(3, 0x4000_0000).unwrap();
    let rep = m.run(&[good, good]).unwrap();
    assert_eq!(rep.instructions(), 2);
    let before = m.clone();
    for (j, (i, check)) in [
        (bad, "invalid"),
        (oob, "out of range"),
        (ind, "not supported"),
        (reg, "not supported"),
    ]
    .iter()
    .enumerate()
    {
        let e = m.run(&[good, *i]).map(|_| ()).unwrap_err();
        assert_eq!(e.inst.index, 1, "{e}");
        assert_eq!(e.inst.opcode.0, 0x43);
        assert!(e.to_string().contains(check), "case {j}: {e}");
        assert!(
            e.to_string().contains("instruction #1 (0x43 ts_arith)"),
            "{e}"
        );
        // Roll back the good instruction of this run to compare.
        let mut again = before.clone();
        again.step_at(0, &good).unwrap();
        let mut m2 = again.clone();
        assert!(m2.step_at(1, i).is_err());
        assert!(m2 == again, "case {j} changed state");
        m = before.clone();
    }
    // The invalid report lists the failing rule by name.
    let e = m.step(&bad).unwrap_err();
    assert!(
        e.to_string().contains("has_valid_active_channel_range"),
        "{e}"
    );
    // A register-form address that resolves works.
    let mut regok = good;
    if let Body::S3d3Ts(s) = &mut regok.body {
        s.dst_mem_pattern.start_addr = Addr4::register(4);
    }
    m.set_register(4, 0x200).unwrap();
    m.step(&regok).unwrap();
    assert_eq!(
        read_rows(&m, Space::Sbuf, 0, 1, 0x200, Dtype::FP32, 4),
        f32_rows(&[vec![1.0; 4]])
    );
}

#[test]
fn uninitialised_reads_warn_and_strict_faults() {
    let gen = Gen::Cayman;
    let i = ts(
        gen,
        0x43,
        (AluOp::ADD, AluOp::BYPASS),
        RevOps::NONE,
        (Dtype::FP32, Dtype::FP32),
        2,
        ((ImmSrc::INSTRUCTION, 0), (ImmSrc::INSTRUCTION, 0)),
        4,
    );
    let mut m = Machine::new(Config::new(gen));
    write_rows(
        &mut m,
        Space::Sbuf,
        0,
        0,
        Dtype::FP32,
        &f32_rows(&[vec![1.0; 4]]),
    );
    let r = m.step(&i).unwrap();
    assert_eq!(r.warnings.len(), 1);
    assert_eq!(r.warnings[0].kind, WarningKind::Uninitialised);
    assert!(
        r.warnings[0].message.contains("4 uninitialised elements"),
        "{}",
        r.warnings[0]
    );
    let mut s = Machine::new(Config {
        strict: true,
        ..Config::new(gen)
    });
    write_rows(
        &mut s,
        Space::Sbuf,
        0,
        0,
        Dtype::FP32,
        &f32_rows(&[vec![1.0; 4]]),
    );
    let before = s.clone();
    let e = s.step(&i).unwrap_err();
    assert!(matches!(
        e.cause,
        FaultCause::Strict(WarningKind::Uninitialised, _)
    ));
    assert!(s == before);
}

#[test]
fn firmware_stubs_log_and_change_nothing_on_cayman_up() {
    for gen in Gen::ALL {
        let cfg = Config {
            firmware_stubs: true,
            ..Config::new(gen)
        };
        let mut m = Machine::new(cfg);
        write_rows(
            &mut m,
            Space::Sbuf,
            0,
            0,
            Dtype::FP32,
            &f32_rows(&[vec![2.0]]),
        );
        let mut i = imm_ld(gen, true, Dtype::FP32, 1, 0, 1);
        i.events.update_mode = UpdateMode::SEM_INC_READ;
        let r = m.step(&i).unwrap();
        if gen == Gen::Sunda {
            assert_eq!(r.log, None);
            assert_eq!(m.flops()[0].loaded, 1);
        } else {
            assert_eq!(r.log, Some("S: TensorScalarImmLdArith"));
            assert_eq!(r.warnings[0].kind, WarningKind::FirmwareStub);
            assert_eq!(m.flops()[0], Flops::default());
        }
        assert_eq!(m.semaphores()[0], 1, "events still apply");
    }
}

#[test]
fn psum_operands_and_missing_psum_on_maverick() {
    let gen = Gen::Cayman;
    let mut m = Machine::new(Config::new(gen));
    write_rows(
        &mut m,
        Space::Psum,
        2,
        0x10,
        Dtype::FP32,
        &f32_rows(&[vec![1.5, 2.5]]),
    );
    let mut i = ts(
        gen,
        0x43,
        (AluOp::MULT, AluOp::BYPASS),
        RevOps::NONE,
        (Dtype::FP32, Dtype::FP32),
        1,
        (
            (ImmSrc::INSTRUCTION, 2f32.to_bits()),
            (ImmSrc::INSTRUCTION, 0),
        ),
        2,
    );
    if let Body::S3d3Ts(s) = &mut i.body {
        s.src_mem_pattern.start_addr = psum(gen, 2, 0x10);
        s.dst_mem_pattern.start_addr = psum(gen, 2, 0x20);
    }
    let r = m.step(&i).unwrap();
    assert_eq!(r.written.as_ref().unwrap().space, Space::Psum);
    assert_eq!(
        read_rows(&m, Space::Psum, 2, 1, 0x20, Dtype::FP32, 2),
        f32_rows(&[vec![3.0, 5.0]])
    );
    let mv = Machine::new(Config::new(Gen::Maverick));
    assert!(!mv.has_space(Space::Psum));
    let t = tpb_sim::HostTensor::at(Space::Psum, 0..1).elements(Dtype::FP32, 1);
    assert!(mv.read_tensor(&t).is_err());
}

#[test]
fn host_api_rejects_bad_requests() {
    let mut m = Machine::new(Config::new(Gen::Sunda));
    let t = |p0, np, off, epp| {
        tpb_sim::HostTensor::at(Space::Sbuf, p0..p0 + np)
            .offset(off)
            .elements(Dtype::FP32, epp)
    };
    assert!(m.write_tensor(&t(127, 2, 0, 1), &[0; 8]).is_err());
    assert!(m
        .write_tensor(&t(0, 1, 192 * 1024 - 4, 2), &[0; 8])
        .is_err());
    assert!(m.write_tensor(&t(0, 1, 0, 2), &[0; 7]).is_err());
    assert!(m.write_tensor(&t(0, 1, u64::MAX, 2), &[0; 8]).is_err());
    assert!(m.write_tensor(&t(0, 1, 192 * 1024 - 4, 1), &[1; 4]).is_ok());
    assert_eq!(
        m.uninitialised_bytes(&t(0, 1, 192 * 1024 - 8, 2)).unwrap(),
        4
    );
    assert!(m.set_register(64, 0).is_err());
    assert!(m.set_flops(128, Flops::default()).is_err());
    let bad = tpb_sim::HostTensor::at(Space::Sbuf, 0..1).elements(Dtype::FP4_EXP2, 1);
    assert!(m.read_tensor(&bad).is_err());
}

/// EventSemaphore (0xA0, isa-facts §1.3 layout): wait 0 in the EVENTS preamble, wait 1 and
/// the update in the body; both waits are checked, then the update applies
/// (`event-semaphore-order`). An unmet wait is a fault that changes nothing.
fn event_semaphore(
    wait0: (WaitMode, u8, u32),
    wait1: (WaitMode, u8, u32),
    upd: (UpdateMode, u8, u32),
) -> Instruction {
    use tpb_isa::wire::{op, EventSemaphore, Events};
    Instruction::build(
        op::EVENT_SEMAPHORE,
        EventSemaphore {
            wait1_mode: wait1.0,
            wait1_idx: wait1.1,
            wait1_value: wait1.2,
            update1_mode: upd.0,
            update1_idx: upd.1,
            update1_value: upd.2,
            ..Default::default()
        },
    )
    .with_events(Events {
        wait_mode: wait0.0,
        wait_idx: wait0.1,
        semaphore_value: wait0.2,
        ..Default::default()
    })
}

#[test]
fn event_semaphore_checks_both_waits_then_updates() {
    for gen in Gen::ALL {
        let i = event_semaphore(
            (WaitMode::SEM_GE_IMM, 1, 2),
            (WaitMode::SEM_GE_IMM, 2, 3),
            (UpdateMode::SEM_ADD_IMM_COMPLETE, 4, 5),
        );
        assert!(tpb_isa::validate::is_valid(&i, gen), "{gen}");
        let mut m = Machine::new(Config::new(gen));
        m.set_semaphore(1, 2);
        m.set_semaphore(2, 3);
        m.set_semaphore(4, 10);
        m.step(&i).unwrap();
        assert_eq!(m.semaphores()[4], 15, "{gen}: the update applied");
        // Wait 0 unmet (semaphore 1 < 2): a fault, no update.
        let mut m = Machine::new(Config::new(gen));
        m.set_semaphore(2, 3);
        let f = m.step(&i).unwrap_err();
        assert!(matches!(f.cause, FaultCause::WaitUnsatisfied { .. }), "{f}");
        assert_eq!(m.semaphores()[4], 0);
        // Wait 1 unmet (semaphore 2 < 3): a fault naming semaphore 2, no update.
        let mut m = Machine::new(Config::new(gen));
        m.set_semaphore(1, 2);
        let f = m.step(&i).unwrap_err();
        assert!(f.to_string().contains("semaphore 2"), "{f}");
        assert_eq!(m.semaphores()[4], 0);
        assert_eq!(m.retired(), 0);
    }
}

#[test]
fn event_semaphore_event_waits_and_update_conflicts_fault_atomically() {
    let gen = Gen::Cayman;
    // Wait 1 consumes event 7 (set then clear); the update sets event 8.
    let i = event_semaphore(
        (WaitMode::NONE, 0, 0),
        (WaitMode::EVT_SET_THEN_CLEAR, 7, 0),
        (UpdateMode::EVT_SET_COMPLETE, 8, 0),
    );
    let mut m = Machine::new(Config::new(gen));
    m.set_event(7, true);
    m.step(&i).unwrap();
    assert!(!m.events()[7] && m.events()[8]);
    // Again: event 7 is clear now, so wait 1 fails and event 8 stays as it was.
    let f = m.step(&i).unwrap_err();
    assert!(matches!(f.cause, FaultCause::WaitUnsatisfied { .. }), "{f}");
    // Event 8 already set: the update conflicts (`event-conflicts`) and wait 1's effect is
    // not applied either.
    m.set_event(7, true);
    let f = m.step(&i).unwrap_err();
    assert!(matches!(f.cause, FaultCause::Event { .. }), "{f}");
    assert!(m.events()[7] && m.events()[8]);
}

#[test]
fn event_semaphore_preamble_update_and_reserved_bytes_are_invalid() {
    let gen = Gen::Cayman;
    let mut i = event_semaphore(
        (WaitMode::NONE, 0, 0),
        (WaitMode::NONE, 0, 0),
        (UpdateMode::SEM_INC_COMPLETE, 1, 1),
    );
    assert!(tpb_isa::validate::is_valid(&i, gen));
    i.events.update_mode = UpdateMode::SEM_INC_COMPLETE;
    let r = tpb_isa::validate::validate(&i, gen);
    assert!(
        r.failures()
            .any(|f| f.rule.name == "event_semaphore_single_update"),
        "{r:?}"
    );
    i.events.update_mode = UpdateMode::NONE;
    let Body::EventSemaphore(s) = &mut i.body else {
        unreachable!()
    };
    s.reserved1.0[3] = 1;
    s.wait1_mode = WaitMode(0x33);
    let r = tpb_isa::validate::validate(&i, gen);
    let names: Vec<_> = r
        .failures()
        .map(|f| (f.rule.name, f.field.clone()))
        .collect();
    assert!(
        names.contains(&("event_semaphore_reserved_zero", "reserved1".into())),
        "{names:?}"
    );
    assert!(
        names.contains(&("is_valid_enum", "wait1_mode".into())),
        "{names:?}"
    );
    let mut m = Machine::new(Config::new(gen));
    assert!(matches!(
        m.step(&i).unwrap_err().cause,
        FaultCause::Invalid { .. }
    ));
}

/// BatchNormParamLoad (0x64) and MatchValueLoad (0x6D) decode and validate as S2_BN
/// (isa-facts §6 "S2_BN sibling rules"); the simulator refuses BatchNormParamLoad as not
/// supported and runs MatchValueLoad over the lane match keys (issue 17b,
/// isa-facts-dve-pool §16; tests/dve_state.rs checks what it loads).
#[test]
fn s2_bn_siblings_validate_and_batch_norm_is_refused_as_not_supported() {
    use tpb_isa::wire::{op, S2Bn};
    let gen = Gen::Cayman;
    let body = |w: [u16; 2], dtype| S2Bn {
        src_mem_pattern: tensor(sbuf(gen, 0, 0x100), &[(1, w[0]), (w[0] as i16, w[1])]),
        dtype,
        num_active_channels: 4,
        ..Default::default()
    };
    let bn = Instruction::build(op::BATCH_NORM_PARAM_LOAD, body([3, 1], Dtype::FP32));
    let mv = Instruction::build(op::MATCH_VALUE_LOAD, body([2, 4], Dtype::FP32));
    for i in [&bn, &mv] {
        assert_eq!(Instruction::decode(&i.encode(), gen), *i);
        assert!(
            tpb_isa::validate::is_valid(i, gen),
            "{:?}",
            tpb_isa::validate::validate(i, gen)
        );
    }
    let f = Machine::new(Config::new(gen)).step(&bn).unwrap_err();
    assert!(f.is_unsupported(), "{f}");
    Machine::new(Config::new(gen)).step(&mv).unwrap();
    let bad_bn = Instruction::build(op::BATCH_NORM_PARAM_LOAD, body([4, 1], Dtype::INT32));
    let r = tpb_isa::validate::validate(&bad_bn, gen);
    assert_eq!(
        r.failures()
            .filter(|f| f.rule.name == "is_valid_batch_norm_param_load")
            .count(),
        2
    );
    let bad_mv = Instruction::build(op::MATCH_VALUE_LOAD, body([3, 3], Dtype::FP32));
    assert!(validate_names(&bad_mv, gen).contains(&"is_valid_match_value_load"));
}

fn validate_names(i: &Instruction, gen: Gen) -> Vec<&'static str> {
    tpb_isa::validate::validate(i, gen)
        .failures()
        .map(|f| f.rule.name)
        .collect()
}

/// Issue 8 item 12 (decisions §4.4; isa-facts §4.2: the bf16 convert is a bit shift): a
/// signalling NaN widened from bf16/fp16 to FP32 keeps its bits through AffineSelect's pass
/// arm, a BYPASS into fp32/fp32r, and the values ImmLdArith stores.
#[test]
fn signalling_nans_keep_their_bits_when_widened() {
    use tpb_isa::text::asm_line;
    let gen = Gen::Cayman;
    for (dt, name, input, want) in [
        (
            Dtype::BFLOAT16,
            "bf16",
            [0x7F95u32, 0xFF81],
            [0x7F95_0000u32, 0xFF81_0000],
        ),
        (
            Dtype::FP16,
            "fp16",
            [0x7C01, 0xFD55],
            [0x7F80_2000, 0xFFAA_A000],
        ),
    ] {
        let mut m = Machine::new(Config::new(gen));
        write_rows(&mut m, Space::Sbuf, 0, 0, dt, &[input.to_vec()]);
        let sel = format!(
            "affine_select channels=1 dtypes={name}->fp32 cmp=ge fill_reg=7 mask=0:[[0,2]] \
             multiplier=0 src=sbuf[p0..1]+0x0:[[1,2]] dst=sbuf[p0..1]+0x100:[[1,2]]"
        );
        let byp = format!(
            "ts_arith src=sbuf[p0..1]+0x0:[[1,2]] in={name} out=fp32r op0=bypass op1=bypass \
             dst=sbuf[p0..1]+0x200:[[1,2]]"
        );
        let ld = format!("imm_ld_arith src=sbuf[p0..1]+0x0:[[1,2]] dtype={name}");
        for line in [&sel, &byp, &ld] {
            m.step(&asm_line(line, gen).unwrap())
                .unwrap_or_else(|f| panic!("{line}: {f}"));
        }
        for off in [0x100, 0x200] {
            let got = read_rows(&m, Space::Sbuf, 0, 1, off, Dtype::FP32, 2);
            assert_eq!(got, vec![want.to_vec()], "{name} at {off:#x}");
        }
        assert_eq!(&m.flops()[0].slots[..2], &want, "{name} flops");
    }
}

/// Issue 8 item 10: the run budget (`Config::max_run_elements`) bounds a whole run's cost.
/// The instruction that would pass it faults, changing nothing.
#[test]
fn the_run_budget_stops_a_run_cleanly() {
    use tpb_isa::text::asm_line;
    let gen = Gen::Cayman;
    let mut cfg = Config::new(gen);
    assert_eq!(cfg.max_run_elements, tpb_sim::DEFAULT_MAX_RUN_ELEMENTS);
    cfg.max_run_elements = 20_000;
    let mut m = Machine::new(cfg);
    let iota = asm_line(
        "iota channels=128 out=fp32 src=0:[[1,64]] dst=sbuf[p0..128]+0x0:[[1,64]]",
        gen,
    )
    .unwrap();
    m.step(&iota).unwrap();
    m.step(&iota).unwrap();
    let before = read_rows(&m, Space::Sbuf, 0, 128, 0, Dtype::FP32, 64);
    let f = m.step(&iota).unwrap_err();
    assert!(
        matches!(f.cause, FaultCause::Budget { used: 16384, .. }),
        "{f}"
    );
    assert!(f.to_string().contains("run budget exceeded"), "{f}");
    assert_eq!(m.retired(), 2);
    assert_eq!(
        read_rows(&m, Space::Sbuf, 0, 128, 0, Dtype::FP32, 64),
        before
    );
}

/// Issue 8 item 17 (decisions §3.6): after ImmLdBitvec, a PtrMultiArith that reads more slots
/// than were loaded names the loader that ran (not ImmLdArith), and the kind mismatch is
/// still reported for those channels.
#[test]
fn loader_warnings_name_the_loader_that_ran() {
    let gen = Gen::Cayman;
    let mut m = Machine::new(Config::new(gen));
    write_rows(&mut m, Space::Sbuf, 0, 0, Dtype::FP32, &[vec![0; 4]]);
    m.step(&imm_ld(gen, false, Dtype::UINT32, 1, 0, 2)).unwrap();
    let pm = ptr_multi(
        gen,
        0x4F,
        AluOp::MULT,
        RevOps::NONE,
        (Dtype::FP32, Dtype::FP32),
        1,
        (0x40, [1, 1, 1, 4]),
        0x80,
    );
    write_rows(&mut m, Space::Sbuf, 0, 0x40, Dtype::FP32, &[vec![0; 4]]);
    let r = m.step(&pm).unwrap();
    let texts: Vec<&str> = r.warnings.iter().map(|w| w.message.as_str()).collect();
    assert_eq!(texts.len(), 2, "{texts:?}");
    assert!(
        texts[0].contains("had only 2 loaded, by TensorScalarImmLdBitvec"),
        "{texts:?}"
    );
    assert!(!texts[0].contains("ImmLdArith"), "{texts:?}");
    assert!(
        texts[1].contains("expects flops from TensorScalarImmLdArith")
            && texts[1].contains("channel 0 were loaded by TensorScalarImmLdBitvec"),
        "{texts:?}"
    );
}
