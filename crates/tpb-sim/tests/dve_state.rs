//! The hidden DVE per-lane state and the instructions around it (issue 17b): the STT family
//! (isa-facts-dve-pool §9–§11), checked against plain references written from the sheet's
//! formulas, plus fault atomicity of the lane state (decisions §3.9).
#![allow(clippy::needless_range_loop)]

mod support;

use support::*;
use tpb_isa::geometry::Space;
use tpb_isa::wire::{DtypePair, ImmVal, S2s2d2Stt};
use tpb_isa::{AccumCmd, AluOp, Body, Dtype, Gen, ImmSrc, Instruction, RevOps};
use tpb_sim::{Config, FaultCause, Machine, WarningKind};

const GEN: Gen = Gen::Cayman;

/// A small deterministic generator (xorshift), so the tests need no crate.
impl Rng {
    fn f32(&mut self) -> f32 {
        ((self.next() % 20001) as f32 - 10000.0) / 977.0
    }
}

fn rand_rows(rng: &mut Rng, np: usize, epp: usize) -> Vec<Vec<f32>> {
    (0..np)
        .map(|_| (0..epp).map(|_| rng.f32()).collect())
        .collect()
}

#[allow(clippy::too_many_arguments)]
fn stt(
    op: u8,
    n: u8,
    epp: u16,
    dtypes: (Dtype, Dtype, Dtype),
    ops: (AluOp, AluOp),
    rev: RevOps,
    imm0: u32,
    cmd: AccumCmd,
) -> Instruction {
    let mut i = inst(op, GEN);
    let Body::S2s2d2Stt(s) = &mut i.body else {
        unreachable!()
    };
    *s = S2s2d2Stt {
        src0_mem_pattern: tensor(sbuf(GEN, 0, 0x0), &[(1, epp)]),
        src1_mem_pattern: tensor(sbuf(GEN, 0, 0x1000), &[(1, epp)]),
        dst_mem_pattern: tensor(sbuf(GEN, 0, 0x2000), &[(1, epp)]),
        op0: ops.0,
        op1: ops.1,
        reverse_operands: rev,
        imm0_src: ImmSrc::INSTRUCTION,
        in0_in1_dtype: DtypePair::new(dtypes.0, dtypes.1),
        out_dtype: dtypes.2,
        num_active_channels: n,
        imm0_dtype: if op == 0x9E { dtypes.2 } else { Dtype::FP32 },
        accumulator_cmd: cmd,
        imm0: ImmVal(imm0),
        ..Default::default()
    };
    i
}

/// The sheet's §9.4 formula, one element: `stage(op1, stage(op0, a, s, rev&1), b, rev&2)`.
fn ref_stage(op: AluOp, data: f32, other: f32, reversed: bool) -> f32 {
    let (x, y) = if reversed {
        (other, data)
    } else {
        (data, other)
    };
    match op {
        AluOp::BYPASS => data,
        AluOp::ADD => x + y,
        AluOp::SUBTRACT => x - y,
        AluOp::MULT => x * y,
        AluOp::MAX => x.max(y),
        AluOp::MIN => x.min(y),
        _ => unreachable!("reference covers add/sub/mult/max/min"),
    }
}

fn load(m: &mut Machine, off: u64, rows: &[Vec<f32>]) {
    write_rows(m, Space::Sbuf, 0, off, Dtype::FP32, &f32_rows(rows));
}

fn out_f32(m: &Machine, np: u32, epp: u64) -> Vec<Vec<f32>> {
    read_rows(m, Space::Sbuf, 0, np, 0x2000, Dtype::FP32, epp)
        .into_iter()
        .map(|r| r.into_iter().map(f32::from_bits).collect())
        .collect()
}

