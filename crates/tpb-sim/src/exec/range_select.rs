//! RangeSelect (0xBC, cayman+): keep the elements whose index lies between two FP32 bounds,
//! fill the rest (isa-facts §10.2, nki-semantics §1.4).
//!
//! ```text
//! for c in 0..num_active_channels:
//!   b0, b1 = bound(bound0_src, bound0, c), bound(bound1_src, bound1, c)   # FP32
//!   for k in 0..count:
//!     x = base + k                                       # FP32
//!     pred = (x comp_op0 b0) && (x comp_op1 b1)          # FP32 compares, 1.0 / 0.0
//!     dst[c][k] = pred ? cast(src[c][k]) : cast_f32(fill_val)
//! ```
//!
//! Only `reduce_cmd == Idle` runs: the running max's read-out is not public (assumption
//! `range-select-reduce`). Index and copy rules: assumption `range-select-index`.

use super::access::{bytes_to_raw, raw_to_bytes};
use super::engine::{Bufs, Kernel};
use super::kernels;
use super::{num_fault, Cx, Parts, Which};
use crate::assumptions::{range_select_index, RANGE_SELECT_BOUND_DTYPE};
use crate::numerics::{alu_arith, from_f32, Fp8Config};
use crate::report::FaultCause;
use tpb_isa::wire::S2d2Rs;
use tpb_isa::{AccumCmd, AluOp, Dtype, ImmSrc};

pub(super) fn execute(cx: &mut Cx<'_>, s: &S2d2Rs) -> Result<(), FaultCause> {
    if s.reduce_cmd != AccumCmd::IDLE {
        return Err(FaultCause::Unsupported {
            what: format!(
                "RangeSelect reduce_cmd {} (the running-max read-out is not public)",
                s.reduce_cmd
            ),
        });
    }
    let n = u32::from(s.num_active_channels);
    let (in_dtype, out_dtype) = (s.in_out_dtype.lo(), s.in_out_dtype.hi());
    let (src, dst, count) = cx.elementwise(
        (&s.src_mem_pattern, "src_mem_pattern", in_dtype),
        (&s.dst_mem_pattern, "dst_mem_pattern", out_dtype),
        n,
    )?;
    for op in [s.comp_op0, s.comp_op1] {
        kernels::check_arith(op).map_err(num_fault)?;
    }
    let sources = [
        (s.bound0_src, s.bound0.0, "bound0"),
        (s.bound1_src, s.bound1.0, "bound1"),
    ];
    let mut ptrs = [None, None];
    for (slot, &(kind, imm, name)) in ptrs.iter_mut().zip(&sources) {
        *slot = match kind {
            ImmSrc::INSTRUCTION => None,
            ImmSrc::POINTER => Some(cx.pointer(imm, false, name, RANGE_SELECT_BOUND_DTYPE, n)?),
            ImmSrc::REG_PTR => Some(cx.pointer(imm, true, name, RANGE_SELECT_BOUND_DTYPE, n)?),
            k => {
                return Err(FaultCause::Unsupported {
                    what: format!("{name}_src {k}"),
                })
            }
        };
    }
    cx.scalars(ptrs[0].as_ref(), s.bound0.0, n, Which::S0);
    cx.scalars(ptrs[1].as_ref(), s.bound1.0, n, Which::S1);
    cx.check_reads(&src, n, |_| true);
    cx.gate()?;

    let fill = s.fill_val.value();
    let fp8 = cx.cfg.fp8;
    let Parts { driver, work, .. } = cx.parts();
    let mut k = RangeKernel {
        copy: in_dtype == out_dtype,
        in_dtype,
        out_dtype,
        size_in: src.size,
        size_out: dst.size,
        fp8,
        base: s.base.value(),
        cmp: [s.comp_op0, s.comp_op1],
        bounds: [&work.s0, &work.s1],
        fill,
        fill_bits: from_f32(out_dtype, fill, &fp8),
    };
    driver.run(Some(&src), &dst, n, count, u64::MAX, &mut k);
    Ok(())
}

#[derive(Clone)]
struct RangeKernel<'a> {
    copy: bool,
    in_dtype: Dtype,
    out_dtype: Dtype,
    size_in: usize,
    size_out: usize,
    fp8: Fp8Config,
    base: f32,
    cmp: [AluOp; 2],
    bounds: [&'a [u32]; 2],
    fill: f32,
    fill_bits: u32,
}

impl RangeKernel<'_> {
    #[inline(always)]
    fn keep(&self, c: u32, k: u64) -> bool {
        let x = range_select_index(self.base, k);
        let t = |j: usize| {
            let b = f32::from_bits(self.bounds[j][c as usize]);
            alu_arith(self.cmp[j], x, b).unwrap_or(0.0) != 0.0
        };
        t(0) && t(1)
    }
}

impl Kernel for RangeKernel<'_> {
    fn load(&mut self, b: &mut Bufs, _c: u32, _k0: u64, input: &[u8]) {
        let len = input.len() / self.size_in;
        if self.copy {
            bytes_to_raw(self.size_in, input, &mut b.u[..len]);
        } else {
            kernels::decode(self.in_dtype, input, &mut b.f[..len], &self.fp8);
        }
    }

    fn store(&mut self, b: &mut Bufs, c: u32, k0: u64, out: &mut [u8]) {
        let len = out.len() / self.size_out;
        if self.copy {
            for j in 0..len {
                if !self.keep(c, k0 + j as u64) {
                    b.u[j] = self.fill_bits;
                }
            }
            raw_to_bytes(self.size_out, &b.u[..len], out);
        } else {
            for j in 0..len {
                if !self.keep(c, k0 + j as u64) {
                    b.f[j] = self.fill;
                }
            }
            kernels::encode(self.out_dtype, &b.f[..len], out, &self.fp8);
        }
    }
}
