//! The elementwise engine: runs a [`Kernel`] over an instruction's channels, on one thread
//! or spread over several.
//!
//! The memory of each channel is cut into its own slices first ([`Chan`]): the input hull
//! (from memory, or from the snapshot of an input that overlaps the output), the output hull
//! and the output partition's words of the "initialised" shadow. Channels are independent
//! lanes, so groups of channels can run on different threads with nothing shared but the
//! read-only kernel parameters; every channel's bytes are computed by the same code in the
//! same order whatever the thread count, so results are bit-identical.
//!
//! Per channel the engine walks `count` elements in chunks of at most [`CHUNK`], hands the
//! chunk's input bytes to [`Kernel::load`] (straight from memory when the run is contiguous,
//! else gathered) and lets [`Kernel::store`] encode the output into the destination bytes
//! (straight into memory, else scattered), marking the written bytes initialised. When both
//! operands are one contiguous run per channel, [`Kernel::map`] goes from input to output
//! bytes in one call per chunk.

use super::access::{overlaps, Access, Cursor};
use crate::state::{Memory, Shadow};
use rayon::prelude::*;

/// Elements per chunk of the engine.
pub(crate) const CHUNK: usize = 1024;

/// A kernel's working buffers, one chunk each.
#[derive(Clone)]
pub(crate) struct Bufs {
    /// FP32 values.
    pub(crate) f: Vec<f32>,
    /// Raw values.
    pub(crate) u: Vec<u32>,
    /// Ramp values.
    pub(crate) i: Vec<i32>,
    /// Input bytes.
    pub(crate) bytes: Vec<u8>,
}

/// What one thread of the engine owns: the kernel buffers, the gather / scatter staging and
/// the byte table.
#[derive(Clone)]
pub(crate) struct Lane {
    bufs: Bufs,
    stage_in: Vec<u8>,
    stage_out: Vec<u8>,
    table: ByteTable,
}

/// Chunks of 1-byte inputs at least this long may build a [`ByteTable`] (256 elements
/// through the kernel); shorter ones use a table only when it is already built.
const TABLE_BUILD_MIN: usize = 512;
/// Chunks shorter than this never use a table (the one-element instruction pays nothing).
const TABLE_USE_MIN: usize = 64;

/// A kernel's output for each of the 256 values of a 1-byte input element, under the
/// [`Kernel::pure_key`] it was built for (this instruction only).
#[derive(Clone)]
struct ByteTable {
    key: Option<u64>,
    /// Output bytes of input byte `b` at `b * size..(b + 1) * size`.
    out: [u8; 256 * 4],
}

/// The 256 input bytes a [`ByteTable`] is built from.
const ALL_BYTES: [u8; 256] = {
    let mut a = [0u8; 256];
    let mut i = 0;
    while i < 256 {
        a[i] = i as u8;
        i += 1;
    }
    a
};

impl Lane {
    pub(crate) fn new() -> Lane {
        Lane {
            bufs: Bufs {
                f: vec![0.0; CHUNK],
                u: vec![0; CHUNK],
                i: vec![0; CHUNK],
                bytes: vec![0; CHUNK * 4],
            },
            stage_in: vec![0; CHUNK * 4],
            stage_out: vec![0; CHUNK * 4],
            table: ByteTable {
                key: None,
                out: [0; 256 * 4],
            },
        }
    }
}

/// An elementwise computation, fed chunk by chunk. A kernel holds the instruction's
/// parameters (shared, read-only) and may keep per-channel state that it resets when a
/// channel starts (`k0 == 0`); each thread runs its own clone.
pub(crate) trait Kernel: Clone + Send + Sync {
    /// Takes the input bytes of elements `k0..k0 + len` of channel `c` (contiguous,
    /// little-endian). Not called when the walk has no input operand.
    fn load(&mut self, b: &mut Bufs, c: u32, k0: u64, input: &[u8]);
    /// Encodes the outputs of elements `k0..k0 + len` of channel `c` into `out`
    /// (`len` × output size bytes).
    fn store(&mut self, b: &mut Bufs, c: u32, k0: u64, out: &mut [u8]);
    /// [`Kernel::load`] then [`Kernel::store`]; a kernel may override it to go from input
    /// to output bytes in one pass.
    #[inline(always)]
    fn map(&mut self, b: &mut Bufs, c: u32, k0: u64, input: &[u8], out: &mut [u8]) {
        self.load(b, c, k0, input);
        self.store(b, c, k0, out);
    }
    /// Every channel's whole walk in one call, when both operands are one contiguous run
    /// per channel: `rows` yields each channel's [`Row`] (and marks its output initialised
    /// as it does). A kernel with such a path takes every row; one without (the default)
    /// hands `rows` back untouched and the engine drives chunk by chunk. This is how a
    /// kernel pays its dispatch and setup once per instruction instead of once per channel.
    #[inline(always)]
    fn map_rows<'r, I: Iterator<Item = Row<'r>>>(&mut self, rows: I) -> Result<(), I> {
        Err(rows)
    }
    /// `Some(key)` when, from element `k0` of channel `c` up to the next multiple of the
    /// walk's `split`, each output element is a function of its input element alone (no
    /// position, no other element), the same function for every chunk of this instruction
    /// that has the same key. The engine may then tabulate it for 1-byte inputs
    /// ([`ByteTable`]). `None`, the default, promises nothing.
    #[inline(always)]
    fn pure_key(&self, _c: u32, _k0: u64) -> Option<u64> {
        None
    }
}