// §9.4: every reverse mode with a non-commutative op pair, against the plain formula; and
// §0.3.3 / Q15: Accumulate adds each result to the lane accumulator.
#[test]
fn stt_arith_matches_the_formula_for_every_reverse_mode() {
    let mut rng = Rng(0x5EED);
    let (np, epp) = (5usize, 37usize);
    let a = rand_rows(&mut rng, np, epp);
    let b = rand_rows(&mut rng, np, epp);
    let s = 1.75f32;
    for rev in [RevOps::NONE, RevOps::FIRST, RevOps::SECOND, RevOps::BOTH] {
        for ops in [
            (AluOp::SUBTRACT, AluOp::MULT),
            (AluOp::MULT, AluOp::SUBTRACT),
            (AluOp::MAX, AluOp::ADD),
        ] {
            let mut m = Machine::new(Config::new(GEN));
            load(&mut m, 0x0, &a);
            load(&mut m, 0x1000, &b);
            let i = stt(
                0x9D,
                np as u8,
                epp as u16,
                (Dtype::FP32, Dtype::FP32, Dtype::FP32),
                ops,
                rev,
                s.to_bits(),
                AccumCmd::ZERO_ACCUMULATE,
            );
            m.step(&i).unwrap();
            let got = out_f32(&m, np as u32, epp as u64);
            for c in 0..np {
                let mut acc = 0.0f32;
                for k in 0..epp {
                    let t = ref_stage(ops.0, a[c][k], s, rev.0 & 1 != 0);
                    let r = ref_stage(ops.1, t, b[c][k], rev.0 & 2 != 0);
                    acc += r;
                    assert_eq!(
                        got[c][k].to_bits(),
                        r.to_bits(),
                        "{rev:?} {ops:?} [{c}][{k}]"
                    );
                }
                let lane = m.dve_state().lanes[c];
                assert_eq!(lane.accumulator_f32().to_bits(), acc.to_bits(), "acc {c}");
                assert!(lane.accumulator_written);
            }
            // Lanes beyond the instruction's channels are untouched.
            assert!(!m.dve_state().lanes[np].accumulator_written);
        }
    }
}

// §9.4 + Q15: Accumulate continues the previous sum; Idle leaves it alone (Q19).
#[test]
fn stt_accumulate_continues_and_idle_keeps() {
    let (np, epp) = (2usize, 4usize);
    let a = vec![vec![1.0f32, 2.0, 3.0, 4.0]; np];
    let b = vec![vec![0.5f32; epp]; np];
    let mut m = Machine::new(Config::new(GEN));
    load(&mut m, 0x0, &a);
    load(&mut m, 0x1000, &b);
    let ops = (AluOp::MULT, AluOp::ADD);
    let dt = (Dtype::FP32, Dtype::FP32, Dtype::FP32);
    let mk = |cmd| stt(0x9D, 2, 4, dt, ops, RevOps::NONE, 2f32.to_bits(), cmd);
    // Continuing a never-written accumulator warns (dve-state-unset) and starts from 0.0.
    let r = m.step(&mk(AccumCmd::ACCUMULATE)).unwrap();
    assert_eq!(r.warnings.len(), 1);
    assert_eq!(r.warnings[0].kind, WarningKind::DveStateUnset);
    // 2·(1+2+3+4) + 4·0.5 = 22 per step.
    assert_eq!(m.dve_state().lanes[0].accumulator_f32(), 22.0);
    let r = m.step(&mk(AccumCmd::ACCUMULATE)).unwrap();
    assert!(r.warnings.is_empty());
    assert_eq!(m.dve_state().lanes[1].accumulator_f32(), 44.0);
    m.step(&mk(AccumCmd::IDLE)).unwrap();
    assert_eq!(m.dve_state().lanes[1].accumulator_f32(), 44.0);
    m.step(&mk(AccumCmd::ZERO_ACCUMULATE)).unwrap();
    assert_eq!(m.dve_state().lanes[1].accumulator_f32(), 22.0);
    // Strict mode turns the unset read into a fault that changes nothing.
    let mut strict = Machine::new(Config {
        strict: true,
        ..Config::new(GEN)
    });
    load(&mut strict, 0x0, &a);
    load(&mut strict, 0x1000, &b);
    let before = strict.clone();
    let e = strict.step(&mk(AccumCmd::ACCUMULATE)).unwrap_err();
    assert!(matches!(
        e.cause,
        FaultCause::Strict(WarningKind::DveStateUnset, _)
    ));
    assert!(strict == before);
}

