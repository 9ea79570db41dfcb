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
//! Plain, element by element: inputs are read in full before anything is written, so an
//! output that overlaps its input sees the old values (assumption `reads-before-writes`).

use super::pe::{element_indices, read_raw, write_raw};
use super::{Cx, Role, Which};
use crate::machine::{CostShape, FaultCause, WarningKind};
use crate::numerics::act::{apply, exactness, in_valid_range, Exactness};
use crate::numerics::{from_f32, to_f32};
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

/// Labels approximate results and out-of-range inputs in the report.
fn label(cx: &mut Cx<'_>, f: ActFunc, ex: Exactness, inputs: &[Vec<f32>]) {
    if ex != Exactness::Approximate {
        return;
    }
    let outside = inputs
        .iter()
        .flatten()
        .filter(|&&t| !in_valid_range(f, t))
        .count();
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
}

/// Applies an accumulator command to lane `c` with the lane's outputs `ys`.
fn accumulate(acc: &mut u32, cmd: AccumCmd, load: f32, ys: &[f32]) {
    let start = match cmd {
        AccumCmd::IDLE => return,
        AccumCmd::ZERO => {
            *acc = 0;
            return;
        }
        AccumCmd::ACCUMULATE => f32::from_bits(*acc),
        AccumCmd::ZERO_ACCUMULATE => 0.0,
        _ => load, // LOAD_ACCUMULATE
    };
    *acc = ys.iter().fold(start, |a, &y| a + y).to_bits();
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
    let (src, xs) = read_all(cx, &s.src_mem_pattern, "src_mem_pattern", in_dtype, n)?;
    let dst = cx.tensor(
        &s.dst_mem_pattern,
        "dst_mem_pattern",
        s.out_dtype,
        Role::WRITE,
        n,
    )?;
    if dst.count() != src.count() {
        return Err(FaultCause::OutOfRange {
            operand: "dst_mem_pattern",
            detail: format!("{} outputs for {} inputs", dst.count(), src.count()),
        });
    }
    cx.check_reads(&src, n, |_| true);
    let ts: Vec<Vec<f32>> = xs
        .iter()
        .enumerate()
        .map(|(c, lane)| {
            lane.iter()
                .map(|&x| libm::fmaf(x, scale[c], bias[c]))
                .collect()
        })
        .collect();
    label(cx, f, ex, &ts);
    cx.gate()?;
    let ys: Vec<Vec<f32>> = ts
        .iter()
        .enumerate()
        .map(|(c, lane)| {
            lane.iter()
                .map(|&t| apply(f, t, imm[c]).unwrap_or(f32::NAN))
                .collect()
        })
        .collect();
    write_all(cx, &s.dst_mem_pattern, "dst_mem_pattern", s.out_dtype, &ys)?;
    for (c, lane) in ys.iter().enumerate() {
        accumulate(&mut cx.st.act_acc[c], cmd, imm[c], lane);
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
    let (src, xs) = read_all(cx, &s.src_mem_pattern, "src_mem_pattern", in_dtype, n)?;
    let dst = cx.tensor(
        &s.dst_mem_pattern,
        "dst_mem_pattern",
        Dtype::UINT8,
        Role::WRITE,
        n,
    )?;
    if dst.count() != src.count() {
        return Err(FaultCause::OutOfRange {
            operand: "dst_mem_pattern",
            detail: format!("{} outputs for {} inputs", dst.count(), src.count()),
        });
    }
    cx.check_reads(&src, n, |_| true);
    let dq = s.dequant_scale_value.value();
    let ts: Vec<Vec<f32>> = xs
        .iter()
        .enumerate()
        .map(|(c, lane)| lane.iter().map(|&x| libm::fmaf(x, dq, bias[c])).collect())
        .collect();
    label(cx, f, ex, &ts);
    cx.gate()?;
    let (qs, qz) = (s.quant_scale_value.value(), s.quant_zero_value.value());
    let ys: Vec<Vec<f32>> = ts
        .iter()
        .map(|lane| {
            lane.iter()
                .map(|&t| {
                    let y = apply(f, t, 0.0).unwrap_or(f32::NAN);
                    let q = (qs * y + qz).round_ties_even();
                    if q.is_nan() {
                        0.0
                    } else {
                        q.clamp(0.0, 255.0)
                    }
                })
                .collect()
        })
        .collect();
    write_all(cx, &s.dst_mem_pattern, "dst_mem_pattern", Dtype::UINT8, &ys)
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
    let (src, xs) = read_all(cx, &s.src_mem_pattern, "src_mem_pattern", s.in_dtype, n)?;
    let dst = cx.tensor(
        &s.dst_mem_pattern,
        "dst_mem_pattern",
        s.out_dtype,
        Role::WRITE,
        n,
    )?;
    if dst.count() != src.count() {
        return Err(FaultCause::OutOfRange {
            operand: "dst_mem_pattern",
            detail: format!("{} outputs for {} inputs", dst.count(), src.count()),
        });
    }
    cx.out.cost = CostShape::DveExp;
    cx.check_reads(&src, n, |_| true);
    let ts: Vec<Vec<f32>> = xs
        .iter()
        .enumerate()
        .map(|(c, lane)| lane.iter().map(|&x| x - max[c]).collect())
        .collect();
    label(cx, ActFunc::EXP, Exactness::Approximate, &ts);
    if cmd == AccumCmd::ACCUMULATE {
        super::stt::warn_unset_accumulators(cx, row, n);
    }
    cx.gate()?;
    let ys: Vec<Vec<f32>> = ts
        .iter()
        .map(|lane| {
            lane.iter()
                .map(|&t| apply(ActFunc::EXP, t, 0.0).unwrap_or(f32::NAN))
                .collect()
        })
        .collect();
    write_all(cx, &s.dst_mem_pattern, "dst_mem_pattern", s.out_dtype, &ys)?;
    if cmd != AccumCmd::IDLE {
        for (c, lane) in ys.iter().enumerate() {
            let acc = &mut cx.st.dve.lanes[c];
            let start = match cmd {
                AccumCmd::ZERO_ACCUMULATE => 0.0,
                AccumCmd::LOAD_ACCUMULATE => seed[c],
                _ => acc.accumulator_f32(),
            };
            acc.accumulator = lane.iter().fold(start, |a, &y| a + y).to_bits();
            acc.accumulator_written = true;
        }
    }
    Ok(())
}
