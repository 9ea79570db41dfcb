//! Generators for the issue-17b families (isa-facts-dve-pool §8–§16): the STT family, the
//! cache ops and drains, the search cluster, CrossLaneReduce and LoadMaskSelect. Each stages
//! random hidden lane state (accumulators, keys, flags, index flops) on the machine and the
//! reference alike, so consumers read state that was, or was never, written.

use super::*;
use crate::reference::{RefLane, SLOTS};
use tpb_isa::wire::Bytes;
use tpb_sim::DveLane;

impl World {
    /// Sets lane `c`'s hidden state on both sides.
    fn set_lane(&mut self, c: usize, l: RefLane) {
        let m = DveLane {
            accumulator: l.acc,
            accumulator_written: l.acc_set,
            match_keys: l.keys,
            match_keys_loaded: l.keys_set,
            matched: l.matched,
            index_flops: l.idx,
            index_flops_written: l.idx_set,
        };
        self.m.set_dve_lane(c, m).unwrap();
        self.r.dve[c] = l;
    }

    /// Random state in some of the first `n` lanes (others keep the machine's start state,
    /// so "never written" stays reachable).
    fn random_lanes(&mut self, n: u8) {
        if self.rng.chance(0.3) {
            return;
        }
        let all_set = self.rng.chance(0.6);
        for c in 0..n as usize {
            if !all_set && self.rng.chance(0.3) {
                continue;
            }
            let mut l = RefLane {
                acc: self.rng.f32_bits(),
                acc_set: true,
                keys_set: true,
                idx_set: true,
                ..RefLane::default()
            };
            for k in 0..SLOTS {
                l.keys[k] = self.rng.f32_bits();
                l.matched[k] = self.rng.chance(0.3);
                l.idx[k] = if self.rng.chance(0.2) {
                    u32::MAX
                } else {
                    self.small_or_any()
                };
            }
            self.set_lane(c, l);
        }
    }

    /// Keys for lanes `0..n` taken from elements of `p` (read from the reference's memory
    /// and converted to fp32 as the search does), so FindIndex8 / MatchReplace8 find
    /// matches; some keys stay random and some repeat.
    fn keys_from<const N: usize>(&mut self, p: &Place<N>, dtype: Dtype, n: u8) {
        let si = usize::from(p.space == Space::Psum);
        let count: u64 = p.nums.iter().map(|&x| u64::from(x)).product();
        for c in 0..n as usize {
            let mut l = self.r.dve[c];
            l.keys_set = true;
            for slot in 0..SLOTS {
                if self.rng.chance(0.25) {
                    l.keys[slot] = self.rng.f32_bits();
                    continue;
                }
                if slot > 0 && self.rng.chance(0.15) {
                    l.keys[slot] = l.keys[slot - 1];
                    continue;
                }
                let mut rest = self.rng.below(count);
                let mut e = 0i64;
                for d in 0..N {
                    let nd = u64::from(p.nums[d]);
                    e += (rest % nd) as i64 * i64::from(p.steps[d]);
                    rest /= nd;
                }
                let byte = (i64::from(p.off) + e * i64::from(p.size)) as usize;
                let base = (p.p0 as usize + c) * WINDOW + byte;
                let mut raw = 0u32;
                for j in 0..p.size as usize {
                    raw |= u32::from(self.r.mem[si][base + j]) << (8 * j);
                }
                l.keys[slot] = tpb_sim::numerics::to_f32(dtype, raw, &self.r.fp8).to_bits();
            }
            self.set_lane(c, l);
        }
    }

    /// Two sources and a destination of one element count for S2S2D2_STT; the sources share
    /// a start partition and at most src0 is in PSUM (`tt_valid_partitions`).
    fn stt_operands(
        &mut self,
        n: u8,
        (lo, hi, out): (Dtype, Dtype, Dtype),
    ) -> (Tensor<2>, Tensor<2>, Tensor<2>) {
        let count = self.rng.range(1, 24) as u64;
        let size = |d: Dtype| d.size().unwrap() as u32;
        let a = self.factor(count, 2);
        let s0 = self.place([a[0], a[1]], size(lo), n, true);
        let b = self.factor(count, 2);
        let mut s1 = self.place([b[0], b[1]], size(hi), n, false);
        s1.p0 = s0.p0;
        let c = self.factor(count, 2);
        let mut d = self.place([c[0], c[1]], size(out), n, size(out) == 4);
        if self.rng.chance(0.2) && size(out) == size(hi) && s1.nums == d.nums {
            d = s1; // in place over the data operand
        }
        (self.tensor(&s0), self.tensor(&s1), self.tensor(&d))
    }

