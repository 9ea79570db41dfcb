//! TensorScalar{Arith,Bitvec} (0x43 / 0x53) and TensorScalarPtr{Arith,Bitvec} (0x44 / 0x54):
//! two ALU stages against two scalars (isa-facts §7, decisions §4.11).
//!
//! ```text
//! for c in 0..num_active_channels:
//!   s0, s1 = scalar(imm0_src, imm0, c), scalar(imm1_src, imm1, c)
//!   for k in 0..count:
//!     t = src[c][k]
//!     r = stage(op1, stage(op0, t, s0, reverse & 1), s1, reverse & 2)
//!     #   None: (t op0 s0) op1 s1     First: (s0 op0 t) op1 s1
//!     #   Second: s1 op1 (t op0 s0)   Both: s1 op1 (s0 op0 t)
//!     dst[c][k] = convert(r)
//! ```
//!
//! Paths: 0x53/0x54 bitvec on raw bits (in == out dtype); otherwise FP32 arith, except that
//! maverick's integer-band ops run on 32-bit integers (assumption `integer-arm-dtypes`).
//! Scalars: an instruction immediate (FP32 bits on the arith path, raw bits otherwise), a
//! pointer to one element per channel, or a register holding that pointer (assumptions
//! `pointer-scalar-dtype`, `register-pointer`). 0x44/0x54 always read both through pointers.

use super::access::{bytes_to_raw, raw_to_bytes};
use super::engine::{Bufs, Kernel, Row};
use super::kernels;
use super::{num_fault, Cx, Parts, Which};
use crate::assumptions::{int_operand, int_signed, pointer_scalar_dtype, ScalarPath};
use crate::numerics::{rows_fusable, Fp8Config};
use crate::report::FaultCause;
use tpb_isa::wire::S3d3Ts;
use tpb_isa::{AluOp, Dtype, ImmSrc};

/// `pointers`: the scalars are read through `imm0`/`imm1` (…Ptr…); `bitvec`: the Bitvec twin.
pub(super) fn execute(
    cx: &mut Cx<'_>,
    s: &S3d3Ts,
    pointers: bool,
    bitvec: bool,
) -> Result<(), FaultCause> {
    let ptr_form = pointers;
    let path = if bitvec {
        ScalarPath::Bitvec
    } else if s.op0.0 >= 0xC0 || s.op1.0 >= 0xC0 {
        ScalarPath::Int
    } else {
        ScalarPath::Arith
    };
    let n = u32::from(s.num_active_channels);
    let (src, dst, count) = cx.elementwise(
        (&s.src_mem_pattern, "src_mem_pattern", s.in_dtype),
        (&s.dst_mem_pattern, "dst_mem_pattern", s.out_dtype),
        n,
    )?;
    let bits = 8 * src.size as u32;
    for op in [s.op0, s.op1] {
        match path {
            ScalarPath::Arith => kernels::check_arith(op),
            ScalarPath::Bitvec => kernels::check_bitvec(op, bits),
            ScalarPath::Int => kernels::check_int(op),
        }
        .map_err(num_fault)?;
    }
    if path == ScalarPath::Int
        && (int_operand(s.in_dtype, 0).is_none() || int_operand(s.out_dtype, 0).is_none())
    {
        return Err(FaultCause::Unsupported {
            what: format!(
                "integer-band ALU ops {}, {} with {} -> {} (only integer dtypes are modelled)",
                s.op0, s.op1, s.in_dtype, s.out_dtype
            ),
        });
    }

    // Plan both scalars before reading either.
    let sources = [(s.imm0_src, s.imm0, "imm0"), (s.imm1_src, s.imm1, "imm1")];
    let mut ptrs = [None, None];
    for (slot, &(kind, imm, name)) in ptrs.iter_mut().zip(&sources) {
        let kind = if ptr_form { ImmSrc::POINTER } else { kind };
        let dtype = pointer_scalar_dtype(path, s.in_dtype);
        *slot = match kind {
            ImmSrc::INSTRUCTION => None,
            ImmSrc::POINTER => Some(cx.pointer(imm.0, false, name, dtype, n)?),
            ImmSrc::REG_PTR => Some(cx.pointer(imm.0, true, name, dtype, n)?),
            k => {
                return Err(FaultCause::Unsupported {
                    what: format!("{name}_src {k}"),
                })
            }
        };
    }
    cx.scalars(ptrs[0].as_ref(), s.imm0.0, n, Which::S0);
    cx.scalars(ptrs[1].as_ref(), s.imm1.0, n, Which::S1);
    cx.check_reads(&src, n, |_| true);
    cx.gate()?;

    let fp8 = cx.cfg.fp8;
    let Parts { driver, work, .. } = cx.parts();
    let mut k = TsKernel {
        path,
        op0: s.op0,
        op1: s.op1,
        rev0: s.reverse_operands.0 & 1 != 0,
        rev1: s.reverse_operands.0 & 2 != 0,
        in_dtype: s.in_dtype,
        out_dtype: s.out_dtype,
        size_in: src.size,
        size_out: dst.size,
        bits,
        fp8,
        s0: &work.s0,
        s1: &work.s1,
        f0: kernels::fused_stage(s.op0, s.reverse_operands.0 & 1 != 0),
        f1: kernels::fused_stage(s.op1, s.reverse_operands.0 & 2 != 0),
    };
    driver.run(Some(&src), &dst, n, count, u64::MAX, &mut k);
    Ok(())
}

