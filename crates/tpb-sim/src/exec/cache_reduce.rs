//! TensorScalarCacheReduce 0x9a / TensorScalarCacheCumulative 0xe6 (struct S3D3_TS) and the
//! drain DveReadAccumulator 0x9b (D1_RD) (isa-facts-dve-pool §12–§13.1).
//!
//! ```text
//! for c in 0..num_active_channels:
//!   acc = seed(accumulator_cmd)            # identity(op1) | imm1 | acc[c]   (cache-reduce-model)
//!   for k: tmp = src[c][k] op0 s0; acc = op1(tmp, acc)
//!          dst[c][k] = convert(0x9a ? tmp : acc)
//!   acc[c] = acc
//! 0x9b: for c: dst[c][0] = convert(negated ? -acc[c] : acc[c])           (read-accumulator)
//! ```

use super::access::Access;
use super::dense::{self, CHUNK};
use super::lanes::{gather_all, record_write, scatter};
use super::stt::warn_unset_accumulators;
use super::{kernels, num_fault, pair_kernels, Cx, Pointer, Role, Which};
use crate::assumptions::{cache_reduce_seed, cache_reduce_step, CACHE_REDUCE_DST_IS_FOLD};
use crate::numerics::{from_f32, simd, to_f32};
use crate::report::FaultCause;
use tpb_isa::opcode::OpcodeInfo;
use tpb_isa::wire::{D1Rd, ImmVal, S3d3Ts};
use tpb_isa::{AccumCmd, AluOp, Dtype, ImmSrc};

/// Plans a scalar read through `src` (fp32 per lane through a pointer).
fn plan_scalar(
    cx: &Cx<'_>,
    src: ImmSrc,
    v: ImmVal,
    name: &'static str,
    n: u32,
) -> Result<Option<Pointer>, FaultCause> {
    Ok(match src {
        ImmSrc::INSTRUCTION => None,
        ImmSrc::POINTER => Some(cx.pointer(v.0, false, name, Dtype::FP32, n)?),
        ImmSrc::REG_PTR => Some(cx.pointer(v.0, true, name, Dtype::FP32, n)?),
        k => {
            return Err(FaultCause::Unsupported {
                what: format!("{name}_src {k}"),
            })
        }
    })
}

pub(super) fn execute(
    cx: &mut Cx<'_>,
    s: &S3d3Ts,
    row: &'static OpcodeInfo,
    cumulative: bool,
) -> Result<(), FaultCause> {
    let n = u32::from(s.num_active_channels);
    let (src, dst, count) = cx.elementwise(
        (&s.src_mem_pattern, "src_mem_pattern", s.in_dtype),
        (&s.dst_mem_pattern, "dst_mem_pattern", s.out_dtype),
        n,
    )?;
    for op in [s.op0, s.op1] {
        kernels::check_arith(op).map_err(num_fault)?;
    }
    let p0 = plan_scalar(cx, s.imm0_src, s.imm0, "imm0", n)?;
    let load = s.accumulator_cmd == AccumCmd::LOAD_ACCUMULATE;
    let p1 = if load {
        plan_scalar(cx, s.imm1_src, s.imm1, "imm1", n)?
    } else {
        None
    };
    cx.scalars(p0.as_ref(), s.imm0.0, n, Which::S0);
    cx.scalars(p1.as_ref(), s.imm1.0, n, Which::S1);
    cx.check_reads(&src, n, |_| true);
    if s.accumulator_cmd == AccumCmd::ACCUMULATE {
        warn_unset_accumulators(cx, row, n);
    }
    cx.gate()?;
    if dense::applies(&[&src], &dst, n) && dense_path(cx, s, cumulative, [&src, &dst], n) {
        return Ok(());
    }

    let fp8 = cx.cfg.fp8;
    let inputs = gather_all(&cx.st.mem, &src, n);
    let mut outs = Vec::with_capacity(n as usize);
    let mut accs = Vec::with_capacity(n as usize);
    for (c, xs) in inputs.iter().enumerate() {
        let s0 = f32::from_bits(cx.scratch.work.s0[c]);
        let mut acc = seed(
            &cx.scratch.work,
            &cx.st.dve.lanes[c],
            s.accumulator_cmd,
            s.op1,
            c,
        );
        let mut vals = Vec::with_capacity(xs.len());
        for &x in xs {
            let (tmp, a) = cache_reduce_step(s.op0, s.op1, to_f32(s.in_dtype, x, &fp8), s0, acc)
                .map_err(num_fault)?;
            acc = a;
            let shown = if cumulative || !CACHE_REDUCE_DST_IS_FOLD {
                acc
            } else {
                tmp
            };
            vals.push(from_f32(s.out_dtype, shown, &fp8));
        }
        outs.push(vals);
        accs.push(acc);
    }
    for (c, vals) in outs.iter().enumerate() {
        scatter(&mut cx.st.mem, &dst, c as u32, vals);
    }
    for (lane, acc) in cx.st.dve.lanes.iter_mut().zip(&accs) {
        lane.accumulator = acc.to_bits();
        lane.accumulator_written = true;
    }
    record_write(cx.out, &dst, n, count);
    Ok(())
}

