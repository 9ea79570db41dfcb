//! The DVE/POOL families where dtype conversions meet the FP32 ALU, against committed
//! NumPy/ml_dtypes fixtures (`tests/fixtures/dve_state`, written by
//! `tools/gen_dve_state_fixtures.py`; CI needs no Python): TensorTensor over mixed dtypes
//! (isa-facts-dve-pool §1.5), Reciprocal over every dtype pair (§5), TensorReduce (§7.4),
//! ScalarTensorTensor with its accumulator (§9.4, Q15), TensorTensorScan (§10, Q16) and the
//! cache ops with the DveReadAccumulator drain (§12.5, §13.1). Every case runs at every SIMD
//! level this CPU has.

mod support;

use support::*;
use tpb_isa::geometry::Space;
use tpb_isa::wire::{DtypePair, ImmVal};
use tpb_isa::{AccumCmd, AluOp, Body, Dtype, Gen, ImmSrc, Instruction, RevOps, TensorSubdim};
use tpb_sim::numerics::simd;
use tpb_sim::{Config, Machine};

const GEN: Gen = Gen::Cayman;
const A: u32 = 0x0;
const B: u32 = 0x1000;
const D: u32 = 0x2000;
const R: u32 = 0x3000;

/// A fixture file as a cursor over its u32 words.
struct Words {
    name: &'static str,
    w: Vec<u32>,
    at: usize,
}

impl Words {
    fn open(name: &'static str) -> Words {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/dve_state")
            .join(format!("{name}.u32"));
        let bytes = std::fs::read(&path).unwrap_or_else(|e| {
            panic!(
                "{}: {e} (regenerate with tools/gen_dve_state_fixtures.py)",
                path.display()
            )
        });
        let w = bytes
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
            .collect();
        Words { name, w, at: 0 }
    }
    fn more(&self) -> bool {
        self.at < self.w.len()
    }
    fn one(&mut self) -> u32 {
        self.at += 1;
        self.w[self.at - 1]
    }
    fn take(&mut self, n: usize) -> Vec<u32> {
        self.at += n;
        self.w[self.at - n..self.at].to_vec()
    }
    /// `p` rows of `l` words.
    fn rows(&mut self, p: usize, l: usize) -> Vec<Vec<u32>> {
        (0..p).map(|_| self.take(l)).collect()
    }
}

fn dt(code: u32) -> Dtype {
    Dtype(code as u8)
}

fn op(code: u32) -> AluOp {
    AluOp(code as u8)
}

/// One machine per SIMD level this CPU has, reused across cases (a fresh machine zeroes
/// every partition; the cases overwrite what they read back).
struct Levels(Vec<(simd::Level, Machine)>);

impl Levels {
    fn new() -> Levels {
        Levels(
            simd::available()
                .into_iter()
                .map(|l| (l, Machine::new(Config::new(GEN))))
                .collect(),
        )
    }

    /// Runs `prog` at every level on machines holding `inputs` (offset, dtype, rows) and
    /// returns what `read` reads back, the same at every level.
    fn run<T: PartialEq + std::fmt::Debug>(
        &mut self,
        inputs: &[(u32, Dtype, &[Vec<u32>])],
        prog: &[Instruction],
        read: impl Fn(&Machine) -> T,
    ) -> T {
        let mut first: Option<T> = None;
        for (level, m) in &mut self.0 {
            for &(off, d, rows) in inputs {
                write_rows(m, Space::Sbuf, 0, u64::from(off), d, rows);
            }
            simd::with_level(*level, || {
                for i in prog {
                    m.step(i).unwrap();
                }
            })
            .expect("an available level");
            let got = read(m);
            match &first {
                None => first = Some(got),
                Some(f) => assert_eq!(&got, f, "level {level:?} differs"),
            }
        }
        first.unwrap()
    }
}

fn rows_at(m: &Machine, off: u32, d: Dtype, p: usize, l: usize) -> Vec<Vec<u32>> {
    read_rows(m, Space::Sbuf, 0, p as u32, u64::from(off), d, l as u64)
}

// §1.5: TensorTensor arith converts both inputs to fp32, computes, converts the result.
#[test]
fn tensor_tensor_mixed_dtypes_match_numpy() {
    let mut f = Words::open("tt_mixed");
    let mut cases = 0;
    let mut lv = Levels::new();
    while f.more() {
        let (o, d0, d1, dout, n) = (op(f.one()), dt(f.one()), dt(f.one()), dt(f.one()), f.one());
        let (a, b, want) = (f.take(n as usize), f.take(n as usize), f.take(n as usize));
        let mut i = inst(0x41, GEN);
        if let Body::S3s3d3Tt(s) = &mut i.body {
            s.in0_in1_dtype = DtypePair::new(d0, d1);
            s.out_dtype = dout;
            s.op = o;
            s.num_active_channels = 1;
            s.src0_mem_pattern = tensor(sbuf(GEN, 0, A), &[(1, n as u16)]);
            s.src1_mem_pattern = tensor(sbuf(GEN, 0, B), &[(1, n as u16)]);
            s.dst_mem_pattern = tensor(sbuf(GEN, 0, D), &[(1, n as u16)]);
        }
        let inputs = [(A, d0, &[a][..]), (B, d1, &[b][..])];
        let got = lv.run(&inputs, &[i], |m| rows_at(m, D, dout, 1, n as usize));
        assert_eq!(got[0], want, "{} {o:?} {d0} {d1} -> {dout}", f.name);
        cases += 1;
    }
    assert!(cases >= 300, "{cases} cases");
}