// §9.3 / §9.4 bitvec path: raw bits, all four dtypes equal.
#[test]
fn stt_bitvec_on_raw_bits() {
    let mut m = Machine::new(Config::new(GEN));
    let a: Vec<Vec<u32>> = vec![(0..8).map(|k| 0x1234_5678u32.rotate_left(k)).collect()];
    let b: Vec<Vec<u32>> = vec![(0..8).map(|k| 0x0F0F_0000u32 >> k).collect()];
    write_rows(&mut m, Space::Sbuf, 0, 0x0, Dtype::UINT32, &a);
    write_rows(&mut m, Space::Sbuf, 0, 0x1000, Dtype::UINT32, &b);
    let u = Dtype::UINT32;
    let i = stt(
        0x9E,
        1,
        8,
        (u, u, u),
        (AluOp::BITWISE_AND, AluOp::BITWISE_XOR),
        RevOps::NONE,
        0xFFFF_00FF,
        AccumCmd::IDLE,
    );
    m.step(&i).unwrap();
    let got = read_rows(&m, Space::Sbuf, 0, 1, 0x2000, u, 8);
    for k in 0..8 {
        assert_eq!(got[0][k], (a[0][k] & 0xFFFF_00FF) ^ b[0][k]);
    }
}

// §10 + Q16 (ASSUMED NKI recurrence): r[i] = op1(op0(src0[i], r[i-1]), src1[i]), r[-1] = imm0.
#[test]
fn tensor_tensor_scan_follows_the_nki_recurrence() {
    let mut rng = Rng(77);
    let (np, epp) = (3usize, 50usize);
    let a: Vec<Vec<f32>> = rand_rows(&mut rng, np, epp)
        .into_iter()
        .map(|r| r.into_iter().map(|x| x / 20.0).collect())
        .collect();
    let b = rand_rows(&mut rng, np, epp);
    for (ops, rev) in [
        ((AluOp::MULT, AluOp::ADD), RevOps::NONE),
        ((AluOp::SUBTRACT, AluOp::SUBTRACT), RevOps::BOTH),
        ((AluOp::MAX, AluOp::SUBTRACT), RevOps::SECOND),
    ] {
        let mut m = Machine::new(Config::new(GEN));
        load(&mut m, 0x0, &a);
        load(&mut m, 0x1000, &b);
        let f = Dtype::FP32;
        let i = stt(
            0xE5,
            np as u8,
            epp as u16,
            (f, f, f),
            ops,
            rev,
            0.25f32.to_bits(),
            AccumCmd::IDLE,
        );
        m.step(&i).unwrap();
        let got = out_f32(&m, np as u32, epp as u64);
        for c in 0..np {
            let mut r = 0.25f32;
            for k in 0..epp {
                let t = ref_stage(ops.0, a[c][k], r, rev.0 & 1 != 0);
                r = ref_stage(ops.1, t, b[c][k], rev.0 & 2 != 0);
                assert_eq!(got[c][k].to_bits(), r.to_bits(), "{ops:?} [{c}][{k}]");
            }
        }
    }
}

// §11.4 + Q18: pred true → dst = src1, max over selected; false → imm0 with reverse=First,
// dst kept with None; ZeroAccumulate seeds −inf.
#[test]
fn select_reduce_selects_fills_and_maxes() {
    let mut m = Machine::new(Config::new(GEN));
    let pred = vec![vec![1u32, 0, 3, 0, 0, 7], vec![0u32; 6]];
    let data = vec![
        vec![-5.0f32, 100.0, -2.0, 9.0, 8.0, -1.5],
        vec![1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0],
    ];
    write_rows(&mut m, Space::Sbuf, 0, 0x0, Dtype::UINT8, &pred);
    load(&mut m, 0x1000, &data);
    // Prefill dst so "kept" is visible.
    load(&mut m, 0x2000, &[vec![42.0f32; 6], vec![42.0f32; 6]]);
    let fill = -3.0e38f32;
    let i = stt(
        0xEA,
        2,
        6,
        (Dtype::UINT8, Dtype::FP32, Dtype::FP32),
        (AluOp::BYPASS, AluOp::MAX),
        RevOps::FIRST,
        fill.to_bits(),
        AccumCmd::ZERO_ACCUMULATE,
    );
    m.step(&i).unwrap();
    let got = out_f32(&m, 2, 6);
    assert_eq!(got[0], vec![-5.0, fill, -2.0, fill, fill, -1.5]);
    assert_eq!(got[1], vec![fill; 6]);
    assert_eq!(m.dve_state().lanes[0].accumulator_f32(), -1.5);
    assert_eq!(m.dve_state().lanes[1].accumulator_f32(), f32::NEG_INFINITY);
    // reverse None keeps dst where the predicate is false; Accumulate continues the max.
    load(&mut m, 0x2000, &[vec![42.0f32; 6], vec![42.0f32; 6]]);
    let mut i2 = i;
    if let Body::S2s2d2Stt(s) = &mut i2.body {
        s.reverse_operands = RevOps::NONE;
        s.accumulator_cmd = AccumCmd::ACCUMULATE;
    }
    write_rows(
        &mut m,
        Space::Sbuf,
        0,
        0x0,
        Dtype::UINT8,
        &[vec![0, 1, 0, 0, 0, 0], vec![0; 6]],
    );
    m.step(&i2).unwrap();
    let got = out_f32(&m, 2, 6);
    assert_eq!(got[0], vec![42.0, 100.0, 42.0, 42.0, 42.0, 42.0]);
    assert_eq!(got[1], vec![42.0; 6]);
    assert_eq!(m.dve_state().lanes[0].accumulator_f32(), 100.0);
}

