//! Operands and the element walk shared by every executor.
//!
//! An [`Access`] is a tensor operand resolved for the machine: its space, start partition,
//! byte origin, element size and [`Dims`] (the descriptor's dimensions with `num == 1` dims
//! dropped and contiguous dims merged, which keeps the element order of decisions §3.3:
//! slot 0 fastest). Its byte hull is checked against the partition's active bytes when it
//! is resolved, so every walk below stays in bounds.
//!
//! The engine that walks them, chunk by chunk and channel by channel, is `engine`.

use crate::assumptions::ramp_value;
use crate::report::{FaultCause, OperandShape, Region};
use crate::state::Memory;
use tpb_isa::geometry::Space;
use tpb_isa::Dtype;

/// A walk's dimensions, innermost first, normalised (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Dims {
    n: usize,
    steps: [i64; 4],
    nums: [u64; 4],
}

impl Dims {
    /// Normalises a descriptor's steps and counts (up to 4 dims); `None` if a count is 0.
    #[inline]
    pub(crate) fn new<const N: usize>(steps: &[i16; N], nums: &[u16; N]) -> Option<Dims> {
        let mut d = Dims {
            n: 0,
            steps: [0; 4],
            nums: [1; 4],
        };
        for i in 0..N.min(4) {
            let (s, m) = (i64::from(steps[i]), u64::from(nums[i]));
            if m <= 1 {
                if m == 0 {
                    return None;
                }
                continue;
            }
            if d.n > 0 {
                let j = d.n - 1;
                // The outer dim continues the inner one: one longer run.
                if i128::from(d.steps[j]) * i128::from(d.nums[j]) == i128::from(s) {
                    d.nums[j] = d.nums[j].saturating_mul(m);
                    continue;
                }
            }
            d.steps[d.n] = s;
            d.nums[d.n] = m;
            d.n += 1;
        }
        if d.n == 0 {
            d = Dims {
                n: 1,
                steps: [1, 0, 0, 0],
                nums: [1; 4],
            };
        }
        Some(d)
    }

    /// Whether the walk is one contiguous run.
    #[inline(always)]
    pub(crate) fn is_dense(&self) -> bool {
        self.n == 1 && self.steps[0] == 1
    }

    /// Elements in the walk.
    pub(crate) fn count(&self) -> u64 {
        self.nums[..self.n]
            .iter()
            .fold(1u64, |a, &m| a.saturating_mul(m))
    }

    /// The smallest and largest element offsets the walk reaches. Each span is the sum of
    /// the descriptor's spans it merged, |span| < 2^33, so i64 holds it exactly; the
    /// wrapping operations only avoid the overflow checks.
    #[inline]
    pub(crate) fn extent(&self) -> (i64, i64) {
        let (mut lo, mut hi) = (0i64, 0i64);
        for i in 0..self.n {
            let span = self.steps[i].wrapping_mul((self.nums[i] as i64).wrapping_sub(1));
            lo += span.min(0);
            hi += span.max(0);
        }
        (lo, hi)
    }
}

/// A position in a walk: the multi-index and its element offset. Arithmetic wraps: only
/// offsets of real elements (which are in bounds) are ever used.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Cursor {
    d: Dims,
    idx: [u64; 4],
    off: i64,
}

impl Cursor {
    /// At element 0.
    pub(crate) fn new(d: &Dims) -> Cursor {
        Cursor {
            d: *d,
            idx: [0; 4],
            off: 0,
        }
    }

    /// (element offset, innermost step, elements left in the innermost run).
    #[inline(always)]
    pub(crate) fn run(&self) -> (i64, i64, u64) {
        (self.off, self.d.steps[0], self.d.nums[0] - self.idx[0])
    }

    /// Moves `t` elements on; `t` is at most the run's remaining length.
    #[inline(always)]
    pub(crate) fn advance(&mut self, t: u64) {
        let d = &self.d;
        self.idx[0] += t;
        self.off = self.off.wrapping_add((t as i64).wrapping_mul(d.steps[0]));
        if self.idx[0] < d.nums[0] {
            return;
        }
        self.idx[0] = 0;
        self.off = self
            .off
            .wrapping_sub((d.nums[0] as i64).wrapping_mul(d.steps[0]));
        for i in 1..d.n {
            self.idx[i] += 1;
            self.off = self.off.wrapping_add(d.steps[i]);
            if self.idx[i] < d.nums[i] {
                return;
            }
            self.idx[i] = 0;
            self.off = self
                .off
                .wrapping_sub((d.nums[i] as i64).wrapping_mul(d.steps[i]));
        }
    }
}

