//! The dense fast paths of the DVE/POOL executors (issue 17; `exec::dense`,
//! `exec::pair_kernels`) against their plain element walks, bit for bit: each random case
//! runs once with contiguous operands (the fast path) and once with the same elements at a
//! stride of 2 (the plain walk), twice in a row so that accumulate continues the lane
//! state, at a SIMD level picked per case (`numerics::simd::with_level`). Dtypes, ops,
//! operand reversal, accumulator commands, scalars, channel counts and element counts
//! across the chunk size are random; the data mixes NaNs with payloads (signalling ones
//! too), infinities, signed zeros and subnormals. Reference: isa-facts-dve-pool §1.5 (TT),
//! §4.4–§5 (Copy/Cast/Reciprocal), §9–§11 (STT, scan, SelectReduce), §12 (cache ops), §16
//! (Max8, FindIndex8, MatchReplace8), §8.4 (CrossLaneReduce over the partitions), §2.4
//! (CopyPredicated, which writes only the selected elements: the initialised shadow is
//! compared too).

mod support;

use proptest::prelude::*;
use support::Rng;
use support::*;
use tpb_isa::geometry::Space;
use tpb_isa::wire::{DtypePair, ImmVal, Tensor};
use tpb_isa::{
    AccumCmd, AluOp, Body, Dtype, Gen, ImmSrc, Instruction, ReduceAxis, ReduceOp, RevOps,
};
use tpb_sim::numerics::simd;
use tpb_sim::{Config, HostTensor, Machine};

const GEN: Gen = Gen::Cayman;
/// Byte offsets of src0, src1 and dst in every partition.
const OFFS: [u32; 3] = [0x0, 0x8000, 0x10000];

const FLOATS: [Dtype; 6] = [
    Dtype::FP32,
    Dtype::BFLOAT16,
    Dtype::FP16,
    Dtype::FP8_EXP3,
    Dtype::FP8_EXP4,
    Dtype::FP8_EXP5,
];
const INTS: [Dtype; 5] = [
    Dtype::UINT8,
    Dtype::INT8,
    Dtype::UINT16,
    Dtype::INT16,
    Dtype::INT32,
];
const OPS: [AluOp; 10] = [
    AluOp::BYPASS,
    AluOp::ADD,
    AluOp::SUBTRACT,
    AluOp::MULT,
    AluOp::DIVIDE,
    AluOp::MAX,
    AluOp::MIN,
    AluOp::IS_GE,
    AluOp::ABSOLUTE_DIFF,
    AluOp::POW,
];
/// The ops the cache ops fold with (§12.3).
const FOLD_OPS: [AluOp; 5] = [
    AluOp::ADD,
    AluOp::SUBTRACT,
    AluOp::MULT,
    AluOp::MAX,
    AluOp::MIN,
];
/// The accumulator commands STT and SelectReduce accept (§9.3, §11.3), and the cache ops'.
const STT_CMDS: [AccumCmd; 3] = [
    AccumCmd::IDLE,
    AccumCmd::ACCUMULATE,
    AccumCmd::ZERO_ACCUMULATE,
];
const CACHE_CMDS: [AccumCmd; 3] = [
    AccumCmd::ZERO_ACCUMULATE,
    AccumCmd::ACCUMULATE,
    AccumCmd::LOAD_ACCUMULATE,
];

impl Rng {
    /// FP32 bits: specials (NaN payloads of both signs, signalling ones, ±inf, ±0,
    /// subnormals) one time in four, else moderate numbers.
    fn f32_bits(&mut self) -> u32 {
        const SPECIAL: [u32; 10] = [
            0x0000_0000,
            0x8000_0000,
            0x7F80_0000,
            0xFF80_0000,
            0x7FC0_0000,
            0x7F80_0001,
            0xFFC1_2345,
            0x0000_0001,
            0x807F_FFFF,
            0x7F7F_FFFF,
        ];
        let r = self.next();
        if r.is_multiple_of(4) {
            SPECIAL[(r >> 8) as usize % SPECIAL.len()]
        } else {
            (((r >> 8) % 20001) as f32 / 977.0 - 10.0).to_bits()
        }
    }
    /// One element of `d`: the top bits of [`Rng::f32_bits`] for BF16, random bits else
    /// (every FP8 / FP16 pattern, NaNs included), FP32 from `f32_bits`.
    fn element(&mut self, d: Dtype) -> Vec<u8> {
        match d {
            Dtype::FP32 => self.f32_bits().to_le_bytes().to_vec(),
            Dtype::BFLOAT16 => ((self.f32_bits() >> 16) as u16).to_le_bytes().to_vec(),
            _ => {
                let r = self.next();
                // Predicates: zero half the time.
                let r = if r.is_multiple_of(2) { 0 } else { r >> 1 };
                r.to_le_bytes()[..d.size().unwrap()].to_vec()
            }
        }
    }
}