    /// An STT-family scalar: (imm0_src, imm0, imm0_dtype). `inline_dtype` is the dtype an
    /// instruction-word scalar must have (fp32 on the arith path); a pointer reads
    /// `ptr_dtype`.
    fn stt_scalar(&mut self, n: u8, inline_dtype: Dtype, ptr_dtype: Dtype) -> (ImmSrc, u32, Dtype) {
        match self.rng.below(5) {
            0 => {
                let size = ptr_dtype.size().unwrap() as u32;
                (ImmSrc::POINTER, self.pointer(size, n, false), ptr_dtype)
            }
            1 => {
                let size = ptr_dtype.size().unwrap() as u32;
                (ImmSrc::REG_PTR, self.pointer(size, n, true), ptr_dtype)
            }
            _ if inline_dtype == Dtype::FP32 => {
                (ImmSrc::INSTRUCTION, self.rng.f32_bits(), inline_dtype)
            }
            _ => (ImmSrc::INSTRUCTION, self.small_or_any(), inline_dtype),
        }
    }
}

fn stt_instruction(
    w: &mut World,
    row: &'static OpcodeInfo,
    n: u8,
    dts: (Dtype, Dtype, Dtype),
    ops: (AluOp, AluOp),
    rev: RevOps,
    scalar: (ImmSrc, u32, Dtype),
    cmd: AccumCmd,
) -> Instruction {
    let (a, b, d) = w.stt_operands(n, dts);
    let mut i = w.instruction(row);
    if let Body::S2s2d2Stt(s) = &mut i.body {
        s.src0_mem_pattern = a;
        s.src1_mem_pattern = b;
        s.dst_mem_pattern = d;
        s.op0 = ops.0;
        s.op1 = ops.1;
        s.reverse_operands = rev;
        s.imm0_src = scalar.0;
        s.imm0 = ImmVal(scalar.1);
        s.imm0_dtype = scalar.2;
        s.in0_in1_dtype = DtypePair::new(dts.0, dts.1);
        s.out_dtype = dts.2;
        s.num_active_channels = n;
        s.accumulator_cmd = cmd;
    }
    w.maybe_events(&mut i);
    i
}

/// ScalarTensorTensor 0x9d (arith, with the accumulator) / 0x9e (bitvec, §9.3).
pub fn gen_scalar_tensor_tensor(w: &mut World) -> Vec<Instruction> {
    let n = w.channels();
    w.random_lanes(n);
    let (row, v) = w.row(|v: sem::ScalarTensorTensor| match v {
        sem::ScalarTensorTensor::Arith => 65,
        sem::ScalarTensorTensor::Bitvec => 35,
    });
    let bitvec = match v {
        sem::ScalarTensorTensor::Arith => false,
        sem::ScalarTensorTensor::Bitvec => true,
    };
    let i = if bitvec {
        let d = w.dtype(&INTS);
        let ops = ops_where(w.gen, |o| o.is_general_bitvec_op());
        let ops = (w.rng.pick(&ops), w.rng.pick(&ops));
        let sc = w.stt_scalar(n, d, d);
        let rev = RevOps(w.rng.below(4) as u8);
        stt_instruction(w, row, n, (d, d, d), ops, rev, sc, AccumCmd::IDLE)
    } else {
        let dts = (w.dtype(&PLAIN), w.dtype(&PLAIN), w.out_dtype(&PLAIN));
        let ops = arith_ops(w.gen);
        let ops = (w.rng.pick(&ops), w.rng.pick(&ops));
        let ptr = w.dtype(&PLAIN);
        let sc = w.stt_scalar(n, Dtype::FP32, ptr);
        let rev = RevOps(w.rng.below(4) as u8);
        let cmd = w.rng.pick(&[
            AccumCmd::IDLE,
            AccumCmd::ACCUMULATE,
            AccumCmd::ZERO_ACCUMULATE,
        ]);
        stt_instruction(w, row, n, dts, ops, rev, sc, cmd)
    };
    vec![i]
}