// decisions §3.9: a faulting STT (dst outside SBUF's active bytes) changes neither memory nor
// the lane accumulators.
#[test]
fn faulting_stt_changes_no_lane_state() {
    let mut m = Machine::new(Config::new(GEN));
    load(&mut m, 0x0, &[vec![1.0; 4]]);
    load(&mut m, 0x1000, &[vec![1.0; 4]]);
    let ok = stt(
        0x9D,
        1,
        4,
        (Dtype::FP32, Dtype::FP32, Dtype::FP32),
        (AluOp::ADD, AluOp::ADD),
        RevOps::NONE,
        1f32.to_bits(),
        AccumCmd::ZERO_ACCUMULATE,
    );
    m.step(&ok).unwrap();
    let mut bad = ok;
    if let Body::S2s2d2Stt(s) = &mut bad.body {
        // Reads 4 elements of src1 but only 2 in dst: the validator rejects it.
        s.dst_mem_pattern.num_elem = [2, 1];
    }
    let before = m.clone();
    assert!(m.step(&bad).is_err());
    assert!(m == before);
    assert_eq!(m.dve_state().lanes[0].accumulator_f32(), 12.0);
}

fn cache(op: u8, n: u8, epp: u16, ops: (AluOp, AluOp), imm0: f32, cmd: AccumCmd) -> Instruction {
    let mut i = inst(op, GEN);
    let Body::S3d3Ts(s) = &mut i.body else {
        unreachable!()
    };
    s.accumulator_cmd = cmd;
    s.src_mem_pattern = tensor(sbuf(GEN, 0, 0x0), &[(1, epp)]);
    s.dst_mem_pattern = tensor(sbuf(GEN, 0, 0x2000), &[(1, epp)]);
    s.in_dtype = Dtype::FP32;
    s.out_dtype = Dtype::FP32;
    s.num_active_channels = n;
    s.op0 = ops.0;
    s.op1 = ops.1;
    s.imm0 = ImmVal(imm0.to_bits());
    i
}

fn drain(n: u8, dtype: Dtype, negated: bool) -> Instruction {
    let mut i = inst(0x9B, GEN);
    let Body::D1Rd(s) = &mut i.body else {
        unreachable!()
    };
    s.dst_element_count = 1;
    s.dtype = dtype;
    s.negated = u8::from(negated);
    s.num_active_channels = n;
    s.dst_mem_pattern = tensor(sbuf(GEN, 0, 0x3000), &[(1, 1)]);
    i
}