/// How the engine may use threads (from [`crate::Config`]).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Threads {
    /// Threads to spread one instruction over (≥ 1).
    pub(crate) count: usize,
    /// Instructions with fewer elements (all channels) stay on the calling thread.
    pub(crate) min_elements: u64,
}

/// One channel's whole walk for [`Kernel::map_rows`]: all its input bytes and the output
/// bytes they map to (both contiguous, little-endian, element `k` with element `k`).
pub(crate) struct Row<'a> {
    /// The channel (relative: 0..num_active_channels).
    pub(crate) c: u32,
    /// `count` input elements.
    pub(crate) input: &'a [u8],
    /// `count` output elements.
    pub(crate) out: &'a mut [u8],
}

/// One channel's operands, cut out of memory.
struct Chan<'a> {
    /// The channel (relative: 0..num_active_channels).
    c: u32,
    /// The input hull (bytes `lo..hi` of the input's partition); empty without an input.
    input: &'a [u8],
    /// The output hull (bytes `lo..hi` of the output's partition).
    out: &'a mut [u8],
    /// The shadow words of the output's partition (bit `b` = byte `b` of the partition).
    init: &'a mut [u64],
}

/// The walk of one instruction.
#[derive(Clone, Copy)]
struct Walk<'a> {
    input: Option<&'a Access>,
    dst: &'a Access,
    count: u64,
    split: u64,
}

/// Runs `k` from `input` to `dst` over channels `0..n`, `count` elements each; chunks never
/// cross a multiple of `split` (PtrMulti's W slices). Element `k` of the input pairs with
/// element `k` of the output (decisions §3.3). An input overlapping the output is read from
/// a snapshot taken in `snap` first (assumption `reads-before-writes`).
pub(crate) fn drive<K: Kernel>(
    mem: &mut Memory,
    snap: &mut Vec<u8>,
    lanes: &mut Vec<Lane>,
    input: Option<&Access>,
    dst: &Access,
    n: u32,
    count: u64,
    split: u64,
    threads: Threads,
    k: &mut K,
) {
    let walk = Walk {
        input,
        dst,
        count,
        split: split.max(1),
    };
    if lanes.is_empty() {
        lanes.push(Lane::new());
    }
    // A table belongs to one instruction.
    for lane in lanes.iter_mut() {
        lane.table.key = None;
    }
    let total = count.saturating_mul(u64::from(n));
    let groups = threads.count.min(n as usize);
    let parallel = groups > 1 && total >= threads.min_elements;
    let mut from_snapshot = input.is_some_and(|i| overlaps(i, dst, n));
    loop {
        if let (Some(i), true) = (input, from_snapshot) {
            snapshot(mem, i, n, snap);
        }
        // `false` (before any channel ran) only if an input shares a partition with the
        // output and their hulls intersect, which `overlaps` has already sent to the
        // snapshot; kept total anyway.
        let done = if parallel {
            let mut chans = Vec::with_capacity(n as usize);
            channels(mem, snap, walk, from_snapshot, n, |ch| chans.push(ch))
                && run_parallel(&mut chans, lanes, groups, walk, k)
        } else {
            if !from_snapshot && rows_walk(walk) {
                if let Some(rows) = dense_rows(mem, walk, n) {
                    if k.map_rows(rows).is_ok() {
                        return;
                    }
                }
            }
            // One thread: each channel runs as soon as it is cut out (nothing collected,
            // which matters for the one-element instruction).
            let lane = &mut lanes[0];
            channels(mem, snap, walk, from_snapshot, n, |mut ch| {
                drive_channel(&mut ch, lane, walk, k)
            })
        };
        if done {
            return;
        }
        from_snapshot = true;
    }
}

