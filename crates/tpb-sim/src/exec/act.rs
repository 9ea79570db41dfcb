//! Activate 0x21, ActivateQuantize 0x22, ActivationReadAccumulator 0x24 and DVE
//! Exponential 0x30 (isa-facts-pe-act-dma §2.2–§2.5, §2.12; `docs/reference/pe-act.md`).
//!
//! ```text
//! Activate: for lane c, element k:
//!   t = fma(in[c][k], scale[c], bias[c])       # fp32, one rounding (assumption act-rounding)
//!   y = func(t)                                # numerics::act (exact or approximate)
//!   out[c][k] = cast(y);  acc[c] per accumulator_cmd (assumption act-accumulator)
//! ReadAccumulator: out[c][0] = cast(acc[c])
//! ```
//!
//! Run through the elementwise engine ([`super::engine`]) with [`ActKernel`]: one sweep per
//! block of elements (decode → stage → function → quantise → encode, then the running sum
//! in element order), one dispatched call per instruction for dense operands, channel
//! groups on threads for large instructions; an output that overlaps its input sees the old
//! values (assumption `reads-before-writes`, the engine's snapshot). The block functions
//! (`numerics::act_block`) are the per-element definition bit for bit, tested against it.

use super::access::Access;
use super::engine::{Bufs, Kernel, Row};
use super::pe::{element_indices, read_raw, write_raw};
use super::{kernels, Cx, Parts, Role, Which};
use crate::numerics::act::{exactness, in_valid_range, valid_range, Exactness};
use crate::numerics::act_block::{self, BLOCK};
use crate::numerics::{
    decode_values, encode_f32_values, from_f32, is_datapath_dtype, simd, to_f32, Fp8Config,
};
use crate::report::{FaultCause, WarningKind};
use std::sync::atomic::{AtomicU32, Ordering};
use tpb_isa::wire::{D1Rd, ImmVal, S3d3Ac, S3d3Aq, S3d3Ts, Tensor};
use tpb_isa::{AccumCmd, ActFunc, Dtype, Gen, ImmSrc, ImmSrcN};

fn unsupported(what: String) -> FaultCause {
    FaultCause::Unsupported { what }
}

/// Per-lane fp32 scalars from an immediate source: the instruction's fp32, or one `dtype`
/// element per lane through a pointer (register pointer).
fn lane_scalars(
    cx: &mut Cx<'_>,
    src: ImmSrc,
    v: ImmVal,
    name: &'static str,
    dtype: Dtype,
    n: u32,
    which: Which,
) -> Result<Vec<f32>, FaultCause> {
    let ptr = match src {
        ImmSrc::INSTRUCTION => None,
        ImmSrc::POINTER => Some(cx.pointer(v.0, false, name, dtype, n)?),
        ImmSrc::REG_PTR => Some(cx.pointer(v.0, true, name, dtype, n)?),
        k => return Err(unsupported(format!("{name} source {k}"))),
    };
    cx.scalars(ptr.as_ref(), v.0, n, which);
    let work = &cx.scratch.work;
    let raw = match which {
        Which::S0 => &work.s0,
        Which::S1 => &work.s1,
    };
    let fp8 = cx.cfg.fp8;
    Ok(raw[..n as usize]
        .iter()
        .map(|&b| match ptr {
            None => f32::from_bits(b),
            Some(_) => to_f32(dtype, b, &fp8),
        })
        .collect())
}

/// Reads every element of `t` (n lanes) as fp32, lane by lane; returns the values with the
/// resolved access.
fn read_all<const N: usize>(
    cx: &mut Cx<'_>,
    t: &Tensor<N>,
    name: &'static str,
    dtype: Dtype,
    n: u32,
) -> Result<(super::access::Access, Vec<Vec<f32>>), FaultCause> {
    let a = cx.tensor(t, name, dtype, Role::READ, n)?;
    cx.limit(a.count(), n)?;
    let fp8 = cx.cfg.fp8;
    let mem = &cx.st.mem;
    let vals = (0..n)
        .map(|c| {
            element_indices(mem, &a, c)
                .into_iter()
                .map(|i| to_f32(dtype, read_raw(mem, a.space, i, a.size), &fp8))
                .collect()
        })
        .collect();
    Ok((a, vals))
}

