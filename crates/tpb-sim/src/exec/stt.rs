//! The `S2S2D2_STT` family: ScalarTensorTensor 0x9d / 0x9e, TensorTensorScan 0xe5 and
//! SelectReduce 0xea (isa-facts-dve-pool §9–§11; reference `docs/reference/isa-dve-state.md`).
//!
//! ```text
//! for c in 0..num_active_channels:
//!   s = scalar(imm0_src, imm0, imm0_dtype, c)
//!   STT:    for k: r = stage(op1, stage(op0, src0[k], s, rev & 1), src1[k], rev & 2)
//!                  dst[k] = convert(r); if accumulating: acc[c] += r      (stt-accumulate)
//!   scan:   r = s; for k: r = op1(op0(src0[k], r), src1[k]); dst[k] = convert(r)
//!                                                                    (scan-recurrence)
//!   select: for k: if src0[k] != 0: dst[k] = convert(src1[k]); acc[c] = maxNum(acc[c], src1[k])
//!                  elif rev == First: dst[k] = convert(s)          (select-reduce-model)
//! ```
//!
//! Plan → check → commit: operands, scalars and every result are computed before the first
//! write, so a fault changes neither memory nor the lane accumulators.

use super::access::Access;
use super::dense::{self, CHUNK};
use super::lanes::{gather_all, record_write, scatter_masked};
use super::{kernels, num_fault, pair_kernels, Cx, Role, Which};
use crate::assumptions::{
    scan_step, select_reduce_accum_start, select_reduce_false_fill, stage_arith, stage_bitvec,
    stt_accum_start, stt_accumulate, AccumStart,
};
use crate::numerics::{decode_values, from_f32, simd, to_f32};
use crate::report::{FaultCause, WarningKind};
use tpb_isa::opcode::OpcodeInfo;
use tpb_isa::wire::S2s2d2Stt;
use tpb_isa::{AluOp, Dtype, ImmSrc};

/// Which of the struct's three computations runs (from the row's behaviour, `exec/family/`).
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum SttMode {
    /// ScalarTensorTensor, arithmetic (0x9d) or bit-vector (0x9e).
    Stt {
        /// The bit-vector twin.
        bitvec: bool,
    },
    /// TensorTensorScan (0xe5).
    Scan,
    /// SelectReduce (0xea).
    Select,
}