/// A tensor operand resolved for the machine.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Access {
    /// The descriptor's field name, for messages.
    pub(crate) name: &'static str,
    /// SBUF or PSUM.
    pub(crate) space: Space,
    /// The start partition (channel 0's partition).
    pub(crate) part0: u32,
    /// Byte offset of element offset 0 inside each partition.
    pub(crate) offset: u64,
    /// Element size in bytes.
    pub(crate) size: usize,
    /// The walk.
    pub(crate) dims: Dims,
    /// Byte hull inside each partition: `lo..hi`.
    pub(crate) lo: u64,
    /// End of the hull.
    pub(crate) hi: u64,
    /// The dtype, for the timing model (set by `Cx::tensor`).
    pub(crate) dtype: Option<Dtype>,
}

impl Access {
    /// Builds an access and checks its hull against `active` bytes and `n` channels
    /// against the 128 partitions (decisions §3.1).
    #[inline(always)]
    pub(crate) fn new(
        name: &'static str,
        space: Space,
        part0: u32,
        offset: u64,
        size: usize,
        dims: Dims,
        active: u64,
        n: u32,
    ) -> Result<Access, FaultCause> {
        if u64::from(part0) + u64::from(n) > 128 {
            return Err(FaultCause::OutOfRange {
                operand: name,
                detail: format!(
                    "partitions {part0}..{} leave the 128 partitions",
                    u64::from(part0) + u64::from(n)
                ),
            });
        }
        let (lo, hi) = dims.extent();
        let sz = size as i64;
        let lo_b = offset as i64 + lo * sz;
        let hi_b = offset as i64 + hi * sz + sz;
        if lo_b < 0 || hi_b > active as i64 {
            return Err(FaultCause::OutOfRange {
                operand: name,
                detail: format!(
                    "elements span bytes {lo_b}..{hi_b} of {} partitions {part0}..{}, outside \
                     the {active:#x} active bytes",
                    space.name(),
                    part0 + n
                ),
            });
        }
        Ok(Access {
            name,
            space,
            part0,
            offset,
            size,
            dims,
            lo: lo_b as u64,
            hi: hi_b as u64,
            dtype: None,
        })
    }

    /// Elements per channel.
    pub(crate) fn count(&self) -> u64 {
        self.dims.count()
    }

    /// The operand as the timing model prices it (`None` without a dtype).
    pub(crate) fn shape(&self) -> Option<OperandShape> {
        let d = &self.dims;
        let step = if d.n == 0 {
            1
        } else {
            d.steps[0].unsigned_abs()
        };
        Some(OperandShape {
            elements: self.count(),
            dtype: self.dtype?,
            elem_bytes: self.size as u64,
            stride_bytes: step.saturating_mul(self.size as u64),
        })
    }

    /// The hull over `n` channels.
    pub(crate) fn region(&self, n: u32) -> Region {
        Region {
            space: self.space,
            partitions: self.part0..self.part0 + n,
            bytes: self.lo..self.hi,
        }
    }

    /// Byte offset in the partition of the element at element offset `e`.
    #[inline(always)]
    pub(crate) fn byte(&self, e: i64) -> u64 {
        (self.offset as i64).wrapping_add(e.wrapping_mul(self.size as i64)) as u64
    }

