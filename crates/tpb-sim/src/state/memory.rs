//! SBUF and PSUM bytes with the byte-level "initialised" shadow (decisions §3.1, §5.2).
//!
//! Only active bytes are stored: partition `p` of a space starts at `p * stride` in its
//! vector, the stride being the active bytes rounded up to a multiple of 64 (they are
//! multiples already on every generation), plus 17 cache lines of padding when that is a
//! multiple of 4 KiB (see `stride_of`), whatever the address-map stride. The shadow is
//! a bitset, one bit per byte, so each partition owns whole shadow words and the engine can
//! hand partitions to different threads.
//!
//! Every write is recorded in a [`Dirty`] map of 1 KiB blocks, so that a memory can be
//! returned to the initial state (every byte zero and uninitialised) by zeroing only what
//! was written ([`Memory::reset`]), and machines reuse memories through a small pool
//! ([`Memory::take`], [`Memory::give`]) instead of faulting in fresh pages for every kernel
//! (issue 30 item 1). Writers get mutable bytes only by naming what they will write
//! ([`Memory::parts_mut`], [`Memory::split_for_write`]) or through [`Shadow::set_range`],
//! which records its range itself.

use std::borrow::Cow;
use std::ops::Range;
use std::sync::Mutex;
use tpb_isa::geometry::{Geometry, Space};
use tpb_isa::Gen;

use super::zero_pages::ZeroPages;

/// Bytes of a space's vector per bit of its [`Dirty`] map (16 shadow words).
const BLOCK: usize = 1024;
/// Shadow words per block.
const BLOCK_WORDS: usize = BLOCK / 64;

/// Which [`BLOCK`]s of a space's vector may differ from the initial state: every byte
/// outside them is zero and uninitialised. `ever` keeps the blocks written before the last
/// reset too (the pages the memory holds, for the pool's bound). `stale` holds the blocks
/// whose bytes a reset for a strict run ([`Memory::reset_for_strict_run`]) left in place
/// under a cleared shadow: there, an uninitialised byte may be non-zero. Each bitset keeps
/// the range of its words that may be non-zero, so that a reset of a machine that wrote
/// little costs little (a replay's machine is reset at every call).
#[derive(Clone, Default)]
pub(crate) struct Dirty {
    now: Vec<u64>,
    now_words: Range<usize>,
    ever: Vec<u64>,
    /// Set bits of `ever`.
    ever_blocks: usize,
    stale: Vec<u64>,
    stale_words: Range<usize>,
}

/// The smallest range holding both (an empty one holds nothing).
fn hull(a: &Range<usize>, b: &Range<usize>) -> Range<usize> {
    match (a.is_empty(), b.is_empty()) {
        (true, _) => b.clone(),
        (_, true) => a.clone(),
        _ => a.start.min(b.start)..a.end.max(b.end),
    }
}

/// The runs of set bits of `words[range]`, as bit indices of `words`.
fn runs_in(words: &[u64], range: Range<usize>) -> impl Iterator<Item = (usize, usize)> + '_ {
    let at = range.start * 64;
    bit_runs(&words[range]).map(move |(a, b)| (a + at, b + at))
}

/// Sets bits `first..=last` of a bitset.
fn set_bits(words: &mut [u64], first: usize, last: usize) {
    let (fw, lw) = (first / 64, last / 64);
    let lo = u64::MAX << (first % 64);
    let hi = u64::MAX >> (63 - last % 64);
    if fw == lw {
        words[fw] |= lo & hi;
        return;
    }
    words[fw] |= lo;
    words[fw + 1..lw].fill(u64::MAX);
    words[lw] |= hi;
}

/// Zeroes the bytes of `bytes` (bytes `start..` of a vector) whose bit in the vector's
/// shadow `words` is clear.
fn zero_unset(bytes: &mut [u8], words: &[u64], start: usize) {
    let mut at = 0;
    while at < bytes.len() {
        let i = start + at;
        let n = (64 - i % 64).min(bytes.len() - at);
        let word = words[i / 64] >> (i % 64);
        if word & (u64::MAX >> (64 - n)) != u64::MAX >> (64 - n) {
            for (k, b) in bytes[at..at + n].iter_mut().enumerate() {
                if word >> k & 1 == 0 {
                    *b = 0;
                }
            }
        }
        at += n;
    }
}