/// A descriptor of `count` elements at `off`, `step` elements apart.
fn pat<const N: usize>(off: u32, step: i16, count: u16) -> Tensor<N> {
    tensor(sbuf(GEN, 0, off), &[(step, count)])
}

/// A random instruction of one of the families with a dense path, its operands at [`OFFS`]
/// with element stride `step`; the dtypes of (src0, src1, dst).
fn instruction(
    rng: &mut Rng,
    family: usize,
    n: u8,
    count: u16,
    step: i16,
) -> (Instruction, [Dtype; 3]) {
    let [a, b, d] = OFFS;
    // All FP32 one case in four (the one-loop FP32 paths).
    let all32 = rng.next().is_multiple_of(4);
    let any = |rng: &mut Rng| {
        if all32 {
            Dtype::FP32
        } else if rng.next().is_multiple_of(4) {
            rng.pick(&INTS)
        } else {
            rng.pick(&FLOATS)
        }
    };
    // DIVIDE only where the chains allow it (TensorTensor, Reciprocal's own); the rest
    // take the general arith ops (§9.3, §10, §12.3).
    let general = &OPS[..4]
        .iter()
        .chain(&OPS[5..])
        .copied()
        .collect::<Vec<_>>();
    let ops = if family == 0 {
        (rng.pick(&OPS), rng.pick(&OPS))
    } else {
        (rng.pick(general), rng.pick(general))
    };
    let rev = RevOps((rng.next() % 4) as u8);
    let cmd = match family {
        2 => AccumCmd::IDLE,
        4 | 5 => rng.pick(&CACHE_CMDS),
        _ => rng.pick(&STT_CMDS),
    };
    let imm0 = rng.f32_bits();
    let imm1 = if cmd == AccumCmd::LOAD_ACCUMULATE {
        rng.f32_bits()
    } else {
        0
    };
    match family {
        // TensorTensor (arith), ScalarTensorTensor, TensorTensorScan, SelectReduce,
        // CopyPredicated.
        0..=3 | 12 => {
            // CopyPredicated keeps the dtype (§2.4), CastPredicated converts.
            let cast = rng.next().is_multiple_of(2);
            let op = if family == 12 {
                if cast {
                    0x99
                } else {
                    0x72
                }
            } else {
                [0x41u8, 0x9D, 0xE5, 0xEA][family]
            };
            let mut i = inst(op, GEN);
            let lo = match op {
                0xEA => rng.pick(&INTS[..4]),
                0x72 => rng.pick(&[Dtype::UINT8, Dtype::UINT16, Dtype::UINT32]),
                _ => any(rng),
            };
            let (hi, mut out) = (any(rng), any(rng));
            if op == 0x72 {
                out = hi;
            }
            match &mut i.body {
                Body::S3s3d3Tt(s) => {
                    s.in0_in1_dtype = DtypePair::new(lo, hi);
                    s.out_dtype = out;
                    s.op = if family == 12 { AluOp::BYPASS } else { ops.0 };
                    s.num_active_channels = n;
                    s.src0_mem_pattern = pat(a, step, count);
                    s.src1_mem_pattern = pat(b, step, count);
                    s.dst_mem_pattern = pat(d, step, count);
                }
                Body::S2s2d2Stt(s) => {
                    s.src0_mem_pattern = pat(a, step, count);
                    s.src1_mem_pattern = pat(b, step, count);
                    s.dst_mem_pattern = pat(d, step, count);
                    s.op0 = if op == 0xEA { AluOp::BYPASS } else { ops.0 };
                    s.op1 = if op == 0xEA { AluOp::MAX } else { ops.1 };
                    s.reverse_operands = if op == 0xEA && !rng.next().is_multiple_of(4) {
                        RevOps::FIRST
                    } else {
                        rev
                    };
                    s.imm0_src = ImmSrc::INSTRUCTION;
                    s.in0_in1_dtype = DtypePair::new(lo, hi);
                    s.out_dtype = out;
                    s.num_active_channels = n;
                    s.imm0_dtype = Dtype::FP32;
                    s.accumulator_cmd = cmd;
                    s.imm0 = ImmVal(imm0);
                }
                _ => unreachable!(),
            }
            (i, [lo, hi, out])
        }
        // TensorScalarCacheReduce, TensorScalarCacheCumulative.
        4 | 5 => {
            let mut i = inst(if family == 4 { 0x9A } else { 0xE6 }, GEN);
            let din = match any(rng) {
                Dtype::INT32 => Dtype::INT16,
                d => d,
            };
            let out = any(rng);
            let Body::S3d3Ts(s) = &mut i.body else {
                unreachable!()
            };
            s.accumulator_cmd = cmd;
            s.src_mem_pattern = pat(a, step, count);
            s.dst_mem_pattern = pat(d, step, count);
            s.in_dtype = din;
            s.out_dtype = out;
            s.num_active_channels = n;
            s.op0 = ops.0;
            s.op1 = rng.pick(&FOLD_OPS);
            s.imm0 = ImmVal(imm0);
            s.imm1 = ImmVal(imm1);
            (i, [din, din, out])
        }
        // Max8, FindIndex8 (keys loaded by `check`), MatchReplace8.
        8..=10 | 14 => {
            let din = if family == 8 {
                rng.pick(&FLOATS)
            } else {
                rng.pick(&FLOATS[..2])
            };
            let out = match family {
                9 => rng.pick(&[Dtype::UINT16, Dtype::UINT32]),
                10 => rng.pick(&FLOATS[..3]), // §16.5: no FP8
                // In place (NKI's form): the source's dtype, or another of its size.
                14 if din == Dtype::FP32 => Dtype::FP32,
                14 => rng.pick(&[Dtype::BFLOAT16, Dtype::FP16]),
                _ => rng.pick(&FLOATS),
            };
            let mut i = inst([0x6C, 0x6E, 0x6F, 0x6F][(family - 8).min(3)], GEN);
            match &mut i.body {
                Body::S4d2Bn(s) => {
                    s.src_mem_pattern = pat(a, step, count);
                    s.dst_mem_pattern = pat(d, step, 8);
                    s.in_dtype = din;
                    s.out_dtype = out;
                    s.num_active_channels = n;
                }
                Body::S4d4Mr(s) => {
                    s.src_mem_pattern = pat(a, step, count);
                    s.dst_mem_pattern = pat(if family == 14 { a } else { d }, step, count);
                    s.in_dtype = din;
                    s.out_dtype = out;
                    s.num_active_channels = n;
                    s.immediate = tpb_isa::wire::F32Bits(imm0);
                }
                _ => unreachable!(),
            }
            (i, [din, din, out])
        }
        // CrossLaneReduce over the partitions (dst: one row in partition 0).
        11 => {
            let (din, out) = (any(rng), any(rng));
            let mut i = inst(0x7C, GEN);
            let Body::S4d4Cr(s) = &mut i.body else {
                unreachable!()
            };
            s.src_mem_pattern = pat(a, step, count);
            s.dst_mem_pattern = pat(d, step, count);
            s.in_dtype = din;
            s.out_dtype = out;
            s.num_active_channels = n;
            s.reduce_op = rng.pick(&[ReduceOp::ADD, ReduceOp::AVERAGE, ReduceOp::MAX]);
            s.reduce_axis = ReduceAxis::PARTITIONS;
            s.scale = tpb_isa::wire::F32Bits(imm0);
            (i, [din, din, out])
        }
        // TensorReduce along X: groups of one, a few, odd sizes and whole rows (across the
        // chunk size), every arith op the fold takes, negated or not.
        13 => {
            let (din, out) = (any(rng), any(rng));
            let g = match rng.next() % 4 {
                0 => 1,
                1 => 2,
                2 => 17.min(count),
                _ => count,
            };
            let groups = (count / g).max(1);
            let mut i = inst(0x42, GEN);
            let Body::S4d4Tr(s) = &mut i.body else {
                unreachable!()
            };
            s.src_mem_pattern = tensor(sbuf(GEN, 0, a), &[(step, g), (step * g as i16, groups)]);
            s.dst_mem_pattern = pat(d, step, groups);
            s.in_dtype = din;
            s.out_dtype = out;
            s.num_active_channels = n;
            s.op = rng.pick(general);
            s.negated = (rng.next() % 2) as u8;
            s.op_dim = tpb_isa::TensorSubdim::X;
            (i, [din, din, out])
        }
        // Copy / Cast, Reciprocal.
        _ => {
            let mut i = inst(if family == 6 { 0x47 } else { 0x48 }, GEN);
            let (din, out) = (any(rng), any(rng));
            let Body::S4d4Tr(s) = &mut i.body else {
                unreachable!()
            };
            s.in_dtype = din;
            s.out_dtype = out;
            s.num_active_channels = n;
            s.src_mem_pattern = pat(a, step, count);
            s.dst_mem_pattern = pat(d, step, count);
            (i, [din, din, out])
        }
    }
}