// §5 / Q5: Reciprocal is IEEE 1/x in fp32 between any two dtypes.
#[test]
fn reciprocal_every_dtype_pair_matches_numpy() {
    let mut f = Words::open("reciprocal");
    let mut cases = 0;
    let mut lv = Levels::new();
    while f.more() {
        let (din, dout, n) = (dt(f.one()), dt(f.one()), f.one() as usize);
        let (x, want) = (f.take(n), f.take(n));
        let mut i = inst(0x48, GEN);
        if let Body::S4d4Tr(s) = &mut i.body {
            s.src_mem_pattern = tensor(sbuf(GEN, 0, A), &[(1, n as u16)]);
            s.dst_mem_pattern = tensor(sbuf(GEN, 0, D), &[(1, n as u16)]);
            s.in_dtype = din;
            s.out_dtype = dout;
            s.num_active_channels = 1;
            s.op = AluOp::BYPASS;
        }
        let got = lv.run(&[(A, din, &[x][..])], &[i], |m| rows_at(m, D, dout, 1, n));
        assert_eq!(got[0], want, "reciprocal {din} -> {dout}");
        cases += 1;
    }
    assert_eq!(cases, 144, "every dtype pair");
}

// §7.4 / Q9: TensorReduce folds each lane's X axis left to right in fp32, negates, converts.
#[test]
fn tensor_reduce_matches_numpy() {
    let mut f = Words::open("reduce");
    let mut cases = 0;
    let mut lv = Levels::new();
    while f.more() {
        let (o, din, dout, neg) = (op(f.one()), dt(f.one()), dt(f.one()), f.one());
        let (p, l) = (f.one() as usize, f.one() as usize);
        let x = f.rows(p, l);
        let want = f.take(p);
        let mut i = inst(0x42, GEN);
        if let Body::S4d4Tr(s) = &mut i.body {
            s.src_mem_pattern = tensor(sbuf(GEN, 0, A), &[(1, l as u16)]);
            s.dst_mem_pattern = tensor(sbuf(GEN, 0, D), &[(1, 1)]);
            s.in_dtype = din;
            s.out_dtype = dout;
            s.num_active_channels = p as u8;
            s.negated = neg as u8;
            s.op = o;
            s.op_dim = TensorSubdim::X;
        }
        let got = lv.run(&[(A, din, &x[..])], &[i], |m| rows_at(m, D, dout, p, 1));
        let got: Vec<u32> = got.into_iter().map(|r| r[0]).collect();
        assert_eq!(
            got, want,
            "reduce {o:?} {din} -> {dout} negated {neg}, {l} elements"
        );
        cases += 1;
    }
    assert!(cases >= 200, "{cases} cases");
}

fn drain(p: usize) -> Instruction {
    let mut i = inst(0x9B, GEN);
    if let Body::D1Rd(s) = &mut i.body {
        s.dst_element_count = 1;
        s.dtype = Dtype::FP32;
        s.num_active_channels = p as u8;
        s.dst_mem_pattern = tensor(sbuf(GEN, 0, R), &[(1, 1)]);
    }
    i
}

/// One STT-family case: `(ops, rev, dtypes, p, l, scalar)`, then the data.
type SttHead = ((AluOp, AluOp), u8, (Dtype, Dtype, Dtype), usize, usize, u32);

fn stt_head(f: &mut Words) -> SttHead {
    let ops = (op(f.one()), op(f.one()));
    let rev = f.one() as u8;
    let dts = (dt(f.one()), dt(f.one()), dt(f.one()));
    let (p, l, s) = (f.one() as usize, f.one() as usize, f.one());
    (ops, rev, dts, p, l, s)
}