/// Writes `vals` (fp32, lane by lane, walk order) to `t` converted to `dtype`.
fn write_all<const N: usize>(
    cx: &mut Cx<'_>,
    t: &Tensor<N>,
    name: &'static str,
    dtype: Dtype,
    vals: &[Vec<f32>],
) -> Result<(), FaultCause> {
    let n = vals.len() as u32;
    let a = cx.tensor(t, name, dtype, Role::WRITE, n)?;
    let fp8 = cx.cfg.fp8;
    for (c, lane) in vals.iter().enumerate() {
        let idx = element_indices(&cx.st.mem, &a, c as u32);
        for (i, &y) in idx.into_iter().zip(lane) {
            write_raw(&mut cx.st.mem, a.space, i, a.size, from_f32(dtype, y, &fp8));
        }
    }
    cx.out.touch(&a, n, true);
    cx.out.elements = a.count() * u64::from(n);
    cx.out.bytes_written = cx.out.elements * a.size as u64;
    cx.out.written = Some(a.region(n));
    Ok(())
}

/// The function's exactness, or a refusal naming the missing fact.
fn function(f: ActFunc) -> Result<Exactness, FaultCause> {
    exactness(f).ok_or_else(|| {
        unsupported(format!(
            "activation function id {:#04x}: not a function whose definition tpb knows (the \
             catalog of isa-facts-pe-act-dma §2.9; the derivative_relu/leaky_relu/identity/\
             sigmoid/tanh ids are not public, §8 item 14)",
            f.0
        ))
    })
}