/// TensorTensorScan 0xe5 (§10; arith only, accumulator Idle).
pub fn gen_tensor_tensor_scan(w: &mut World) -> Vec<Instruction> {
    let n = w.channels();
    w.random_lanes(n);
    let (row, sem::TensorTensorScan::Arith) = w.row(|_: sem::TensorTensorScan| 1);
    let dts = (w.dtype(&PLAIN), w.dtype(&PLAIN), w.out_dtype(&PLAIN));
    let ops = arith_ops(w.gen);
    let ops = (w.rng.pick(&ops), w.rng.pick(&ops));
    let ptr = w.dtype(&PLAIN);
    let sc = w.stt_scalar(n, Dtype::FP32, ptr);
    let rev = RevOps(w.rng.below(4) as u8);
    vec![stt_instruction(
        w,
        row,
        n,
        dts,
        ops,
        rev,
        sc,
        AccumCmd::IDLE,
    )]
}

/// SelectReduce 0xea (§11.3): integer predicate, data not 32-bit integer, Bypass/Max.
pub fn gen_select_reduce(w: &mut World) -> Vec<Instruction> {
    let n = w.channels();
    w.random_lanes(n);
    let data: Vec<Dtype> = PLAIN
        .into_iter()
        .filter(|d| !matches!(*d, Dtype::INT32 | Dtype::UINT32))
        .collect();
    let dts = (w.dtype(&INTS), w.dtype(&data), w.out_dtype(&PLAIN));
    let ptr = w.dtype(&PLAIN);
    let sc = w.stt_scalar(n, Dtype::FP32, ptr);
    let rev = w.rng.pick(&[RevOps::NONE, RevOps::FIRST]);
    let cmd = w.rng.pick(&[
        AccumCmd::IDLE,
        AccumCmd::ACCUMULATE,
        AccumCmd::ZERO_ACCUMULATE,
    ]);
    let ops = (AluOp::BYPASS, AluOp::MAX);
    let (row, sem::SelectReduce::SelectReduce) = w.row(|_: sem::SelectReduce| 1);
    let mut prog = vec![stt_instruction(w, row, n, dts, ops, rev, sc, cmd)];
    if w.rng.chance(0.3) {
        // The NKI pairing: the running max drained by 0x9b.
        prog.push(drain(w, n));
    }
    prog
}

/// A fp32 scalar source of the cache ops: the instruction word or an fp32 pointer.
fn cache_scalar(w: &mut World, n: u8) -> (ImmSrc, u32) {
    match w.rng.below(5) {
        0 => (ImmSrc::POINTER, w.pointer(4, n, false)),
        1 => (ImmSrc::REG_PTR, w.pointer(4, n, true)),
        _ => (ImmSrc::INSTRUCTION, w.rng.f32_bits()),
    }
}