/// Runs `chans` in `groups` groups of consecutive channels, one task (and lane, and kernel
/// clone) each, on rayon's pool.
fn run_parallel<K: Kernel>(
    chans: &mut [Chan<'_>],
    lanes: &mut Vec<Lane>,
    groups: usize,
    walk: Walk<'_>,
    k: &K,
) -> bool {
    let per = chans.len().div_ceil(groups.max(1)).max(1);
    let groups = chans.len().div_ceil(per);
    while lanes.len() < groups {
        lanes.push(Lane::new());
    }
    chans
        .par_chunks_mut(per)
        .zip(lanes[..groups].par_iter_mut())
        .for_each(|(group, lane)| {
            let mut k = k.clone();
            if rows_walk(walk) {
                let (lo, len) = (walk.dst.lo as usize, (walk.dst.hi - walk.dst.lo) as usize);
                let rows = group.iter_mut().map(|ch| {
                    Shadow::set_words(ch.init, lo, len);
                    Row {
                        c: ch.c,
                        input: ch.input,
                        out: &mut *ch.out,
                    }
                });
                if k.map_rows(rows).is_ok() {
                    return;
                }
            }
            for ch in group {
                drive_channel(ch, lane, walk, &mut k);
            }
        });
    true
}

/// Copies the hull of `a` for channels `0..n` into `snap` (channel-major).
fn snapshot(mem: &Memory, a: &Access, n: u32, snap: &mut Vec<u8>) {
    let w = (a.hi - a.lo) as usize;
    snap.clear();
    for c in 0..n {
        let b = mem.part_base(a.space, a.part0 + c) + a.lo as usize;
        snap.extend_from_slice(&mem.data(a.space)[b..b + w]);
    }
}

/// Cuts memory into the channels' slices (see the module docs) and hands them to `f` in
/// channel order; `false`, before calling `f`, if an input partition that is also an output
/// partition cannot be split between the two hulls.
fn channels<'m>(
    mem: &'m mut Memory,
    snap: &'m [u8],
    walk: Walk<'_>,
    from_snapshot: bool,
    n: u32,
    mut f: impl FnMut(Chan<'m>),
) -> bool {
    let Walk { input, dst, .. } = walk;
    let stride = mem.stride(dst.space);
    let read_stride = input.map_or(0, |i| mem.stride(i.space));
    let (data, words, other) =
        mem.split_for_write_parts(dst.space, dst.part0, n, dst.lo as usize..dst.hi as usize);
    let n = n as usize;
    let outs = data
        .chunks_mut(stride)
        .zip(words.chunks_mut(stride / 64))
        .enumerate();
    let d0 = dst.part0 as usize;
    let (dlo, dhi) = (dst.lo as usize, dst.hi as usize);
    let disjoint = |lo: usize, hi: usize| hi <= dlo || dhi <= lo;
    match input {
        Some(i) if !from_snapshot && i.space == dst.space && i.part0 == dst.part0 => {
            // The common case: the same partitions, disjoint hulls. Each partition is split
            // between the two.
            let (lo, hi) = (i.lo as usize, i.hi as usize);
            if !disjoint(lo, hi) {
                return false;
            }
            for (p, (part, init)) in outs.skip(d0).take(n) {
                let Some((input, out)) = split_pair(part, lo..hi, dlo..dhi) else {
                    return false; // not reached: the hulls are disjoint
                };
                f(Chan {
                    c: (p - d0) as u32,
                    input,
                    out,
                    init,
                });
            }
        }
        Some(i) if !from_snapshot && i.space == dst.space => {
            // Shifted partitions of one space: a partition holding both operands is split
            // between the two (disjoint) hulls.
            let s0 = i.part0 as usize;
            let (lo, hi) = (i.lo as usize, i.hi as usize);
            let shared = s0 < d0 + n && d0 < s0 + n;
            if shared && !disjoint(lo, hi) {
                return false;
            }
            let mut v = Vec::with_capacity(n);
            let mut ins: Vec<&[u8]> = vec![&[]; n];
            let first = s0.min(d0);
            let last = (s0 + n).max(d0 + n);
            for (p, (part, init)) in outs.skip(first).take(last - first) {
                let is_in = (s0..s0 + n).contains(&p);
                let is_out = (d0..d0 + n).contains(&p);
                match (is_in, is_out) {
                    (true, true) => {
                        let Some((r, out)) = split_pair(part, lo..hi, dlo..dhi) else {
                            return false; // not reached: the hulls are disjoint
                        };
                        ins[p - s0] = r;
                        v.push(Chan {
                            c: (p - d0) as u32,
                            input: &[],
                            out,
                            init,
                        });
                    }
                    (true, false) => {
                        let part: &[u8] = part;
                        ins[p - s0] = &part[lo..hi];
                    }
                    (false, true) => v.push(Chan {
                        c: (p - d0) as u32,
                        input: &[],
                        out: &mut part[dlo..dhi],
                        init,
                    }),
                    (false, false) => {}
                }
            }
            for mut ch in v {
                ch.input = ins[ch.c as usize];
                f(ch);
            }
        }
        _ => {
            for (p, (part, init)) in outs.skip(d0).take(n) {
                let c = p - d0;
                let input: &[u8] = match input {
                    None => &[],
                    Some(i) if from_snapshot => {
                        let w = (i.hi - i.lo) as usize;
                        &snap[c * w..(c + 1) * w]
                    }
                    Some(i) => {
                        let b = (i.part0 as usize + c) * read_stride;
                        &other[b + i.lo as usize..b + i.hi as usize]
                    }
                };
                f(Chan {
                    c: c as u32,
                    input,
                    out: &mut part[dlo..dhi],
                    init,
                });
            }
        }
    }
    true
}

/// Whether [`Kernel::map_rows`] may take the walk: every operand (the input, if any, and
/// the output) one contiguous run per channel.
#[inline(always)]
fn rows_walk(walk: Walk<'_>) -> bool {
    walk.input.is_none_or(dense) && dense(walk.dst)
}

/// The [`Row`]s of a [`rows_walk`] read straight from memory, each marking its output bytes
/// initialised when it is yielded, for the common layouts: no input (every row's input is
/// empty), the input in the output's partitions (hulls disjoint) or in the other space.
/// `None` for any other layout (the engine then cuts channels as usual).
#[inline]
fn dense_rows<'m>(
    mem: &'m mut Memory,
    walk: Walk<'_>,
    n: u32,
) -> Option<impl Iterator<Item = Row<'m>> + 'm> {
    let dst = walk.dst;
    // No input: an empty range of the output's own space.
    let (same_space, i_part0, lo, hi) = match walk.input {
        Some(i) => (i.space == dst.space, i.part0, i.lo as usize, i.hi as usize),
        None => (false, dst.part0, 0, 0),
    };
    let (dlo, dhi) = (dst.lo as usize, dst.hi as usize);
    let input_first = hi <= dlo;
    if same_space && (i_part0 != dst.part0 || !(input_first || dhi <= lo)) {
        return None;
    }
    let stride = mem.stride(dst.space);
    let has_input = walk.input.is_some();
    let read_stride = walk.input.map_or(0, |i| mem.stride(i.space));
    let s0 = i_part0 as usize;
    let (data, words, other) = mem.split_for_write_parts(dst.space, dst.part0, n, dlo..dhi);
    let rows = data
        .chunks_mut(stride)
        .zip(words.chunks_mut(stride / 64))
        .skip(dst.part0 as usize)
        .take(n as usize)
        .enumerate()
        .map(move |(c, (part, init))| {
            Shadow::set_words(init, dlo, dhi - dlo);
            let (input, out) = if same_space {
                split_disjoint(part, lo..hi, dlo..dhi, input_first)
            } else if !has_input {
                (&[][..], &mut part[dlo..dhi])
            } else {
                let b = (s0 + c) * read_stride;
                (&other[b + lo..b + hi], &mut part[dlo..dhi])
            };
            Row {
                c: c as u32,
                input,
                out,
            }
        });
    Some(rows)
}

