//! CopyPredicated (0x72), CastPredicated (0x99) and CopyPredicatedScalar (0xe8)
//! (isa-facts-dve-pool §2.4, §3.4; docs/reference/isa.md "S3S3D3_TT",
//! "S3D3_CP_PRED_SCALAR").
//!
//! ```text
//! 0x72/0x99: for k: if pred[k] != 0: dst[k] = convert(src1[k], dtype_hi → out) else keep
//! 0xe8:      for k: if (pred[k] != 0) == reversed_pred: dst[k] = scalar else keep
//! ```

use super::access::Access;
use super::copy_cast::cast_element;
use super::dense::{self, CHUNK};
use super::elements::{commit, read_all};
use super::lanes::record_write;
use super::{pair_kernels, Cx, Role, Which};
use crate::assumptions::{cp_pred_scalar_inline, predicate_true, raw_move};
use crate::numerics::{decode_values, simd};
use crate::report::FaultCause;
use tpb_isa::wire::{S3d3CpPredScalar, S3s3d3Tt};
use tpb_isa::{Dtype, ImmSrc};

pub(super) fn execute_tensor(cx: &mut Cx<'_>, s: &S3s3d3Tt) -> Result<(), FaultCause> {
    let n = u32::from(s.num_active_channels);
    let (lo, hi) = (s.in0_in1_dtype.lo(), s.in0_in1_dtype.hi());
    let pred = cx.tensor(&s.src0_mem_pattern, "src0_mem_pattern", lo, Role::READ, n)?;
    let data = cx.tensor(&s.src1_mem_pattern, "src1_mem_pattern", hi, Role::READ, n)?;
    let dst = cx.tensor(
        &s.dst_mem_pattern,
        "dst_mem_pattern",
        s.out_dtype,
        Role::WRITE,
        n,
    )?;
    let count = pred.count();
    for a in [&data, &dst] {
        if a.count() != count {
            return Err(FaultCause::OutOfRange {
                operand: a.name,
                detail: format!("{} elements for the predicate's {count}", a.count()),
            });
        }
    }
    cx.limit(count, n)?;
    let fp8 = cx.cfg.fp8;
    let (out, all) = (s.out_dtype, [lo, hi, s.out_dtype]);
    if dense::applies(&[&pred, &data], &dst, n) && dense::datapath(&all) {
        cx.check_reads(&pred, n, |_| true);
        cx.check_reads(&data, n, |_| true);
        cx.gate()?;
        if dense_merge(cx, (hi, out), [&pred, &data, &dst], n) {
            return Ok(());
        }
    }
    let p = read_all(&cx.st.mem, &pred, n);
    let vals: Vec<u64> = read_all(&cx.st.mem, &data, n)
        .into_iter()
        .map(|x| cast_element(hi, s.out_dtype, x, &fp8))
        .collect();
    let count = count as usize;
    let selected = |c: u32, k: usize| predicate_true(p[c as usize * count + k] as u32);
    cx.check_reads(&pred, n, |_| true);
    cx.check_reads(&data, n, |_| true);
    cx.gate()?;
    commit(cx, &dst, n, &vals, |c, k| !selected(c, k));
    Ok(())
}

