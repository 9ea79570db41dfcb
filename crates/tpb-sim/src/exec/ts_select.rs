//! TensorScalarSelect (0x98): per channel, copy src0 or a scalar src1, chosen by a
//! predicate immediate (isa-facts §10.1). Copy only: no cast, no ALU.
//!
//! ```text
//! for c in 0..num_active_channels:
//!   pred = pred_imm (0/1) | element at pointer, nonzero       # per pred_imm_src
//!   s1   = src1_imm low bits | element at pointer             # per src1_imm_src
//!   for k in 0..count:
//!     dst[c][k] = reversed_pred ? (pred ? s1 : src0[c][k]) : (pred ? src0[c][k] : s1)
//! ```
//!
//! Operand reading: assumption `ts-select-operands`.

use super::engine::{Bufs, Kernel};
use super::{Cx, Parts, Pointer, Which};
use crate::assumptions::{predicate_true, ts_select_inline_src1};
use crate::report::FaultCause;
use tpb_isa::wire::S3d3TsSelect;
use tpb_isa::ImmSrc;

pub(super) fn execute(cx: &mut Cx<'_>, s: &S3d3TsSelect) -> Result<(), FaultCause> {
    let n = u32::from(s.num_active_channels);
    let (src, dst, count) = cx.elementwise(
        (&s.src0_mem_pattern, "src0_mem_pattern", s.dtype),
        (&s.dst_mem_pattern, "dst_mem_pattern", s.dtype),
        n,
    )?;
    let plan =
        |cx: &Cx<'_>, kind: ImmSrc, imm: u32, name, dtype| -> Result<Option<Pointer>, FaultCause> {
            match kind {
                ImmSrc::INSTRUCTION => Ok(None),
                ImmSrc::POINTER => cx.pointer(imm, false, name, dtype, n).map(Some),
                ImmSrc::REG_PTR => cx.pointer(imm, true, name, dtype, n).map(Some),
                k => Err(FaultCause::Unsupported {
                    what: format!("{name}_src {k}"),
                }),
            }
        };
    let p_src1 = plan(cx, s.src1_imm_src, s.src1_imm.0, "src1_imm", s.dtype)?;
    let p_pred = plan(
        cx,
        s.pred_imm_src,
        s.pred_imm.0,
        "pred_imm",
        s.pred_imm_dtype,
    )?;
    let inline_src1 = ts_select_inline_src1(s.src1_imm.0, src.size);
    cx.scalars(p_src1.as_ref(), inline_src1, n, Which::S0);
    cx.scalars(p_pred.as_ref(), u32::from(s.pred_imm.0 != 0), n, Which::S1);
    // dst = reversed ? (pred ? src1 : src0) : (pred ? src0 : src1)
    let reversed = s.reversed_pred != 0;
    let mut take_src0 = [false; 128];
    let work = &mut cx.scratch.work;
    let chans = take_src0.iter_mut().zip(&mut work.sel).zip(&work.s1);
    for ((t, sel), &p) in chans.take(n as usize) {
        *sel = predicate_true(p) != reversed;
        *t = *sel;
    }
    cx.check_reads(&src, n, |c| take_src0[c as usize]);
    cx.gate()?;

    let Parts { driver, work, .. } = cx.parts();
    let mut k = SelectKernel {
        size: src.size,
        take_src0: &work.sel,
        src1: &work.s0,
    };
    driver.run(Some(&src), &dst, n, count, u64::MAX, &mut k);
    Ok(())
}

#[derive(Clone)]
struct SelectKernel<'a> {
    size: usize,
    take_src0: &'a [bool],
    src1: &'a [u32],
}

impl Kernel for SelectKernel<'_> {
    fn load(&mut self, b: &mut Bufs, _c: u32, _k0: u64, input: &[u8]) {
        b.bytes[..input.len()].copy_from_slice(input);
    }

    fn store(&mut self, b: &mut Bufs, c: u32, _k0: u64, out: &mut [u8]) {
        if self.take_src0[c as usize] {
            out.copy_from_slice(&b.bytes[..out.len()]);
        } else {
            let e = self.src1[c as usize].to_le_bytes();
            for o in out.chunks_exact_mut(self.size) {
                o.copy_from_slice(&e[..self.size]);
            }
        }
    }
}
