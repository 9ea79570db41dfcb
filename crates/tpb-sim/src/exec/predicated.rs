//! CopyPredicated (0x72), CastPredicated (0x99) and CopyPredicatedScalar (0xe8)
//! (isa-facts-dve-pool §2.4, §3.4; docs/reference/isa.md "S3S3D3_TT",
//! "S3D3_CP_PRED_SCALAR").
//!
//! ```text
//! 0x72/0x99: for k: if pred[k] != 0: dst[k] = convert(src1[k], dtype_hi → out) else keep
//! 0xe8:      for k: if (pred[k] != 0) == reversed_pred: dst[k] = scalar else keep
//! ```

use super::copy_cast::cast_element;
use super::elements::{commit, read_all};
use super::{Cx, Role, Which};
use crate::assumptions::{cp_pred_scalar_inline, predicate_true};
use crate::machine::FaultCause;
use tpb_isa::wire::{S3d3CpPredScalar, S3s3d3Tt};
use tpb_isa::ImmSrc;

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
    let p = read_all(&cx.st.mem, &pred, n);
    let fp8 = cx.cfg.fp8;
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
