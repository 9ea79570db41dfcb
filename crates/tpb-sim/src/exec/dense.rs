//! The dense fast path of the multi-input executors (TensorTensor, the STT family, the cache
//! ops): when every operand is one contiguous run per channel and the destination overlaps
//! no source, a channel's inputs and output are plain byte slices of memory, and a kernel
//! may read, compute and write them chunk by chunk in one sweep (no gather into per-element
//! vectors, no snapshot: nothing it writes is read again). Anything else takes the
//! executor's plain element walk, which the fast path is differentially tested against.

use super::access::{overlaps, Access};
use crate::state::{Memory, Shadow};
use std::ops::Range;
use tpb_isa::geometry::Space;

/// Elements per chunk of a dense kernel (its f32 blocks live on the stack, in L1).
pub(crate) const CHUNK: usize = 1024;

/// Whether the dense path may run: every operand one contiguous run per channel in SBUF or
/// PSUM, and the destination overlapping no source over the `n` channels.
pub(crate) fn applies(srcs: &[&Access], dst: &Access, n: u32) -> bool {
    readable(dst) && srcs.iter().all(|s| readable(s) && !overlaps(s, dst, n))
}

/// Whether `a` is one contiguous run per channel in SBUF or PSUM (see [`channel`]).
pub(crate) fn readable(a: &Access) -> bool {
    a.dims.is_dense() && matches!(a.space, Space::Sbuf | Space::Psum)
}

/// Whether every dtype is a datapath dtype (the slice codecs' domain).
pub(crate) fn datapath(dtypes: &[tpb_isa::Dtype]) -> bool {
    dtypes
        .iter()
        .all(|&d| crate::numerics::is_datapath_dtype(d))
}

/// Byte range of channel `c` of a dense `a` in its space's vector.
fn range(mem: &Memory, a: &Access, c: u32) -> Range<usize> {
    let b = mem.part_base(a.space, a.part0 + c);
    b + a.lo as usize..b + a.hi as usize
}

/// Runs `f(c, [src0, src1], dst)` for each channel `c` in `0..n` on the channels' byte
/// slices (`srcs[1]` may repeat `srcs[0]` for a one-input kernel), then marks the
/// destination's bytes initialised. Call only where [`applies`] holds; `false` (nothing
/// done) if a slice cannot be cut, which [`applies`] rules out.
#[inline(always)]
pub(crate) fn for_each_channel(
    mem: &mut Memory,
    srcs: [&Access; 2],
    dst: &Access,
    n: u32,
    mut f: impl FnMut(u32, [&[u8]; 2], &mut [u8]),
) -> bool {
    for_each_channel_marking(
        mem,
        srcs,
        dst,
        n,
        // Inlined, so that a caller's loops stay inside its `simd::vectorize`.
        #[inline(always)]
        |c, s, d, mark| {
            f(c, s, d);
            mark.all();
        },
    )
}

/// Marks elements of one channel's destination initialised.
pub(crate) struct Marker<'a> {
    words: &'a mut [u64],
    start: usize,
    len: usize,
    size: usize,
}

impl Marker<'_> {
    /// Element `i` of the channel's destination.
    #[inline(always)]
    pub(crate) fn element(&mut self, i: usize) {
        Shadow::set_words(self.words, self.start + i * self.size, self.size);
    }

    /// Every element of the channel's destination.
    pub(crate) fn all(&mut self) {
        Shadow::set_words(self.words, self.start, self.len);
    }
}

/// [`for_each_channel`] for a kernel that writes only some elements: `f` marks what it
/// writes through the [`Marker`].
#[inline(always)]
pub(crate) fn for_each_channel_marking(
    mem: &mut Memory,
    srcs: [&Access; 2],
    dst: &Access,
    n: u32,
    mut f: impl FnMut(u32, [&[u8]; 2], &mut [u8], &mut Marker<'_>),
) -> bool {
    let cut = |mem: &Memory, c: u32| {
        let d = range(mem, dst, c);
        let s = srcs.map(|a| (a.space == dst.space, range(mem, a, c)));
        (d, s)
    };
    let len = mem.data(dst.space).len();
    let other_len = srcs
        .iter()
        .find(|a| a.space != dst.space)
        .map_or(0, |a| mem.data(a.space).len());
    // Every range is `p * stride` plus a fixed offset (`Memory::part_base`), so the ranges
    // of two operands keep their order from channel to channel and grow with it: the first
    // and the last channel decide for all.
    let fits = [0, n.saturating_sub(1)].into_iter().all(|c| {
        let (d, s) = cut(mem, c);
        d.end <= len
            && s.iter().all(|(same, r)| {
                if *same {
                    r.end <= d.start || (d.end <= r.start && r.end <= len)
                } else {
                    r.end <= other_len
                }
            })
    });
    if !fits {
        return false;
    }
    for c in 0..n {
        let (d, s) = cut(mem, c);
        let (data, words, other) = mem.split_for_write(dst.space);
        let (below, rest) = data.split_at_mut(d.start);
        let (out, above) = rest.split_at_mut(d.len());
        let (below, above): (&[u8], &[u8]) = (below, above);
        let pick = |(same, r): &(bool, Range<usize>)| -> &[u8] {
            match same {
                false => &other[r.clone()],
                true if r.end <= d.start => &below[r.clone()],
                true => &above[r.start - d.end..r.end - d.end],
            }
        };
        let mut mark = Marker {
            words,
            start: d.start,
            len: d.len(),
            size: dst.size,
        };
        f(c, [pick(&s[0]), pick(&s[1])], out, &mut mark);
    }
    true
}

/// Channel `c`'s bytes of a dense `a` (one contiguous run per channel), for a reading walk.
pub(crate) fn channel<'m>(mem: &'m Memory, a: &Access, c: u32) -> &'m [u8] {
    let r = range(mem, a, c);
    mem.data(a.space).get(r).unwrap_or(&[])
}

/// Runs `f(c, dst)` on each channel `c` in `0..n` of a dense `dst` (its bytes, which `f`
/// overwrites whole, having read them first if it works in place), then marks them
/// initialised: the write of results computed before, or of an in-place kernel. `false`
/// (nothing done) if `dst` is not [`readable`] or a channel lies outside memory.
pub(crate) fn write_each_channel(
    mem: &mut Memory,
    dst: &Access,
    n: u32,
    mut f: impl FnMut(u32, &mut [u8]),
) -> bool {
    let len = mem.data(dst.space).len();
    if !readable(dst) || (0..n).any(|c| range(mem, dst, c).end > len) {
        return false;
    }
    for c in 0..n {
        let d = range(mem, dst, c);
        let (data, words, _) = mem.split_for_write(dst.space);
        f(c, &mut data[d.clone()]);
        Shadow::set_words(words, d.start, d.len());
    }
    true
}