#[derive(Clone)]
struct TsKernel<'a> {
    path: ScalarPath,
    op0: AluOp,
    op1: AluOp,
    rev0: bool,
    rev1: bool,
    in_dtype: Dtype,
    out_dtype: Dtype,
    size_in: usize,
    size_out: usize,
    bits: u32,
    fp8: Fp8Config,
    s0: &'a [u32],
    s1: &'a [u32],
    /// Each stage as a fusable op of its (negated) scalar, when it has that form
    /// ([`kernels::fused_stage`]): both, and [`Kernel::map`] may take
    /// [`kernels::bytes_fused2`].
    f0: Option<(AluOp, bool)>,
    f1: Option<(AluOp, bool)>,
}

/// Channel `c`'s scalar of a fused stage (negated where the stage says so).
#[inline(always)]
fn fused_scalar((op, negate): (AluOp, bool), scalars: &[u32], c: usize) -> (AluOp, f32) {
    let s = f32::from_bits(scalars[c]);
    (op, if negate { -s } else { s })
}

impl Kernel for TsKernel<'_> {
    /// FP32/BF16 in with a fusable stage 0: decode and stage 0 in one pass.
    fn map(&mut self, b: &mut Bufs, c: u32, k0: u64, input: &[u8], out: &mut [u8]) {
        let len = input.len() / self.size_in;
        let c = c as usize;
        if let (ScalarPath::Arith, Some(f0), Some(f1)) = (self.path, self.f0, self.f1) {
            // Both stages in the encoder's loop.
            let s0 = fused_scalar(f0, self.s0, c);
            let s1 = fused_scalar(f1, self.s1, c);
            let (i, o) = (self.in_dtype, self.out_dtype);
            if kernels::bytes_fused2(s0, s1, i, input, o, out, &self.fp8) {
                return;
            }
        }
        if let (ScalarPath::Arith, Some(f0)) = (self.path, self.f0) {
            let (op, s0) = fused_scalar(f0, self.s0, c);
            let xs = &mut b.f[..len];
            if kernels::decode_fused(op, s0, self.in_dtype, input, xs, &self.fp8) {
                self.finish_arith(xs, c as u32, out);
                return;
            }
        }
        let c = c as u32;
        self.load(b, c, k0, input);
        self.store(b, c, k0, out);
    }

    /// Both stages fused, every channel in one dispatched call (2- and 4-byte inputs: a
    /// 1-byte input goes through the engine's byte table, which is faster).
    fn map_rows<'r, I: Iterator<Item = Row<'r>>>(&mut self, rows: I) -> Result<(), I> {
        let (i, o) = (self.in_dtype, self.out_dtype);
        let (Some(f0), Some(f1)) = (self.f0, self.f1) else {
            return Err(rows);
        };
        if !(self.path == ScalarPath::Arith && self.size_in > 1 && rows_fusable(i, o)) {
            return Err(rows);
        }
        let (s0, s1) = (self.s0, self.s1);
        let rows = rows.map(|r| {
            let c = r.c as usize;
            let s = (fused_scalar(f0, s0, c).1, fused_scalar(f1, s1, c).1);
            (s, r.input, r.out)
        });
        kernels::rows_fused2(f0.0, f1.0, i, o, &self.fp8, rows);
        Ok(())
    }

    /// Each element depends on its input and on the channel's two scalars only.
    fn pure_key(&self, c: u32, _k0: u64) -> Option<u64> {
        let c = c as usize;
        Some((u64::from(self.s0[c]) << 32) | u64::from(self.s1[c]))
    }

    fn load(&mut self, b: &mut Bufs, _c: u32, _k0: u64, input: &[u8]) {
        let len = input.len() / self.size_in;
        match self.path {
            ScalarPath::Arith => {
                kernels::decode(self.in_dtype, input, &mut b.f[..len], &self.fp8);
            }
            ScalarPath::Bitvec => bytes_to_raw(self.size_in, input, &mut b.u[..len]),
            ScalarPath::Int => {
                let u = &mut b.u[..len];
                bytes_to_raw(self.size_in, input, u);
                for x in u.iter_mut() {
                    *x = int_operand(self.in_dtype, *x).unwrap_or(0);
                }
            }
        }
    }

    fn store(&mut self, b: &mut Bufs, c: u32, _k0: u64, out: &mut [u8]) {
        let len = out.len() / self.size_out;
        let (s0, s1) = (self.s0[c as usize], self.s1[c as usize]);
        match self.path {
            ScalarPath::Arith => {
                let xs = &mut b.f[..len];
                kernels::arith(self.op0, self.rev0, xs, f32::from_bits(s0));
                self.finish_arith(xs, c, out);
            }
            ScalarPath::Bitvec => {
                let xs = &mut b.u[..len];
                kernels::bitvec(self.op0, self.rev0, xs, s0, self.bits);
                kernels::bitvec(self.op1, self.rev1, xs, s1, self.bits);
                raw_to_bytes(self.size_out, xs, out);
            }
            ScalarPath::Int => {
                let xs = &mut b.u[..len];
                let signed = int_signed(self.in_dtype);
                kernels::int(self.op0, self.rev0, xs, s0, signed);
                kernels::int(self.op1, self.rev1, xs, s1, signed);
                raw_to_bytes(self.size_out, xs, out);
            }
        }
    }
}

impl TsKernel<'_> {
    /// Stage 1 and the encoding of stage 0's results `xs` of channel `c`.
    #[inline(always)]
    fn finish_arith(&self, xs: &mut [f32], c: u32, out: &mut [u8]) {
        if let Some(f1) = self.f1 {
            // Stage 1 in the encoder's loop.
            let (op, s1) = fused_scalar(f1, self.s1, c as usize);
            kernels::f32_fused(op, s1, xs, self.out_dtype, out, &self.fp8);
        } else {
            let s1 = f32::from_bits(self.s1[c as usize]);
            kernels::arith(self.op1, self.rev1, xs, s1);
            kernels::encode(self.out_dtype, xs, out, &self.fp8);
        }
    }
}