/// Writes channel-major `rows` (one element per `Vec<u8>`) at `off` with element stride
/// `step` (the gaps filled with 0xA5).
fn write(m: &mut Machine, off: u32, step: usize, d: Dtype, rows: &[Vec<Vec<u8>>]) {
    let size = d.size().unwrap();
    let count = rows[0].len();
    let mut bytes = Vec::new();
    for row in rows {
        for e in row {
            bytes.extend_from_slice(e);
            bytes.extend(std::iter::repeat_n(0xA5, (step - 1) * size));
        }
    }
    let t = HostTensor::at(Space::Sbuf, 0..rows.len() as u32)
        .offset(u64::from(off))
        .elements(d, (count * step) as u64);
    m.write_tensor(&t, &bytes).unwrap();
}

/// Channel-major elements of `count` at `off` with stride `step`.
fn read(m: &Machine, off: u32, step: usize, d: Dtype, n: u32, count: usize) -> Vec<Vec<u8>> {
    let size = d.size().unwrap();
    let t = HostTensor::at(Space::Sbuf, 0..n)
        .offset(u64::from(off))
        .elements(d, (count * step) as u64);
    let bytes = m.read_tensor(&t).unwrap();
    bytes
        .chunks(size * step)
        .map(|e| e[..size].to_vec())
        .collect()
}

