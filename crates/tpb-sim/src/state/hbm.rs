//! Device memory (HBM): one flat byte space per core with the same initialised shadow as
//! SBUF (decisions §6.4, §5.2; isa-facts-pe-act-dma §3.2). Its size is a machine setting
//! ([`Config::hbm_bytes`](crate::Config::hbm_bytes)); memory is allocated when first
//! written, so a large HBM costs only what a program touches. Unwritten bytes read as zero
//! and are uninitialised.
//!
//! What the written bytes cost is bounded (issue 29 item 9): they are held in blocks of
//! [`BLOCK`] bytes (plus their shadow) inside 64 KiB pages, so a scattered write costs at
//! most [`BLOCK_COST`] bytes and a page table per element written, and the blocks and pages
//! a machine holds stay under
//! [`Config::max_hbm_held_bytes`](crate::Config::max_hbm_held_bytes) (default
//! [`DEFAULT_MAX_HBM_HELD_BYTES`]): a write that would take them past it is refused before
//! anything is written ([`Hbm::check_growth`]).

use super::Shadow;
use crate::spare::{self, Spares};
use std::collections::{BTreeMap, BTreeSet};

/// Bytes per block (the unit of allocation).
const BLOCK: u64 = 1 << 10;
/// Shadow words per block (one bit per byte).
const BLOCK_WORDS: usize = (BLOCK / 64) as usize;
/// Bytes per page (the unit of look-up): 64 blocks.
const PAGE: u64 = 1 << 16;
/// Blocks per page.
const PAGE_BLOCKS: usize = (PAGE / BLOCK) as usize;

/// Host bytes one block holds: its data and shadow.
pub const BLOCK_COST: u64 = BLOCK + BLOCK / 8;
/// Host bytes of a page's block table.
const PAGE_COST: u64 = (PAGE_BLOCKS * std::mem::size_of::<Option<Box<Block>>>()) as u64;

/// The default for [`Config::max_hbm_held_bytes`](crate::Config::max_hbm_held_bytes): the
/// most bytes of HBM blocks and pages one machine holds, a simulator limit, so that a
/// pattern scattered over a large HBM is refused with an error rather than exhausting the
/// host's memory. About four times the default HBM.
pub const DEFAULT_MAX_HBM_HELD_BYTES: u64 = 4 << 30;

/// The default HBM size: 1 GiB (decisions §6.4).
pub const DEFAULT_HBM_BYTES: u64 = 1 << 30;
/// The largest HBM a machine may be given: 64 GiB, beyond any one core's share of a
/// device's HBM (Trn3's 144 GiB is shared by its cores, isa-facts-pe-act-dma §4.2). A
/// simulator limit: memory is only allocated when written.
pub const MAX_HBM_BYTES: u64 = 1 << 36;

#[derive(Clone, PartialEq, Eq)]
struct Block {
    data: [u8; BLOCK as usize],
    init: [u64; BLOCK_WORDS],
    /// Whether every bit of `init` is set (changed with it, by [`Block::set_init`]): the
    /// count of a written input's unset bytes is then no work (docs/benchmarks.md, "Fourth
    /// pass").
    full: bool,
}

impl Block {
    /// A zero, uninitialised block (a spare one reset, or a new one).
    fn new() -> Box<Block> {
        match take_spare() {
            Some(mut b) => {
                b.data.fill(0);
                b.init = [0; BLOCK_WORDS];
                b.full = false;
                b
            }
            None => Box::new(Block {
                data: [0; BLOCK as usize],
                init: [0; BLOCK_WORDS],
                full: false,
            }),
        }
    }

    /// A block holding `bytes`, every byte initialised (a spare one overwritten, or a new
    /// one made from the bytes: no zero fill first).
    fn from_bytes(bytes: &[u8; BLOCK as usize]) -> Box<Block> {
        match take_spare() {
            Some(mut b) => {
                b.data.copy_from_slice(bytes);
                b.init = [u64::MAX; BLOCK_WORDS];
                b.full = true;
                b
            }
            None => Box::new(Block {
                data: *bytes,
                init: [u64::MAX; BLOCK_WORDS],
                full: true,
            }),
        }
    }

    /// Marks bytes `off..off + len` of the block initialised.
    fn set_init(&mut self, off: usize, len: usize) {
        if len == BLOCK as usize {
            self.init = [u64::MAX; BLOCK_WORDS];
            self.full = true;
        } else if !self.full {
            Shadow::set_words(&mut self.init, off, len);
            self.full = self.init.iter().all(|&w| w == u64::MAX);
        }
    }

    /// How many of bytes `off..off + len` of the block were never written.
    fn unset(&self, off: usize, len: usize) -> u64 {
        if self.full {
            0
        } else {
            Shadow::count_unset_words(&self.init, off, len)
        }
    }
}

/// The most blocks a thread keeps from the machines dropped on it (about 9 MiB).
const MAX_SPARE_BLOCKS: usize = 8192;

thread_local! {
    /// Blocks of the HBMs dropped on this thread, reused by the next machine's writes: a
    /// replayed kernel makes a fresh machine per call, and allocating each of its blocks
    /// anew was a tenth of a memory-bound replay (docs/benchmarks.md, "Third pass"). A
    /// spare block's old contents are always overwritten or zeroed before use
    /// ([`Block::new`], [`Block::from_bytes`]).
    // Boxed: a block moves between a page's slot and this list without copying its bytes.
    #[allow(clippy::vec_box)]
    static SPARE: Spares<Box<Block>> = const { Spares::new(Vec::new()) };
}

/// A spare block of this thread, if any.
fn take_spare() -> Option<Box<Block>> {
    spare::take(&SPARE)
}

impl Drop for Hbm {
    fn drop(&mut self) {
        let pages = std::mem::take(&mut self.pages);
        let blocks = pages
            .into_values()
            .flat_map(|pg| pg.blocks.into_iter().flatten());
        spare::give(&SPARE, blocks, MAX_SPARE_BLOCKS);
    }
}