/// `data[r]` and `data[w]` borrowed together, for disjoint ranges with `r` before `w`
/// exactly when `r_first`.
#[inline(always)]
fn split_disjoint(
    data: &mut [u8],
    r: std::ops::Range<usize>,
    w: std::ops::Range<usize>,
    r_first: bool,
) -> (&[u8], &mut [u8]) {
    if r_first {
        let (a, b) = data.split_at_mut(w.start);
        (&a[r], &mut b[..w.len()])
    } else {
        let (a, b) = data.split_at_mut(r.start);
        (&b[..r.len()], &mut a[w])
    }
}

/// `data[r]` and `data[w]` borrowed together, if the ranges are disjoint.
#[inline(always)]
fn split_pair(
    data: &mut [u8],
    r: std::ops::Range<usize>,
    w: std::ops::Range<usize>,
) -> Option<(&[u8], &mut [u8])> {
    if r.end <= w.start {
        Some(split_disjoint(data, r, w, true))
    } else if w.end <= r.start {
        Some(split_disjoint(data, r, w, false))
    } else {
        None
    }
}

/// Whether an operand is one contiguous run per channel.
#[inline(always)]
fn dense(a: &Access) -> bool {
    a.dims.is_dense()
}

/// Runs one channel (see the module docs).
#[inline]
fn drive_channel<K: Kernel>(ch: &mut Chan<'_>, lane: &mut Lane, walk: Walk<'_>, k: &mut K) {
    let Walk {
        input,
        dst,
        count,
        split,
    } = walk;
    let Lane {
        bufs,
        stage_in,
        stage_out,
        table,
    } = lane;
    let c = ch.c;
    let chunks = || {
        let mut k0 = 0u64;
        let mut bound = split.min(count);
        std::iter::from_fn(move || {
            if k0 >= count {
                return None;
            }
            if k0 == bound {
                bound = bound.saturating_add(split).min(count);
            }
            let len = (CHUNK as u64).min(bound - k0) as usize;
            let at = k0;
            k0 += len as u64;
            Some((at, len))
        })
    };
    if dense(dst) && input.is_none_or(dense) {
        // Straight from and into memory, no cursors.
        let (din, dout) = (input.map_or(0, |i| i.size), dst.size);
        for (k0, len) in chunks() {
            let at = k0 as usize;
            let out = &mut ch.out[at * dout..(at + len) * dout];
            match input {
                Some(_) => {
                    let input = &ch.input[at * din..(at + len) * din];
                    if din != 1 || !by_table(k, bufs, table, c, k0, input, out) {
                        k.map(bufs, c, k0, input, out);
                    }
                }
                None => k.store(bufs, c, k0, out),
            }
        }
        Shadow::set_words(ch.init, dst.lo as usize, (dst.hi - dst.lo) as usize);
        return;
    }
    let mut sc = input.map(|i| Cursor::new(&i.dims));
    let mut dc = Cursor::new(&dst.dims);
    for (k0, len) in chunks() {
        if let (Some(i), Some(sc)) = (input, sc.as_mut()) {
            let bytes = read(ch.input, i, sc, len, stage_in);
            k.load(bufs, c, k0, bytes);
        }
        write(ch, dst, &mut dc, len, stage_out, |out| {
            k.store(bufs, c, k0, out)
        });
    }
}