/// Labels approximate results and out-of-range inputs in the report. `inputs` reads the
/// function's inputs (a plain walk), asked only for a function with a valid range.
fn label(
    cx: &mut Cx<'_>,
    f: ActFunc,
    ex: Exactness,
    inputs: impl FnOnce(&mut Cx<'_>) -> Result<Vec<Vec<f32>>, FaultCause>,
) -> Result<(), FaultCause> {
    if ex != Exactness::Approximate {
        return Ok(());
    }
    let ranged = valid_range(f).is_some() || f == ActFunc::RECIPROCAL;
    let outside = if ranged {
        inputs(cx)?
            .iter()
            .flatten()
            .filter(|&&t| !in_valid_range(f, t))
            .count()
    } else {
        0
    };
    let mut msg = format!(
        "function {f} is evaluated by hardware from unpublished tables; tpb computes its \
         definition (libm, rounded once to fp32): approximate"
    );
    if outside > 0 {
        msg.push_str(&format!(
            "; {outside} input(s) lie outside the documented valid range, where the hardware \
             output is invalid (no range reduction)"
        ));
    }
    cx.out.warn(WarningKind::Approximate, msg);
    Ok(())
}

/// Resolves the source and destination of an ACT instruction: the source and the element
/// limit first, then the destination, which must hold as many elements.
fn operands<const A: usize, const B: usize>(
    cx: &mut Cx<'_>,
    src: &Tensor<A>,
    in_dtype: Dtype,
    dst: &Tensor<B>,
    out_dtype: Dtype,
    n: u32,
) -> Result<(Access, Access), FaultCause> {
    for d in [in_dtype, out_dtype] {
        if !is_datapath_dtype(d) {
            return Err(unsupported(format!("ACT dtype {d}")));
        }
    }
    let a = cx.tensor(src, "src_mem_pattern", in_dtype, Role::READ, n)?;
    cx.limit(a.count(), n)?;
    let d = cx.tensor(dst, "dst_mem_pattern", out_dtype, Role::WRITE, n)?;
    if d.count() != a.count() {
        return Err(FaultCause::OutOfRange {
            operand: "dst_mem_pattern",
            detail: format!("{} outputs for {} inputs", d.count(), a.count()),
        });
    }
    Ok((a, d))
}

/// The function inputs of every element, plainly (for [`label`]'s range count).
fn plain_inputs<const N: usize>(
    cx: &mut Cx<'_>,
    t: &Tensor<N>,
    dtype: Dtype,
    n: u32,
    stage: impl Fn(usize, f32) -> f32,
) -> Result<Vec<Vec<f32>>, FaultCause> {
    let (_, xs) = read_all(cx, t, "src_mem_pattern", dtype, n)?;
    Ok(xs
        .into_iter()
        .enumerate()
        .map(|(c, lane)| lane.into_iter().map(|x| stage(c, x)).collect())
        .collect())
}

/// Activate 0x21.
pub(super) fn activate(cx: &mut Cx<'_>, s: &S3d3Ac) -> Result<(), FaultCause> {
    let n = u32::from(s.num_active_channels);
    let f = s.activation_func;
    let ex = function(f)?;
    let cmd = s.accumulator_cmd;
    if cmd.0 > AccumCmd::LOAD_ACCUMULATE.0 {
        return Err(unsupported(format!("accumulator_cmd {cmd}")));
    }
    let (in_dtype, bias_dtype) = (s.in_bias_dtype.lo(), s.in_bias_dtype.hi());
    let scale = lane_scalars(
        cx,
        s.scale_src,
        s.scale_value,
        "scale_value",
        Dtype::FP32,
        n,
        Which::S0,
    )?;
    let bias_src = match s.bias_src_n {
        ImmSrcN::POINTER => ImmSrc::POINTER,
        ImmSrcN::INSTRUCTION => ImmSrc::INSTRUCTION,
        ImmSrcN::REG_PTR => ImmSrc::REG_PTR,
        k => return Err(unsupported(format!("bias_src_n {k}"))),
    };
    let bias = lane_scalars(cx, bias_src, s.bias, "bias", bias_dtype, n, Which::S1)?;
    // The imm operand: the relu slope and the load_accumulate value (fp32).
    let imm = lane_scalars(cx, s.imm_src, s.imm, "imm", Dtype::FP32, n, Which::S0)?;
    let (src, dst) = operands(
        cx,
        &s.src_mem_pattern,
        in_dtype,
        &s.dst_mem_pattern,
        s.out_dtype,
        n,
    )?;
    cx.check_reads(&src, n, |_| true);
    label(cx, f, ex, |cx| {
        plain_inputs(cx, &s.src_mem_pattern, in_dtype, n, |c, x| {
            libm::fmaf(x, scale[c], bias[c])
        })
    })?;
    cx.gate()?;
    // The running sum's start (assumption act-accumulator); zero clears without summing.
    let start: Option<Vec<f32>> = match cmd {
        AccumCmd::IDLE | AccumCmd::ZERO => None,
        AccumCmd::ACCUMULATE => Some(
            cx.st.act_acc[..n as usize]
                .iter()
                .map(|&a| f32::from_bits(a))
                .collect(),
        ),
        AccumCmd::ZERO_ACCUMULATE => Some(vec![0.0; n as usize]),
        _ => Some(imm.clone()), // LOAD_ACCUMULATE
    };
    let run = Act {
        f,
        stage: Stage::Fma,
        scale: &scale,
        bias: &bias,
        alpha: &imm,
        quant: None,
        start: start.as_deref(),
        in_dtype,
        out_dtype: s.out_dtype,
    };
    let sums = run.execute(cx, &src, &dst, n);
    if cmd == AccumCmd::ZERO {
        cx.st.act_acc[..n as usize].fill(0);
    } else if start.is_some() {
        cx.st.act_acc[..n as usize].copy_from_slice(&sums);
    }
    Ok(())
}

/// ActivateQuantize 0x22 (assumption `act-quantize`).
pub(super) fn activate_quantize(cx: &mut Cx<'_>, s: &S3d3Aq) -> Result<(), FaultCause> {
    let n = u32::from(s.num_active_channels);
    let f = s.activation_func;
    let ex = function(f)?;
    let (in_dtype, bias_dtype) = (s.in_bias_dtype.lo(), s.in_bias_dtype.hi());
    let bias = lane_scalars(
        cx,
        ImmSrc::POINTER,
        s.bias_addr,
        "bias_addr",
        bias_dtype,
        n,
        Which::S1,
    )?;
    let (src, dst) = operands(
        cx,
        &s.src_mem_pattern,
        in_dtype,
        &s.dst_mem_pattern,
        Dtype::UINT8,
        n,
    )?;
    cx.check_reads(&src, n, |_| true);
    let dq = s.dequant_scale_value.value();
    label(cx, f, ex, |cx| {
        plain_inputs(cx, &s.src_mem_pattern, in_dtype, n, |c, x| {
            libm::fmaf(x, dq, bias[c])
        })
    })?;
    cx.gate()?;
    let scale = vec![dq; n as usize];
    let zeros = vec![0.0; n as usize];
    let run = Act {
        f,
        stage: Stage::Fma,
        scale: &scale,
        bias: &bias,
        alpha: &zeros,
        quant: Some((s.quant_scale_value.value(), s.quant_zero_value.value())),
        start: None,
        in_dtype,
        out_dtype: Dtype::UINT8,
    };
    run.execute(cx, &src, &dst, n);
    Ok(())
}

/// The quantisation of ActivateQuantize: `round_even(qs·y + qz)` saturated to 0..=255, NaN
/// to 0 (assumption `act-quantize`).
#[inline(always)]
fn quantize(y: f32, qs: f32, qz: f32) -> f32 {
    let q = (qs * y + qz).round_ties_even();
    if q.is_nan() {
        0.0
    } else {
        q.clamp(0.0, 255.0)
    }
}

/// ActivationReadAccumulator 0x24 (assumption `act-accumulator`: the read does not clear).
pub(super) fn read_accumulator(cx: &mut Cx<'_>, s: &D1Rd) -> Result<(), FaultCause> {
    let n = u32::from(s.num_active_channels);
    if s.negated != 0 {
        return Err(unsupported(
            "a negated ActivationReadAccumulator (the validator requires 0 on ACT, \
             isa-facts-pe-act-dma §2.5)"
                .into(),
        ));
    }
    let dtype = if s.dtype == Dtype::FP32R {
        Dtype::FP32
    } else {
        s.dtype
    };
    let vals: Vec<Vec<f32>> = (0..n as usize)
        .map(|c| vec![f32::from_bits(cx.st.act_acc[c])])
        .collect();
    write_all(cx, &s.dst_mem_pattern, "dst_mem_pattern", dtype, &vals)
}

/// Exponential 0x30 on DVE (mariana+; decision 18), with the running sum in the DVE lane
/// accumulator (assumption `exp-operands`): zero_accumulate starts at 0, accumulate
/// continues, load_accumulate starts at imm1; the fp32 outputs are added in order.
pub(super) fn exponential(
    cx: &mut Cx<'_>,
    s: &S3d3Ts,
    row: &'static tpb_isa::OpcodeInfo,
) -> Result<(), FaultCause> {
    if matches!(cx.gen, Gen::Sunda | Gen::Cayman) {
        return Err(unsupported(format!(
            "Exponential on {}: the opcode is defined but not wired in the firmware before \
             mariana (isa-facts-pe-act-dma §2.12, decision 18)",
            cx.gen
        )));
    }
    let cmd = s.accumulator_cmd;
    if !matches!(
        cmd,
        AccumCmd::IDLE
            | AccumCmd::ZERO_ACCUMULATE
            | AccumCmd::ACCUMULATE
            | AccumCmd::LOAD_ACCUMULATE
    ) {
        return Err(unsupported(format!(
            "Exponential with accumulator_cmd {cmd} (isa-facts-pe-act-dma §2.12)"
        )));
    }
    let n = u32::from(s.num_active_channels);
    let max = lane_scalars(cx, s.imm0_src, s.imm0, "imm0", Dtype::FP32, n, Which::S0)?;
    let seed = if cmd == AccumCmd::LOAD_ACCUMULATE {
        lane_scalars(cx, s.imm1_src, s.imm1, "imm1", Dtype::FP32, n, Which::S1)?
    } else {
        Vec::new()
    };
    let (src, dst) = operands(
        cx,
        &s.src_mem_pattern,
        s.in_dtype,
        &s.dst_mem_pattern,
        s.out_dtype,
        n,
    )?;
    cx.check_reads(&src, n, |_| true);
    // exp has no valid range: no inputs to count.
    label(cx, ActFunc::EXP, Exactness::Approximate, |_| Ok(Vec::new()))?;
    if cmd == AccumCmd::ACCUMULATE {
        super::stt::warn_unset_accumulators(cx, row, n);
    }
    cx.gate()?;
    let start: Option<Vec<f32>> = match cmd {
        AccumCmd::IDLE => None,
        AccumCmd::ZERO_ACCUMULATE => Some(vec![0.0; n as usize]),
        AccumCmd::LOAD_ACCUMULATE => Some(seed),
        _ => Some(
            cx.st.dve.lanes[..n as usize]
                .iter()
                .map(|l| l.accumulator_f32())
                .collect(),
        ),
    };
    let zeros = vec![0.0; n as usize];
    let run = Act {
        f: ActFunc::EXP,
        stage: Stage::Sub,
        scale: &zeros,
        bias: &max,
        alpha: &zeros,
        quant: None,
        start: start.as_deref(),
        in_dtype: s.in_dtype,
        out_dtype: s.out_dtype,
    };
    let sums = run.execute(cx, &src, &dst, n);
    if start.is_some() {
        for (lane, &sum) in cx.st.dve.lanes.iter_mut().zip(&sums) {
            lane.accumulator = sum;
            lane.accumulator_written = true;
        }
    }
    Ok(())
}

/// The stage before the function.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Stage {
    /// `t = fmaf(x, scale, bias)` (Activate, ActivateQuantize; assumption act-rounding).
    Fma,
    /// `t = x - bias` in fp32 (Exponential: x − max).
    Sub,
}