#[derive(Clone, PartialEq, Eq)]
struct Page {
    blocks: [Option<Box<Block>>; PAGE_BLOCKS],
}

impl Page {
    fn new() -> Box<Page> {
        Box::new(Page {
            blocks: std::array::from_fn(|_| None),
        })
    }
}

/// A write that would take the memory held past the machine's limit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct TooManyPages {
    /// Bytes held before the write.
    pub(crate) held: u64,
    /// Bytes of new blocks and pages the write needs (at least).
    pub(crate) more: u64,
    /// The limit.
    pub(crate) limit: u64,
}

/// An address range outside HBM.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct OutsideHbm {
    /// First byte.
    pub(crate) start: u64,
    /// End (exclusive; saturated).
    pub(crate) end: u64,
    /// The HBM size.
    pub(crate) size: u64,
}

/// The HBM of one core.
#[derive(Clone, PartialEq, Eq)]
pub(crate) struct Hbm {
    size: u64,
    /// The most bytes of blocks and pages it may hold.
    limit: u64,
    pages: BTreeMap<u64, Box<Page>>,
    /// Blocks allocated.
    blocks: u64,
    /// Placed tensors held contiguously, by first byte, disjoint. A block a segment shares
    /// with a neighbour holds only zero, uninitialised bytes in the segment's range (never
    /// read: the segment holds them).
    segments: BTreeMap<u64, Segment>,
}

/// The least bytes a placed tensor needs to be held as a [`Segment`] (smaller ones are a
/// few blocks).
pub const SEGMENT_MIN: u64 = 16 << 10;

/// A placed tensor's bytes, held contiguously, with their shadow.
#[derive(Clone)]
struct Segment {
    len: usize,
    /// The first `data.len()` bytes; the rest are zero (never written, or taken). A tensor
    /// written in order (a host write, a DMA row by row) grows it without a zero fill.
    data: Vec<u8>,
    /// One bit per byte, as a block's; empty while no byte is initialised, and once all are
    /// (`full`).
    init: Vec<u64>,
    /// Every byte is initialised.
    full: bool,
}

impl PartialEq for Segment {
    /// The same bytes and shadow, however they are held.
    fn eq(&self, other: &Segment) -> bool {
        let (a, b) = (&self.data, &other.data);
        let n = a.len().min(b.len());
        let zero = |rest: &[u8]| rest.iter().all(|&x| x == 0);
        let word = |s: &Segment, w: usize| match s.full {
            true => u64::MAX,
            false => s.init.get(w).copied().unwrap_or(0),
        };
        self.len == other.len
            && a[..n] == b[..n]
            && zero(&a[n..])
            && zero(&b[n..])
            && (0..self.len.div_ceil(64)).all(|w| word(self, w) == word(other, w))
    }
}

impl Eq for Segment {}

impl Segment {
    fn new(len: usize) -> Segment {
        Segment {
            len,
            data: Vec::new(),
            init: Vec::new(),
            full: false,
        }
    }

    /// Host bytes a segment of `len` bytes holds once written: its data and shadow.
    fn cost(len: u64) -> u64 {
        len + len.div_ceil(64) * 8
    }

    /// Whether its bytes are held yet (a segment costs nothing until first written).
    fn held(&self) -> bool {
        self.data.capacity() > 0 || !self.init.is_empty()
    }

    /// Bytes `off..off + n` as held: those of `data`, then `Zero` for the rest.
    fn pieces<'a>(&'a self, off: usize, n: usize, f: &mut impl FnMut(Held<'a>)) {
        let have = self.data.len().saturating_sub(off).min(n);
        if have > 0 {
            f(Held::Bytes(&self.data[off..off + have]));
        }
        if have < n {
            f(Held::Zero(n - have));
        }
    }

    fn write(&mut self, off: usize, bytes: &[u8]) {
        let data = &mut self.data;
        if data.capacity() == 0 {
            data.reserve_exact(self.len);
        }
        if data.len() < off {
            data.resize(off, 0);
        }
        let over = data.len().min(off + bytes.len()) - off;
        data[off..off + over].copy_from_slice(&bytes[..over]);
        data.extend_from_slice(&bytes[over..]);
        self.set_init(off, bytes.len());
    }

    /// Marks bytes `off..off + len` initialised.
    fn set_init(&mut self, off: usize, len: usize) {
        if self.full || len == 0 {
            return;
        }
        if len == self.len {
            self.full = true;
            self.init = Vec::new();
            return;
        }
        if self.init.is_empty() {
            self.init = vec![0; self.len.div_ceil(64)];
        }
        Shadow::set_words(&mut self.init, off, len);
    }

    fn count_unset(&self, off: usize, len: usize) -> u64 {
        match (self.full, self.init.is_empty()) {
            (true, _) => 0,
            (false, true) => len as u64,
            _ => Shadow::count_unset_words(&self.init, off, len),
        }
    }

    /// The bytes, leaving the segment zero and uninitialised.
    fn take(&mut self) -> Vec<u8> {
        let mut data = std::mem::take(&mut self.data);
        data.resize(self.len, 0);
        self.init = Vec::new();
        self.full = false;
        data
    }
}

/// Where a part of a byte range is held: in the segment starting at `.0` (then `Some`), or
/// in blocks; and where the part ends.
type Part = (Option<u64>, u64);

/// A cursor over the parts of a byte range ([`Hbm::part`]); it borrows the HBM only while
/// it finds the next part, so the caller may change the HBM between parts.
struct Parts {
    at: u64,
    end: u64,
}

impl Parts {
    fn new(start: u64, len: u64) -> Parts {
        Parts {
            at: start,
            end: start + len,
        }
    }