/// The maximal runs `start..end` of set bits of a bitset, in order.
fn bit_runs(words: &[u64]) -> impl Iterator<Item = (usize, usize)> + '_ {
    let bits = words.len() * 64;
    let next_with = move |from: usize, set: bool| {
        let mut i = from;
        while i < bits {
            let w = if set { words[i / 64] } else { !words[i / 64] } >> (i % 64);
            if w != 0 {
                return (i + w.trailing_zeros() as usize).min(bits);
            }
            i = (i / 64 + 1) * 64;
        }
        bits
    };
    let mut at = 0;
    std::iter::from_fn(move || {
        let start = next_with(at, true);
        if start >= bits {
            return None;
        }
        let end = next_with(start, false);
        at = end;
        Some((start, end))
    })
}

impl Dirty {
    fn new(bytes: usize) -> Dirty {
        let words = bytes.div_ceil(BLOCK).div_ceil(64);
        Dirty {
            now: vec![0; words],
            ever: vec![0; words],
            stale: vec![0; words],
            ..Dirty::default()
        }
    }

    /// Records that bytes `start..start + len` of the vector may have changed.
    #[inline]
    pub(crate) fn mark(&mut self, start: usize, len: usize) {
        if len > 0 {
            let (first, last) = (start / BLOCK, (start + len - 1) / BLOCK);
            set_bits(&mut self.now, first, last);
            self.now_words = hull(&self.now_words, &(first / 64..last / 64 + 1));
        }
    }

    /// Records the same bytes `bytes` (offsets in the partition) of `parts` consecutive
    /// partitions from vector index `base`, `stride` apart.
    #[inline]
    fn mark_parts(
        &mut self,
        base: usize,
        stride: usize,
        parts: usize,
        bytes: &std::ops::Range<usize>,
    ) {
        if bytes.is_empty() {
            return;
        }
        for p in 0..parts {
            self.mark(base + p * stride + bytes.start, bytes.len());
        }
    }

    /// Bytes of the blocks written since the memory was made (the pages it holds).
    fn resident(&self) -> usize {
        let r = self.now_words.clone();
        let new: u32 = self.now[r.clone()]
            .iter()
            .zip(&self.ever[r])
            .map(|(n, e)| (n & !e).count_ones())
            .sum();
        (self.ever_blocks + new as usize) * BLOCK
    }

    /// Zeroes the written and stale blocks of `data` and the written blocks' shadow `words`
    /// (a stale block's shadow is clear already), and forgets them.
    fn clear(&mut self, data: &mut [u8], words: &mut [u64]) {
        let stale = std::mem::take(&mut self.stale_words);
        for (n, s) in self.now[stale.clone()]
            .iter_mut()
            .zip(&mut self.stale[stale.clone()])
        {
            *n |= std::mem::take(s);
        }
        self.now_words = hull(&self.now_words, &stale);
        let (bytes, shadow) = (data.len(), words.len());
        for (a, b) in runs_in(&self.now, self.now_words.clone()) {
            data[(a * BLOCK).min(bytes)..(b * BLOCK).min(bytes)].fill(0);
            words[(a * BLOCK_WORDS).min(shadow)..(b * BLOCK_WORDS).min(shadow)].fill(0);
        }
        self.forget_written();
    }

    /// Clears the written blocks' shadow `words` only: their bytes stay, stale.
    fn clear_shadow(&mut self, words: &mut [u64]) {
        let shadow = words.len();
        let r = self.now_words.clone();
        for (a, b) in runs_in(&self.now, r.clone()) {
            words[(a * BLOCK_WORDS).min(shadow)..(b * BLOCK_WORDS).min(shadow)].fill(0);
        }
        for (s, n) in self.stale[r.clone()].iter_mut().zip(&self.now[r.clone()]) {
            *s |= *n;
        }
        self.stale_words = hull(&self.stale_words, &r);
        self.forget_written();
    }