/// Maps the 1-byte elements `input` to `out` through the lane's [`ByteTable`] for the
/// kernel's [`Kernel::pure_key`], building it when the chunk is long enough; `false`
/// (nothing done) when the kernel makes no promise or the chunk is too short.
#[inline]
fn by_table<K: Kernel>(
    k: &mut K,
    bufs: &mut Bufs,
    table: &mut ByteTable,
    c: u32,
    k0: u64,
    input: &[u8],
    out: &mut [u8],
) -> bool {
    if input.len() < TABLE_USE_MIN {
        return false;
    }
    let Some(key) = k.pure_key(c, k0) else {
        return false;
    };
    let size = out.len() / input.len();
    if !matches!(size, 1 | 2 | 4) {
        return false;
    }
    if table.key != Some(key) {
        if input.len() < TABLE_BUILD_MIN {
            return false;
        }
        // The same kernel code on the 256 possible inputs, so the table is what the
        // kernel would compute.
        k.map(bufs, c, k0, &ALL_BYTES, &mut table.out[..256 * size]);
        table.key = Some(key);
    }
    let t = &table.out;
    match size {
        1 => {
            for (o, &b) in out.iter_mut().zip(input) {
                *o = t[usize::from(b)];
            }
        }
        2 => lookup::<2>(t, input, out),
        _ => lookup::<4>(t, input, out),
    }
    true
}

/// `out[i] = t[input[i]]` for `N`-byte output elements.
#[inline(always)]
fn lookup<const N: usize>(t: &[u8], input: &[u8], out: &mut [u8]) {
    let Ok(t) = <&[[u8; N]; 256]>::try_from(&t.as_chunks::<N>().0[..256]) else {
        return; // not reached: the table holds 256 elements of up to 4 bytes
    };
    for (o, &b) in out.as_chunks_mut::<N>().0.iter_mut().zip(input) {
        *o = t[usize::from(b)];
    }
}

/// Reads `len` elements at the cursor (advancing it) from a channel's input hull `buf`: a
/// slice of it when the run is contiguous, else gathered into `stage`.
#[inline]
fn read<'a>(
    buf: &'a [u8],
    a: &Access,
    cur: &mut Cursor,
    len: usize,
    stage: &'a mut [u8],
) -> &'a [u8] {
    let size = a.size;
    let at = |off: i64| (a.byte(off) - a.lo) as usize;
    let (off, step, rem) = cur.run();
    if rem >= len as u64 && (step == 1 || len == 1) {
        let i = at(off);
        cur.advance(len as u64);
        return &buf[i..i + len * size];
    }
    let out = &mut stage[..len * size];
    // One loop per common element size, where the size is a constant: a strided run copies
    // a fixed number of bytes per element (no `memcpy` call, no dispatch per run).
    match size {
        1 => gather(buf, a, cur, out, 1),
        2 => gather(buf, a, cur, out, 2),
        4 => gather(buf, a, cur, out, 4),
        8 => gather(buf, a, cur, out, 8),
        n => gather(buf, a, cur, out, n),
    }
    out
}

/// Fills `out` with the elements of `size` bytes at the cursor (advancing it), run by run,
/// from a channel's input hull `buf`.
#[inline(always)]
fn gather(buf: &[u8], a: &Access, cur: &mut Cursor, out: &mut [u8], size: usize) {
    let len = out.len() / size;
    let mut done = 0;
    while done < len {
        let (off, step, rem) = cur.run();
        let take = rem.min((len - done) as u64) as usize;
        let dst = &mut out[done * size..(done + take) * size];
        let i0 = (a.byte(off) - a.lo) as usize;
        if step == 1 {
            dst.copy_from_slice(&buf[i0..i0 + take * size]);
        } else {
            let sb = step.wrapping_mul(size as i64);
            for (j, d) in dst.chunks_exact_mut(size).enumerate() {
                let i = (i0 as i64).wrapping_add(sb.wrapping_mul(j as i64)) as usize;
                d.copy_from_slice(&buf[i..i + size]);
            }
        }
        cur.advance(take as u64);
        done += take;
    }
}

/// Writes `len` elements at the cursor (advancing it) into a channel's output hull: `fill`
/// encodes them into a contiguous byte slice, which is memory itself when the run is
/// contiguous, else `stage` scattered afterwards. Written bytes become initialised.
#[inline]
fn write(
    ch: &mut Chan<'_>,
    a: &Access,
    cur: &mut Cursor,
    len: usize,
    stage: &mut [u8],
    fill: impl FnOnce(&mut [u8]),
) {
    let size = a.size;
    let lo = a.lo as usize;
    let (off, step, rem) = cur.run();
    if rem >= len as u64 && (step == 1 || len == 1) {
        let b = a.byte(off) as usize;
        fill(&mut ch.out[b - lo..b - lo + len * size]);
        Shadow::set_words(ch.init, b, len * size);
        cur.advance(len as u64);
        return;
    }
    let st = &mut stage[..len * size];
    fill(st);
    // As in `read`: one loop per common element size.
    match size {
        1 => scatter(ch, a, cur, st, 1),
        2 => scatter(ch, a, cur, st, 2),
        4 => scatter(ch, a, cur, st, 4),
        8 => scatter(ch, a, cur, st, 8),
        n => scatter(ch, a, cur, st, n),
    }
}