    /// The next part: the segment holding it (by first byte) or `None` for blocks, and its
    /// bytes `from..to`.
    #[inline]
    fn next(&mut self, hbm: &Hbm) -> Option<(Option<u64>, u64, u64)> {
        if self.at >= self.end {
            return None;
        }
        let (seg, to) = hbm.part(self.at, self.end);
        let from = std::mem::replace(&mut self.at, to);
        Some((seg, from, to))
    }
}

/// One block's share of a byte range: `(page, block in page, offset in block, bytes)`.
#[derive(Clone, Copy)]
struct Piece {
    page: u64,
    block: usize,
    off: usize,
    len: usize,
}

/// One piece of a read: the bytes of a block held, or the length of a piece no block holds
/// (never written: zero).
enum Held<'a> {
    Bytes(&'a [u8]),
    Zero(usize),
}

impl Held<'_> {
    /// Copies the piece into `out` at `*o`, and moves `*o` past it.
    #[inline]
    fn copy_to(self, out: &mut [u8], o: &mut usize) {
        match self {
            Held::Bytes(bytes) => {
                out[*o..*o + bytes.len()].copy_from_slice(bytes);
                *o += bytes.len();
            }
            Held::Zero(n) => {
                out[*o..*o + n].fill(0);
                *o += n;
            }
        }
    }
}

/// Reads and writes of HBM bytes (checked by the caller) by address: the whole HBM, or
/// one segment of it ([`Hbm::segment_mut`]) for ranges inside it.
pub(crate) trait HbmBytes {
    /// Reads `out.len()` bytes from `start`: unwritten bytes are 0.
    fn read(&self, start: u64, out: &mut [u8]);
    /// Writes `bytes` at `start` and marks them initialised.
    fn write(&mut self, start: u64, bytes: &[u8]);
}

impl HbmBytes for Hbm {
    fn read(&self, start: u64, out: &mut [u8]) {
        Hbm::read(self, start, out);
    }
    fn write(&mut self, start: u64, bytes: &[u8]) {
        Hbm::write(self, start, bytes);
    }
}

impl HbmBytes for SegmentMut<'_> {
    #[inline]
    fn read(&self, start: u64, out: &mut [u8]) {
        let mut o = 0;
        let off = (start - self.base) as usize;
        self.seg.pieces(off, out.len(), &mut |piece: Held<'_>| {
            piece.copy_to(out, &mut o)
        });
    }
    #[inline]
    fn write(&mut self, start: u64, bytes: &[u8]) {
        self.seg.write((start - self.base) as usize, bytes);
    }
}

/// The segment of [`Hbm::segment_mut`]; read and written through [`HbmBytes`].
pub(crate) struct SegmentMut<'a> {
    base: u64,
    seg: &'a mut Segment,
}

/// The pieces of `start..start + len`, in order.
fn pieces(start: u64, len: u64) -> impl Iterator<Item = Piece> {
    let end = start + len;
    let mut at = start;
    std::iter::from_fn(move || {
        if at >= end {
            return None;
        }
        let off = at % BLOCK;
        let n = (BLOCK - off).min(end - at);
        let p = Piece {
            page: at / PAGE,
            block: (at % PAGE / BLOCK) as usize,
            off: off as usize,
            len: n as usize,
        };
        at += n;
        Some(p)
    })
}

impl Hbm {
    /// An empty HBM of `size` bytes (at most [`MAX_HBM_BYTES`]; larger sizes are clamped by
    /// the caller's configuration check) holding at most `limit` bytes of blocks and pages.
    pub(crate) fn new(size: u64, limit: u64) -> Hbm {
        Hbm {
            size: size.min(MAX_HBM_BYTES),
            limit,
            pages: BTreeMap::new(),
            blocks: 0,
            segments: BTreeMap::new(),
        }
    }

    /// The size in bytes.
    pub(crate) fn size(&self) -> u64 {
        self.size
    }

    /// Host bytes held for written HBM: blocks (data and shadow), page tables, and the
    /// segments written so far (whole: a segment's first write holds all of it).
    pub(crate) fn allocated(&self) -> u64 {
        let segments: u64 = self
            .segments
            .values()
            .filter(|g| g.held())
            .map(|g| Segment::cost(g.len as u64))
            .sum();
        self.blocks * BLOCK_COST + self.pages.len() as u64 * PAGE_COST + segments
    }

    /// The part of `at..end` (non-empty) that starts at `at`: inside one segment, or in
    /// blocks up to the next segment.
    #[inline]
    fn part(&self, at: u64, end: u64) -> Part {
        if self.segments.is_empty() {
            return (None, end);
        }
        if let Some((&k, g)) = self.segments.range(..=at).next_back() {
            let g_end = k + g.len as u64;
            if g_end > at {
                return (Some(k), g_end.min(end));
            }
        }
        let next = self.segments.range(at..end).next().map_or(end, |(&k, _)| k);
        (None, next)
    }

    /// Holds `start..start + len` (checked by the caller) as one segment, when it is at
    /// least [`SEGMENT_MIN`] bytes and none of its bytes was ever written or marked (so all
    /// are zero: the bytes of a block it shares with a neighbour are then the segment's);
    /// otherwise nothing changes (its bytes will be held in blocks as written). Nothing is
    /// allocated until the segment is first written, which [`Hbm::check_growth`] counts.
    /// Whether it was placed.
    pub(crate) fn place(&mut self, start: u64, len: u64) -> bool {
        let end = start + len;
        let free = len >= SEGMENT_MIN
            && usize::try_from(len).is_ok()
            && self.part(start, end) == (None, end)
            && self.count_unset_blocks(start, len) == len;
        if free {
            self.segments.insert(start, Segment::new(len as usize));
        }
        free
    }

    /// Moves out the bytes of the segment holding exactly `start..start + len`, if one
    /// does (no copy); the segment then reads zero and uninitialised.
    pub(crate) fn take_segment(&mut self, start: u64, len: u64) -> Option<Vec<u8>> {
        let g = self.segments.get_mut(&start)?;
        (g.len as u64 == len).then(|| g.take())
    }