    fn forget_written(&mut self) {
        let r = std::mem::take(&mut self.now_words);
        for (e, n) in self.ever[r.clone()].iter_mut().zip(&mut self.now[r]) {
            let n = std::mem::take(n);
            self.ever_blocks += (n & !*e).count_ones() as usize;
            *e |= n;
        }
    }

    #[inline(always)]
    fn has_stale(&self) -> bool {
        !self.stale_words.is_empty()
    }

    /// Zeroes every uninitialised byte of the stale blocks of `data` (by its shadow
    /// `words`) and forgets them: the memory holds zero wherever it is uninitialised again.
    fn settle(&mut self, data: &mut [u8], words: &[u64]) {
        let bytes = data.len();
        let r = std::mem::take(&mut self.stale_words);
        for (a, b) in runs_in(&self.stale, r.clone()) {
            let (from, to) = ((a * BLOCK).min(bytes), (b * BLOCK).min(bytes));
            zero_unset(&mut data[from..to], words, from);
        }
        self.stale[r].fill(0);
    }

    /// Copies the written blocks of `from` (and its shadow `from_words`) into zeroed `data`
    /// and `words` of the same length: a clone that touches only what was written.
    fn copy_written(&self, from: (&[u8], &[u64]), data: &mut [u8], words: &mut [u64]) {
        for (a, b) in runs_in(&self.now, self.now_words.clone()) {
            let r = (a * BLOCK).min(data.len())..(b * BLOCK).min(data.len());
            data[r.clone()].copy_from_slice(&from.0[r]);
            let w = (a * BLOCK_WORDS).min(words.len())..(b * BLOCK_WORDS).min(words.len());
            words[w.clone()].copy_from_slice(&from.1[w]);
        }
    }
}

/// One bit per byte: set once the byte has been written by the host or an instruction.
/// Also keeps the [`Dirty`] map of the bytes it shadows (`==` compares the bits only).
#[derive(Clone)]
pub(crate) struct Shadow {
    words: ZeroPages<u64>,
    dirty: Dirty,
}

impl PartialEq for Shadow {
    fn eq(&self, other: &Shadow) -> bool {
        self.words == other.words
    }
}

impl Eq for Shadow {}

impl Shadow {
    fn new(bits: usize) -> Shadow {
        Shadow {
            words: ZeroPages::new(bits.div_ceil(64)),
            dirty: Dirty::new(bits),
        }
    }

    /// Whether byte `i` is initialised.
    #[inline(always)]
    pub(crate) fn get(&self, i: usize) -> bool {
        self.words[i / 64] >> (i % 64) & 1 != 0
    }

    /// Marks bytes `start..start + len` initialised (and records them as written).
    #[inline]
    pub(crate) fn set_range(&mut self, start: usize, len: usize) {
        self.dirty.mark(start, len);
        Self::set_words(&mut self.words, start, len);
    }

    /// The words holding bits `start..start + len` (`len > 0`): first and last word, and
    /// the masks of the bits in them.
    #[inline(always)]
    fn span(start: usize, len: usize) -> (usize, usize, u64, u64) {
        let end = start + len;
        let last_bits = (end - 1) % 64 + 1;
        let last = u64::MAX >> (64 - last_bits);
        (start / 64, (end - 1) / 64, u64::MAX << (start % 64), last)
    }

    /// [`Shadow::set_range`] on a run of words (e.g. one partition's, see
    /// [`Memory::split_for_write`]), bit `i` of the run being byte `i`.
    ///
    /// Words that already hold their bits are only read, not written: an instruction that
    /// rewrites an initialised tile (the common case) then leaves the shadow's cache lines
    /// clean, so they are not written back.
    #[inline]
    pub(crate) fn set_words(words: &mut [u64], start: usize, len: usize) {
        if len == 0 {
            return;
        }
        let (sw, ew, first, last) = Self::span(start, len);
        let set = |w: &mut u64, m: u64| {
            if *w & m != m {
                *w |= m;
            }
        };
        if sw == ew {
            set(&mut words[sw], first & last);
        } else {
            set(&mut words[sw], first);
            // Whole words in between: checked with one AND (no early exit, so the loop
            // vectorises), then filled (memset) only if any bit was clear.
            let mid = &mut words[sw + 1..ew];
            if mid.iter().fold(u64::MAX, |a, &x| a & x) != u64::MAX {
                mid.fill(u64::MAX);
            }
            set(&mut words[ew], last);
        }
    }