// §12.5 (decisions 9, 10; Q25): 0x9a writes the per-element fold to dst and leaves the
// reduction in the accumulator; 0xe6 writes the running value; 0x9b drains (§13.1).
#[test]
fn cache_reduce_then_drain_and_cumulative_scan() {
    let mut rng = Rng(99);
    let (np, epp) = (4usize, 33usize);
    let x = rand_rows(&mut rng, np, epp);
    for (ops, seed) in [
        ((AluOp::MULT, AluOp::ADD), 0.0f32),
        ((AluOp::ADD, AluOp::MAX), f32::NEG_INFINITY),
        ((AluOp::SUBTRACT, AluOp::MIN), f32::INFINITY),
        ((AluOp::MULT, AluOp::SUBTRACT), 0.0),
        ((AluOp::BYPASS, AluOp::MULT), 1.0),
    ] {
        for op in [0x9Au8, 0xE6] {
            let mut m = Machine::new(Config::new(GEN));
            load(&mut m, 0x0, &x);
            m.step(&cache(
                op,
                np as u8,
                epp as u16,
                ops,
                0.5,
                AccumCmd::ZERO_ACCUMULATE,
            ))
            .unwrap();
            m.step(&drain(np as u8, Dtype::FP32, false)).unwrap();
            let got = out_f32(&m, np as u32, epp as u64);
            let res = read_rows(&m, Space::Sbuf, 0, np as u32, 0x3000, Dtype::FP32, 1);
            for c in 0..np {
                let mut acc = seed;
                for k in 0..epp {
                    let tmp = ref_stage(ops.0, x[c][k], 0.5, false);
                    acc = ref_stage(ops.1, tmp, acc, false); // NKI order: op1(tmp, acc)
                    let want = if op == 0x9A { tmp } else { acc };
                    assert_eq!(
                        got[c][k].to_bits(),
                        want.to_bits(),
                        "{op:#x} {ops:?} [{c}][{k}]"
                    );
                }
                assert_eq!(res[c][0], acc.to_bits(), "{op:#x} {ops:?} drain {c}");
            }
        }
    }
}

// §12.5: LoadAccumulate seeds imm1, Accumulate continues; §13.1: negated, bf16 narrowing.
#[test]
fn cache_reduce_load_and_continue_then_negated_bf16_drain() {
    let mut m = Machine::new(Config::new(GEN));
    load(&mut m, 0x0, &[vec![1.0, 2.0, 3.0]]);
    let mut i = cache(
        0x9A,
        1,
        3,
        (AluOp::BYPASS, AluOp::ADD),
        0.0,
        AccumCmd::LOAD_ACCUMULATE,
    );
    if let Body::S3d3Ts(s) = &mut i.body {
        s.imm1 = ImmVal(100.0f32.to_bits());
    }
    m.step(&i).unwrap();
    assert_eq!(m.dve_state().lanes[0].accumulator_f32(), 106.0);
    m.step(&cache(
        0x9A,
        1,
        3,
        (AluOp::BYPASS, AluOp::ADD),
        0.0,
        AccumCmd::ACCUMULATE,
    ))
    .unwrap();
    assert_eq!(m.dve_state().lanes[0].accumulator_f32(), 112.0);
    m.step(&drain(1, Dtype::BFLOAT16, true)).unwrap();
    let got = read_rows(&m, Space::Sbuf, 0, 1, 0x3000, Dtype::BFLOAT16, 1);
    assert_eq!(got[0][0], u32::from(half::bf16::from_f32(-112.0).to_bits()));
    // Q19: the drain keeps the accumulator.
    assert_eq!(m.dve_state().lanes[0].accumulator_f32(), 112.0);
}

// Q19 / dve-lane-state: draining lanes nothing has written warns; strict mode faults and
// changes nothing.
#[test]
fn draining_an_unwritten_accumulator_warns() {
    let mut m = Machine::new(Config::new(GEN));
    let r = m.step(&drain(3, Dtype::FP32, false)).unwrap();
    assert_eq!(r.warnings[0].kind, WarningKind::DveStateUnset);
    assert_eq!(
        read_rows(&m, Space::Sbuf, 0, 3, 0x3000, Dtype::FP32, 1)[2][0],
        0
    );
    let mut strict = Machine::new(Config {
        strict: true,
        ..Config::new(GEN)
    });
    let before = strict.clone();
    assert!(strict.step(&drain(3, Dtype::FP32, false)).is_err());
    assert!(strict == before);
}

fn bn(op: u8, n: u8, epp: u16, in_dt: Dtype, out_dt: Dtype) -> Instruction {
    let mut i = inst(op, GEN);
    let Body::S4d2Bn(s) = &mut i.body else {
        unreachable!()
    };
    s.src_mem_pattern = tensor(sbuf(GEN, 0, 0x0), &[(1, epp)]);
    s.in_dtype = in_dt;
    s.out_dtype = out_dt;
    s.num_active_channels = n;
    s.dst_mem_pattern = tensor(sbuf(GEN, 0, 0x2000), &[(1, 8)]);
    i
}