    /// The bytes one channel's walk touches (the same in every channel) as sorted,
    /// disjoint ranges (empty: exactly the hull `lo..hi`), or `None` when the walk has more
    /// than `cap` runs.
    pub(crate) fn byte_runs(&self, cap: usize) -> Option<Vec<std::ops::Range<u64>>> {
        let d = &self.dims;
        let count = self.count();
        // A unit or zero innermost step makes each innermost row one run.
        let by_row = d.steps[0].abs() <= 1;
        let runs = if by_row { count / d.nums[0] } else { count };
        if runs > cap as u64 {
            return None;
        }
        let size = self.size as u64;
        if by_row && runs == 1 {
            // One innermost row (or a broadcast element): the hull itself, no walk.
            return Some(Vec::new());
        }
        let mut out = Vec::with_capacity(runs as usize);
        let mut cur = Cursor::new(d);
        let mut left = count;
        while left > 0 {
            let (off, step, rem) = cur.run();
            let take = if by_row { rem } else { 1 };
            let first = self.byte(off);
            out.push(match step {
                1 => first..first + take * size,
                -1 => first - (take - 1) * size..first + size,
                _ => first..first + size,
            });
            cur.advance(take);
            left -= take;
        }
        out.sort_unstable_by_key(|r| r.start);
        // Merge touching runs in place.
        let mut kept = 0;
        for i in 0..out.len() {
            if kept > 0 && out[i].start <= out[kept - 1].end {
                out[kept - 1].end = out[kept - 1].end.max(out[i].end);
            } else {
                out[kept] = out[i].clone();
                kept += 1;
            }
        }
        out.truncate(kept);
        Some(out)
    }
}

/// Whether a write through `w` can change bytes a read through `r` sees (same space,
/// shared partitions, overlapping hulls), over `n` channels.
pub(crate) fn overlaps(r: &Access, w: &Access, n: u32) -> bool {
    r.space == w.space
        && r.part0 < w.part0 + n
        && w.part0 < r.part0 + n
        && r.lo < w.hi
        && w.lo < r.hi
}

/// Counts the uninitialised elements `a` reads on the channels `0..n` for which `chan`
/// holds: `(elements, first partition, its byte offset)`, or `None` when all are
/// initialised. An element is uninitialised when any of its bytes is.
#[inline]
pub(crate) fn uninitialised(
    mem: &Memory,
    a: &Access,
    n: u32,
    chan: impl Fn(u32) -> bool,
) -> Option<(u64, u32, u64)> {
    // Fast path: every channel's hull is initialised.
    let init = mem.init(a.space);
    let stride = mem.stride(a.space);
    let first = mem.part_base(a.space, a.part0) + a.lo as usize;
    let len = (a.hi - a.lo) as usize;
    if (0..n as usize).all(|c| init.all_set(first + c * stride, len)) {
        return None;
    }
    uninitialised_walk(mem, a, n, chan)
}

/// The element-by-element count behind [`uninitialised`].
#[cold]
fn uninitialised_walk(
    mem: &Memory,
    a: &Access,
    n: u32,
    chan: impl Fn(u32) -> bool,
) -> Option<(u64, u32, u64)> {
    let init = mem.init(a.space);
    let mut count = 0u64;
    let mut first = None;
    for c in 0..n {
        if !chan(c) {
            continue;
        }
        let pb = mem.part_base(a.space, a.part0 + c);
        if init.all_set(pb + a.lo as usize, (a.hi - a.lo) as usize) {
            continue;
        }
        let mut cur = Cursor::new(&a.dims);
        let total = a.count();
        let mut k = 0u64;
        while k < total {
            let (off, step, rem) = cur.run();
            for j in 0..rem {
                let b = a.byte(off.wrapping_add(step.wrapping_mul(j as i64)));
                if !init.elem_set(pb + b as usize, a.size) {
                    count += 1;
                    first.get_or_insert((a.part0 + c, b));
                }
            }
            cur.advance(rem);
            k += rem;
        }
    }
    first.map(|(p, b)| (count, p, b))
}

/// Fills `out` with the next `out.len()` values of channel `c`'s ramp at the cursor
/// (advancing it): `base + offset + c · channel_multiplier` (assumption `ramp-wraps`).
#[inline]
pub(crate) fn fill_ramp(cur: &mut Cursor, base: i32, c: u32, cm: i32, out: &mut [i32]) {
    let mut done = 0;
    while done < out.len() {
        let (off, step, rem) = cur.run();
        let take = rem.min((out.len() - done) as u64) as usize;
        // `ramp_value` wraps to 32 bits, so the run is `first + j · step` in wrapping i32
        // arithmetic (the same residues mod 2^32), which vectorises.
        let first = ramp_value(base, off, c, cm);
        let step = step as i32;
        for (j, o) in out[done..done + take].iter_mut().enumerate() {
            *o = first.wrapping_add(step.wrapping_mul(j as i32));
        }
        cur.advance(take as u64);
        done += take;
    }
}