/// The dense path of CopyPredicated / CastPredicated (`dense`): per chunk, the predicate's
/// nonzero flags, the data converted as [`cast_element`] converts it (raw bits for equal
/// dtypes, else the slice codecs through FP32), and the selected elements written and
/// marked initialised, the rest left alone; the same bytes and shadow as the plain walk
/// (`tests/dve_fast_paths.rs`). `false`: not taken, nothing changed.
fn dense_merge(
    cx: &mut Cx<'_>,
    (hi, out): (Dtype, Dtype),
    [pred, data, dst]: [&Access; 3],
    n: u32,
) -> bool {
    let fp8 = cx.cfg.fp8;
    let count = dst.count() as usize;
    let (sp, sd, so) = (pred.size, data.size, dst.size);
    let raw = raw_move(hi, out);
    let mut keep = [false; CHUNK];
    let mut t = [0f32; CHUNK];
    let mut enc = [0u8; CHUNK * 4];
    let mem = &mut cx.st.mem;
    let done = simd::vectorize(
        #[inline(always)]
        || {
            dense::for_each_channel_marking(
                mem,
                [pred, data],
                dst,
                n,
                #[inline(always)]
                |_, [p, x], d, mark| {
                    for k in (0..count).step_by(CHUNK) {
                        let len = CHUNK.min(count - k);
                        let keep = &mut keep[..len];
                        pair_kernels::nonzero_in(sp, &p[k * sp..(k + len) * sp], keep);
                        let x = &x[k * sd..(k + len) * sd];
                        let from: &[u8] = if raw {
                            x
                        } else {
                            let t = &mut t[..len];
                            decode_values(hi, x, t, &fp8);
                            pair_kernels::encode_in(out, t, &mut enc[..len * so], &fp8);
                            &enc[..len * so]
                        };
                        let d = &mut d[k * so..(k + len) * so];
                        match so {
                            1 => merge::<1>(d, from, keep, mark, k),
                            2 => merge::<2>(d, from, keep, mark, k),
                            _ => merge::<4>(d, from, keep, mark, k),
                        }
                    }
                },
            )
        },
    );
    if done {
        record_write(cx.out, dst, n, count as u64);
    }
    done
}

/// `out[i] = from[i]` (marked initialised) where `keep[i]`, for `N`-byte elements; element
/// `i` is element `k0 + i` of the channel.
#[inline(always)]
fn merge<const N: usize>(
    out: &mut [u8],
    from: &[u8],
    keep: &[bool],
    mark: &mut dense::Marker<'_>,
    k0: usize,
) {
    let pairs = out
        .as_chunks_mut::<N>()
        .0
        .iter_mut()
        .zip(from.as_chunks::<N>().0);
    for (i, ((o, f), &k)) in pairs.zip(keep).enumerate() {
        if k {
            *o = *f;
            mark.element(k0 + i);
        }
    }
}

pub(super) fn execute_scalar(cx: &mut Cx<'_>, s: &S3d3CpPredScalar) -> Result<(), FaultCause> {
    let n = u32::from(s.num_active_channels);
    let pred = cx.tensor(
        &s.pred_mem_pattern,
        "pred_mem_pattern",
        s.pred_dtype,
        Role::READ,
        n,
    )?;
    let dst = cx.tensor(
        &s.dst_mem_pattern,
        "dst_mem_pattern",
        s.out_dtype,
        Role::WRITE,
        n,
    )?;
    let count = pred.count();
    if dst.count() != count {
        return Err(FaultCause::OutOfRange {
            operand: dst.name,
            detail: format!("{} elements for the predicate's {count}", dst.count()),
        });
    }
    cx.limit(count, n)?;
    let ptr = match s.src0_imm_src {
        ImmSrc::INSTRUCTION => None,
        ImmSrc::POINTER => Some(cx.pointer(s.src0_imm.0, false, "src0_imm", s.in_dtype, n)?),
        ImmSrc::REG_PTR => Some(cx.pointer(s.src0_imm.0, true, "src0_imm", s.in_dtype, n)?),
        k => {
            return Err(FaultCause::Unsupported {
                what: format!("src0_imm_src {k}"),
            })
        }
    };
    let inline = cp_pred_scalar_inline(s.src0_imm.0, dst.size);
    cx.scalars(ptr.as_ref(), inline, n, Which::S0);
    let p = read_all(&cx.st.mem, &pred, n);
    let scalars: Vec<u32> = cx.scratch.work.s0[..n as usize].to_vec();
    let count = count as usize;
    let vals: Vec<u64> = (0..n as usize * count)
        .map(|i| u64::from(scalars[i / count]))
        .collect();
    let reversed = s.reversed_pred != 0;
    let written = |c: u32, k: usize| predicate_true(p[c as usize * count + k] as u32) == reversed;
    cx.check_reads(&pred, n, |_| true);
    cx.gate()?;
    commit(cx, &dst, n, &vals, |c, k| !written(c, k));
    Ok(())
}