fn mvl(n: u8, off: u32) -> Instruction {
    let mut i = inst(0x6D, GEN);
    let Body::S2Bn(s) = &mut i.body else {
        unreachable!()
    };
    s.src_mem_pattern = tensor(sbuf(GEN, 0, off), &[(1, 8)]);
    s.dtype = Dtype::FP32;
    s.num_active_channels = n;
    i
}

/// §16.4 reference: the 8 largest ascending; first matches per key in ascending slot order.
fn ref_first_matches(keys: &[f32; 8], xs: &[f32]) -> [u32; 8] {
    let mut out = [u32::MAX; 8];
    let mut used = [false; 8];
    for (i, &x) in xs.iter().enumerate() {
        for n in 0..8 {
            if !used[n] && keys[n] == x {
                used[n] = true;
                out[n] = i as u32;
                break;
            }
        }
    }
    out
}

// §16.4 (Q22-Q24): Max8 → MatchValueLoad → FindIndex8 → MatchReplace8 → DveReadIndices, the
// beam-search pipeline, against plain references.
#[test]
fn search_cluster_pipeline_matches_the_reference() {
    let mut rng = Rng(4242);
    let (np, epp) = (6usize, 200usize);
    // Small integers: plenty of duplicates.
    let x: Vec<Vec<f32>> = (0..np)
        .map(|_| (0..epp).map(|_| (rng.next() % 50) as f32).collect())
        .collect();
    let mut m = Machine::new(Config::new(GEN));
    load(&mut m, 0x0, &x);
    m.step(&bn(0x6C, np as u8, epp as u16, Dtype::FP32, Dtype::FP32))
        .unwrap();
    let top = out_f32(&m, np as u32, 8);
    for c in 0..np {
        let mut s = x[c].clone();
        s.sort_by(|a, b| a.partial_cmp(b).unwrap());
        assert_eq!(top[c], s[epp - 8..].to_vec(), "max8 lane {c}");
    }
    // Load the top-8 as keys (reversed: mv[7-k] = top[k]).
    m.step(&mvl(np as u8, 0x2000)).unwrap();
    let keys: Vec<[f32; 8]> = (0..np)
        .map(|c| std::array::from_fn(|n| top[c][7 - n]))
        .collect();
    for c in 0..np {
        assert_eq!(
            m.dve_state().lanes[c].match_keys.map(f32::from_bits),
            keys[c]
        );
    }
    let mut fi = bn(0x6E, np as u8, epp as u16, Dtype::FP32, Dtype::UINT32);
    if let Body::S4d2Bn(s) = &mut fi.body {
        s.dst_mem_pattern = tensor(sbuf(GEN, 0, 0x3000), &[(1, 8)]);
    }
    m.step(&fi).unwrap();
    let idx = read_rows(&m, Space::Sbuf, 0, np as u32, 0x3000, Dtype::UINT32, 8);
    for c in 0..np {
        assert_eq!(
            idx[c],
            ref_first_matches(&keys[c], &x[c]).to_vec(),
            "find lane {c}"
        );
    }
    // MatchReplace8 in place with −inf, then drain the indices as u16.
    let mut mr = inst(0x6F, GEN);
    if let Body::S4d4Mr(s) = &mut mr.body {
        s.src_mem_pattern = tensor(sbuf(GEN, 0, 0x0), &[(1, epp as u16)]);
        s.dst_mem_pattern = tensor(sbuf(GEN, 0, 0x0), &[(1, epp as u16)]);
        s.in_dtype = Dtype::FP32;
        s.out_dtype = Dtype::FP32;
        s.num_active_channels = np as u8;
        s.immediate = tpb_isa::wire::F32Bits(f32::NEG_INFINITY.to_bits());
    }
    m.step(&mr).unwrap();
    let mut ri = inst(0xE9, GEN);
    if let Body::D4Mr(s) = &mut ri.body {
        s.dst_element_count = 8;
        s.dtype = Dtype::UINT16;
        s.num_active_channels = np as u8;
        s.dst_mem_pattern = tensor(sbuf(GEN, 0, 0x4000), &[(1, 8)]);
    }
    m.step(&ri).unwrap();
    let replaced = read_rows(&m, Space::Sbuf, 0, np as u32, 0x0, Dtype::FP32, epp as u64);
    let drained = read_rows(&m, Space::Sbuf, 0, np as u32, 0x4000, Dtype::UINT16, 8);
    for c in 0..np {
        let want = ref_first_matches(&keys[c], &x[c]);
        for i in 0..epp {
            let hit = want.contains(&(i as u32));
            let v = f32::from_bits(replaced[c][i]);
            assert_eq!(
                v,
                if hit { f32::NEG_INFINITY } else { x[c][i] },
                "[{c}][{i}]"
            );
        }
        assert_eq!(
            drained[c],
            want.map(|w| w & 0xFFFF).to_vec(),
            "indices lane {c}"
        );
    }
    // Max8 again gives the next 8 (the beam-search extension).
    m.step(&bn(0x6C, np as u8, epp as u16, Dtype::FP32, Dtype::FP32))
        .unwrap();
    let next = out_f32(&m, np as u32, 8);
    for c in 0..np {
        let mut s = x[c].clone();
        s.sort_by(|a, b| a.partial_cmp(b).unwrap());
        assert_eq!(
            next[c],
            s[epp - 16..epp - 8].to_vec(),
            "second max8 lane {c}"
        );
    }
}