/// The seed of lane `c`'s fold.
fn seed(
    work: &super::Work,
    lane: &crate::state::DveLane,
    cmd: AccumCmd,
    op1: AluOp,
    c: usize,
) -> f32 {
    match cmd {
        AccumCmd::ZERO_ACCUMULATE => cache_reduce_seed(op1),
        AccumCmd::LOAD_ACCUMULATE => f32::from_bits(work.s1[c]),
        _ => lane.accumulator_f32(),
    }
}

/// The dense path (`dense`): per chunk, decode and op0 in one loop, the fold, the encoder;
/// the same values as the plain walk above (`tests/dve_fast_paths.rs`). `false`: not
/// taken, nothing changed.
fn dense_path(
    cx: &mut Cx<'_>,
    s: &S3d3Ts,
    cumulative: bool,
    [src, dst]: [&Access; 2],
    n: u32,
) -> bool {
    let fp8 = cx.cfg.fp8;
    let count = dst.count() as usize;
    let (si, so) = (src.size, dst.size);
    let running = cumulative || !CACHE_REDUCE_DST_IS_FOLD;
    let work = &cx.scratch.work;
    let lanes = &mut cx.st.dve.lanes;
    if !dense::datapath(&[s.in_dtype, s.out_dtype]) {
        return false;
    }
    let mut accs = [0f32; 128];
    let mut t = [0f32; CHUNK];
    let mem = &mut cx.st.mem;
    let done = simd::vectorize(
        #[inline(always)]
        || {
            dense::for_each_channel(
                mem,
                [src, src],
                dst,
                n,
                #[inline(always)]
                |c: u32, [x, _]: [&[u8]; 2], d: &mut [u8]| {
                    let c = c as usize;
                    let s0 = f32::from_bits(work.s0[c]);
                    let mut acc = seed(work, &lanes[c], s.accumulator_cmd, s.op1, c);
                    for k in (0..count).step_by(CHUNK) {
                        let len = CHUNK.min(count - k);
                        let t = &mut t[..len];
                        let x = &x[k * si..(k + len) * si];
                        pair_kernels::decode_stage_in((s.op0, s0, false), s.in_dtype, x, t, &fp8);
                        acc = pair_kernels::fold(s.op1, t, acc, running);
                        pair_kernels::encode_in(
                            s.out_dtype,
                            t,
                            &mut d[k * so..(k + len) * so],
                            &fp8,
                        );
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
        lane.accumulator = acc.to_bits();
        lane.accumulator_written = true;
    }
    record_write(cx.out, dst, n, count as u64);
    true
}

pub(super) fn read_accumulator(cx: &mut Cx<'_>, s: &D1Rd) -> Result<(), FaultCause> {
    let n = u32::from(s.num_active_channels);
    if n == 0 {
        return Ok(());
    }
    let dst = cx.tensor(
        &s.dst_mem_pattern,
        "dst_mem_pattern",
        s.dtype,
        Role::WRITE,
        n,
    )?;
    cx.limit(1, n)?;
    let unset: Vec<usize> = (0..n as usize)
        .filter(|&c| !cx.st.dve.lanes[c].accumulator_written)
        .collect();
    if let Some(&first) = unset.first() {
        cx.out.warn(
            crate::report::WarningKind::DveStateUnset,
            format!(
                "reads the accumulator of {} lane{} no instruction has written (first lane \
                 {first}); it reads 0.0",
                unset.len(),
                if unset.len() == 1 { "" } else { "s" }
            ),
        );
    }
    cx.gate()?;
    let fp8 = cx.cfg.fp8;
    for c in 0..n {
        let v = cx.st.dve.lanes[c as usize].accumulator_f32();
        let v = if s.negated == 1 { -v } else { v };
        scatter(&mut cx.st.mem, &dst, c, &[from_f32(s.dtype, v, &fp8)]);
    }
    record_write(cx.out, &dst, n, 1);
    Ok(())
}