/// Executes `mode`; `row` names the opcode in messages.
pub(super) fn execute(
    cx: &mut Cx<'_>,
    s: &S2s2d2Stt,
    row: &'static OpcodeInfo,
    mode: SttMode,
) -> Result<(), FaultCause> {
    let bitvec = matches!(mode, SttMode::Stt { bitvec: true });
    let n = u32::from(s.num_active_channels);
    let (lo, hi, out) = (s.in0_in1_dtype.lo(), s.in0_in1_dtype.hi(), s.out_dtype);
    let src0 = cx.tensor(&s.src0_mem_pattern, "src0_mem_pattern", lo, Role::READ, n)?;
    let src1 = cx.tensor(&s.src1_mem_pattern, "src1_mem_pattern", hi, Role::READ, n)?;
    let dst = cx.tensor(&s.dst_mem_pattern, "dst_mem_pattern", out, Role::WRITE, n)?;
    let count = src0.count();
    for (a, name) in [(&src1, "src1_mem_pattern"), (&dst, "dst_mem_pattern")] {
        if a.count() != count {
            return Err(FaultCause::OutOfRange {
                operand: name,
                detail: format!("{} elements for src0's {count}", a.count()),
            });
        }
    }
    cx.limit(count, n)?;
    let bits = 8 * dst.size as u32;
    for op in [s.op0, s.op1] {
        if bitvec {
            kernels::check_bitvec(op, bits)
        } else {
            kernels::check_arith(op)
        }
        .map_err(num_fault)?;
    }
    let ptr = match s.imm0_src {
        ImmSrc::INSTRUCTION => None,
        ImmSrc::POINTER => Some(cx.pointer(s.imm0.0, false, "imm0", s.imm0_dtype, n)?),
        ImmSrc::REG_PTR => Some(cx.pointer(s.imm0.0, true, "imm0", s.imm0_dtype, n)?),
        k => {
            return Err(FaultCause::Unsupported {
                what: format!("imm0_src {k}"),
            })
        }
    };
    cx.scalars(ptr.as_ref(), s.imm0.0, n, Which::S0);
    cx.check_reads(&src0, n, |_| true);
    cx.check_reads(&src1, n, |_| true);
    let start = match mode {
        SttMode::Stt { bitvec: false } => stt_accum_start(s.accumulator_cmd),
        SttMode::Select => select_reduce_accum_start(s.accumulator_cmd),
        SttMode::Stt { bitvec: true } | SttMode::Scan => AccumStart::Untouched,
    };
    if start == AccumStart::Continue {
        warn_unset_accumulators(cx, row, n);
    }
    cx.gate()?;
    let rev = (s.reverse_operands.0 & 1 != 0, s.reverse_operands.0 & 2 != 0);
    if !bitvec
        && dense::applies(&[&src0, &src1], &dst, n)
        && dense_path(cx, s, mode, start, rev, [&src0, &src1, &dst], n)
    {
        return Ok(());
    }

    // Compute every lane's results before any write.
    let fp8 = cx.cfg.fp8;
    let a_all = gather_all(&cx.st.mem, &src0, n);
    let b_all = gather_all(&cx.st.mem, &src1, n);
    let mut results = Vec::with_capacity(n as usize);
    let mut accs = Vec::with_capacity(n as usize);
    for c in 0..n as usize {
        let (a, b) = (&a_all[c], &b_all[c]);
        let s_raw = cx.scratch.work.s0[c];
        let s_f32 = to_f32(s.imm0_dtype, s_raw, &fp8);
        let mut acc = match start {
            AccumStart::Seed(v) => Some(v),
            AccumStart::Continue => Some(cx.st.dve.lanes[c].accumulator_f32()),
            AccumStart::Untouched => None,
        };
        let mut vals = Vec::with_capacity(a.len());
        let mut keep = Vec::new();
        match mode {
            SttMode::Stt { bitvec: true } => {
                for (&x, &y) in a.iter().zip(b) {
                    let t = stage_bitvec(s.op0, x, s_raw, rev.0, bits).map_err(num_fault)?;
                    vals.push(stage_bitvec(s.op1, t, y, rev.1, bits).map_err(num_fault)?);
                }
            }
            SttMode::Stt { bitvec: false } => {
                for (&x, &y) in a.iter().zip(b) {
                    let (x, y) = (to_f32(lo, x, &fp8), to_f32(hi, y, &fp8));
                    let t = stage_arith(s.op0, x, s_f32, rev.0).map_err(num_fault)?;
                    let r = stage_arith(s.op1, t, y, rev.1).map_err(num_fault)?;
                    if let Some(v) = acc.as_mut() {
                        *v = stt_accumulate(*v, r);
                    }
                    vals.push(from_f32(out, r, &fp8));
                }
            }
            SttMode::Scan => {
                let mut r = s_f32;
                for (&x, &y) in a.iter().zip(b) {
                    let (x, y) = (to_f32(lo, x, &fp8), to_f32(hi, y, &fp8));
                    r = scan_step((s.op0, s.op1), rev, x, r, y).map_err(num_fault)?;
                    vals.push(from_f32(out, r, &fp8));
                }
            }
            SttMode::Select => {
                // SelectReduce: op0 = Bypass, op1 = Max (validated).
                let fill = select_reduce_false_fill(s.reverse_operands);
                let fill_bits = from_f32(out, s_f32, &fp8);
                for (&p, &y) in a.iter().zip(b) {
                    if p != 0 {
                        let y = to_f32(hi, y, &fp8);
                        if let Some(v) = acc.as_mut() {
                            *v =
                                crate::numerics::alu_arith(AluOp::MAX, *v, y).map_err(num_fault)?;
                        }
                        vals.push(from_f32(out, y, &fp8));
                        keep.push(true);
                    } else {
                        vals.push(fill_bits);
                        keep.push(fill);
                    }
                }
            }
        }
        results.push((vals, keep));
        accs.push(acc);
    }

    // Commit.
    let mem = &mut cx.st.mem;
    for (c, (vals, keep)) in results.iter().enumerate() {
        scatter_masked(mem, &dst, c as u32, vals, keep);
    }
    for (lane, acc) in cx.st.dve.lanes.iter_mut().zip(&accs) {
        if let Some(v) = acc {
            lane.accumulator = v.to_bits();
            lane.accumulator_written = true;
        }
    }
    record_write(cx.out, &dst, n, count);
    Ok(())
}