// Q23/Q24: a key that matches nothing reads all ones; FindIndex8 without keys and
// DveReadIndices before any MatchReplace8 warn (dve-state-unset) and read the initial state.
#[test]
fn search_sentinels_and_unset_state() {
    let mut m = Machine::new(Config::new(GEN));
    load(&mut m, 0x0, &[(0..16).map(|k| k as f32).collect()]);
    let mut fi = bn(0x6E, 1, 16, Dtype::FP32, Dtype::UINT16);
    let r = m.step(&fi).unwrap();
    assert_eq!(r.warnings[0].kind, WarningKind::DveStateUnset);
    // Keys start 0.0: slot 0 finds element 0, the others nothing (0xFFFF).
    let got = read_rows(&m, Space::Sbuf, 0, 1, 0x2000, Dtype::UINT16, 8);
    assert_eq!(
        got[0],
        vec![0, 0xFFFF, 0xFFFF, 0xFFFF, 0xFFFF, 0xFFFF, 0xFFFF, 0xFFFF]
    );
    let mut ri = inst(0xE9, GEN);
    if let Body::D4Mr(s) = &mut ri.body {
        s.dst_element_count = 8;
        s.dtype = Dtype::UINT32;
        s.num_active_channels = 1;
        s.dst_mem_pattern = tensor(sbuf(GEN, 0, 0x4000), &[(1, 8)]);
    }
    let r = m.step(&ri).unwrap();
    assert_eq!(r.warnings[0].kind, WarningKind::DveStateUnset);
    assert_eq!(
        read_rows(&m, Space::Sbuf, 0, 1, 0x4000, Dtype::UINT32, 8)[0],
        vec![u32::MAX; 8]
    );
    // §16.3: FindIndex8's dst must be uint16/uint32 — an invalid bundle changes nothing.
    if let Body::S4d2Bn(s) = &mut fi.body {
        s.out_dtype = Dtype::FP32;
    }
    let before = m.clone();
    assert!(matches!(
        m.step(&fi).unwrap_err().cause,
        FaultCause::Invalid { .. }
    ));
    assert!(m == before);
}

fn cross(
    op: u8,
    n: u8,
    epp: u16,
    rop: tpb_isa::ReduceOp,
    axis: tpb_isa::ReduceAxis,
    dt: Dtype,
) -> Instruction {
    let mut i = inst(op, GEN);
    let Body::S4d4Cr(s) = &mut i.body else {
        unreachable!()
    };
    s.src_mem_pattern = tensor(sbuf(GEN, 0, 0x0), &[(1, epp)]);
    s.in_dtype = dt;
    s.out_dtype = dt;
    s.num_active_channels = n;
    s.reduce_op = rop;
    s.reduce_axis = axis;
    s.scale = tpb_isa::wire::F32Bits(0.25f32.to_bits());
    let dst_n = if axis == tpb_isa::ReduceAxis::ALL {
        1
    } else {
        epp
    };
    s.dst_mem_pattern = tensor(sbuf(GEN, 0, 0x2000), &[(1, dst_n)]);
    i
}