/// TensorScalarCacheReduce 0x9a / CacheCumulative 0xe6 (§12.3), sometimes drained by 0x9b.
pub fn gen_cache_reduce(w: &mut World) -> Vec<Instruction> {
    let n = w.channels();
    w.random_lanes(n);
    // Both cache ops share every operand rule (§12.3): the variant only picks the row.
    let (row, sem::CacheReduce::Reduce | sem::CacheReduce::Cumulative) =
        w.row(|_: sem::CacheReduce| 1);
    let ins: Vec<Dtype> = PLAIN
        .into_iter()
        .filter(|d| !matches!(*d, Dtype::INT32 | Dtype::UINT32))
        .collect();
    let (din, dout) = (w.dtype(&ins), w.out_dtype(&PLAIN));
    let op0s = arith_ops(w.gen);
    let op0 = w.rng.pick(&op0s);
    let op1 = w.rng.pick(&[
        AluOp::ADD,
        AluOp::SUBTRACT,
        AluOp::MULT,
        AluOp::MAX,
        AluOp::MIN,
    ]);
    let cmd = w.rng.pick(&[
        AccumCmd::ZERO_ACCUMULATE,
        AccumCmd::ACCUMULATE,
        AccumCmd::LOAD_ACCUMULATE,
    ]);
    let count = w.rng.range(1, 24) as u64;
    let sn = w.factor(count, 3);
    let sp = w.place([sn[0], sn[1], sn[2]], din.size().unwrap() as u32, n, true);
    let dn = w.factor(count, 3);
    let so = dout.size().unwrap() as u32;
    let mut dp = w.place([dn[0], dn[1], dn[2]], so, n, so == 4);
    if w.rng.chance(0.25) && din.size() == dout.size() && !(sp.space == Space::Psum && so != 4) {
        dp = sp;
    }
    let i0 = cache_scalar(w, n);
    let i1 = if cmd == AccumCmd::LOAD_ACCUMULATE {
        cache_scalar(w, n)
    } else {
        (ImmSrc::INSTRUCTION, 0)
    };
    let (src, dst) = (w.tensor(&sp), w.tensor(&dp));
    let mut i = w.instruction(row);
    if let Body::S3d3Ts(s) = &mut i.body {
        s.accumulator_cmd = cmd;
        s.src_mem_pattern = src;
        s.dst_mem_pattern = dst;
        s.in_dtype = din;
        s.out_dtype = dout;
        s.num_active_channels = n;
        s.op0 = op0;
        s.op1 = op1;
        s.imm0_src = i0.0;
        s.imm0 = ImmVal(i0.1);
        s.imm1_src = i1.0;
        s.imm1 = ImmVal(i1.1);
    }
    w.maybe_events(&mut i);
    let mut prog = vec![i];
    if w.rng.chance(0.3) {
        prog.push(drain(w, n));
    }
    prog
}

/// A DveReadAccumulator 0x9b of `n` lanes (§13.1).
fn drain(w: &mut World, n: u8) -> Instruction {
    let dt = w.rng.pick(&[
        Dtype::FP8_EXP3,
        Dtype::FP8_EXP4,
        Dtype::FP8_EXP5,
        Dtype::FP16,
        Dtype::BFLOAT16,
        Dtype::FP32,
        Dtype::FP32R,
    ]);
    let size = dt.size().unwrap() as u32;
    let p = w.place([1], size, n, size == 4);
    let dst = w.tensor(&p);
    let (row, sem::DveReadAccumulator::DveReadAccumulator) = w.row(|_: sem::DveReadAccumulator| 1);
    let mut i = w.instruction(row);
    if let Body::D1Rd(s) = &mut i.body {
        s.dst_element_count = 1;
        s.dtype = dt;
        s.negated = w.rng.below(2) as u8;
        s.num_active_channels = n;
        s.dst_mem_pattern = dst;
    }
    w.maybe_events(&mut i);
    i
}

pub fn gen_dve_read_accumulator(w: &mut World) -> Vec<Instruction> {
    let n = w.channels();
    w.random_lanes(n);
    vec![drain(w, n)]
}

/// DveReadIndices 0xe9 (§13.2; cayman on): the index flops, random or left by a
/// MatchReplace8 just before.
pub fn gen_dve_read_indices(w: &mut World) -> Vec<Instruction> {
    let mut prog = Vec::new();
    let n = if w.rng.chance(0.3) {
        let mut mr = gen_match_replace8(w);
        let n = match &mr[0].body {
            Body::S4d4Mr(s) => s.num_active_channels,
            _ => unreachable!(),
        };
        prog.append(&mut mr);
        n
    } else {
        let n = w.channels();
        w.random_lanes(n);
        n
    };
    let dt = w.rng.pick(&[Dtype::UINT16, Dtype::UINT32]);
    let size = dt.size().unwrap() as u32;
    let nums = w.factor(8, 4);
    let p = w.place([nums[0], nums[1], nums[2], nums[3]], size, n, size == 4);
    let dst = w.tensor(&p);
    let (row, sem::DveReadIndices::DveReadIndices) = w.row(|_: sem::DveReadIndices| 1);
    let mut i = w.instruction(row);
    if let Body::D4Mr(s) = &mut i.body {
        s.dst_element_count = 8;
        s.dtype = dt;
        s.num_active_channels = n;
        s.dst_mem_pattern = dst;
    }
    w.maybe_events(&mut i);
    prog.push(i);
    prog
}