/// One ACT instruction's element pipeline, per lane `c`:
/// `y = quant(func(stage(x, scale[c], bias[c]), alpha[c]))`, the running sum from
/// `start[c]` over the fp32 `y` in element order.
struct Act<'a> {
    f: ActFunc,
    stage: Stage,
    scale: &'a [f32],
    bias: &'a [f32],
    alpha: &'a [f32],
    quant: Option<(f32, f32)>,
    start: Option<&'a [f32]>,
    in_dtype: Dtype,
    out_dtype: Dtype,
}

impl Act<'_> {
    /// Runs the pipeline from `src` to `dst` over `n` lanes; returns the lanes' running
    /// sums (f32 bits; meaningful with a `start`).
    fn execute(&self, cx: &mut Cx<'_>, src: &Access, dst: &Access, n: u32) -> Vec<u32> {
        let sums: Vec<AtomicU32> = (0..n).map(|_| AtomicU32::new(0)).collect();
        let mut k = ActKernel {
            act: self,
            fp8: cx.cfg.fp8,
            size_in: src.size,
            size_out: dst.size,
            sums: &sums,
            run: 0.0,
        };
        let Parts { driver, .. } = cx.parts();
        let driver = driver.weighted(self.weight());
        driver.run(Some(src), dst, n, src.count(), u64::MAX, &mut k);
        sums.into_iter().map(AtomicU32::into_inner).collect()
    }

    /// The cost of an element relative to a plain elementwise op (for the thread split):
    /// the hardwired functions are a few operations, exp and the IEEE functions a few dozen
    /// vector operations, the other table functions a libm call.
    fn weight(&self) -> u64 {
        use ActFunc as F;
        match (exactness(self.f), self.f) {
            (Some(Exactness::Exact), _) => 1,
            (_, F::EXP | F::SQRT | F::RSQRT | F::ABS_RECIPROCAL_SQRT | F::RECIPROCAL) => 4,
            _ => 32,
        }
    }

    /// The pipeline on one block of lane `c`'s decoded inputs `xs` (outputs in place).
    #[inline(always)]
    fn block(&self, c: usize, xs: &mut [f32]) {
        let n = xs.len().min(BLOCK);
        let xs = &mut xs[..n];
        let mut ts = [0f32; BLOCK];
        let ts = &mut ts[..n];
        match self.stage {
            Stage::Fma => act_block::fma_block(xs, self.scale[c], self.bias[c], ts),
            Stage::Sub => {
                let m = self.bias[c];
                for (t, &x) in ts.iter_mut().zip(xs.iter()) {
                    *t = x - m;
                }
            }
        }
        act_block::apply_block(self.f, self.alpha[c], ts, xs);
        if let Some((qs, qz)) = self.quant {
            for y in xs.iter_mut() {
                *y = quantize(*y, qs, qz);
            }
        }
    }
}