/// Raw elements (zero-extended) from little-endian bytes of `size`-byte elements.
#[inline]
pub(crate) fn bytes_to_raw(size: usize, bytes: &[u8], out: &mut [u32]) {
    match size {
        1 => out
            .iter_mut()
            .zip(bytes)
            .for_each(|(o, &b)| *o = u32::from(b)),
        2 => out
            .iter_mut()
            .zip(bytes.chunks_exact(2))
            .for_each(|(o, b)| *o = u32::from(u16::from_le_bytes([b[0], b[1]]))),
        _ => out
            .iter_mut()
            .zip(bytes.chunks_exact(4))
            .for_each(|(o, b)| *o = u32::from_le_bytes([b[0], b[1], b[2], b[3]])),
    }
}

/// Little-endian bytes of `size`-byte elements from raw values (low bits kept).
#[inline]
pub(crate) fn raw_to_bytes(size: usize, raw: &[u32], out: &mut [u8]) {
    match size {
        1 => out.iter_mut().zip(raw).for_each(|(o, &r)| *o = r as u8),
        2 => out
            .chunks_exact_mut(2)
            .zip(raw)
            .for_each(|(o, &r)| o.copy_from_slice(&(r as u16).to_le_bytes())),
        _ => out
            .chunks_exact_mut(4)
            .zip(raw)
            .for_each(|(o, &r)| o.copy_from_slice(&r.to_le_bytes())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dims(s: &[i16], n: &[u16]) -> Dims {
        let (mut a, mut b) = ([1i16; 4], [1u16; 4]);
        a[..s.len()].copy_from_slice(s);
        b[..n.len()].copy_from_slice(n);
        Dims::new(&a, &b).unwrap()
    }

    fn walk(d: &Dims) -> Vec<i64> {
        let mut c = Cursor::new(d);
        let mut v = Vec::new();
        for _ in 0..d.count() {
            v.push(c.run().0);
            c.advance(1);
        }
        v
    }

    fn naive(steps: &[i16], nums: &[u16]) -> Vec<i64> {
        let total: u64 = nums.iter().map(|&n| u64::from(n)).product();
        (0..total)
            .map(|mut k| {
                let mut off = 0i64;
                for (&s, &n) in steps.iter().zip(nums) {
                    off += (k % u64::from(n)) as i64 * i64::from(s);
                    k /= u64::from(n);
                }
                off
            })
            .collect()
    }

    #[test]
    fn normalised_walk_matches_naive_order() {
        for (s, n) in [
            (vec![1i16, 4, 16, 64], vec![4u16, 4, 4, 2]),
            (vec![1, 3], vec![3, 5]),
            (vec![-1, 0, 7], vec![3, 2, 2]),
            (vec![2, 1, 1, 1], vec![3, 1, 1, 1]),
            (vec![0, 0], vec![2, 3]),
            (vec![1, 1], vec![1, 1]),
        ] {
            let d = dims(&s, &n);
            assert_eq!(walk(&d), naive(&s, &n), "{s:?} {n:?}");
            let (lo, hi) = d.extent();
            let v = naive(&s, &n);
            assert_eq!(lo, *v.iter().min().unwrap());
            assert_eq!(hi, *v.iter().max().unwrap());
        }
        assert_eq!(Dims::new(&[1, 4], &[4, 4]).unwrap().n, 1);
        assert!(Dims::new(&[1], &[0]).is_none());
        // A full merge of 65535^4 elements keeps the count (saturating) and span.
        let big = Dims::new(&[1, -1, 0, 0], &[65535; 4]).unwrap();
        assert_eq!(big.extent(), (-65534, 65534));
    }

    #[test]
    fn chunked_advance_matches_single_steps() {
        let d = dims(&[2, -5, 1], &[3, 4, 2]);
        let all = walk(&d);
        let mut c = Cursor::new(&d);
        let mut got = Vec::new();
        while got.len() < all.len() {
            let (off, step, rem) = c.run();
            let t = rem.min(2);
            for j in 0..t {
                got.push(off + step * j as i64);
            }
            c.advance(t);
        }
        assert_eq!(got, all);
    }
}