/// MatchValueLoad 0x6d (§16.3: 8 source elements), sometimes followed by a search.
pub fn gen_match_value_load(w: &mut World) -> Vec<Instruction> {
    let n = w.channels();
    w.random_lanes(n);
    vec![match_value_load(w, n)]
}

fn match_value_load(w: &mut World, n: u8) -> Instruction {
    let dt = w.dtype(&PLAIN);
    let nums = w.factor(8, 2);
    let p = w.place([nums[0], nums[1]], dt.size().unwrap() as u32, n, true);
    let src = w.tensor(&p);
    let (row, sem::MatchValueLoad::MatchValueLoad) = w.row(|_: sem::MatchValueLoad| 1);
    let mut i = w.instruction(row);
    if let Body::S2Bn(s) = &mut i.body {
        s.src_mem_pattern = src;
        s.dtype = dt;
        s.num_active_channels = n;
    }
    w.maybe_events(&mut i);
    i
}

/// Max8 0x6c / FindIndex8 0x6e (§16.3): 8..=24 source elements, 8 outputs; the keys are
/// loaded by a MatchValueLoad first or staged from the source's own values.
pub fn gen_search(w: &mut World) -> Vec<Instruction> {
    let n = w.channels();
    w.random_lanes(n);
    let (row, v) = w.row(|_: sem::Search| 1);
    let find = match v {
        sem::Search::Max8 => false,
        sem::Search::FindIndex8 => true,
    };
    let din = w.dtype(&PLAIN);
    let dout = if find {
        w.rng.pick(&[Dtype::UINT16, Dtype::UINT32])
    } else {
        w.out_dtype(&PLAIN)
    };
    let count = w.rng.range(8, 24) as u64;
    let sn = w.factor(count, 4);
    let sp = w.place(
        [sn[0], sn[1], sn[2], sn[3]],
        din.size().unwrap() as u32,
        n,
        true,
    );
    let dn = w.factor(8, 2);
    let so = dout.size().unwrap() as u32;
    let dp = w.place([dn[0], dn[1]], so, n, so == 4);
    let mut prog = Vec::new();
    if find {
        if w.rng.chance(0.3) {
            prog.push(match_value_load(w, n));
        } else {
            w.keys_from(&sp, din, n);
        }
    }
    let (src, dst) = (w.tensor(&sp), w.tensor(&dp));
    let mut i = w.instruction(row);
    if let Body::S4d2Bn(s) = &mut i.body {
        s.src_mem_pattern = src;
        s.in_dtype = din;
        s.out_dtype = dout;
        s.num_active_channels = n;
        s.dst_mem_pattern = dst;
    }
    w.maybe_events(&mut i);
    prog.push(i);
    prog
}