/// Writes the elements of `size` bytes of `from` at the cursor (advancing it), run by run,
/// into a channel's output hull, and marks them initialised.
#[inline(always)]
fn scatter(ch: &mut Chan<'_>, a: &Access, cur: &mut Cursor, from: &[u8], size: usize) {
    let lo = a.lo as usize;
    let len = from.len() / size;
    let mut done = 0;
    while done < len {
        let (off, step, rem) = cur.run();
        let take = rem.min((len - done) as u64) as usize;
        let from = &from[done * size..(done + take) * size];
        let b0 = a.byte(off) as usize;
        if step == 1 {
            ch.out[b0 - lo..b0 - lo + take * size].copy_from_slice(from);
            Shadow::set_words(ch.init, b0, take * size);
        } else {
            let sb = step.wrapping_mul(size as i64);
            for (j, s) in from.chunks_exact(size).enumerate() {
                let b = (b0 as i64).wrapping_add(sb.wrapping_mul(j as i64)) as usize;
                ch.out[b - lo..b - lo + size].copy_from_slice(s);
                Shadow::set_words(ch.init, b, size);
            }
        }
        cur.advance(take as u64);
        done += take;
    }
}

/// [`Kernel::map_rows`] (TensorScalar's and PtrMulti's rows paths, one thread and in thread
/// groups) against the per-element definition, at every SIMD level, for the layouts that
/// take the rows path (input before or after the output in the same partitions, input or
/// output in the other space) and those that fall back (in place, shifted partitions),
/// with per-channel scalars and a staged (unfusable) op beside the fused ones.
#[cfg(test)]
mod rows_tests {
    use crate::assumptions::stage_arith;
    use crate::numerics::{from_f32, simd, to_f32, Fp8Config};
    use crate::{Config, FlopKind, Flops, HostTensor, Machine};
    use tpb_isa::geometry::Space;
    use tpb_isa::text::asm_line;
    use tpb_isa::{AluOp, CodeEnum, Dtype, Gen};

    const P: u32 = 4;
    const F: u64 = 300;
    const W: u64 = 3;

    /// (source, destination) as (space, first partition, byte offset).
    type Layout = ((Space, u32, u32), (Space, u32, u32));
    const LAYOUTS: [Layout; 6] = [
        ((Space::Sbuf, 0, 0), (Space::Sbuf, 0, 0x4000)),
        ((Space::Sbuf, 0, 0x4000), (Space::Sbuf, 0, 0)),
        ((Space::Sbuf, 0, 0), (Space::Sbuf, 0, 0)),
        ((Space::Sbuf, 0, 0), (Space::Psum, 0, 0)),
        ((Space::Psum, 0, 0), (Space::Sbuf, 0, 0x4000)),
        ((Space::Sbuf, 0, 0), (Space::Sbuf, 1, 0x4000)),
    ];