    /// Whether every byte of `start..start + len` is initialised.
    #[inline]
    pub(crate) fn all_set(&self, start: usize, len: usize) -> bool {
        if len == 0 {
            return true;
        }
        let (sw, ew, first, last) = Self::span(start, len);
        let w = &self.words;
        if sw == ew {
            let m = first & last;
            return w[sw] & m == m;
        }
        // The whole words ANDed without an early exit, so the loop vectorises.
        let mid = w[sw + 1..ew].iter().fold(u64::MAX, |a, &x| a & x);
        w[sw] & first == first && mid == u64::MAX && w[ew] & last == last
    }

    /// Whether bytes `start..start + len` are all initialised (for one element).
    #[inline(always)]
    pub(crate) fn elem_set(&self, start: usize, len: usize) -> bool {
        (start..start + len).all(|i| self.get(i))
    }

    /// How many bytes of `start..start + len` are uninitialised.
    pub(crate) fn count_unset(&self, start: usize, len: usize) -> u64 {
        Self::count_unset_words(&self.words, start, len)
    }

    /// [`Shadow::count_unset`] on a run of words (e.g. an HBM page's), bit `i` being byte `i`.
    #[inline]
    pub(crate) fn count_unset_words(words: &[u64], start: usize, len: usize) -> u64 {
        if len == 0 {
            return 0;
        }
        let unset = |w: u64, m: u64| u64::from((!w & m).count_ones());
        let (sw, ew, first, last) = Self::span(start, len);
        if sw == ew {
            return unset(words[sw], first & last);
        }
        // The whole words in between: all set (the usual case) is one AND over them, which
        // vectorises; only a range with unset bits pays a count per word (the baseline
        // x86-64 target has no popcount instruction: a count is a dozen operations).
        let inner = &words[sw + 1..ew];
        let mid: u64 = if inner.iter().fold(u64::MAX, |a, &w| a & w) == u64::MAX {
            0
        } else {
            inner.iter().map(|&w| u64::from((!w).count_ones())).sum()
        };
        unset(words[sw], first) + mid + unset(words[ew], last)
    }
}

/// Partition stride for `active` bytes: rounded up to whole shadow words, plus 17 cache lines
/// (1088 bytes, never addressed) when that is a multiple of 4 KiB. With a stride of
/// 224 KiB the same offset in all 128 partitions maps onto 4 groups of sets of a 2 MiB
/// 16-way L2 (and one set group of L1), so a 128 × 512 FP32 tile (256 KiB) could not stay
/// in cache; an odd number of lines spreads the partitions' rows over the sets.
#[inline(always)]
fn stride_of(active: u64) -> usize {
    let s = (active as usize).next_multiple_of(64);
    if s.is_multiple_of(4096) {
        s + 17 * 64
    } else {
        s
    }
}

/// The on-chip memories of one generation.
///
/// `==` compares every byte and shadow bit; `clone` copies only the blocks written since
/// the last reset into fresh zero pages (every other byte is zero and uninitialised).
#[derive(PartialEq, Eq)]
pub(crate) struct Memory {
    geo: Geometry,
    sbuf: ZeroPages<u8>,
    psum: ZeroPages<u8>,
    sbuf_init: Shadow,
    psum_init: Shadow,
    /// Empty bytes and shadow that [`Space::Hbm`] maps to here: HBM is not on chip (it lives
    /// in `super::hbm`), so on-chip walks see it as a space of no bytes.
    none: Vec<u8>,
    none_init: Shadow,
}

