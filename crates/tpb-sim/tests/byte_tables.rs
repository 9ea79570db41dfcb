//! The engine's byte tables (1-byte inputs mapped through a 256-entry table of the kernel's
//! own results) against the plain path: every instruction runs once on dense rows long
//! enough for the tables (on one and on two threads) and once on the same data laid out
//! with stride 2, which the engine gathers and scatters element by element without a
//! table. Outputs (and faults) must agree bit for bit, for every 1-byte input dtype, FP8
//! configuration, output size and kernel path (PtrMulti arith / bitvec / Dual,
//! TensorScalar arith / bitvec / integer).

use tpb_isa::geometry::Space;
use tpb_isa::wire::{Addr4, ImmVal, Tensor};
use tpb_isa::{AluOp, Body, Dtype, Gen, Instruction, Opcode, RevOps, TensorSubdim};
use tpb_sim::numerics::{E4m3Variant, Fp8Config};
use tpb_sim::{Config, FlopKind, Flops, HostTensor, Machine};

const P: u32 = 4;
/// Elements per W slice (as long as the engine's chunk that builds a table) and slices.
const X: u16 = 512;
const W: u16 = 2;
const N: usize = X as usize * W as usize;
const SRC_DENSE: u32 = 0;
const DST_DENSE: u32 = 0x2000;
const SRC_STRIDED: u32 = 0x8000;
const DST_STRIDED: u32 = 0xC000;

/// Channel `c`'s input bytes: every byte value, in an order that differs per channel.
fn input(c: u32) -> Vec<u8> {
    (0..N as u32)
        .map(|k| (k.wrapping_mul(167) ^ (c * 29)) as u8)
        .collect()
}

/// Per-channel scalars: channels 0 and 1 share theirs (a table reused across channels).
fn slots(c: u32) -> [u32; 8] {
    let v = [
        [1.5f32, -0.375, 3.0, 0.0, 1.0, 2.0, -1.0, 4.0],
        [1.5, -0.375, 3.0, 0.0, 1.0, 2.0, -1.0, 4.0],
        [f32::NAN, 1e30, -7.25, 0.5, 1.0, 1.0, 1.0, 1.0],
        [-0.0, f32::INFINITY, 1e-40, 300.0, 1.0, 1.0, 1.0, 1.0],
    ];
    v[c as usize % 4].map(f32::to_bits)
}

fn machine(gen: Gen, fp8: Fp8Config, threads: usize, kind: FlopKind) -> Machine {
    let mut m = Machine::new(Config {
        fp8,
        ..Config::new(gen)
    });
    m.set_threading(threads, 0);
    for c in 0..P {
        let mut bytes = vec![0u8; 2 * N];
        let data = input(c);
        for (k, &b) in data.iter().enumerate() {
            bytes[2 * k] = b;
        }
        let t = |off, n| {
            HostTensor::at(Space::Sbuf, c..c + 1)
                .offset(off)
                .elements(Dtype::UINT8, n)
        };
        m.write_tensor(&t(u64::from(SRC_DENSE), N as u64), &data)
            .unwrap();
        m.write_tensor(&t(u64::from(SRC_STRIDED), 2 * N as u64), &bytes)
            .unwrap();
        let f = Flops {
            slots: slots(c),
            loaded: 8,
            kind: Some(kind),
        };
        m.set_flops(c as usize, f).unwrap();
    }
    m
}

/// `[X, 1, 1, W]` elements at `off`, `step` elements apart.
fn pattern4(gen: Gen, off: u32, step: i16) -> Tensor<4> {
    Tensor {
        start_addr: Addr4::at(gen, Space::Sbuf, 0, off).unwrap(),
        step_elem: [step, 1, 1, step * X as i16],
        num_elem: [X, 1, 1, W],
    }
}

fn pattern3(gen: Gen, off: u32, step: i16) -> Tensor<3> {
    Tensor {
        start_addr: Addr4::at(gen, Space::Sbuf, 0, off).unwrap(),
        step_elem: [step, 1, step * X as i16],
        num_elem: [X, 1, W],
    }
}

/// The instruction over the dense (`step` 1) or strided (`step` 2) layout.
type Build = dyn Fn(u32, u32, i16) -> Instruction;

