//! Plain per-lane operand walks for the DVE-state instructions (issue 17b): gather a
//! channel's elements as raw values in walk order, and scatter raw values back, marking
//! them initialised. Executors read every input before the first write (plan → check →
//! commit; assumption `reads-before-writes`), so these loops need no snapshot. Simple and
//! correct first: no chunking, no threads.

use super::access::{bytes_to_raw, raw_to_bytes, Access, Cursor};
use super::Outcome;
use crate::state::Memory;

/// The raw (zero-extended) elements of channel `c` of `a`, in walk order (slot 0 fastest).
pub(crate) fn gather(mem: &Memory, a: &Access, c: u32) -> Vec<u32> {
    let count = a.count() as usize;
    let mut out = Vec::with_capacity(count);
    let base = mem.part_base(a.space, a.part0 + c);
    let data = mem.data(a.space);
    let mut cur = Cursor::new(&a.dims);
    let mut raw = [0u32; 1];
    for _ in 0..count {
        let at = base + a.byte(cur.run().0) as usize;
        bytes_to_raw(a.size, &data[at..at + a.size], &mut raw);
        out.push(raw[0]);
        cur.advance(1);
    }
    out
}

/// Every channel `0..n` of `a`, gathered.
pub(crate) fn gather_all(mem: &Memory, a: &Access, n: u32) -> Vec<Vec<u32>> {
    (0..n).map(|c| gather(mem, a, c)).collect()
}

/// Writes `values` (raw, low bits kept) to channel `c` of `a` in walk order, marking the
/// bytes initialised. `values` has at most `a.count()` entries.
pub(crate) fn scatter(mem: &mut Memory, a: &Access, c: u32, values: &[u32]) {
    let base = mem.part_base(a.space, a.part0 + c);
    let (data, init) = mem.parts_mut(a.space);
    let mut cur = Cursor::new(&a.dims);
    let mut bytes = [0u8; 4];
    for &v in values {
        let at = base + a.byte(cur.run().0) as usize;
        raw_to_bytes(a.size, &[v], &mut bytes[..a.size]);
        data[at..at + a.size].copy_from_slice(&bytes[..a.size]);
        init.set_range(at, a.size);
        cur.advance(1);
    }
}

/// Records a write of `per_channel` elements over `n` channels of `dst` in the outcome.
pub(crate) fn record_write(out: &mut Outcome, dst: &Access, n: u32, per_channel: u64) {
    out.touch(dst, n, true);
    out.elements = per_channel * u64::from(n);
    out.bytes_written = out.elements * dst.size as u64;
    out.written = Some(dst.region(n));
}

/// As [`scatter`], writing element `k` only where `keep[k]` (an empty `keep` writes all).
pub(crate) fn scatter_masked(mem: &mut Memory, a: &Access, c: u32, values: &[u32], keep: &[bool]) {
    if keep.is_empty() {
        return scatter(mem, a, c, values);
    }
    let base = mem.part_base(a.space, a.part0 + c);
    let (data, init) = mem.parts_mut(a.space);
    let mut cur = Cursor::new(&a.dims);
    let mut bytes = [0u8; 4];
    for (&v, &k) in values.iter().zip(keep) {
        if k {
            let at = base + a.byte(cur.run().0) as usize;
            raw_to_bytes(a.size, &[v], &mut bytes[..a.size]);
            data[at..at + a.size].copy_from_slice(&bytes[..a.size]);
            init.set_range(at, a.size);
        }
        cur.advance(1);
    }
}
