//! AffineSelect (0x92): keep the input where an Iota ramp compares true with 0, else write
//! the FP32 fill from a register (seed 002 §5.5).
//!
//! ```text
//! fill = fp32(reg[fill_reg])
//! for c in 0..num_active_channels:
//!   for k in 0..count:                    # one mask value per element, slot 0 fastest
//!     mask = base + Σ_d index_d(k) · step_elem[d] + c · channel_multiplier   # wrapping i32
//!     pred = mask > 0 | mask >= 0 | mask == 0 | mask != 0     # fill_mode GT, GE, EQ, NE
//!     dst[c][k] = pred ? cast(src[c][k]) : cast_f32(fill)
//! ```
//!
//! `cast` copies the bits when in == out dtype, else converts through FP32; the fill goes
//! through FP32 to the output dtype (decisions §4.10). In-place use (src == dst) works: the
//! input is read before any write (assumption `reads-before-writes`).

use super::access::{bytes_to_raw, fill_ramp, raw_to_bytes, Cursor, Dims};
use super::engine::{Bufs, Kernel};
use super::kernels;
use super::{Cx, Parts, Role};
use crate::assumptions::ramp_value;
use crate::numerics::{encode_bytes_with, from_f32, fusable_input, simd, Fp8Config};
use crate::report::FaultCause;
use tpb_isa::wire::S2d2TsAs;
use tpb_isa::{AffineSelectCmp, Dtype, Gen};

pub(super) fn execute(cx: &mut Cx<'_>, s: &S2d2TsAs) -> Result<(), FaultCause> {
    let n = u32::from(s.num_active_channels);
    let (in_dtype, out_dtype) = (s.in_out_dtype.lo(), s.in_out_dtype.hi());
    let psum = cx.gen == Gen::Sunda; // seed 002 §7: PSUM only on sunda
    let src = cx.tensor(
        &s.src_mem_pattern,
        "src_mem_pattern",
        in_dtype,
        Role { write: false, psum },
        n,
    )?;
    let dst = cx.tensor(
        &s.dst_mem_pattern,
        "dst_mem_pattern",
        out_dtype,
        Role { write: true, psum },
        n,
    )?;
    let m = &s.mask_pattern;
    let mask = Dims::new(&m.step_elem, &m.num_elem).ok_or_else(|| FaultCause::Unsupported {
        what: "mask_pattern: a zero element count".into(),
    })?;
    let count = src.count();
    if mask.count() != count || dst.count() != count {
        return Err(FaultCause::OutOfRange {
            operand: "mask_pattern",
            detail: format!(
                "{} mask values, {count} inputs, {} outputs",
                mask.count(),
                dst.count()
            ),
        });
    }
    cx.limit(count, n)?;
    let fill_word =
        *cx.st
            .regs
            .get(usize::from(s.fill_reg))
            .ok_or_else(|| FaultCause::BadAddress {
                operand: "fill_reg",
                detail: format!("register {} is outside 0..64", s.fill_reg),
            })?;
    let fill = f32::from_bits(fill_word);
    let cmp = s.fill_mode;
    if !matches!(cmp.0, 0..=3) {
        return Err(FaultCause::Unsupported {
            what: format!("fill_mode {cmp}"),
        });
    }
    cx.check_reads(&src, n, |_| true);
    cx.gate()?;

    let fp8 = cx.cfg.fp8;
    let Parts { driver, .. } = cx.parts();
    let mut k = SelectKernel {
        copy: in_dtype == out_dtype,
        in_dtype,
        out_dtype,
        size_in: src.size,
        size_out: dst.size,
        fp8,
        fill,
        fill_bits: from_f32(out_dtype, fill, &fp8),
        cmp,
        base: m.base,
        cm: s.channel_multiplier,
        mask,
        cur: Cursor::new(&mask),
    };
    driver.run(Some(&src), &dst, n, count, u64::MAX, &mut k);
    Ok(())
}

#[derive(Clone)]
struct SelectKernel {
    copy: bool,
    in_dtype: Dtype,
    out_dtype: Dtype,
    size_in: usize,
    size_out: usize,
    fp8: Fp8Config,
    fill: f32,
    fill_bits: u32,
    cmp: AffineSelectCmp,
    base: i32,
    cm: i32,
    mask: Dims,
    cur: Cursor,
}

/// `x = (mask <fill_mode> 0) ? x : fill` (seed 002 §3.3), one loop per comparator.
#[inline(always)]
fn select<T: Copy>(cmp: AffineSelectCmp, xs: &mut [T], mask: &[i32], fill: T) {
    #[inline(always)]
    fn each<T: Copy>(xs: &mut [T], mask: &[i32], fill: T, pass: impl Fn(i32) -> bool) {
        for (x, &m) in xs.iter_mut().zip(mask) {
            *x = if pass(m) { *x } else { fill };
        }
    }
    match cmp {
        AffineSelectCmp::GREATER_THAN => each(xs, mask, fill, |m| m > 0),
        AffineSelectCmp::GREATER_THAN_EQ => each(xs, mask, fill, |m| m >= 0),
        AffineSelectCmp::EQ => each(xs, mask, fill, |m| m == 0),
        _ => each(xs, mask, fill, |m| m != 0),
    }
}