/// Runs `build` dense and strided; the outputs (`out` elements) must agree.
fn agree(gen: Gen, kind: FlopKind, dtypes: [Dtype; 2], what: &str, build: &Build) -> bool {
    let out = dtypes[1];
    let size = out.size().unwrap();
    let mut ok = false;
    // Every FP8 configuration when an FP8 dtype is involved (`fp8_e4m3`, `fp8_ocp_sat`).
    let fp8 = dtypes
        .iter()
        .any(|d| matches!(*d, Dtype::FP8_EXP3 | Dtype::FP8_EXP4 | Dtype::FP8_EXP5));
    for e4m3 in [E4m3Variant::Ieee, E4m3Variant::FiniteOnly] {
        for ocp_sat in [false, true] {
            if !fp8 && (ocp_sat || e4m3 != E4m3Variant::Ieee) {
                continue;
            }
            let fp8 = Fp8Config { ocp_sat, e4m3 };
            let mut plain = machine(gen, fp8, 1, kind);
            let r_plain = plain.step(&build(SRC_STRIDED, DST_STRIDED, 2));
            for threads in [1, 2] {
                let mut fast = machine(gen, fp8, threads, kind);
                let r_fast = fast.step(&build(SRC_DENSE, DST_DENSE, 1));
                assert_eq!(r_fast.is_ok(), r_plain.is_ok(), "{what} {fp8:?}");
                if r_fast.is_err() {
                    continue;
                }
                ok = true;
                for c in 0..P {
                    let t = |off, n| {
                        HostTensor::at(Space::Sbuf, c..c + 1)
                            .offset(u64::from(off))
                            .elements(out, n)
                    };
                    let got = fast.read_tensor(&t(DST_DENSE, N as u64)).unwrap();
                    let strided = plain.read_tensor(&t(DST_STRIDED, 2 * N as u64)).unwrap();
                    let want: Vec<u8> = strided
                        .chunks_exact(size)
                        .step_by(2)
                        .flatten()
                        .copied()
                        .collect();
                    if let Some(k) = (0..N)
                        .find(|&k| got[k * size..(k + 1) * size] != want[k * size..(k + 1) * size])
                    {
                        panic!(
                            "{what} {fp8:?} {threads}t channel {c} element {k} (input {:#04x}): \
                             table {:02x?}, plain {:02x?}",
                            input(c)[k],
                            &got[k * size..(k + 1) * size],
                            &want[k * size..(k + 1) * size]
                        );
                    }
                }
            }
        }
    }
    ok
}

const IN8: [Dtype; 5] = [
    Dtype::FP8_EXP3,
    Dtype::FP8_EXP4,
    Dtype::FP8_EXP5,
    Dtype::UINT8,
    Dtype::INT8,
];

#[test]
fn ptr_multi_tables_match_the_plain_path() {
    let gen = Gen::Cayman;
    let outs = [
        Dtype::FP8_EXP4,
        Dtype::FP8_EXP5,
        Dtype::BFLOAT16,
        Dtype::FP16,
        Dtype::FP32,
        Dtype::INT8,
        Dtype::UINT16,
    ];
    let ops = [
        (AluOp::MULT, RevOps::NONE),
        (AluOp::SUBTRACT, RevOps::BOTH),
        (AluOp::MAX, RevOps::NONE),
        (AluOp::ADD, RevOps::BOTH),
    ];
    let mut ran = 0;
    for din in IN8 {
        for dout in outs {
            for (op, rev) in ops {
                {
                    let build = move |src, dst, step| {
                        let mut i = Instruction::new(Opcode::TENSOR_SCALAR_PTR_MULTI_ARITH, gen);
                        if let Body::S4d4Tsm(s) = &mut i.body {
                            s.src_mem_pattern = pattern4(gen, src, step);
                            s.dst_mem_pattern = pattern4(gen, dst, step);
                            s.in_dtype = din;
                            s.out_dtype = dout;
                            s.num_active_channels = P as u8;
                            s.op = op;
                            s.op_dim = TensorSubdim::XYZ;
                            s.reverse_operands = rev;
                        }
                        i
                    };
                    let what = format!("PtrMulti {din}->{dout} {op} {rev:?}");
                    ran += usize::from(agree(gen, FlopKind::Arith, [din, dout], &what, &build));
                }
            }
        }
    }
    assert_eq!(ran, IN8.len() * outs.len() * ops.len(), "every case runs");
}

