//! Plain references for the issue-17b families over the hidden per-lane DVE state, written
//! from the fact sheet restated in docs/reference/isa-dve-state.md and the assumptions it
//! names (docs/reference/assumptions.md: `dve-lane-state`, `accumulator-lifetime`,
//! `stt-accumulate`, `stt-scalar`, `scan-recurrence`, `select-reduce-model`,
//! `cache-reduce-model`, `read-accumulator`, `search-cluster`, `cross-lane-reduce`).
//! One plain loop per element, every input read before any write; the only shared code is
//! `tpb_sim::numerics` (conversions and the ALU).

use super::*;
use tpb_sim::numerics::alu_arith;

/// Keys, flags and index flops per lane (§16).
pub const SLOTS: usize = 8;

/// One lane's hidden state (isa-facts-dve-pool §0.3.3; `dve-lane-state` gives the start).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RefLane {
    /// The fp32 reduce accumulator, as bits.
    pub acc: u32,
    pub acc_set: bool,
    /// Match keys mv[0..8], fp32 bits.
    pub keys: [u32; SLOTS],
    pub keys_set: bool,
    pub matched: [bool; SLOTS],
    pub idx: [u32; SLOTS],
    pub idx_set: bool,
}

impl Default for RefLane {
    fn default() -> RefLane {
        RefLane {
            acc: 0,
            acc_set: false,
            keys: [0; SLOTS],
            keys_set: false,
            matched: [false; SLOTS],
            // Q24: the index flops start all ones (the no-match sentinel).
            idx: [u32::MAX; SLOTS],
            idx_set: false,
        }
    }
}

fn arith(op: AluOp, a: f32, b: f32) -> Result<f32, RefFault> {
    alu_arith(op, a, b).map_err(|_| RefFault::Unsupported)
}

/// Warns `DveUnset` when any of the first `n` lanes fails `set`.
fn unset(pre: &RefState, n: u64, warns: &mut Vec<RefWarn>, set: impl Fn(&RefLane) -> bool) {
    if pre.dve[..n as usize].iter().any(|l| !set(l)) {
        warns.push(RefWarn::DveUnset);
    }
}

/// The scalar of each channel as raw bits: the instruction word, or one `dtype` element
/// through the (register) pointer; notes uninitialised pointer reads.
fn scalar_bits(
    pre: &RefState,
    src: ImmSrc,
    imm: u32,
    dtype: Dtype,
    n: u64,
    warns: &mut Vec<RefWarn>,
) -> Result<Vec<u32>, RefFault> {
    let mut uninit = false;
    let v = scalars(pre, src, imm, dtype, n, &mut uninit)?;
    if uninit {
        warns.push(RefWarn::Uninit);
    }
    Ok(v)
}

/// Validates the ops an instruction will run by evaluating them once (an op the ALU lacks
/// is refused before anything else, as for the 17a references).
fn probe_arith(ops: &[AluOp]) -> Result<(), RefFault> {
    for &op in ops {
        stage_f(op, 1.0, 1.0, false)?;
    }
    Ok(())
}

/// Which computation of the `S2S2D2_STT` struct a row's behaviour is.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum SttRef {
    /// ScalarTensorTensor, arithmetic (0x9d).
    Arith,
    /// ScalarTensorTensor, bit-vector (0x9e).
    Bitvec,
    /// TensorTensorScan (0xe5).
    Scan,
    /// SelectReduce (0xea).
    Select,
}