/// [`Act`] as an engine kernel. Each lane's running sum continues across its chunks
/// (`run`, restarted at element 0) and is published in `sums` (one writer per lane).
#[derive(Clone)]
struct ActKernel<'a> {
    act: &'a Act<'a>,
    fp8: Fp8Config,
    size_in: usize,
    size_out: usize,
    sums: &'a [AtomicU32],
    run: f32,
}

impl ActKernel<'_> {
    /// Adds the outputs `ys` of lane `c` to its running sum, in order.
    #[inline(always)]
    fn accumulate(&mut self, c: usize, k0: u64, ys: &[f32]) {
        let Some(start) = self.act.start else {
            return;
        };
        if k0 == 0 {
            self.run = start[c];
        }
        self.run = ys.iter().fold(self.run, |a, &y| a + y);
        self.sums[c].store(self.run.to_bits(), Ordering::Relaxed);
    }
}

impl Kernel for ActKernel<'_> {
    fn load(&mut self, b: &mut Bufs, _c: u32, _k0: u64, input: &[u8]) {
        let len = input.len() / self.size_in;
        kernels::decode(self.act.in_dtype, input, &mut b.f[..len], &self.fp8);
    }

    fn store(&mut self, b: &mut Bufs, c: u32, k0: u64, out: &mut [u8]) {
        let len = out.len() / self.size_out;
        let xs = &mut b.f[..len];
        let act = self.act;
        simd::vectorize(
            #[inline(always)]
            || {
                for block in xs.chunks_mut(BLOCK) {
                    act.block(c as usize, block);
                }
            },
        );
        self.accumulate(c as usize, k0, xs);
        kernels::encode(act.out_dtype, xs, out, &self.fp8);
    }

    /// Every lane in one dispatched call, block by block: decode, pipeline, encode, sum.
    fn map_rows<'r, I: Iterator<Item = Row<'r>>>(&mut self, rows: I) -> Result<(), I> {
        let (si, so) = (self.size_in, self.size_out);
        let act = self.act;
        let fp8 = self.fp8;
        simd::vectorize(
            #[inline(always)]
            || {
                let mut xs = [0f32; BLOCK];
                for r in rows {
                    let c = r.c as usize;
                    let ins = r.input.chunks(BLOCK * si);
                    for (k, (i, o)) in ins.zip(r.out.chunks_mut(BLOCK * so)).enumerate() {
                        let xs = &mut xs[..i.len() / si];
                        decode_values(act.in_dtype, i, xs, &fp8);
                        act.block(c, xs);
                        encode_f32_values::<false>(simd::token(), act.out_dtype, xs, o, &fp8);
                        self.accumulate(c, (k * BLOCK) as u64, xs);
                    }
                }
            },
        );
        Ok(())
    }
}