/// Memories given back by dropped machines, to be reset and reused ([`Memory::take`]).
static POOL: Mutex<Vec<Memory>> = Mutex::new(Vec::new());
/// The most memories the pool keeps (two threads running kernels, each with a machine
/// and a scheduled re-run, need four).
const POOL_MAX: usize = 4;
/// A memory that has written more than this many bytes (the pages it holds) is freed, not
/// pooled: a pool of such memories would keep their pages resident for good.
const POOL_RESIDENT_MAX: usize = 8 << 20;

impl Clone for Memory {
    /// A stale memory's clone is settled: its uninitialised bytes are zero.
    fn clone(&self) -> Memory {
        let mut m = Memory::fresh(self.geo);
        for (from, from_init, to, to_init) in [
            (&self.sbuf, &self.sbuf_init, &mut m.sbuf, &mut m.sbuf_init),
            (&self.psum, &self.psum_init, &mut m.psum, &mut m.psum_init),
        ] {
            from_init
                .dirty
                .copy_written((from, &from_init.words), to, &mut to_init.words);
            to_init.dirty.now.clone_from(&from_init.dirty.now);
            to_init.dirty.now_words = from_init.dirty.now_words.clone();
            // Only the stale blocks copied (the written ones) can hold stale bytes.
            let d = &mut to_init.dirty;
            let r = d.now_words.clone();
            for (s, (f, n)) in d.stale[r.clone()].iter_mut().zip(
                from_init.dirty.stale[r.clone()]
                    .iter()
                    .zip(&d.now[r.clone()]),
            ) {
                *s = f & n;
            }
            d.stale_words = r;
            d.settle(to, &to_init.words);
        }
        m
    }
}

impl Memory {
    /// Zero bytes, every byte uninitialised (decisions §5.2): a reset memory from the pool
    /// when one of this generation is there (reset by [`Memory::reset_for_strict_run`] for
    /// a `strict_run`), else a new one of fresh zero pages ([`ZeroPages`]), so untouched
    /// pages cost nothing.
    pub(crate) fn new(gen: Gen, strict_run: bool) -> Memory {
        let geo = Geometry::of(gen);
        Memory::take(geo, strict_run).unwrap_or_else(|| Memory::fresh(geo))
    }

    /// A new memory of fresh zero pages.
    fn fresh(geo: Geometry) -> Memory {
        let sbuf_len = geo.partitions as usize * stride_of(geo.sbuf_active_bytes.into());
        let psum_len = if geo.psum_buf_sz == 0 {
            0
        } else {
            geo.partitions as usize * stride_of(geo.psum_active_bytes.into())
        };
        Memory {
            geo,
            sbuf: ZeroPages::new(sbuf_len),
            psum: ZeroPages::new(psum_len),
            sbuf_init: Shadow::new(sbuf_len),
            psum_init: Shadow::new(psum_len),
            none: Vec::new(),
            none_init: Shadow::new(0),
        }
    }

    /// A memory of no bytes, to stand in for one given back to the pool.
    pub(crate) fn placeholder(&self) -> Memory {
        Memory {
            geo: self.geo,
            sbuf: ZeroPages::new(0),
            psum: ZeroPages::new(0),
            sbuf_init: Shadow::new(0),
            psum_init: Shadow::new(0),
            none: Vec::new(),
            none_init: Shadow::new(0),
        }
    }

    /// Returns every byte written since the last reset to zero and uninitialised: the state
    /// of [`Memory::new`], at the cost of the blocks written (and of the stale ones).
    pub(crate) fn reset(&mut self) {
        for (data, init) in self.spaces_mut() {
            init.dirty.clear(data, &mut init.words);
        }
    }

    /// SBUF and PSUM: each space's bytes and shadow.
    fn spaces_mut(&mut self) -> [(&mut [u8], &mut Shadow); 2] {
        [
            (&mut self.sbuf, &mut self.sbuf_init),
            (&mut self.psum, &mut self.psum_init),
        ]
    }

    /// Returns every byte written since the last reset to uninitialised, leaving its value
    /// (stale), at the cost of the written blocks' shadow only (an eighth of their bytes).
    /// The memory equals a new one to every reader that cannot read an uninitialised byte:
    /// a strict run (each instruction checks its reads and faults before it commits,
    /// decisions §5.2), the host (which reads uninitialised bytes as zero here,
    /// [`Memory::host_row`]) and a clone (settled). Anything else settles it first
    /// ([`Memory::settle`]); [`Memory::reset`] zeroes the stale bytes too.
    pub(crate) fn reset_for_strict_run(&mut self) {
        for (_, init) in self.spaces_mut() {
            init.dirty.clear_shadow(&mut init.words);
        }
    }