    /// Checks that `start..start + len` lies inside HBM.
    pub(crate) fn check(&self, start: u64, len: u64) -> Result<(), OutsideHbm> {
        match start.checked_add(len) {
            Some(end) if end <= self.size => Ok(()),
            end => Err(OutsideHbm {
                start,
                end: end.unwrap_or(u64::MAX),
                size: self.size,
            }),
        }
    }

    /// Checks that writing the byte ranges `writes` (each checked by the caller) keeps the
    /// memory held within its limit; nothing is allocated.
    pub(crate) fn check_growth(
        &self,
        writes: impl Iterator<Item = (u64, u64)> + Clone,
    ) -> Result<(), TooManyPages> {
        let held = self.allocated();
        let limit = self.limit;
        let room = limit.saturating_sub(held);
        // Cheap bound first: every range's blocks and pages, as if none were held yet.
        let span = |start: u64, len: u64, unit: u64| match len {
            0 => 0,
            _ => (start + len - 1) / unit - start / unit + 1,
        };
        // A write into a segment not written yet holds all of it: every such segment counts.
        let unheld: u64 = self
            .segments
            .values()
            .filter(|g| !g.held())
            .map(|g| Segment::cost(g.len as u64))
            .sum();
        let bound = writes
            .clone()
            .map(|(s, l)| span(s, l, BLOCK) * BLOCK_COST + span(s, l, PAGE) * PAGE_COST)
            .fold(unheld, u64::saturating_add);
        if bound <= room {
            return Ok(());
        }
        // Bounded work: counting stops once the new blocks and segments found pass the room
        // left. A segment not written yet costs all of it.
        let (mut blocks, mut pages, mut segments) =
            (BTreeSet::new(), BTreeSet::new(), BTreeSet::new());
        let mut new_segments = 0u64;
        let parts = writes.flat_map(|(start, len)| {
            let mut parts = Parts::new(start, len);
            std::iter::from_fn(move || parts.next(self))
        });
        for (seg, from, to) in parts {
            let in_blocks = match seg {
                Some(k) => {
                    let unheld = self.segments.get(&k).filter(|g| !g.held());
                    if let Some(g) = unheld.filter(|_| segments.insert(k)) {
                        new_segments += Segment::cost(g.len as u64);
                    }
                    None
                }
                None => Some(pieces(from, to - from)),
            };
            let more = |blocks: &BTreeSet<u64>, pages: &BTreeSet<u64>| {
                blocks.len() as u64 * BLOCK_COST + pages.len() as u64 * PAGE_COST + new_segments
            };
            if more(&blocks, &pages) > room {
                let more = more(&blocks, &pages);
                return Err(TooManyPages { held, more, limit });
            }
            for p in in_blocks.into_iter().flatten() {
                let page = self.pages.get(&p.page);
                if page.is_some_and(|pg| pg.blocks[p.block].is_some()) {
                    continue;
                }
                blocks.insert(p.page * PAGE_BLOCKS as u64 + p.block as u64);
                if page.is_none() {
                    pages.insert(p.page);
                }
                if more(&blocks, &pages) > room {
                    let more = more(&blocks, &pages);
                    return Err(TooManyPages { held, more, limit });
                }
            }
        }
        Ok(())
    }

    /// Calls `f` with each piece of `start..start + len` (checked by the caller), in order.
    fn each_piece<'a>(&'a self, start: u64, len: u64, mut f: impl FnMut(Held<'a>)) {
        let mut parts = Parts::new(start, len);
        while let Some((seg, from, to)) = parts.next(self) {
            match seg.and_then(|k| Some((k, self.segments.get(&k)?))) {
                Some((k, g)) => g.pieces((from - k) as usize, (to - from) as usize, &mut f),
                None => self.each_block_piece(from, to - from, &mut f),
            }
        }
    }

    /// [`Hbm::each_piece`] of a range no segment holds.
    fn each_block_piece<'a>(&'a self, start: u64, len: u64, f: &mut impl FnMut(Held<'a>)) {
        let mut page: Option<(u64, Option<&Page>)> = None;
        for p in pieces(start, len) {
            let pg = match page {
                Some((k, pg)) if k == p.page => pg,
                _ => {
                    let pg = self.pages.get(&p.page).map(|b| &**b);
                    page = Some((p.page, pg));
                    pg
                }
            };
            match pg.and_then(|pg| pg.blocks[p.block].as_deref()) {
                Some(b) => f(Held::Bytes(&b.data[p.off..p.off + p.len])),
                None => f(Held::Zero(p.len)),
            }
        }
    }

    /// Reads `out.len()` bytes from `start` (checked by the caller): unwritten bytes are 0.
    pub(crate) fn read(&self, start: u64, out: &mut [u8]) {
        let mut o = 0;
        self.each_piece(start, out.len() as u64, |piece| piece.copy_to(out, &mut o));
    }