    fn name(d: Dtype) -> &'static str {
        match d {
            Dtype::FP32 => "fp32",
            Dtype::BFLOAT16 => "bf16",
            Dtype::FP16 => "fp16",
            _ => "fp8_exp4",
        }
    }

    fn region((space, p0, off): (Space, u32, u32), pattern: &str) -> String {
        let s = if space == Space::Sbuf { "sbuf" } else { "psum" };
        format!("{s}[p{p0}..{}]+{off:#x}:{pattern}", p0 + P)
    }

    fn host((space, p0, off): (Space, u32, u32), d: Dtype) -> HostTensor {
        HostTensor::at(space, p0..p0 + P)
            .offset(u64::from(off))
            .elements(d, F)
    }

    /// Raw input elements: pseudo-random bits (NaNs, infinities and subnormals among them).
    fn raw_inputs(d: Dtype) -> Vec<u8> {
        let size = d.size().unwrap();
        let mut x: u32 = 0x9E37_79B9;
        (0..u64::from(P) * F)
            .flat_map(|i| {
                x ^= x << 13;
                x ^= x >> 17;
                x ^= x << 5;
                // FP32: mostly ordinary values, so the ops round.
                let v = if size == 4 && i % 5 != 0 {
                    ((i as f32 - 600.0) * 0.37).to_bits() ^ (x & 0xFF)
                } else {
                    x
                };
                v.to_le_bytes()[..size].to_vec()
            })
            .collect()
    }

    enum Case {
        /// TensorScalar through pointers: op0, op1 with per-channel scalars.
        Ts(AluOp, AluOp),
        /// PtrMulti: op with per-slice, per-channel scalars.
        Pm(AluOp),
    }

    fn scalar(c: u64, j: u64) -> f32 {
        [1.5f32, -0.25, 3.0e38, 0.0, -1.0, 2.5e-3, 7.0, f32::NAN][((c * 3 + j) % 8) as usize]
    }

    #[test]
    fn rows_paths_match_the_definition() {
        for level in simd::available() {
            simd::with_level(level, || {
                for (threads, min) in [(1, u64::MAX), (2, 0)] {
                    rows_paths_at(threads, min, level);
                }
            })
            .unwrap();
        }
    }

    fn rows_paths_at(threads: usize, min: u64, level: simd::Level) {
        let gen = Gen::Cayman;
        let cfg = Fp8Config::default();
        let ins = [Dtype::FP32, Dtype::BFLOAT16, Dtype::FP16, Dtype::FP8_EXP4];
        let outs = [Dtype::FP32, Dtype::BFLOAT16, Dtype::FP16, Dtype::FP8_EXP4];
        let cases = [
            Case::Ts(AluOp::MULT, AluOp::ADD),
            Case::Ts(AluOp::ADD, AluOp::MULT),
            Case::Ts(AluOp::MULT, AluOp::BYPASS),
            Case::Ts(AluOp::SUBTRACT, AluOp::MULT),
            Case::Pm(AluOp::MULT),
            Case::Pm(AluOp::ADD),
            Case::Pm(AluOp::SUBTRACT),
        ];
        let mut k = 0usize;
        for (src, dst) in LAYOUTS {
            for &din in &ins {
                for &dout in &outs {
                    // PSUM holds 4-byte elements only.
                    if (src.0 == Space::Psum && din != Dtype::FP32)
                        || (dst.0 == Space::Psum && dout != Dtype::FP32)
                    {
                        continue;
                    }
                    // A case per pair of dtypes, cycling through the list.
                    let case = &cases[k % cases.len()];
                    one_case(gen, &cfg, threads, min, src, dst, din, dout, case, level);
                    k += 1;
                }
            }
        }
    }

    #[allow(clippy::too_many_arguments)] // a test case's coordinates
    fn one_case(
        gen: Gen,
        cfg: &Fp8Config,
        threads: usize,
        min: u64,
        src: (Space, u32, u32),
        dst: (Space, u32, u32),
        din: Dtype,
        dout: Dtype,
        case: &Case,
        level: simd::Level,
    ) {
        let mut m = Machine::new(Config::new(gen));
        m.set_threading(threads, min);
        let raw = raw_inputs(din);
        m.write_tensor(&host(src, din), &raw).unwrap();
        let (ni, no) = (name(din), name(dout));
        let slice = F / W;
        let text = match *case {
            Case::Ts(op0, op1) => {
                // Per-channel scalars at 0x8000 / 0x8004 of the SBUF partitions.
                for (j, at) in [(0, 0x8000u64), (1, 0x8004)] {
                    let vals: Vec<u8> = (0..u64::from(P))
                        .flat_map(|c| scalar(c, j).to_le_bytes())
                        .collect();
                    let t = HostTensor::at(Space::Sbuf, 0..P)
                        .offset(at)
                        .elements(Dtype::FP32, 1);
                    m.write_tensor(&t, &vals).unwrap();
                }
                let pat = format!("[[1,{F}]]");
                format!(
                    "ts_ptr_arith channels={P} src={} in={ni} out={no} imm0=0x8000 \
                     imm1=0x8004 op0={} op1={} dst={}",
                    region(src, &pat),
                    op0.name().unwrap(),
                    op1.name().unwrap(),
                    region(dst, &pat)
                )
            }
            Case::Pm(op) => {
                for c in 0..P {
                    let mut slots = [0u32; 8];
                    for (j, s) in slots.iter_mut().enumerate() {
                        *s = scalar(u64::from(c), j as u64).to_bits();
                    }
                    let f = Flops {
                        slots,
                        loaded: 8,
                        kind: Some(FlopKind::Arith),
                    };
                    m.set_flops(c as usize, f).unwrap();
                }
                let pat = format!("[[1,{slice}],[1,1],[1,1],[{slice},{W}]]");
                format!(
                    "ptr_multi_arith channels={P} src={} in={ni} out={no} op={} op_dim=xyz \
                     dst={}",
                    region(src, &pat),
                    op.name().unwrap(),
                    region(dst, &pat)
                )
            }
        };
        let inst = asm_line(&text, gen).unwrap_or_else(|e| panic!("{text}: {e}"));
        m.step(&inst).unwrap_or_else(|f| panic!("{text}: {f}"));
        let got = m.read_tensor(&host(dst, dout)).unwrap();
        assert_eq!(
            m.uninitialised_bytes(&host(dst, dout)).unwrap(),
            0,
            "{text}"
        );
        let (si, so) = (din.size().unwrap(), dout.size().unwrap());
        for (e, x) in raw.chunks(si).enumerate() {
            let (c, j) = (e as u64 / F, e as u64 % F);
            let mut b = [0u8; 4];
            b[..si].copy_from_slice(x);
            let x = to_f32(din, u32::from_le_bytes(b), cfg);
            let r = match *case {
                Case::Ts(op0, op1) => {
                    let t = stage_arith(op0, x, scalar(c, 0), false).unwrap();
                    stage_arith(op1, t, scalar(c, 1), false).unwrap()
                }
                Case::Pm(op) => stage_arith(op, x, scalar(c, j / slice), false).unwrap(),
            };
            let want = from_f32(dout, r, cfg).to_le_bytes();
            assert_eq!(
                got[e * so..(e + 1) * so],
                want[..so],
                "{level:?} threads {threads}: {text}: element {e}"
            );
        }
    }

    /// Copy, Cast, Reciprocal (0x46–0x48) and Memset (0x49) through [`Kernel::map_rows`]
    /// (and the fallbacks of the other layouts and dtypes) against the element functions,
    /// at every SIMD level, on one thread and in thread groups; the written bytes must be
    /// marked initialised.
    #[test]
    fn copy_cast_memset_rows_match_the_definition() {
        use crate::exec::copy_cast::{cast_element, reciprocal_element};
        let dtypes = [
            Dtype::FP32,
            Dtype::BFLOAT16,
            Dtype::FP16,
            Dtype::FP8_EXP4,
            Dtype::INT32,
            Dtype::UINT8,
        ];
        let cfg = Fp8Config::default();
        for level in simd::available() {
            simd::with_level(level, || {
                for (threads, min) in [(1, u64::MAX), (2, 0)] {
                    // One machine per layout (quick in debug builds): its first case writes
                    // a fresh destination, where the initialised marking is checked.
                    for (li, (src, dst)) in LAYOUTS.into_iter().enumerate() {
                        let mut m = Machine::new(Config::new(Gen::Cayman));
                        m.set_threading(threads, min);
                        let mut fresh = true;
                        for (i, &din) in dtypes.iter().enumerate() {
                            // The same dtype (Copy, Cast's raw move or Reciprocal, by layout)
                            // and another one per layout (Cast or Reciprocal).
                            for dout in [din, dtypes[(i + 1 + li) % dtypes.len()]] {
                                if (src.0 == Space::Psum && din.size() != Some(4))
                                    || (dst.0 == Space::Psum && dout.size() != Some(4))
                                {
                                    continue;
                                }
                                let op = if din == dout {
                                    ["copy", "reciprocal", "copy", "cast", "reciprocal", "copy"][li]
                                } else if (i + li).is_multiple_of(2) {
                                    "cast"
                                } else {
                                    "reciprocal"
                                };
                                let raw = raw_inputs(din);
                                m.write_tensor(&host(src, din), &raw).unwrap();
                                let pat = format!("[[1,{F}]]");
                                let text = format!(
                                    "{op} src={} in={din} out={dout} op=bypass dst={}",
                                    region(src, &pat),
                                    region(dst, &pat)
                                );
                                let inst = asm_line(&text, Gen::Cayman)
                                    .unwrap_or_else(|e| panic!("{text}: {e}"));
                                m.step(&inst).unwrap_or_else(|f| panic!("{text}: {f}"));
                                let got = m.read_tensor(&host(dst, dout)).unwrap();
                                if fresh {
                                    let uninit = m.uninitialised_bytes(&host(dst, dout)).unwrap();
                                    assert_eq!(uninit, 0, "{text}");
                                    fresh = false;
                                }
                                let (si, so) = (din.size().unwrap(), dout.size().unwrap());
                                for (e, x) in raw.chunks(si).enumerate() {
                                    let mut b = [0u8; 8];
                                    b[..si].copy_from_slice(x);
                                    let x = u64::from_le_bytes(b);
                                    let want = if op == "reciprocal" {
                                        reciprocal_element(din, dout, x, &cfg)
                                    } else {
                                        cast_element(din, dout, x, &cfg)
                                    };
                                    assert_eq!(
                                        got[e * so..(e + 1) * so],
                                        want.to_le_bytes()[..so],
                                        "{level:?} threads {threads}: {text}: element {e}"
                                    );
                                }
                            }
                        }
                    }
                    for (_, dst) in LAYOUTS {
                        let mut m = Machine::new(Config::new(Gen::Cayman));
                        m.set_threading(threads, min);
                        for (d, value) in [
                            (Dtype::FP32, 0x3FC0_0000u32),
                            (Dtype::BFLOAT16, 0xBF80),
                            (Dtype::FP8_EXP4, 0x7F),
                            (Dtype::INT32, 0x8000_0001),
                        ] {
                            if dst.0 == Space::Psum && d.size() != Some(4) {
                                continue;
                            }
                            let text = format!(
                                "memset dst_element_count={F} dtype={d} set_value={value:#x} \
                                 dst={}",
                                region(dst, &format!("[[1,{F}]]"))
                            );
                            let inst = asm_line(&text, Gen::Cayman)
                                .unwrap_or_else(|e| panic!("{text}: {e}"));
                            m.step(&inst).unwrap_or_else(|f| panic!("{text}: {f}"));
                            let got = m.read_tensor(&host(dst, d)).unwrap();
                            assert_eq!(m.uninitialised_bytes(&host(dst, d)).unwrap(), 0);
                            let size = d.size().unwrap();
                            let want = &value.to_le_bytes()[..size];
                            for (e, g) in got.chunks(size).enumerate() {
                                assert_eq!(g, want, "{level:?} threads {threads}: {text}: {e}");
                            }
                        }
                    }
                }
            })
            .unwrap();
        }
    }
}