    /// Zeroes every uninitialised byte a [`Memory::reset_for_strict_run`] left non-zero.
    pub(crate) fn settle(&mut self) {
        for (data, init) in self.spaces_mut() {
            init.dirty.settle(data, &init.words);
        }
    }

    /// Bytes `start..start + len` of a space's vector as the host reads them: an
    /// uninitialised byte reads as zero (its stored value, unless the memory is stale).
    pub(crate) fn host_row(&self, space: Space, start: usize, len: usize) -> Cow<'_, [u8]> {
        let row = &self.data(space)[start..start + len];
        let init = self.init(space);
        if !init.dirty.has_stale() || init.count_unset(start, len) == 0 {
            return Cow::Borrowed(row);
        }
        let mut copy = row.to_vec();
        zero_unset(&mut copy, &init.words, start);
        Cow::Owned(copy)
    }

    /// Marks bytes `start..start + len` of a space's vector initialised without writing
    /// them (the host's `mark_initialised`): they keep the value they hold, which for an
    /// uninitialised byte of a stale memory is made zero first, as on a new memory.
    pub(crate) fn mark_initialised(&mut self, space: Space, start: usize, len: usize) {
        let (data, init) = self.parts_mut(space);
        if init.dirty.has_stale() {
            zero_unset(&mut data[start..start + len], &init.words, start);
        }
        init.set_range(start, len);
    }

    /// A pooled memory of `geo`, reset ([`Memory::reset_for_strict_run`] when `strict_run`).
    fn take(geo: Geometry, strict_run: bool) -> Option<Memory> {
        let mut pool = POOL.lock().unwrap_or_else(|e| e.into_inner());
        let at = pool.iter().position(|m| m.geo == geo)?;
        let mut m = pool.swap_remove(at);
        drop(pool);
        if strict_run {
            m.reset_for_strict_run();
        } else {
            m.reset();
        }
        Some(m)
    }

    /// Gives a memory back for a later [`Memory::new`] (it is reset when taken), unless the
    /// pool is full or the memory holds too many pages ([`POOL_RESIDENT_MAX`]).
    pub(crate) fn give(self) {
        let resident = self.sbuf_init.dirty.resident() + self.psum_init.dirty.resident();
        if self.sbuf.is_empty() || resident > POOL_RESIDENT_MAX {
            return;
        }
        let mut pool = POOL.lock().unwrap_or_else(|e| e.into_inner());
        if pool.len() < POOL_MAX {
            pool.push(self);
        }
    }

    /// The generation's geometry.
    pub(crate) fn geometry(&self) -> &Geometry {
        &self.geo
    }

    /// Whether the generation has this space (maverick has no PSUM).
    pub(crate) fn has(&self, space: Space) -> bool {
        match space {
            Space::Sbuf => true,
            Space::Psum => !self.psum.is_empty(),
            Space::Hbm => false,
        }
    }

    /// Active bytes per partition of `space` (0 for a missing space).
    #[inline(always)]
    pub(crate) fn active(&self, space: Space) -> u64 {
        if self.has(space) {
            u64::from(self.geo.active_bytes(space))
        } else {
            0
        }
    }

    /// Distance between partitions in the space's vector (see the module docs).
    #[inline(always)]
    pub(crate) fn stride(&self, space: Space) -> usize {
        stride_of(self.active(space))
    }

    /// Index of byte 0 of partition `p` in the space's vector.
    #[inline(always)]
    pub(crate) fn part_base(&self, space: Space, p: u32) -> usize {
        p as usize * self.stride(space)
    }

    /// The bytes and shadow words of `space`, mutably, with the other space's bytes, for a
    /// writer that changes only bytes `writes` of the space's vector (recorded as written).
    #[inline(always)]
    pub(crate) fn split_for_write(
        &mut self,
        space: Space,
        writes: std::ops::Range<usize>,
    ) -> (&mut [u8], &mut [u64], &[u8]) {
        let (data, init, other) = self.split(space);
        init.dirty.mark(writes.start, writes.len());
        (data, &mut init.words, other)
    }

    /// As [`Memory::split_for_write`], for a writer that changes only bytes `bytes` (offsets
    /// in the partition) of partitions `first..first + parts`.
    #[inline(always)]
    pub(crate) fn split_for_write_parts(
        &mut self,
        space: Space,
        first: u32,
        parts: u32,
        bytes: std::ops::Range<usize>,
    ) -> (&mut [u8], &mut [u64], &[u8]) {
        let (base, stride) = (self.part_base(space, first), self.stride(space));
        let (data, init, other) = self.split(space);
        init.dirty.mark_parts(base, stride, parts as usize, &bytes);
        (data, &mut init.words, other)
    }

    #[inline(always)]
    fn split(&mut self, space: Space) -> (&mut [u8], &mut Shadow, &[u8]) {
        match space {
            Space::Sbuf => (&mut self.sbuf, &mut self.sbuf_init, &self.psum),
            Space::Psum => (&mut self.psum, &mut self.psum_init, &self.sbuf),
            Space::Hbm => (&mut self.none, &mut self.none_init, &self.sbuf),
        }
    }

    /// The bytes of a space.
    #[inline(always)]
    pub(crate) fn data(&self, space: Space) -> &[u8] {
        match space {
            Space::Sbuf => &self.sbuf,
            Space::Psum => &self.psum,
            Space::Hbm => &self.none,
        }
    }

    /// The shadow of a space.
    #[inline(always)]
    pub(crate) fn init(&self, space: Space) -> &Shadow {
        match space {
            Space::Sbuf => &self.sbuf_init,
            Space::Psum => &self.psum_init,
            Space::Hbm => &self.none_init,
        }
    }

    /// Bytes and shadow of a space, mutably: every byte written must be passed to
    /// [`Shadow::set_range`], which records it for [`Memory::reset`].
    #[inline(always)]
    pub(crate) fn parts_mut(&mut self, space: Space) -> (&mut [u8], &mut Shadow) {
        let (data, init, _) = self.split(space);
        (data, init)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // The dirty map's word ranges are a cache of its bits: marks anywhere, resets of both
    // kinds and settles leave `resident` (the pool's bound) and the runs equal to a count
    // over every word.
    #[test]
    fn dirty_word_ranges_agree_with_the_bits() {
        let bytes = 300 * BLOCK;
        let mut d = Dirty::new(bytes);
        let (mut data, mut words) = (vec![1u8; bytes], vec![0u64; bytes / 64]);
        let mut seed = 7u64;
        let mut next = |n: usize| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 33) as usize % n
        };
        let mut ever = vec![0u64; d.now.len()];
        for round in 0..40 {
            for _ in 0..next(5) {
                let (start, len) = (next(bytes - 1), 1 + next(3 * BLOCK));
                d.mark(start, len.min(bytes - start));
            }
            let union: usize = d
                .now
                .iter()
                .zip(&ever)
                .map(|(n, e)| (n | e).count_ones() as usize)
                .sum();
            assert_eq!(d.resident(), union * BLOCK, "round {round}");
            let all: Vec<_> = bit_runs(&d.now).collect();
            assert_eq!(
                runs_in(&d.now, d.now_words.clone()).collect::<Vec<_>>(),
                all
            );
            for (e, n) in ever.iter_mut().zip(&d.now) {
                *e |= n;
            }
            match next(3) {
                0 => d.clear(&mut data, &mut words),
                1 => d.clear_shadow(&mut words),
                _ => d.settle(&mut data, &words),
            }
            assert_eq!(
                d.has_stale(),
                d.stale.iter().any(|&w| w != 0),
                "round {round}"
            );
        }
    }

    // A stale memory's uninitialised bytes read as zero (docs/library.md, "Reuse for strict
    // runs"): `zero_unset` keeps exactly the bytes whose shadow bit is set, for every start
    // and length over three words of mixed shadow.
    #[test]
    fn zero_unset_keeps_exactly_the_initialised_bytes() {
        let words = [0xF0F0_FFFF_0000_1234u64, u64::MAX, 0x8000_0000_0000_0001];
        let vector: Vec<u8> = (0..192).map(|i| 100 + (i % 150) as u8).collect();
        for start in 0..192 {
            for len in 0..=192 - start {
                let mut got = vector[start..start + len].to_vec();
                zero_unset(&mut got, &words, start);
                let want: Vec<u8> = (start..start + len)
                    .map(|i| {
                        if words[i / 64] >> (i % 64) & 1 == 1 {
                            vector[i]
                        } else {
                            0
                        }
                    })
                    .collect();
                assert_eq!(got, want, "start {start} len {len}");
            }
        }
    }

    // decisions §5.2: the unset count of any bit range equals a bit-by-bit count (ranges
    // inside one word, across a boundary, and spanning whole words).
    #[test]
    fn count_unset_words_matches_a_bit_count() {
        let words = [0x0123_4567_89AB_CDEFu64, u64::MAX, 0, 0xF0F0_0000_FFFF_0001];
        let bits = words.len() * 64;
        for start in 0..bits {
            for len in 0..=bits - start {
                let want = (start..start + len)
                    .filter(|&i| words[i / 64] >> (i % 64) & 1 == 0)
                    .count() as u64;
                assert_eq!(
                    Shadow::count_unset_words(&words, start, len),
                    want,
                    "{start}+{len}"
                );
            }
        }
    }

    #[test]
    fn shadow_ranges() {
        let mut s = Shadow::new(300);
        assert!(s.all_set(5, 0));
        assert!(!s.all_set(0, 1));
        s.set_range(3, 130);
        assert!(s.all_set(3, 130));
        assert!(!s.all_set(2, 2));
        assert!(!s.all_set(132, 2));
        assert_eq!(s.count_unset(0, 300), 300 - 130);
        assert!(s.get(64) && s.get(132) && !s.get(133) && !s.get(2));
        s.set_range(0, 300);
        assert!(s.all_set(0, 300));
        assert_eq!(s.count_unset(0, 300), 0);
        let mut t = Shadow::new(128);
        t.set_range(64, 64);
        assert!(t.all_set(64, 64) && !t.all_set(63, 2));
        t.set_range(0, 64);
        assert!(t.all_set(0, 128));
    }

    /// The word-level set and test against a plain bool-per-byte model, for ranges that
    /// start and end inside, on and across word boundaries.
    #[test]
    fn shadow_words_match_a_byte_model() {
        let bits = 320;
        let cuts = [
            0usize, 1, 5, 63, 64, 65, 127, 128, 129, 190, 191, 192, 255, 319, 320,
        ];
        for &a in &cuts {
            for &b in cuts.iter().filter(|&&b| b >= a) {
                let mut s = Shadow::new(bits);
                let mut model = vec![false; bits];
                s.set_range(a, b - a);
                model[a..b].iter_mut().for_each(|x| *x = true);
                for (i, &m) in model.iter().enumerate() {
                    assert_eq!(s.get(i), m, "set {a}..{b}: bit {i}");
                }
                for &c in &cuts {
                    for &d in cuts.iter().filter(|&&d| d >= c) {
                        let want = model[c..d].iter().all(|&x| x);
                        assert_eq!(s.all_set(c, d - c), want, "set {a}..{b}, test {c}..{d}");
                    }
                }
                // A second range over words the first left full, partly set or clear
                // (`set_words` skips the words already holding their bits).
                for &c in &cuts {
                    for &d in cuts.iter().filter(|&&d| d >= c) {
                        let (mut s2, mut m2) = (s.clone(), model.clone());
                        s2.set_range(c, d - c);
                        m2[c..d].iter_mut().for_each(|x| *x = true);
                        for (i, &m) in m2.iter().enumerate() {
                            assert_eq!(s2.get(i), m, "set {a}..{b} then {c}..{d}: bit {i}");
                        }
                    }
                }
            }
        }
    }
}