/// ScalarTensorTensor 0x9d/0x9e, TensorTensorScan 0xe5 and SelectReduce 0xea (§9–§11).
pub(crate) fn stt_family_ref(
    pre: &RefState,
    st: &mut RefState,
    s: &wire::S2s2d2Stt,
    kind: SttRef,
    warns: &mut Vec<RefWarn>,
    strict: bool,
) -> Result<(), RefFault> {
    let n = u64::from(s.num_active_channels);
    let (lo, hi, out) = (s.in0_in1_dtype.lo(), s.in0_in1_dtype.hi(), s.out_dtype);
    let a = operand(pre, &s.src0_mem_pattern, lo, false, true, n)?;
    let b = operand(pre, &s.src1_mem_pattern, hi, false, true, n)?;
    let d = operand(pre, &s.dst_mem_pattern, out, true, true, n)?;
    if a.count() != b.count() || a.count() != d.count() {
        return Err(RefFault::Address);
    }
    let bitvec = kind == SttRef::Bitvec;
    let bits = 8 * size_of(out) as u32;
    for o in [s.op0, s.op1] {
        if bitvec {
            stage_b(o, 1, 1, false, bits)?;
        } else {
            probe_arith(&[o])?;
        }
    }
    if !matches!(
        s.imm0_src,
        ImmSrc::INSTRUCTION | ImmSrc::POINTER | ImmSrc::REG_PTR
    ) {
        return Err(RefFault::Unsupported);
    }
    let sc = scalar_bits(pre, s.imm0_src, s.imm0.0, s.imm0_dtype, n, warns)?;
    let (xa, xb) = (rd_all(pre, &a, n, warns), rd_all(pre, &b, n, warns));
    // Which commands touch the accumulator: STT arith (Q15, seed 0.0) and SelectReduce
    // (Q18, seed −inf); the scan and the bitvec STT never do.
    let seed = match (kind, s.accumulator_cmd) {
        (SttRef::Arith, AccumCmd::ZERO_ACCUMULATE) => Some(Some(0.0f32)),
        (SttRef::Select, AccumCmd::ZERO_ACCUMULATE) => Some(Some(f32::NEG_INFINITY)),
        (SttRef::Arith | SttRef::Select, AccumCmd::ACCUMULATE) => Some(None),
        _ => None,
    };
    if seed == Some(None) {
        unset(pre, n, warns, |l| l.acc_set);
    }
    gate(warns, strict)?;
    let (r0, r1) = (s.reverse_operands.0 & 1 != 0, s.reverse_operands.0 & 2 != 0);
    for c in 0..n as usize {
        // stt-scalar: the inline word is the scalar (fp32 bits on the arith path, its low
        // imm0_dtype bytes on the bitvec path); a pointer reads one imm0_dtype element.
        let s_bits = if bitvec && s.imm0_src == ImmSrc::INSTRUCTION {
            low(sc[c], size_of(s.imm0_dtype))
        } else {
            sc[c]
        };
        let s_f = if s.imm0_src == ImmSrc::INSTRUCTION {
            f32::from_bits(s_bits)
        } else {
            to_f32(s.imm0_dtype, s_bits, &pre.fp8)
        };
        let mut acc = seed.map(|x| x.unwrap_or(f32::from_bits(pre.dve[c].acc)));
        let mut r = s_f; // the scan's r[-1]
        for k in 0..d.count() as usize {
            let (x, y) = (xa[c][k], xb[c][k]);
            let v = match kind {
                SttRef::Bitvec => {
                    let t = stage_b(s.op0, x, s_bits, r0, bits)?;
                    Some(stage_b(s.op1, t, y, r1, bits)?)
                }
                SttRef::Arith => {
                    let (x, y) = (to_f32(lo, x, &pre.fp8), to_f32(hi, y, &pre.fp8));
                    let t = stage_f(s.op0, x, s_f, r0)?;
                    let v = stage_f(s.op1, t, y, r1)?;
                    if let Some(a) = acc.as_mut() {
                        *a = arith(AluOp::ADD, *a, v)?;
                    }
                    Some(from_f32(out, v, &pre.fp8))
                }
                SttRef::Scan => {
                    let (x, y) = (to_f32(lo, x, &pre.fp8), to_f32(hi, y, &pre.fp8));
                    let t = stage_f(s.op0, x, r, r0)?;
                    r = stage_f(s.op1, t, y, r1)?;
                    Some(from_f32(out, r, &pre.fp8))
                }
                SttRef::Select if x != 0 => {
                    let y = to_f32(hi, y, &pre.fp8);
                    if let Some(a) = acc.as_mut() {
                        *a = arith(AluOp::MAX, *a, y)?;
                    }
                    Some(from_f32(out, y, &pre.fp8))
                }
                // Predicate false: First fills with imm0, None keeps dst.
                SttRef::Select if s.reverse_operands == RevOps::FIRST => {
                    Some(from_f32(out, s_f, &pre.fp8))
                }
                SttRef::Select => None,
            };
            if let Some(v) = v {
                wr(st, &d, c as u64, k as u64, v);
            }
        }
        if let Some(a) = acc {
            st.dve[c].acc = a.to_bits();
            st.dve[c].acc_set = true;
        }
    }
    Ok(())
}