/// MatchReplace8 0x6f (§16.3): in and out among fp16, bf16, u8, u16, u32, fp32, i32.
pub fn gen_match_replace8(w: &mut World) -> Vec<Instruction> {
    const MR: [Dtype; 7] = [
        Dtype::FP16,
        Dtype::BFLOAT16,
        Dtype::UINT8,
        Dtype::UINT16,
        Dtype::UINT32,
        Dtype::FP32,
        Dtype::INT32,
    ];
    let n = w.channels();
    w.random_lanes(n);
    let (din, dout) = (w.dtype(&MR), w.dtype(&MR));
    let count = w.rng.range(1, 24) as u64;
    let sn = w.factor(count, 4);
    let sp = w.place(
        [sn[0], sn[1], sn[2], sn[3]],
        din.size().unwrap() as u32,
        n,
        true,
    );
    let dn = w.factor(count, 4);
    let so = dout.size().unwrap() as u32;
    let mut dp = w.place([dn[0], dn[1], dn[2], dn[3]], so, n, so == 4);
    if w.rng.chance(0.3) && din.size() == dout.size() && !(sp.space == Space::Psum && so != 4) {
        dp = sp; // in place, as the beam-search pipeline runs it
    }
    if w.rng.chance(0.8) {
        w.keys_from(&sp, din, n);
    }
    let (src, dst) = (w.tensor(&sp), w.tensor(&dp));
    let (row, sem::MatchReplace8::MatchReplace8) = w.row(|_: sem::MatchReplace8| 1);
    let mut i = w.instruction(row);
    if let Body::S4d4Mr(s) = &mut i.body {
        s.src_mem_pattern = src;
        s.in_dtype = din;
        s.out_dtype = dout;
        s.num_active_channels = n;
        s.immediate = F32Bits(w.rng.f32_bits());
        s.dst_mem_pattern = dst;
    }
    w.maybe_events(&mut i);
    vec![i]
}

/// CrossLaneReduce 0x7c / 0x7d (§8.3): SBUF only; dst in one partition.
pub fn gen_cross_lane_reduce(w: &mut World) -> Vec<Instruction> {
    let n = w.channels();
    let (row, v) = w.row(|v: sem::CrossLaneReduce| match v {
        sem::CrossLaneReduce::Arith => 65,
        sem::CrossLaneReduce::Bitvec => 35,
    });
    let bitvec = match v {
        sem::CrossLaneReduce::Arith => false,
        sem::CrossLaneReduce::Bitvec => true,
    };
    let (din, dout, op) = if bitvec {
        let d = w.dtype(&INTS);
        let op = w.rng.pick(&[
            ReduceOp::BITWISE_OR,
            ReduceOp::BITWISE_AND,
            ReduceOp::BITWISE_XOR,
        ]);
        (d, d, op)
    } else {
        let op = w
            .rng
            .pick(&[ReduceOp::ADD, ReduceOp::AVERAGE, ReduceOp::MAX]);
        (w.dtype(&PLAIN), w.out_dtype(&PLAIN), op)
    };
    let all = w.rng.chance(0.5);
    let count = w.rng.range(1, 16) as u64;
    let sn = w.factor(count, 4);
    let sp = w.place(
        [sn[0], sn[1], sn[2], sn[3]],
        din.size().unwrap() as u32,
        n,
        false,
    );
    let dn = if all { vec![1; 4] } else { w.factor(count, 4) };
    let dp = w.place(
        [dn[0], dn[1], dn[2], dn[3]],
        dout.size().unwrap() as u32,
        1,
        false,
    );
    let scale = if w.rng.chance(0.5) {
        (1.0 / f32::from(n)).to_bits()
    } else {
        w.rng.f32_bits()
    };
    let (src, dst) = (w.tensor(&sp), w.tensor(&dp));
    let mut i = w.instruction(row);
    if let Body::S4d4Cr(s) = &mut i.body {
        s.src_mem_pattern = src;
        s.in_dtype = din;
        s.out_dtype = dout;
        s.num_active_channels = n;
        s.reduce_op = op;
        s.reduce_axis = if all {
            ReduceAxis::ALL
        } else {
            ReduceAxis::PARTITIONS
        };
        s.scale = F32Bits(scale);
        s.dst_mem_pattern = dst;
    }
    w.maybe_events(&mut i);
    vec![i]
}

/// LoadMaskSelect 0x69 (§14.2): 32 bytes, each < 64 or 255.
pub fn gen_load_mask_select(w: &mut World) -> Vec<Instruction> {
    let mut table = [0u8; 32];
    for b in table.iter_mut() {
        *b = if w.rng.chance(0.1) {
            255
        } else {
            w.rng.below(64) as u8
        };
    }
    let (row, sem::LoadMaskSelect::LoadMaskSelect) = w.row(|_: sem::LoadMaskSelect| 1);
    let mut i = w.instruction(row);
    if let Body::CtrlIm(s) = &mut i.body {
        s.immediate = Bytes(table);
    }
    w.maybe_events(&mut i);
    vec![i]
}
