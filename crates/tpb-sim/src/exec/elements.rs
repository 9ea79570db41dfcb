//! Plain per-channel gather and scatter of an [`Access`]'s elements, for the issue-17a
//! executors (TensorTensor, Copy/Cast, Memset, the reduces, the predicated copies,
//! StreamTranspose). Every input is read into a buffer before anything is written, so
//! overlapping operands read old values (assumption `reads-before-writes`); these loops are
//! the plain reference the chunked engine may later replace.

use super::access::{Access, Cursor};
use crate::state::Memory;

/// The element size of the 64-bit integer dtypes (isa-facts-dve-pool §1.5).
pub(crate) fn wide_int_size(d: tpb_isa::Dtype) -> Option<usize> {
    matches!(d, tpb_isa::Dtype::INT64 | tpb_isa::Dtype::UINT64).then_some(8)
}

/// Element offsets of one channel's walk, in element order (slot 0 fastest).
pub(crate) fn offsets(a: &Access) -> impl Iterator<Item = i64> {
    let mut cur = Cursor::new(&a.dims);
    (0..a.count()).map(move |_| {
        let (off, _, _) = cur.run();
        cur.advance(1);
        off
    })
}

/// Byte index in the space's memory of element offset `e` of channel `c`.
fn index(mem: &Memory, a: &Access, c: u32, e: i64) -> usize {
    mem.part_base(a.space, a.part0 + c) + a.byte(e) as usize
}

/// Appends channel `c`'s elements as raw little-endian bits, zero-extended.
pub(crate) fn read_channel(mem: &Memory, a: &Access, c: u32, out: &mut Vec<u64>) {
    let data = mem.data(a.space);
    for e in offsets(a) {
        let i = index(mem, a, c, e);
        let mut raw = [0u8; 8];
        raw[..a.size].copy_from_slice(&data[i..i + a.size]);
        out.push(u64::from_le_bytes(raw));
    }
}

/// Reads every channel `0..n` (channel-major: channel `c`'s elements at `c * count..`).
pub(crate) fn read_all(mem: &Memory, a: &Access, n: u32) -> Vec<u64> {
    let mut v = Vec::with_capacity((a.count() * u64::from(n)) as usize);
    for c in 0..n {
        read_channel(mem, a, c, &mut v);
    }
    v
}

/// Writes channel `c`'s elements from raw bits (low `size` bytes each) where `keep` is
/// false, marking the written bytes initialised.
pub(crate) fn write_channel(
    mem: &mut Memory,
    a: &Access,
    c: u32,
    vals: &[u64],
    keep: impl Fn(usize) -> bool,
) {
    let base = mem.part_base(a.space, a.part0 + c);
    let (data, init) = mem.parts_mut(a.space);
    for (k, (e, v)) in offsets(a).zip(vals).enumerate() {
        if keep(k) {
            continue;
        }
        let i = base + a.byte(e) as usize;
        data[i..i + a.size].copy_from_slice(&v.to_le_bytes()[..a.size]);
        init.set_range(i, a.size);
    }
}

/// The commit step of a plain executor: writes `vals` (channel-major, `dst.count()` per
/// channel) into `dst` over `n` channels, skipping the elements `keep(c, k)` keeps, and
/// records the write in the outcome. Nothing here can fail.
pub(crate) fn commit(
    cx: &mut super::Cx<'_>,
    dst: &Access,
    n: u32,
    vals: &[u64],
    keep: impl Fn(u32, usize) -> bool,
) {
    let count = dst.count() as usize;
    for c in 0..n {
        let row = &vals[c as usize * count..(c as usize + 1) * count];
        write_channel(&mut cx.st.mem, dst, c, row, |k| keep(c, k));
    }
    let out = &mut *cx.out;
    out.touch(dst, n, true);
    out.elements = dst.count() * u64::from(n);
    out.bytes_written = out.elements * dst.size as u64;
    out.written = Some(dst.region(n));
}

/// The byte ranges (in the partition) of one channel's walk, in element order: one range
/// per unit-step innermost run, else one per element.
fn byte_runs_in_order(a: &Access) -> impl Iterator<Item = std::ops::Range<usize>> + '_ {
    let mut cur = Cursor::new(&a.dims);
    let mut left = a.count();
    std::iter::from_fn(move || {
        if left == 0 {
            return None;
        }
        let (off, step, rem) = cur.run();
        let take = if step == 1 { rem } else { 1 };
        let first = a.byte(off) as usize;
        cur.advance(take);
        left -= take;
        Some(first..first + take as usize * a.size)
    })
}

/// Appends channel `c`'s elements as raw bytes, in element order.
pub(crate) fn read_channel_bytes(mem: &Memory, a: &Access, c: u32, out: &mut Vec<u8>) {
    let base = mem.part_base(a.space, a.part0 + c);
    let data = mem.data(a.space);
    for r in byte_runs_in_order(a) {
        out.extend_from_slice(&data[base + r.start..base + r.end]);
    }
}

/// Writes channel `c`'s elements from raw bytes in element order (`a.count() * a.size`
/// bytes), marking them initialised.
pub(crate) fn write_channel_bytes(mem: &mut Memory, a: &Access, c: u32, bytes: &[u8]) {
    let base = mem.part_base(a.space, a.part0 + c);
    let (data, init) = mem.parts_mut(a.space);
    let mut at = 0;
    for r in byte_runs_in_order(a) {
        let len = r.len();
        data[base + r.start..base + r.end].copy_from_slice(&bytes[at..at + len]);
        init.set_range(base + r.start, len);
        at += len;
    }
}