#[test]
fn ptr_multi_bitvec_and_dual_tables_match_the_plain_path() {
    let mut ran = 0;
    for op in [AluOp::BITWISE_XOR, AluOp::LOGICAL_SHIFT_LEFT, AluOp::BYPASS] {
        let gen = Gen::Cayman;
        let build = move |src, dst, step| {
            let mut i = Instruction::new(Opcode(0x5F), gen);
            if let Body::S4d4Tsm(s) = &mut i.body {
                s.src_mem_pattern = pattern4(gen, src, step);
                s.dst_mem_pattern = pattern4(gen, dst, step);
                s.in_dtype = Dtype::UINT8;
                s.out_dtype = Dtype::UINT8;
                s.num_active_channels = P as u8;
                s.op = op;
                s.op_dim = TensorSubdim::XYZ;
            }
            i
        };
        let what = format!("PtrMulti bitvec {op}");
        ran += usize::from(agree(
            gen,
            FlopKind::Bitvec,
            [Dtype::UINT8; 2],
            &what,
            &build,
        ));
    }
    for din in IN8 {
        for rev in 0..4 {
            let gen = Gen::Sunda;
            let build = move |src, dst, step| {
                let mut i = Instruction::new(Opcode(0x87), gen);
                if let Body::S4d4Tsm(s) = &mut i.body {
                    s.src_mem_pattern = pattern4(gen, src, step);
                    s.dst_mem_pattern = pattern4(gen, dst, step);
                    s.in_dtype = din;
                    s.out_dtype = Dtype::BFLOAT16;
                    s.num_active_channels = P as u8;
                    s.op = AluOp::SUBTRACT;
                    s.op_dim = TensorSubdim::XYZ;
                    s.reverse_operands = RevOps(rev);
                }
                i
            };
            let what = format!("Dual {din} rev {rev}");
            ran += usize::from(agree(
                gen,
                FlopKind::Arith,
                [din, Dtype::BFLOAT16],
                &what,
                &build,
            ));
        }
    }
    assert_eq!(ran, 3 + 20, "every case runs");
}

#[test]
fn tensor_scalar_tables_match_the_plain_path() {
    let gen = Gen::Cayman;
    let mut ran = 0;
    // (opcode, op0, op1, output dtypes): arith, bitvec, integer band.
    let cases: [(u8, AluOp, AluOp, &[Dtype]); 3] = [
        (
            0x43,
            AluOp::MULT,
            AluOp::ADD,
            &[
                Dtype::FP8_EXP4,
                Dtype::FP8_EXP3,
                Dtype::BFLOAT16,
                Dtype::FP32,
            ],
        ),
        (
            0x43,
            AluOp::SUBTRACT,
            AluOp::MIN,
            &[Dtype::FP8_EXP5, Dtype::FP16],
        ),
        (0x53, AluOp::BITWISE_AND, AluOp::BITWISE_OR, &[]),
    ];
    for din in IN8 {
        for &(code, op0, op1, outs) in &cases {
            // Bitvec: in = out, integers only.
            let outs: Vec<Dtype> = match (outs.is_empty(), din) {
                (false, _) => outs.to_vec(),
                (true, Dtype::UINT8 | Dtype::INT8) => vec![din],
                (true, _) => vec![],
            };
            for dout in outs {
                let build = move |src, dst, step| {
                    let mut i = Instruction::new(Opcode(code), gen);
                    if let Body::S3d3Ts(s) = &mut i.body {
                        s.src_mem_pattern = pattern3(gen, src, step);
                        s.dst_mem_pattern = pattern3(gen, dst, step);
                        s.in_dtype = din;
                        s.out_dtype = dout;
                        s.num_active_channels = P as u8;
                        s.op0 = op0;
                        s.op1 = op1;
                        s.reverse_operands = RevOps(1);
                        s.imm0 = ImmVal(if code == 0x53 { 0x5A } else { 2.5f32.to_bits() });
                        s.imm1 = ImmVal(if code == 0x53 {
                            0x81
                        } else {
                            (-3.0f32).to_bits()
                        });
                    }
                    i
                };
                let what = format!("TensorScalar {code:#x} {din}->{dout} {op0} {op1}");
                ran += usize::from(agree(gen, FlopKind::Arith, [din, dout], &what, &build));
            }
        }
    }
    for din in [Dtype::UINT8, Dtype::INT8] {
        let build = move |src, dst, step| {
            let mut i = Instruction::new(Opcode(0x43), Gen::Maverick);
            if let Body::S3d3Ts(s) = &mut i.body {
                s.src_mem_pattern = pattern3(Gen::Maverick, src, step);
                s.dst_mem_pattern = pattern3(Gen::Maverick, dst, step);
                s.in_dtype = din;
                s.out_dtype = Dtype::INT16;
                s.num_active_channels = P as u8;
                s.op0 = AluOp::ADD_INT;
                s.op1 = AluOp::MULT_INT;
                s.imm0 = ImmVal(7);
                s.imm1 = ImmVal(0xFFFF_FFFD);
            }
            i
        };
        let what = format!("TensorScalar integer {din}");
        ran += usize::from(agree(
            Gen::Maverick,
            FlopKind::Arith,
            [din, Dtype::INT16],
            &what,
            &build,
        ));
    }
    assert_eq!(ran, 5 * 4 + 5 * 2 + 2 + 2, "every case runs");
}