/// The dense path (`dense`): each channel read, computed and written chunk by chunk in one
/// sweep, the same values as the plain walk above (`tests/dve_fast_paths.rs`): STT arith,
/// the scan, and SelectReduce with its false-fill (the keep form writes only some
/// elements and takes the plain walk). `false`: not taken, nothing changed.
fn dense_path(
    cx: &mut Cx<'_>,
    s: &S2s2d2Stt,
    mode: SttMode,
    start: AccumStart,
    rev: (bool, bool),
    [src0, src1, dst]: [&Access; 3],
    n: u32,
) -> bool {
    let select = mode == SttMode::Select;
    if select && !select_reduce_false_fill(s.reverse_operands) {
        return false;
    }
    let (lo, hi, out) = (s.in0_in1_dtype.lo(), s.in0_in1_dtype.hi(), s.out_dtype);
    let fp8 = cx.cfg.fp8;
    let count = dst.count() as usize;
    let (sa, sb, sd) = (src0.size, src1.size, dst.size);
    let scalars = &cx.scratch.work.s0;
    let lanes = &mut cx.st.dve.lanes;
    if !dense::datapath(&[lo, hi, out]) {
        return false;
    }
    let mut accs = [None; 128];
    let (mut t, mut u, mut keep) = ([0f32; CHUNK], [0f32; CHUNK], [false; CHUNK]);
    // All FP32 (STT without accumulation): one loop from the input bytes to the output.
    let fp32 = [lo, hi, out].iter().all(|&d| d == Dtype::FP32);
    let mem = &mut cx.st.mem;
    let done = simd::vectorize(
        #[inline(always)]
        || {
            dense::for_each_channel(
                mem,
                [src0, src1],
                dst,
                n,
                #[inline(always)]
                |c: u32, [a, b]: [&[u8]; 2], d: &mut [u8]| {
                    let c = c as usize;
                    let s_f32 = to_f32(s.imm0_dtype, scalars[c], &fp8);
                    let mut acc = match start {
                        AccumStart::Seed(v) => Some(v),
                        AccumStart::Continue => Some(lanes[c].accumulator_f32()),
                        AccumStart::Untouched => None,
                    };
                    let mut r = s_f32;
                    if fp32 && acc.is_none() && matches!(mode, SttMode::Stt { .. }) {
                        let ops = (s.op0, s.op1);
                        pair_kernels::fp32_stt_in(ops, rev, s_f32, (a, b), d);
                        return;
                    }
                    for k in (0..count).step_by(CHUNK) {
                        let len = CHUNK.min(count - k);
                        let a = &a[k * sa..(k + len) * sa];
                        let b = &b[k * sb..(k + len) * sb];
                        let (t, u, keep) = (&mut t[..len], &mut u[..len], &mut keep[..len]);
                        match mode {
                            SttMode::Stt { .. } => {
                                pair_kernels::decode_stage_in(
                                    (s.op0, s_f32, rev.0),
                                    lo,
                                    a,
                                    t,
                                    &fp8,
                                );
                                pair_kernels::combine_in((s.op1, rev.1), t, (hi, b), u, &fp8);
                                if let Some(v) = acc.as_mut() {
                                    *v = pair_kernels::fold(AluOp::ADD, t, *v, false);
                                }
                            }
                            SttMode::Scan => {
                                decode_values(lo, a, t, &fp8);
                                decode_values(hi, b, u, &fp8);
                                r = pair_kernels::scan((s.op0, s.op1), rev, t, u, r);
                            }
                            SttMode::Select => {
                                // SelectReduce: op0 = Bypass, op1 = Max (validated).
                                pair_kernels::nonzero_in(sa, a, keep);
                                decode_values(hi, b, t, &fp8);
                                if let Some(v) = acc.as_mut() {
                                    if let Some(m) = pair_kernels::join::<true>(t, |i| keep[i]) {
                                        *v = crate::numerics::alu_arith(AluOp::MAX, *v, m)
                                            .unwrap_or(f32::NAN);
                                    }
                                }
                                for (x, &k) in t.iter_mut().zip(keep.iter()) {
                                    *x = if k { *x } else { s_f32 };
                                }
                            }
                        }
                        pair_kernels::encode_in(out, t, &mut d[k * sd..(k + len) * sd], &fp8);
                    }
                    accs[c] = acc;
                },
            )
        },
    );
    if !done {
        return false;
    }
    for (lane, acc) in lanes.iter_mut().zip(&accs[..n as usize]) {
        if let Some(v) = acc {
            lane.accumulator = v.to_bits();
            lane.accumulator_written = true;
        }
    }
    record_write(cx.out, dst, n, count as u64);
    true
}

/// Warns when an Accumulate continues lanes whose accumulator no instruction has written.
pub(super) fn warn_unset_accumulators(cx: &mut Cx<'_>, row: &'static OpcodeInfo, n: u32) {
    let unset: Vec<usize> = (0..n as usize)
        .filter(|&c| !cx.st.dve.lanes[c].accumulator_written)
        .collect();
    if let Some(&first) = unset.first() {
        cx.out.warn(
            WarningKind::DveStateUnset,
            format!(
                "accumulator_cmd {} continues the accumulator of {} lane{} no instruction \
                 has written (first lane {first}); it reads 0.0",
                row.display,
                unset.len(),
                if unset.len() == 1 { "" } else { "s" }
            ),
        );
    }
}
