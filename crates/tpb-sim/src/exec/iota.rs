//! Iota (0x7E): write the affine ramp of a DATA4D generator (isa-facts §9, nki-semantics
//! §1.2).
//!
//! ```text
//! for c in 0..num_active_channels:
//!   for k in 0..count:                    # slot 0 fastest, over the DATA4D counts
//!     v = base + Σ_d index_d(k) · step_elem[d] + c · channel_multiplier   # wrapping i32
//!     dst[c][k] = low bits of v            if out_dtype is an integer type
//!               = convert(fp32(v))         otherwise (RNE twice)
//! ```

use super::access::{fill_ramp, raw_to_bytes, Cursor, Dims};
use super::engine::{Bufs, Kernel, CHUNK};
use super::{Cx, Parts, Role};
use crate::assumptions::{iota_fp32, iota_keeps_bits, iota_output, ramp_value};
use crate::numerics::{encode_with, Fp8Config};
use crate::report::FaultCause;
use tpb_isa::wire::D4Iota;
use tpb_isa::Dtype;

pub(super) fn execute(cx: &mut Cx<'_>, s: &D4Iota) -> Result<(), FaultCause> {
    let n = u32::from(s.num_active_channels);
    let role = Role::WRITE;
    let dst = cx.tensor(&s.dst_mem_pattern, "dst_mem_pattern", s.out_dtype, role, n)?;
    let g = &s.src_data_pattern;
    let ramp = Dims::new(&g.step_elem, &g.num_elem).ok_or_else(|| FaultCause::Unsupported {
        what: "src_data_pattern: a zero element count".into(),
    })?;
    let count = dst.count();
    if ramp.count() != count {
        return Err(FaultCause::OutOfRange {
            operand: "src_data_pattern",
            detail: format!("{} ramp values for {count} elements", ramp.count()),
        });
    }
    cx.limit(count, n)?;
    cx.gate()?;

    let fp8 = cx.cfg.fp8;
    let Parts { driver, .. } = cx.parts();
    let mut k = IotaKernel {
        out_dtype: s.out_dtype,
        size: dst.size,
        fp8,
        base: g.base,
        cm: s.channel_multiplier,
        ramp,
        cur: Cursor::new(&ramp),
    };
    driver.run(None, &dst, n, count, u64::MAX, &mut k);
    Ok(())
}

#[derive(Clone)]
struct IotaKernel {
    out_dtype: Dtype,
    size: usize,
    fp8: Fp8Config,
    base: i32,
    cm: i32,
    ramp: Dims,
    cur: Cursor,
}

impl Kernel for IotaKernel {
    fn load(&mut self, _b: &mut Bufs, _c: u32, _k0: u64, _input: &[u8]) {}

    fn store(&mut self, b: &mut Bufs, c: u32, k0: u64, out: &mut [u8]) {
        let len = out.len() / self.size;
        if k0 == 0 {
            self.cur = Cursor::new(&self.ramp);
        }
        let (off, step, rem) = self.cur.run();
        if rem >= len as u64 && len <= CHUNK && !iota_keeps_bits(self.out_dtype) {
            // The chunk lies in one run of the ramp: values computed in the encoder's loop
            // (`first + j·step`, wrapping as `fill_ramp` does), no ramp buffer.
            let first = ramp_value(self.base, off, c, self.cm);
            let step = step as i32;
            self.cur.advance(len as u64);
            let ramp = move |j: u32| iota_fp32(first.wrapping_add(step.wrapping_mul(j as i32)));
            encode_with::<_, false>(self.out_dtype, &INDEX[..len], out, &self.fp8, ramp);
            return;
        }
        let v = &mut b.i[..len];
        fill_ramp(&mut self.cur, self.base, c, self.cm, v);
        if iota_keeps_bits(self.out_dtype) {
            let u = &mut b.u[..len];
            for (o, &x) in u.iter_mut().zip(v.iter()) {
                *o = iota_output(self.out_dtype, x, &self.fp8);
            }
            raw_to_bytes(self.size, u, out);
        } else {
            // iota_output's float arm: FP32 first, then the slice encoder (same conversion),
            // in one loop.
            encode_with::<_, false>(self.out_dtype, v, out, &self.fp8, iota_fp32);
        }
    }
}

/// `0, 1, …, CHUNK − 1`: the positions in a chunk, for the ramp computed in the encoder.
static INDEX: [u32; CHUNK] = {
    let mut a = [0u32; CHUNK];
    let mut i = 0;
    while i < CHUNK {
        a[i] = i as u32;
        i += 1;
    }
    a
};
