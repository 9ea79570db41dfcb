//! Memset (0x49): fill the dst pattern with `set_value`'s raw bits (isa-facts-dve-pool §6.4;
//! docs/reference/isa.md "D4_MR"; assumption `memset-raw-fill`).
//!
//! ```text
//! for c in 0..num_active_channels: for k in 0..count: dst[c][k] = low bytes of set_value
//! ```

use super::engine::{Bufs, Kernel, Row};
use super::{Cx, Parts, Role};
use crate::numerics::simd;
use crate::report::FaultCause;
use tpb_isa::wire::D4Mr;

pub(super) fn execute(cx: &mut Cx<'_>, s: &D4Mr) -> Result<(), FaultCause> {
    let n = u32::from(s.num_active_channels);
    let dst = cx.tensor(
        &s.dst_mem_pattern,
        "dst_mem_pattern",
        s.dtype,
        Role::WRITE,
        n,
    )?;
    let count = dst.count();
    cx.limit(count, n)?;
    cx.gate()?;
    let mut k = FillKernel {
        bytes: s.set_value.to_le_bytes(),
        size: dst.size,
    };
    let Parts { driver, .. } = cx.parts();
    driver.run(None, &dst, n, count, u64::MAX, &mut k);
    Ok(())
}

/// Every output element is the same `size` low bytes of the fill word.
#[derive(Clone)]
struct FillKernel {
    bytes: [u8; 4],
    size: usize,
}

impl Kernel for FillKernel {
    fn load(&mut self, _b: &mut Bufs, _c: u32, _k0: u64, _input: &[u8]) {}

    fn store(&mut self, _b: &mut Bufs, _c: u32, _k0: u64, out: &mut [u8]) {
        self.fill(out);
    }

    /// Every channel's whole row in one dispatched call (the stores at the level's width).
    fn map_rows<'r, I: Iterator<Item = Row<'r>>>(&mut self, rows: I) -> Result<(), I> {
        simd::vectorize(
            #[inline(always)]
            || {
                for r in rows {
                    self.fill(r.out);
                }
            },
        );
        Ok(())
    }
}

impl FillKernel {
    /// Fixed-size element writes (a store each, vectorised), not a copy call per element.
    #[inline(always)]
    fn fill(&self, out: &mut [u8]) {
        let [b0, b1, b2, b3] = self.bytes;
        match self.size {
            1 => out.fill(b0),
            2 => out.as_chunks_mut::<2>().0.fill([b0, b1]),
            4 => out.as_chunks_mut::<4>().0.fill([b0, b1, b2, b3]),
            size => {
                for o in out.chunks_exact_mut(size) {
                    o.copy_from_slice(&self.bytes[..size]);
                }
            }
        }
    }
}