fn stt(opcode: u8, h: &SttHead, cmd: AccumCmd) -> Instruction {
    let (ops, rev, dts, p, l, s) = *h;
    let mut i = inst(opcode, GEN);
    if let Body::S2s2d2Stt(st) = &mut i.body {
        st.src0_mem_pattern = tensor(sbuf(GEN, 0, A), &[(1, l as u16)]);
        st.src1_mem_pattern = tensor(sbuf(GEN, 0, B), &[(1, l as u16)]);
        st.dst_mem_pattern = tensor(sbuf(GEN, 0, D), &[(1, l as u16)]);
        st.op0 = ops.0;
        st.op1 = ops.1;
        st.reverse_operands = RevOps(rev);
        st.imm0_src = ImmSrc::INSTRUCTION;
        st.imm0 = ImmVal(s);
        st.imm0_dtype = Dtype::FP32;
        st.in0_in1_dtype = DtypePair::new(dts.0, dts.1);
        st.out_dtype = dts.2;
        st.num_active_channels = p as u8;
        st.accumulator_cmd = cmd;
    }
    i
}

// §9.4 / Q15: dst = (a op0 s) op1 b in fp32 per reverse mode; ZeroAccumulate sums the fp32
// results into the lane accumulator, drained by 0x9b.
#[test]
fn scalar_tensor_tensor_and_its_accumulator_match_numpy() {
    let mut f = Words::open("stt");
    let mut cases = 0;
    let mut lv = Levels::new();
    while f.more() {
        let h = stt_head(&mut f);
        let (_, _, dts, p, l, _) = h;
        let (a, b, want) = (f.rows(p, l), f.rows(p, l), f.rows(p, l));
        let acc = f.take(p);
        let prog = [stt(0x9D, &h, AccumCmd::ZERO_ACCUMULATE), drain(p)];
        let inputs = [(A, dts.0, &a[..]), (B, dts.1, &b[..])];
        let (got, drained) = lv.run(&inputs, &prog, |m| {
            (rows_at(m, D, dts.2, p, l), rows_at(m, R, Dtype::FP32, p, 1))
        });
        assert_eq!(got, want, "stt {h:?}");
        let drained: Vec<u32> = drained.into_iter().map(|r| r[0]).collect();
        assert_eq!(drained, acc, "stt accumulator {h:?}");
        cases += 1;
    }
    assert_eq!(cases, 120);
}

// §10 / Q16: r[i] = op1(op0(a[i], r[i-1]), b[i]) in fp32 from r[-1] = imm0.
#[test]
fn tensor_tensor_scan_matches_numpy() {
    let mut f = Words::open("scan");
    let mut cases = 0;
    let mut lv = Levels::new();
    while f.more() {
        let h = stt_head(&mut f);
        let (_, _, dts, p, l, _) = h;
        let (a, b, want) = (f.rows(p, l), f.rows(p, l), f.rows(p, l));
        let inputs = [(A, dts.0, &a[..]), (B, dts.1, &b[..])];
        let got = lv.run(&inputs, &[stt(0xE5, &h, AccumCmd::IDLE)], |m| {
            rows_at(m, D, dts.2, p, l)
        });
        assert_eq!(got, want, "scan {h:?}");
        cases += 1;
    }
    assert_eq!(cases, 120);
}

// §12.5 (decisions 9, 10; Q25): 0x9a writes tmp = x op0 s, 0xe6 the running op1(tmp, acc)
// from op1's identity; 0x9b drains the final accumulator.
#[test]
fn cache_reduce_and_cumulative_match_numpy() {
    let mut f = Words::open("cache");
    let mut cases = 0;
    let mut lv = Levels::new();
    while f.more() {
        let (op0, op1, din, dout) = (op(f.one()), op(f.one()), dt(f.one()), dt(f.one()));
        let (p, l, s) = (f.one() as usize, f.one() as usize, f.one());
        let x = f.rows(p, l);
        let (fold, cumulative) = (f.rows(p, l), f.rows(p, l));
        let acc = f.take(p);
        for (opcode, want) in [(0x9Au8, &fold), (0xE6, &cumulative)] {
            let mut i = inst(opcode, GEN);
            if let Body::S3d3Ts(st) = &mut i.body {
                st.accumulator_cmd = AccumCmd::ZERO_ACCUMULATE;
                st.src_mem_pattern = tensor(sbuf(GEN, 0, A), &[(1, l as u16)]);
                st.dst_mem_pattern = tensor(sbuf(GEN, 0, D), &[(1, l as u16)]);
                st.in_dtype = din;
                st.out_dtype = dout;
                st.num_active_channels = p as u8;
                st.op0 = op0;
                st.op1 = op1;
                st.imm0 = ImmVal(s);
            }
            let (got, drained) = lv.run(&[(A, din, &x[..])], &[i, drain(p)], |m| {
                (rows_at(m, D, dout, p, l), rows_at(m, R, Dtype::FP32, p, 1))
            });
            let what = format!("{opcode:#x} {op0:?} {op1:?} {din} -> {dout}");
            assert_eq!(&got, want, "{what}");
            let drained: Vec<u32> = drained.into_iter().map(|r| r[0]).collect();
            assert_eq!(drained, acc, "{what} accumulator");
        }
        cases += 1;
    }
    assert_eq!(cases, 100);
}