fn lanes(m: &Machine, n: usize) -> Vec<(u32, bool)> {
    m.dve_state().lanes[..n]
        .iter()
        .map(|l| (l.accumulator, l.accumulator_written))
        .collect()
}

fn check(seed: u64, family: usize, n: u8, count: u16) -> Result<(), TestCaseError> {
    let mut rng = Rng(seed | 1);
    let (dense, dtypes) = instruction(&mut Rng(seed | 1), family, n, count, 1);
    let (strided, _) = instruction(&mut Rng(seed | 1), family, n, count, 2);
    rng.next();
    let mut ms = [
        Machine::new(Config::new(GEN)),
        Machine::new(Config::new(GEN)),
    ];
    for (k, &d) in dtypes[..2].iter().enumerate() {
        let rows: Vec<Vec<Vec<u8>>> = (0..n)
            .map(|_| (0..count).map(|_| rng.element(d)).collect())
            .collect();
        write(&mut ms[0], OFFS[k], 1, d, &rows);
        write(&mut ms[1], OFFS[k], 2, d, &rows);
    }
    if matches!(family, 9 | 10 | 14) {
        // Match keys: values of the lane (FP32 or BF16 inputs, widened exactly) and others.
        let src = read(&ms[0], OFFS[0], 1, dtypes[0], n.into(), count.into());
        let mut keys = Vec::new();
        for c in 0..usize::from(n) {
            for _ in 0..8 {
                let bits = if rng.next().is_multiple_of(4) {
                    rng.f32_bits()
                } else {
                    let e = &src[c * usize::from(count) + (rng.next() % u64::from(count)) as usize];
                    match e.len() {
                        4 => u32::from_le_bytes([e[0], e[1], e[2], e[3]]),
                        _ => u32::from(u16::from_le_bytes([e[0], e[1]])) << 16,
                    }
                };
                keys.extend(bits.to_le_bytes());
            }
        }
        let mut load = inst(0x6D, GEN);
        let Body::S2Bn(s) = &mut load.body else {
            unreachable!()
        };
        s.src_mem_pattern = pat(0x18000, 1, 8);
        s.dtype = Dtype::FP32;
        s.num_active_channels = n;
        for m in &mut ms {
            let t = HostTensor::at(Space::Sbuf, 0..u32::from(n))
                .offset(0x18000)
                .elements(Dtype::FP32, 8);
            m.write_tensor(&t, &keys).unwrap();
            m.step(&load).unwrap();
        }
    }
    let out = dtypes[2];
    let out_count = match &dense.body {
        _ if matches!(family, 8 | 9) => 8,
        // TensorReduce: one element per group.
        Body::S4d4Tr(s) if family == 13 => s.dst_mem_pattern.num_elem[0],
        _ => count,
    };
    // In-place MatchReplace8 writes over its source.
    let out_off = if family == 14 { OFFS[0] } else { OFFS[2] };
    // CrossLaneReduce writes one row, in partition 0.
    let out_n = if family == 11 { 1 } else { n };
    for round in 0..2 {
        let a = ms[0].step(&dense).map(|_| ());
        let b = ms[1].step(&strided).map(|_| ());
        prop_assert_eq!(a.is_ok(), b.is_ok(), "round {}: {:?} / {:?}", round, a, b);
        if a.is_err() {
            return Ok(());
        }
        let (n32, c) = (u32::from(out_n), usize::from(out_count));
        let got = read(&ms[0], out_off, 1, out, n32, c);
        let want = read(&ms[1], out_off, 2, out, n32, c);
        if let Some(i) = (0..got.len()).find(|&i| got[i] != want[i]) {
            return Err(TestCaseError::fail(format!(
                "round {round} {dense:?}: element {i} (channel {}, {}): fast {:02x?} plain {:02x?}",
                i / c,
                i % c,
                got[i],
                want[i]
            )));
        }
        // The shadow: the strided run also leaves its gaps unwritten.
        let uninit = |m: &Machine, step: usize| {
            let t = HostTensor::at(Space::Sbuf, 0..n32)
                .offset(u64::from(out_off))
                .elements(out, (c * step) as u64);
            m.uninitialised_bytes(&t).unwrap()
        };
        // (In place, the gaps hold the strided source's filler: initialised.)
        let gaps = if family == 14 {
            0
        } else {
            (c * out.size().unwrap()) as u64 * u64::from(n32)
        };
        prop_assert_eq!(
            uninit(&ms[0], 1) + gaps,
            uninit(&ms[1], 2),
            "initialised shadow"
        );
        prop_assert_eq!(lanes(&ms[0], n.into()), lanes(&ms[1], n.into()));
        let search = |m: &Machine| {
            m.dve_state().lanes[..usize::from(n)]
                .iter()
                .map(|l| (l.matched, l.index_flops, l.index_flops_written))
                .collect::<Vec<_>>()
        };
        prop_assert_eq!(search(&ms[0]), search(&ms[1]));
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 80, ..ProptestConfig::default() })]

    #[test]
    fn dense_paths_match_the_plain_walks(
        seed: u64,
        family in 0usize..15,
        n in 1u8..=3,
        count in prop_oneof![1u16..=40, 1000u16..=2100],
        level: prop::sample::Index,
    ) {
        let levels = simd::available();
        let level = levels[level.index(levels.len())];
        simd::with_level(level, || check(seed, family, n, count)).unwrap()?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 32, ..ProptestConfig::default() })]

    /// More cases of the families added last: TensorReduce (13) and in-place
    /// MatchReplace8 (14).
    #[test]
    fn dense_reduce_and_in_place_match_replace_match_the_plain_walks(
        seed: u64,
        family in 13usize..15,
        n in 1u8..=3,
        count in prop_oneof![1u16..=40, 1000u16..=2100],
        level: prop::sample::Index,
    ) {
        let levels = simd::available();
        let level = levels[level.index(levels.len())];
        simd::with_level(level, || check(seed, family, n, count)).unwrap()?;
    }
}