    /// The segment holding all of `start..start + len`, if one does: found once for many
    /// reads and writes inside it (a DMA's rows), each then without a look-up.
    pub(crate) fn segment_mut(&mut self, start: u64, len: u64) -> Option<SegmentMut<'_>> {
        let (&base, seg) = self.segments.range_mut(..=start).next_back()?;
        (base + seg.len as u64 >= start + len).then_some(SegmentMut { base, seg })
    }

    /// Appends the `len` bytes from `start` (checked by the caller) to `out`, unwritten
    /// bytes as 0: [`Hbm::read`] without filling the buffer first.
    pub(crate) fn read_append(&self, start: u64, len: u64, out: &mut Vec<u8>) {
        self.each_piece(start, len, |piece| match piece {
            Held::Bytes(bytes) => out.extend_from_slice(bytes),
            Held::Zero(n) => out.resize(out.len() + n, 0),
        });
    }

    /// Writes `bytes` at `start` (checked by the caller) and marks them initialised.
    pub(crate) fn write(&mut self, start: u64, bytes: &[u8]) {
        let mut parts = Parts::new(start, bytes.len() as u64);
        while let Some((seg, from, to)) = parts.next(self) {
            let src = &bytes[(from - start) as usize..(to - start) as usize];
            match seg.and_then(|k| Some((k, self.segments.get_mut(&k)?))) {
                Some((k, g)) => g.write((from - k) as usize, src),
                None => self.write_blocks(from, src),
            }
        }
    }

    /// [`Hbm::write`] to a range no segment holds.
    fn write_blocks(&mut self, start: u64, bytes: &[u8]) {
        let mut o = 0;
        self.each_slot(start, bytes.len() as u64, |slot, p| {
            let src = &bytes[o..o + p.len];
            o += p.len;
            if slot.is_none() {
                if let Ok(whole) = <&[u8; BLOCK as usize]>::try_from(src) {
                    // A new block written whole: no zero fill first.
                    *slot = Some(Block::from_bytes(whole));
                    return;
                }
            }
            let b = slot.get_or_insert_with(Block::new);
            b.data[p.off..p.off + p.len].copy_from_slice(src);
            b.set_init(p.off, p.len);
        });
    }

    /// Marks `start..start + len` (checked by the caller, with [`Hbm::check_growth`])
    /// initialised, keeping the bytes (a block not held yet is held, zero).
    pub(crate) fn mark(&mut self, start: u64, len: u64) {
        let mut parts = Parts::new(start, len);
        while let Some((seg, from, to)) = parts.next(self) {
            match seg.and_then(|k| Some((k, self.segments.get_mut(&k)?))) {
                Some((k, g)) => g.set_init((from - k) as usize, (to - from) as usize),
                None => self.each_block(from, to - from, |b, p| b.set_init(p.off, p.len)),
            }
        }
    }

    /// Calls `f` with the block holding each piece of `start..start + len`, in order, holding
    /// (zero) the blocks not held yet.
    fn each_block(&mut self, start: u64, len: u64, mut f: impl FnMut(&mut Block, &Piece)) {
        self.each_slot(start, len, |slot, p| {
            f(slot.get_or_insert_with(Block::new), p)
        });
    }

    /// Calls `f` with the slot of the block holding each piece of `start..start + len`, in
    /// order (empty for a block not held yet; `f` may fill it); counts the blocks it fills.
    fn each_slot(
        &mut self,
        start: u64,
        len: u64,
        mut f: impl FnMut(&mut Option<Box<Block>>, &Piece),
    ) {
        let mut cur: Option<(u64, &mut Page)> = None;
        for p in pieces(start, len) {
            if cur.as_ref().is_none_or(|(k, _)| *k != p.page) {
                cur = Some((
                    p.page,
                    &mut **self.pages.entry(p.page).or_insert_with(Page::new),
                ));
            }
            let Some((_, page)) = cur.as_mut() else {
                continue; // not reached: set just above
            };
            let slot = &mut page.blocks[p.block];
            let was_held = slot.is_some();
            f(slot, &p);
            if !was_held && slot.is_some() {
                self.blocks += 1;
            }
        }
    }

    /// How many bytes of `start..start + len` (checked by the caller) were never written:
    /// the work is per block held in the range, not per byte of the range.
    pub(crate) fn count_unset(&self, start: u64, len: u64) -> u64 {
        let mut parts = Parts::new(start, len);
        let mut unset = 0;
        while let Some((seg, from, to)) = parts.next(self) {
            unset += match seg.and_then(|k| Some((k, self.segments.get(&k)?))) {
                Some((k, g)) => g.count_unset((from - k) as usize, (to - from) as usize),
                None => self.count_unset_blocks(from, to - from),
            };
        }
        unset
    }

    /// [`Hbm::count_unset`] of a range no segment holds.
    fn count_unset_blocks(&self, start: u64, len: u64) -> u64 {
        if len == 0 {
            return 0;
        }
        let end = start + len;
        let mut set = 0u64;
        for (&page, pg) in self.pages.range(start / PAGE..=(end - 1) / PAGE) {
            // Only the page's blocks the range overlaps (a row of a tile is a few of 64).
            let first = (start.max(page * PAGE) - page * PAGE) / BLOCK;
            let last = (end.min((page + 1) * PAGE) - 1 - page * PAGE) / BLOCK;
            let blocks = pg.blocks[first as usize..=last as usize].iter();
            for (k, b) in (first as usize..).zip(blocks) {
                let Some(b) = b else { continue };
                let base = page * PAGE + k as u64 * BLOCK;
                let (from, to) = (start.max(base), end.min(base + BLOCK));
                if from >= to {
                    continue;
                }
                let n = (to - from) as usize;
                let off = (from - base) as usize;
                set += n as u64 - b.unset(off, n);
            }
        }
        len - set
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A seeded generator of numbers below its argument (an LCG: the tests' random cases).
    fn below(mut seed: u64) -> impl FnMut(u64) -> u64 {
        move |n| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 33) % n
        }
    }

    // decisions §5.2: a block reused from a machine dropped on this thread holds nothing of
    // it: a partly written block reads zero and uninitialised outside the write, a block
    // written whole holds exactly the new bytes.
    #[test]
    fn a_reused_block_starts_zero_and_uninitialised() {
        let junk = vec![0xA5u8; 8 * BLOCK as usize];
        let mut old = Hbm::new(4 * PAGE, DEFAULT_MAX_HBM_HELD_BYTES);
        old.write(0, &junk);
        drop(old);
        let spares = SPARE.with(|s| s.borrow().len());
        assert!(spares >= 8, "{spares} spare blocks after dropping 8");
        let mut h = Hbm::new(4 * PAGE, DEFAULT_MAX_HBM_HELD_BYTES);
        // Partial: 10 bytes into a block.
        h.write(BLOCK + 100, &[7; 10]);
        let mut back = vec![0xFF; BLOCK as usize];
        h.read(BLOCK, &mut back);
        let mut want = vec![0u8; BLOCK as usize];
        want[100..110].fill(7);
        assert_eq!(back, want);
        assert_eq!(h.count_unset(BLOCK, BLOCK), BLOCK - 10);
        // Whole.
        let bytes: Vec<u8> = (0..BLOCK).map(|i| i as u8).collect();
        h.write(3 * BLOCK, &bytes);
        h.read(3 * BLOCK, &mut back);
        assert_eq!(back, bytes);
        assert_eq!(h.count_unset(3 * BLOCK, BLOCK), 0);
        // Marked only: the bytes stay zero.
        h.mark(5 * BLOCK, 16);
        h.read(5 * BLOCK, &mut back);
        assert_eq!(back, vec![0u8; BLOCK as usize]);
        assert_eq!(h.count_unset(5 * BLOCK, BLOCK), BLOCK - 16);
        assert_eq!(SPARE.with(|s| s.borrow().len()), spares - 3);
    }

    // decisions §6.4 / §5.2: the appending read gives the bytes of the plain read (held
    // blocks, a block written in part, blocks and pages never written), after what the
    // buffer already holds.
    #[test]
    fn read_append_matches_read() {
        let mut h = Hbm::new(4 * PAGE, DEFAULT_MAX_HBM_HELD_BYTES);
        let data: Vec<u8> = (0..3 * BLOCK).map(|i| (i * 7 + 1) as u8).collect();
        h.write(PAGE - BLOCK - 5, &data);
        h.write(3 * PAGE + 9, &[3; 20]);
        for (start, len) in [
            (0, 4 * PAGE),
            (PAGE - 2 * BLOCK, 5 * BLOCK),
            (PAGE - BLOCK - 5, 3 * BLOCK),
            (3 * PAGE, 40),
            (2 * PAGE + 3, 17),
            (7, 0),
        ] {
            let mut want = vec![0xEEu8; len as usize];
            h.read(start, &mut want);
            let mut got = vec![1, 2, 3];
            h.read_append(start, len, &mut got);
            assert_eq!(&got[..3], &[1, 2, 3]);
            assert!(got[3..] == want[..], "{start}+{len}");
        }
    }

    // decisions §6.4 / §5.2: HBM starts zero and uninitialised; writes across a block and
    // a page boundary read back and become initialised; the size bounds every access.
    #[test]
    fn hbm_reads_writes_and_shadow() {
        let mut h = Hbm::new(4 * PAGE, DEFAULT_MAX_HBM_HELD_BYTES);
        assert_eq!(h.count_unset(0, 4 * PAGE), 4 * PAGE);
        let data: Vec<u8> = (0..100).collect();
        let at = PAGE - 40;
        h.check(at, 100).unwrap();
        h.write(at, &data);
        let mut back = vec![0xFF; 100];
        h.read(at, &mut back);
        assert_eq!(back, data);
        assert_eq!(h.count_unset(at - 10, 120), 20);
        // Two blocks in two pages.
        assert_eq!(h.allocated(), 2 * BLOCK_COST + 2 * PAGE_COST);
        let mut z = [0xFFu8; 8];
        h.read(3 * PAGE, &mut z);
        assert_eq!(z, [0; 8]);
        assert!(h.check(4 * PAGE - 1, 1).is_ok());
        assert_eq!(
            h.check(4 * PAGE - 1, 2),
            Err(OutsideHbm {
                start: 4 * PAGE - 1,
                end: 4 * PAGE + 1,
                size: 4 * PAGE
            })
        );
        assert!(h.check(u64::MAX, 2).is_err());
    }

    // The word-level shadow of HBM blocks against a bool-per-byte model: writes and counts
    // starting and ending inside, on and across shadow words, blocks and pages.
    #[test]
    fn hbm_shadow_matches_a_byte_model() {
        let cuts = [
            0u64,
            1,
            63,
            64,
            65,
            200,
            BLOCK - 1,
            BLOCK + 3,
            PAGE - 65,
            PAGE - 1,
            PAGE,
            PAGE + 1,
            PAGE + 130,
            2 * PAGE + BLOCK,
        ];
        for &a in &cuts {
            for &b in cuts.iter().filter(|&&b| b > a) {
                let mut h = Hbm::new(3 * PAGE, DEFAULT_MAX_HBM_HELD_BYTES);
                let mut model = vec![false; 3 * PAGE as usize];
                h.write(a, &vec![7; (b - a) as usize]);
                model[a as usize..b as usize]
                    .iter_mut()
                    .for_each(|x| *x = true);
                // Unwritten bytes before each byte, to count any range at once.
                let mut before = vec![0u64; model.len() + 1];
                for (i, &m) in model.iter().enumerate() {
                    before[i + 1] = before[i] + u64::from(!m);
                }
                for &c in &cuts {
                    for &d in cuts.iter().filter(|&&d| d >= c) {
                        let want = before[d as usize] - before[c as usize];
                        assert_eq!(h.count_unset(c, d - c), want, "{a}..{b}, {c}..{d}");
                    }
                }
                // Read back around the write (and across the next block boundary).
                let (lo, hi) = (a.saturating_sub(70), (b + BLOCK + 70).min(3 * PAGE));
                let mut back = vec![0xEE; (hi - lo) as usize];
                h.read(lo, &mut back);
                let want: Vec<u8> = model[lo as usize..hi as usize]
                    .iter()
                    .map(|&m| if m { 7 } else { 0 })
                    .collect();
                assert!(back == want, "{a}..{b}: read back");
            }
        }
    }

    // A block's "every byte written" flag follows its shadow: writes and marks of random
    // pieces that fill blocks in several steps count like a bool-per-byte model.
    #[test]
    fn a_block_filled_piece_by_piece_counts_like_a_byte_model() {
        let mut next = below(11);
        for _case in 0..40 {
            let mut h = Hbm::new(PAGE, DEFAULT_MAX_HBM_HELD_BYTES);
            let mut model = vec![false; 3 * BLOCK as usize];
            for _ in 0..12 {
                let start = next(3 * BLOCK - 1);
                let len = 1 + next((3 * BLOCK - start).min(BLOCK + 100));
                if next(2) == 0 {
                    h.write(start, &vec![1; len as usize]);
                } else {
                    h.mark(start, len);
                }
                model[start as usize..(start + len) as usize].fill(true);
                for (c, d) in [
                    (0, 3 * BLOCK),
                    (0, BLOCK),
                    (BLOCK, 2 * BLOCK),
                    (start, start + len),
                ] {
                    let want = model[c as usize..d as usize]
                        .iter()
                        .filter(|&&m| !m)
                        .count();
                    assert_eq!(h.count_unset(c, d - c), want as u64, "{c}..{d}");
                }
            }
        }
    }

    // Issue 29 item 9: what a write needs is known before it runs, exactly for held blocks
    // and pages, and a scattered pattern past the limit is refused.
    #[test]
    fn growth_is_checked_before_writing() {
        let limit = 64 * (BLOCK_COST + PAGE_COST);
        let mut h = Hbm::new(MAX_HBM_BYTES, limit);
        h.write(10, &[1; 4]);
        let held = h.allocated();
        assert_eq!(held, BLOCK_COST + PAGE_COST);
        // Into the block already held: nothing new, even with no room for a new block.
        let mut full = Hbm::new(MAX_HBM_BYTES, held);
        full.write(10, &[1; 4]);
        assert_eq!(full.check_growth([(12u64, 100u64)].into_iter()), Ok(()));
        assert!(full.check_growth([(12u64, BLOCK)].into_iter()).is_err());
        // Four bytes every 64 KiB over the whole 64 GiB: one block and one page each, far
        // past the limit; counting stops at the limit (63 more fit).
        let scattered = (0..MAX_HBM_BYTES / PAGE).map(|k| (k * PAGE + 8, 4));
        let e = h.check_growth(scattered).unwrap_err();
        assert_eq!((e.held, e.limit), (held, limit));
        // The first element shares the held block and page; then 63 fit, the 64th does not.
        assert_eq!(e.more, 64 * (BLOCK_COST + PAGE_COST), "{e:?}");
        assert_eq!(h.allocated(), held, "nothing allocated");
        // 63 of them fit, and cost what was counted.
        let fit: Vec<(u64, u64)> = (1..64).map(|k| (k * PAGE + 8, 4)).collect();
        assert_eq!(h.check_growth(fit.iter().copied()), Ok(()));
        for &(at, len) in &fit {
            h.write(at, &vec![2; len as usize]);
        }
        assert_eq!(h.allocated(), limit);
        // A dense write of 16 blocks in one page fits a limit of exactly that.
        let dense = Hbm::new(MAX_HBM_BYTES, 16 * BLOCK_COST + PAGE_COST);
        assert_eq!(dense.check_growth([(0u64, 16 * BLOCK)].into_iter()), Ok(()));
        assert!(dense
            .check_growth([(0u64, 16 * BLOCK + 1)].into_iter())
            .is_err());
    }

    // A placed tensor (a segment) holds the same bytes and shadow as blocks would: random
    // writes, marks, reads and counts over a segment that shares its first and last blocks
    // with written neighbours, on one HBM with the segment and one without, against a
    // byte model; then the segment's bytes are taken whole.
    #[test]
    fn a_segment_holds_what_blocks_hold() {
        let mut next = below(5);
        let (at, len) = (BLOCK + 100, SEGMENT_MIN + 3 * BLOCK + 7);
        let size = 2 * PAGE;
        for case in 0..30 {
            let mut seg = Hbm::new(size, DEFAULT_MAX_HBM_HELD_BYTES);
            let mut blk = Hbm::new(size, DEFAULT_MAX_HBM_HELD_BYTES);
            let mut bytes = vec![0u8; size as usize];
            let mut init = vec![false; size as usize];
            // Neighbours written first, in the segment's first and last blocks.
            for h in [&mut seg, &mut blk] {
                h.write(at - 50, &[9; 50]);
                h.write(at + len, &[8; 30]);
            }
            bytes[(at - 50) as usize..at as usize].fill(9);
            init[(at - 50) as usize..at as usize].fill(true);
            bytes[(at + len) as usize..(at + len + 30) as usize].fill(8);
            init[(at + len) as usize..(at + len + 30) as usize].fill(true);
            assert!(seg.place(at, len), "case {case}");
            assert!(!seg.place(at, len), "placed twice");
            for _ in 0..40 {
                let start = at - 200 + next(len + 400);
                let n = 1 + next((at + len + 200 - start).min(3 * BLOCK));
                let r = start as usize..(start + n) as usize;
                match next(4) {
                    0 | 1 => {
                        let v: Vec<u8> = (0..n).map(|i| (i as u8) ^ (case as u8) | 1).collect();
                        seg.write(start, &v);
                        blk.write(start, &v);
                        bytes[r.clone()].copy_from_slice(&v);
                        init[r].fill(true);
                    }
                    2 => {
                        seg.mark(start, n);
                        blk.mark(start, n);
                        init[r].fill(true);
                    }
                    _ => {}
                }
                let (c, d) = (at - 300 + next(200), at + len - 100 + next(300));
                for h in [&seg, &blk] {
                    let mut got = vec![0xEE; (d - c) as usize];
                    h.read(c, &mut got);
                    assert!(got[..] == bytes[c as usize..d as usize], "read {c}..{d}");
                    let mut app = vec![1];
                    h.read_append(c, d - c, &mut app);
                    assert!(app[1..] == bytes[c as usize..d as usize], "read_append");
                    let want = init[c as usize..d as usize].iter().filter(|&&x| !x).count();
                    assert_eq!(h.count_unset(c, d - c), want as u64, "count {c}..{d}");
                }
            }
            assert_eq!(blk.take_segment(at, len), None, "no segment there");
            assert_eq!(seg.take_segment(at, len - 1), None, "not the whole segment");
            let taken = seg.take_segment(at, len).unwrap();
            assert!(taken[..] == bytes[at as usize..(at + len) as usize]);
            // Taken: zero and uninitialised; the neighbours are untouched.
            let mut back = vec![0xEE; len as usize];
            seg.read(at, &mut back);
            assert!(back.iter().all(|&x| x == 0));
            assert_eq!(seg.count_unset(at, len), len);
            assert_eq!(seg.count_unset(at - 50, 50), 0);
            assert_eq!(seg.count_unset(at + len, 30), 0);
        }
    }

    // Where a segment may be placed: nothing of it written or marked, large enough, not over
    // another segment; it is held (and counted against the limit) from its first write.
    #[test]
    fn a_segment_is_placed_only_over_unwritten_bytes() {
        let mut h = Hbm::new(4 * PAGE, DEFAULT_MAX_HBM_HELD_BYTES);
        assert!(!h.place(0, SEGMENT_MIN - 1), "too small");
        h.mark(PAGE + 5, 1);
        assert!(!h.place(PAGE, SEGMENT_MIN), "a byte marked");
        h.write(2 * PAGE - 1, &[1]);
        assert!(
            !h.place(2 * PAGE - SEGMENT_MIN, SEGMENT_MIN),
            "a byte written"
        );
        assert!(h.place(2 * PAGE, SEGMENT_MIN), "after a written byte");
        assert!(!h.place(2 * PAGE + 1, SEGMENT_MIN), "over a segment");
        assert!(!h.place(2 * PAGE - 10, SEGMENT_MIN), "into a segment");
        // Two blocks in one page; the segment costs nothing until written.
        let cost = SEGMENT_MIN + SEGMENT_MIN / 8;
        assert_eq!(h.allocated(), 2 * BLOCK_COST + PAGE_COST);
        h.write(2 * PAGE + 5, &[1; 3]);
        assert_eq!(h.allocated(), 2 * BLOCK_COST + PAGE_COST + cost);
        // Growth: the first write into a segment needs all of it, later ones nothing, and
        // the cheap bound counts every segment not written yet.
        let mut tight = Hbm::new(4 * PAGE, cost - 1);
        assert!(tight.place(0, SEGMENT_MIN), "placing holds nothing");
        let e = tight.check_growth([(5u64, 1u64)].into_iter()).unwrap_err();
        assert_eq!((e.held, e.more, e.limit), (0, cost, cost - 1));
        let mut full = Hbm::new(4 * PAGE, cost);
        assert!(full.place(0, SEGMENT_MIN));
        assert_eq!(full.check_growth([(5u64, 1u64)].into_iter()), Ok(()));
        full.write(5, &[1]);
        assert_eq!(full.allocated(), cost);
        assert_eq!(full.check_growth([(0u64, SEGMENT_MIN)].into_iter()), Ok(()));
        assert!(full
            .check_growth([(0u64, SEGMENT_MIN + 1)].into_iter())
            .is_err());
        // Two segments not written yet, a write into the second: it alone is counted.
        let mut two = Hbm::new(4 * PAGE, cost);
        assert!(two.place(0, SEGMENT_MIN) && two.place(PAGE, SEGMENT_MIN));
        assert_eq!(two.check_growth([(PAGE + 9, 4u64)].into_iter()), Ok(()));
        assert!(two
            .check_growth([(9u64, 4u64), (PAGE + 9, 4u64)].into_iter())
            .is_err());
    }

    #[test]
    fn a_segment_found_once_reads_and_writes_as_the_hbm_does() {
        // `segment_mut` (a DMA's rows in one placed tensor): only a range the segment holds
        // whole; a write and a read through it are those of `Hbm::write` and `Hbm::read`,
        // the unwritten bytes after the written ones included.
        let mut h = Hbm::new(4 * PAGE, DEFAULT_MAX_HBM_HELD_BYTES);
        let at = PAGE + 64;
        assert!(h.place(at, SEGMENT_MIN));
        assert!(
            h.segment_mut(at - 1, 2).is_none(),
            "starts before the segment"
        );
        assert!(
            h.segment_mut(at + SEGMENT_MIN - 1, 2).is_none(),
            "ends past it"
        );
        assert!(h.segment_mut(0, 8).is_none(), "no segment there");
        let mut plain = Hbm::new(4 * PAGE, DEFAULT_MAX_HBM_HELD_BYTES);
        let rows: Vec<(u64, Vec<u8>)> = (0..8u8)
            .map(|k| {
                (
                    at + 300 * u64::from(k) + 7,
                    vec![k + 1; 100 + usize::from(k)],
                )
            })
            .collect();
        {
            let mut g = h.segment_mut(at, SEGMENT_MIN).expect("the whole segment");
            for (x, bytes) in rows.iter().rev() {
                HbmBytes::write(&mut g, *x, bytes);
            }
            let mut got = vec![0xAA; 3000];
            HbmBytes::read(&g, at, &mut got);
            for (x, bytes) in &rows {
                plain.write(*x, bytes);
            }
            let mut want = vec![0; 3000];
            plain.read(at, &mut want);
            assert_eq!(got, want);
        }
        let mut through_hbm = vec![0xAA; SEGMENT_MIN as usize];
        h.read(at, &mut through_hbm);
        let mut want = vec![0; SEGMENT_MIN as usize];
        plain.read(at, &mut want);
        assert_eq!(through_hbm, want);
        let (x, bytes) = &rows[3];
        assert_eq!(h.count_unset(*x - 1, bytes.len() as u64 + 2), 2);
    }
}