// §8.4 + Q13: ALL folds channels ascending then elements; PARTITIONS folds per element over
// channels; AVERAGE scales each element; bitwise ops on raw bits.
#[test]
fn cross_lane_reduce_folds_in_the_assumed_order() {
    use tpb_isa::{ReduceAxis, ReduceOp};
    let mut rng = Rng(7);
    let (np, epp) = (12usize, 9usize);
    let x = rand_rows(&mut rng, np, epp);
    for (rop, axis) in [
        (ReduceOp::ADD, ReduceAxis::ALL),
        (ReduceOp::AVERAGE, ReduceAxis::ALL),
        (ReduceOp::MAX, ReduceAxis::PARTITIONS),
        (ReduceOp::ADD, ReduceAxis::PARTITIONS),
    ] {
        let mut m = Machine::new(Config::new(GEN));
        load(&mut m, 0x0, &x);
        m.step(&cross(0x7C, np as u8, epp as u16, rop, axis, Dtype::FP32))
            .unwrap();
        let f = |v: f32| {
            if rop == ReduceOp::AVERAGE {
                v * 0.25
            } else {
                v
            }
        };
        let fold = |vals: Vec<f32>| {
            let mut it = vals.into_iter();
            let first = f(it.next().unwrap());
            it.fold(first, |a, b| match rop {
                ReduceOp::MAX => a.max(b),
                _ => a + f(b),
            })
        };
        if axis == ReduceAxis::ALL {
            let want = fold(x.iter().flatten().copied().collect());
            assert_eq!(out_f32(&m, 1, 1)[0][0].to_bits(), want.to_bits(), "{rop:?}");
        } else {
            let got = out_f32(&m, 1, epp as u64);
            for k in 0..epp {
                let want = fold((0..np).map(|c| x[c][k]).collect());
                assert_eq!(got[0][k].to_bits(), want.to_bits(), "{rop:?} {k}");
            }
        }
    }
    // 0x7d: XOR over partitions on raw u16 bits.
    let mut m = Machine::new(Config::new(GEN));
    let rows: Vec<Vec<u32>> = (0..4)
        .map(|c| (0..5).map(|k| (c * 977 + k * 31) as u32 & 0xFFFF).collect())
        .collect();
    write_rows(&mut m, Space::Sbuf, 0, 0x0, Dtype::UINT16, &rows);
    m.step(&cross(
        0x7D,
        4,
        5,
        ReduceOp::BITWISE_XOR,
        ReduceAxis::PARTITIONS,
        Dtype::UINT16,
    ))
    .unwrap();
    let got = read_rows(&m, Space::Sbuf, 0, 1, 0x2000, Dtype::UINT16, 5);
    for k in 0..5 {
        assert_eq!(got[0][k], rows.iter().fold(0, |a, r| a ^ r[k]));
    }
    // Q12: an arith op on the bitvec opcode is invalid (ASSUMED pairing) and changes nothing.
    let before = m.clone();
    let e = m
        .step(&cross(
            0x7D,
            4,
            5,
            ReduceOp::ADD,
            ReduceAxis::PARTITIONS,
            Dtype::UINT16,
        ))
        .unwrap_err();
    assert!(matches!(e.cause, FaultCause::Invalid { .. }));
    assert!(m == before);
}

// §14.2: LoadMaskSelect stores its 32 bytes as the core's mask-select table; an invalid byte
// is refused and changes nothing.
#[test]
fn load_mask_select_sets_the_table() {
    let mut m = Machine::new(Config::new(GEN));
    assert_eq!(m.dve_state().mask_select, None);
    let mut i = inst(0x69, GEN);
    let table: [u8; 32] = std::array::from_fn(|j| if j == 5 { 255 } else { (31 - j) as u8 });
    if let Body::CtrlIm(s) = &mut i.body {
        s.immediate = tpb_isa::wire::Bytes(table);
    }
    let r = m.step(&i).unwrap();
    assert_eq!(r.elements, 0);
    assert_eq!(m.dve_state().mask_select, Some(table));
    if let Body::CtrlIm(s) = &mut i.body {
        s.immediate.0[0] = 64;
    }
    let before = m.clone();
    assert!(m.step(&i).is_err());
    assert!(m == before);
}