/// TensorScalarCacheReduce 0x9a / CacheCumulative 0xe6 (§12.5).
pub(crate) fn cache_reduce_ref(
    pre: &RefState,
    st: &mut RefState,
    s: &wire::S3d3Ts,
    cumulative: bool,
    warns: &mut Vec<RefWarn>,
    strict: bool,
) -> Result<(), RefFault> {
    let n = u64::from(s.num_active_channels);
    let x = operand(pre, &s.src_mem_pattern, s.in_dtype, false, true, n)?;
    let d = operand(pre, &s.dst_mem_pattern, s.out_dtype, true, true, n)?;
    if x.count() != d.count() {
        return Err(RefFault::Address);
    }
    probe_arith(&[s.op0, s.op1])?;
    let load = s.accumulator_cmd == AccumCmd::LOAD_ACCUMULATE;
    for (src, used) in [(s.imm0_src, true), (s.imm1_src, load)] {
        if used && !matches!(src, ImmSrc::INSTRUCTION | ImmSrc::POINTER | ImmSrc::REG_PTR) {
            return Err(RefFault::Unsupported);
        }
    }
    // A pointer scalar is one fp32 element per channel.
    let s0 = scalar_bits(pre, s.imm0_src, s.imm0.0, Dtype::FP32, n, warns)?;
    let s1 = if load {
        scalar_bits(pre, s.imm1_src, s.imm1.0, Dtype::FP32, n, warns)?
    } else {
        vec![0; n as usize]
    };
    let xv = rd_all(pre, &x, n, warns);
    if s.accumulator_cmd == AccumCmd::ACCUMULATE {
        unset(pre, n, warns, |l| l.acc_set);
    }
    gate(warns, strict)?;
    for c in 0..n as usize {
        let mut acc = match s.accumulator_cmd {
            // Decision 10: op1's identity.
            AccumCmd::ZERO_ACCUMULATE => match s.op1 {
                AluOp::MULT => 1.0,
                AluOp::MAX => f32::NEG_INFINITY,
                AluOp::MIN => f32::INFINITY,
                _ => 0.0,
            },
            AccumCmd::LOAD_ACCUMULATE => f32::from_bits(s1[c]),
            _ => f32::from_bits(pre.dve[c].acc),
        };
        for k in 0..d.count() as usize {
            let v = to_f32(s.in_dtype, xv[c][k], &pre.fp8);
            let tmp = stage_f(s.op0, v, f32::from_bits(s0[c]), false)?;
            // Q25: NKI's order, op1(tmp, acc).
            acc = arith(s.op1, tmp, acc)?;
            let shown = if cumulative { acc } else { tmp };
            wr(
                st,
                &d,
                c as u64,
                k as u64,
                from_f32(s.out_dtype, shown, &pre.fp8),
            );
        }
        st.dve[c].acc = acc.to_bits();
        st.dve[c].acc_set = true;
    }
    Ok(())
}

/// DveReadAccumulator 0x9b (§13.1).
pub(crate) fn read_accumulator_ref(
    pre: &RefState,
    st: &mut RefState,
    s: &wire::D1Rd,
    warns: &mut Vec<RefWarn>,
    strict: bool,
) -> Result<(), RefFault> {
    let n = u64::from(s.num_active_channels);
    if n == 0 {
        return Ok(());
    }
    let d = operand(pre, &s.dst_mem_pattern, s.dtype, true, true, n)?;
    unset(pre, n, warns, |l| l.acc_set);
    gate(warns, strict)?;
    for c in 0..n {
        let v = f32::from_bits(pre.dve[c as usize].acc);
        let v = if s.negated == 1 { -v } else { v };
        wr(st, &d, c, 0, from_f32(s.dtype, v, &pre.fp8));
    }
    Ok(())
}

/// DveReadIndices 0xe9 (§13.2): the 8 index flops, low bits for u16.
pub(crate) fn read_indices_ref(
    pre: &RefState,
    st: &mut RefState,
    s: &wire::D4Mr,
    warns: &mut Vec<RefWarn>,
    strict: bool,
) -> Result<(), RefFault> {
    let n = u64::from(s.num_active_channels);
    if n == 0 {
        return Ok(());
    }
    let d = operand(pre, &s.dst_mem_pattern, s.dtype, true, true, n)?;
    if d.count() != SLOTS as u64 {
        return Err(RefFault::Address);
    }
    unset(pre, n, warns, |l| l.idx_set);
    gate(warns, strict)?;
    for c in 0..n {
        for k in 0..SLOTS {
            wr(st, &d, c, k as u64, pre.dve[c as usize].idx[k]);
        }
    }
    Ok(())
}