/// `out[j] = (first + j·step <fill_mode> 0) ? xs[j] : fill` over one run of the ramp (the
/// mask of [`select`] computed in the same loop, wrapping as `fill_ramp` does).
#[inline(always)]
fn select_run<T: Copy>(
    cmp: AffineSelectCmp,
    xs: &[T],
    out: &mut [T],
    (first, step): (i32, i32),
    fill: T,
) {
    #[inline(always)]
    fn each<T: Copy>(
        xs: &[T],
        out: &mut [T],
        (first, step): (i32, i32),
        fill: T,
        pass: impl Fn(i32) -> bool,
    ) {
        for (j, (o, &x)) in out.iter_mut().zip(xs).enumerate() {
            let m = first.wrapping_add(step.wrapping_mul(j as i32));
            *o = if pass(m) { x } else { fill };
        }
    }
    match cmp {
        AffineSelectCmp::GREATER_THAN => each(xs, out, (first, step), fill, |m| m > 0),
        AffineSelectCmp::GREATER_THAN_EQ => each(xs, out, (first, step), fill, |m| m >= 0),
        AffineSelectCmp::EQ => each(xs, out, (first, step), fill, |m| m == 0),
        _ => each(xs, out, (first, step), fill, |m| m != 0),
    }
}

/// [`select_run`] over little-endian `N`-byte elements, `out` either a separate slice or
/// (`xs == None`) selecting in place.
#[inline(always)]
fn select_bytes<const N: usize>(
    cmp: AffineSelectCmp,
    xs: Option<&[u8]>,
    out: &mut [u8],
    ramp: (i32, i32),
    fill: u32,
) {
    let fill: [u8; N] = fill.to_le_bytes()[..N].try_into().unwrap_or([0; N]);
    let out = out.as_chunks_mut::<N>().0;
    match xs {
        Some(xs) => select_run(cmp, xs.as_chunks::<N>().0, out, ramp, fill),
        None => {
            for (j, o) in out.iter_mut().enumerate() {
                let m = ramp.0.wrapping_add(ramp.1.wrapping_mul(j as i32));
                let pass = match cmp {
                    AffineSelectCmp::GREATER_THAN => m > 0,
                    AffineSelectCmp::GREATER_THAN_EQ => m >= 0,
                    AffineSelectCmp::EQ => m == 0,
                    _ => m != 0,
                };
                *o = if pass { *o } else { fill };
            }
        }
    }
}

impl SelectKernel {
    /// [`Kernel::map`] in one pass when the chunk lies in one run of the mask: the copy
    /// selects input or fill bytes; a conversion encodes every input (fused decode → encode)
    /// and then puts the fill bytes where the mask fails. `false`: nothing done.
    #[inline(always)]
    fn map_run(&mut self, c: u32, input: &[u8], out: &mut [u8]) -> bool {
        let len = input.len() / self.size_in;
        let (off, step, rem) = self.cur.run();
        if rem < len as u64 || !(self.copy || fusable_input(self.in_dtype)) {
            return false;
        }
        let ramp = (ramp_value(self.base, off, c, self.cm), step as i32);
        self.cur.advance(len as u64);
        let (cmp, fill) = (self.cmp, self.fill_bits);
        let copy = self.copy;
        let (din, dout, size, fp8) = (self.in_dtype, self.out_dtype, self.size_out, self.fp8);
        simd::vectorize(
            #[inline(always)]
            || {
                let xs = if copy {
                    Some(input)
                } else {
                    encode_bytes_with::<false>(din, input, dout, out, &fp8, |x| x);
                    None
                };
                match size {
                    1 => select_bytes::<1>(cmp, xs, out, ramp, fill),
                    2 => select_bytes::<2>(cmp, xs, out, ramp, fill),
                    _ => select_bytes::<4>(cmp, xs, out, ramp, fill),
                }
            },
        );
        true
    }
}

impl Kernel for SelectKernel {
    fn map(&mut self, b: &mut Bufs, c: u32, k0: u64, input: &[u8], out: &mut [u8]) {
        if k0 == 0 {
            self.cur = Cursor::new(&self.mask);
        }
        if !self.map_run(c, input, out) {
            self.load(b, c, k0, input);
            self.store(b, c, k0, out);
        }
    }

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
        if k0 == 0 {
            self.cur = Cursor::new(&self.mask);
        }
        let v = &mut b.i[..len];
        fill_ramp(&mut self.cur, self.base, c, self.cm, v);
        if self.copy {
            let u = &mut b.u[..len];
            select(self.cmp, u, v, self.fill_bits);
            raw_to_bytes(self.size_out, u, out);
        } else {
            let f = &mut b.f[..len];
            select(self.cmp, f, v, self.fill);
            kernels::encode(self.out_dtype, f, out, &self.fp8);
        }
    }
}