/// MatchValueLoad 0x6d (§16.4): 8 keys as fp32, reversed; the flags clear (Q23).
pub(crate) fn match_value_load_ref(
    pre: &RefState,
    st: &mut RefState,
    s: &wire::S2Bn,
    warns: &mut Vec<RefWarn>,
    strict: bool,
) -> Result<(), RefFault> {
    let n = u64::from(s.num_active_channels);
    let x = operand(pre, &s.src_mem_pattern, s.dtype, false, true, n)?;
    if x.count() != SLOTS as u64 {
        return Err(RefFault::Address);
    }
    let xv = rd_all(pre, &x, n, warns);
    gate(warns, strict)?;
    for c in 0..n as usize {
        for k in 0..SLOTS {
            st.dve[c].keys[SLOTS - 1 - k] = to_f32(s.dtype, xv[c][k], &pre.fp8).to_bits();
        }
        st.dve[c].keys_set = true;
        st.dve[c].matched = [false; SLOTS];
    }
    Ok(())
}

/// The first-match core of FindIndex8 / MatchReplace8 (§16.4, Q23): per element in flat
/// order, the first unmatched key (ascending slot) equal to it as fp32 takes its index.
fn first_matches(keys: &[u32; SLOTS], xs: &[f32]) -> [Option<u32>; SLOTS] {
    let mut found = [None; SLOTS];
    for (i, &x) in xs.iter().enumerate() {
        for slot in 0..SLOTS {
            if found[slot].is_none() && f32::from_bits(keys[slot]) == x {
                found[slot] = Some(i as u32);
                break;
            }
        }
    }
    found
}

/// Max8 0x6c / FindIndex8 0x6e (§16.4, Q22).
pub(crate) fn max8_find_ref(
    pre: &RefState,
    st: &mut RefState,
    s: &wire::S4d2Bn,
    find: bool,
    warns: &mut Vec<RefWarn>,
    strict: bool,
) -> Result<(), RefFault> {
    let n = u64::from(s.num_active_channels);
    let x = operand(pre, &s.src_mem_pattern, s.in_dtype, false, true, n)?;
    let d = operand(pre, &s.dst_mem_pattern, s.out_dtype, true, true, n)?;
    if d.count() != SLOTS as u64 {
        return Err(RefFault::Address);
    }
    let xv = rd_all(pre, &x, n, warns);
    if find {
        unset(pre, n, warns, |l| l.keys_set);
    }
    gate(warns, strict)?;
    for c in 0..n as usize {
        let xs: Vec<f32> = xv[c]
            .iter()
            .map(|&r| to_f32(s.in_dtype, r, &pre.fp8))
            .collect();
        let outs: Vec<u32> = if find {
            let found = first_matches(&pre.dve[c].keys, &xs);
            st.dve[c].matched = found.map(|f| f.is_some());
            // No match: all ones of the output width (the low bits of u32::MAX).
            found.iter().map(|f| f.unwrap_or(u32::MAX)).collect()
        } else {
            // The 8 largest, NaN below every number, equal values in source order: a
            // stable ascending sort, then the last 8.
            let rank = |v: f32| if v.is_nan() { (0, 0.0) } else { (1, v) };
            let mut order: Vec<usize> = (0..xs.len()).collect();
            order.sort_by(|&i, &j| {
                let (a, b) = (rank(xs[i]), rank(xs[j]));
                a.0.cmp(&b.0)
                    .then(a.1.partial_cmp(&b.1).unwrap())
                    .then(i.cmp(&j))
            });
            order[order.len() - SLOTS..]
                .iter()
                .map(|&i| from_f32(s.out_dtype, xs[i], &pre.fp8))
                .collect()
        };
        for (k, &v) in outs.iter().enumerate() {
            wr(st, &d, c as u64, k as u64, v);
        }
    }
    Ok(())
}

/// MatchReplace8 0x6f (§16.4): first matches become the immediate, the rest pass through
/// fp32; the match positions go to the index flops.
pub(crate) fn match_replace8_ref(
    pre: &RefState,
    st: &mut RefState,
    s: &wire::S4d4Mr,
    warns: &mut Vec<RefWarn>,
    strict: bool,
) -> Result<(), RefFault> {
    let n = u64::from(s.num_active_channels);
    let x = operand(pre, &s.src_mem_pattern, s.in_dtype, false, true, n)?;
    let d = operand(pre, &s.dst_mem_pattern, s.out_dtype, true, true, n)?;
    if x.count() != d.count() {
        return Err(RefFault::Address);
    }
    let xv = rd_all(pre, &x, n, warns);
    unset(pre, n, warns, |l| l.keys_set);
    gate(warns, strict)?;
    let imm = f32::from_bits(s.immediate.0);
    for c in 0..n as usize {
        let xs: Vec<f32> = xv[c]
            .iter()
            .map(|&r| to_f32(s.in_dtype, r, &pre.fp8))
            .collect();
        let found = first_matches(&pre.dve[c].keys, &xs);
        for (k, &v) in xs.iter().enumerate() {
            let hit = found.contains(&Some(k as u32));
            let v = if hit { imm } else { v };
            wr(
                st,
                &d,
                c as u64,
                k as u64,
                from_f32(s.out_dtype, v, &pre.fp8),
            );
        }
        st.dve[c].matched = found.map(|f| f.is_some());
        st.dve[c].idx = found.map(|f| f.unwrap_or(u32::MAX));
        st.dve[c].idx_set = true;
    }
    Ok(())
}

/// CrossLaneReduce 0x7c / 0x7d (§8.4, Q12, Q13): SBUF only; ALL folds every element of every
/// channel (channels ascending, elements in walk order) into one; PARTITIONS folds each
/// element over the channels into one partition.
pub(crate) fn cross_lane_reduce_ref(
    pre: &RefState,
    st: &mut RefState,
    s: &wire::S4d4Cr,
    bitvec: bool,
    warns: &mut Vec<RefWarn>,
    strict: bool,
) -> Result<(), RefFault> {
    let n = u64::from(s.num_active_channels);
    let x = operand(pre, &s.src_mem_pattern, s.in_dtype, false, false, n)?;
    let d = operand(pre, &s.dst_mem_pattern, s.out_dtype, true, false, 1)?;
    let all = s.reduce_axis == ReduceAxis::ALL;
    if d.count() != if all { 1 } else { x.count() } {
        return Err(RefFault::Address);
    }
    let xv = rd_all(pre, &x, n, warns);
    gate(warns, strict)?;
    let scale = f32::from_bits(s.scale.0);
    let fold = |vals: Vec<u32>| -> Result<u32, RefFault> {
        if bitvec {
            let mut acc = vals[0];
            for &v in &vals[1..] {
                acc = match s.reduce_op {
                    ReduceOp::BITWISE_OR => acc | v,
                    ReduceOp::BITWISE_AND => acc & v,
                    _ => acc ^ v,
                };
            }
            return Ok(acc);
        }
        let f: Vec<f32> = vals
            .iter()
            .map(|&r| to_f32(s.in_dtype, r, &pre.fp8))
            .collect();
        let term = |v: f32| {
            if s.reduce_op == ReduceOp::AVERAGE {
                arith(AluOp::MULT, v, scale)
            } else {
                Ok(v)
            }
        };
        let mut acc = term(f[0])?;
        for &v in &f[1..] {
            acc = if s.reduce_op == ReduceOp::MAX {
                arith(AluOp::MAX, acc, v)?
            } else {
                arith(AluOp::ADD, acc, term(v)?)?
            };
        }
        Ok(from_f32(s.out_dtype, acc, &pre.fp8))
    };
    if all {
        let v = fold(xv.iter().flatten().copied().collect())?;
        wr(st, &d, 0, 0, v);
    } else {
        for k in 0..x.count() as usize {
            let v = fold(xv.iter().map(|row| row[k]).collect())?;
            wr(st, &d, 0, k as u64, v);
        }
    }
    Ok(())
}

/// LoadMaskSelect 0x69 (§14.2): the 32 bytes become the mask-select table.
pub(crate) fn load_mask_select_ref(
    st: &mut RefState,
    s: &wire::CtrlIm,
    warns: &[RefWarn],
    strict: bool,
) -> Result<(), RefFault> {
    gate(warns, strict)?;
    st.mask_select = Some(s.immediate.0);
    Ok(())
}
