//! SBUF and PSUM bytes with the byte-level "initialised" shadow (decisions §3.1, §5.2).
//!
//! Only active bytes are stored: partition `p` of a space starts at `p * stride` in its
//! vector, the stride being the active bytes rounded up to a multiple of 64 (they are
//! multiples already on every generation), plus 17 cache lines of padding when that is a
//! multiple of 4 KiB (see `stride_of`), whatever the address-map stride. The shadow is
//! a bitset, one bit per byte, so each partition owns whole shadow words and the engine can
//! hand partitions to different threads.

use tpb_isa::geometry::{Geometry, Space};
use tpb_isa::Gen;

/// Bytes at or above which a zeroed allocation is always served with fresh zero pages
/// mapped on first touch: glibc's largest dynamic mmap threshold (32 MiB on 64-bit). Below
/// it, once a machine has been freed, glibc serves the next one from its heap and fills
/// every byte with zeros (about 30 MiB of SBUF, PSUM and shadows, 2–3 ms per machine, most
/// of a small kernel's run: issue 21 item 4); other allocators map large blocks anyway.
const FRESH_PAGES_BYTES: usize = 32 << 20;

/// `len` zeros, allocated so that untouched pages cost nothing ([`FRESH_PAGES_BYTES`]):
/// the capacity past `len` is reserved address space, never touched (a clone copies `len`).
/// (`vec![0; n]` asks the allocator for zeroed memory: calloc.)
pub(crate) fn zeroed<T: Clone + Default>(len: usize) -> Vec<T> {
    if len == 0 {
        return Vec::new();
    }
    let at_least = FRESH_PAGES_BYTES.div_ceil(std::mem::size_of::<T>()) + 1;
    let mut v = vec![T::default(); len.max(at_least)];
    v.truncate(len);
    v
}

/// One bit per byte: set once the byte has been written by the host or an instruction.
#[derive(Clone, PartialEq, Eq)]
pub(crate) struct Shadow {
    words: Vec<u64>,
}

impl Shadow {
    fn new(bits: usize) -> Shadow {
        Shadow {
            words: zeroed(bits.div_ceil(64)),
        }
    }

    /// Whether byte `i` is initialised.
    #[inline(always)]
    pub(crate) fn get(&self, i: usize) -> bool {
        self.words[i / 64] >> (i % 64) & 1 != 0
    }

    /// Bits `start..start + len` of a word-range walk: `f(word index, mask)`.
    #[inline(always)]
    fn for_masks(start: usize, len: usize, mut f: impl FnMut(usize, u64) -> bool) -> bool {
        if len == 0 {
            return true;
        }
        let end = start + len;
        let (sw, sb) = (start / 64, start % 64);
        let (ew, eb) = ((end - 1) / 64, (end - 1) % 64 + 1);
        if sw == ew {
            let m = if eb - sb == 64 {
                u64::MAX
            } else {
                ((1u64 << (eb - sb)) - 1) << sb
            };
            return f(sw, m);
        }
        if !f(sw, u64::MAX << sb) {
            return false;
        }
        for w in sw + 1..ew {
            if !f(w, u64::MAX) {
                return false;
            }
        }
        let last = if eb == 64 { u64::MAX } else { (1u64 << eb) - 1 };
        f(ew, last)
    }

    /// Marks bytes `start..start + len` initialised.
    #[inline]
    pub(crate) fn set_range(&mut self, start: usize, len: usize) {
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
    pub(crate) fn count_unset_words(words: &[u64], start: usize, len: usize) -> u64 {
        let mut n = 0u64;
        Self::for_masks(start, len, |w, m| {
            n += u64::from((!words[w] & m).count_ones());
            true
        });
        n
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
#[derive(Clone, PartialEq, Eq)]
pub(crate) struct Memory {
    geo: Geometry,
    sbuf: Vec<u8>,
    psum: Vec<u8>,
    sbuf_init: Shadow,
    psum_init: Shadow,
    /// Empty bytes and shadow that [`Space::Hbm`] maps to here: HBM is not on chip (it lives
    /// in `super::hbm`), so on-chip walks see it as a space of no bytes.
    none: Vec<u8>,
    none_init: Shadow,
}

impl Memory {
    /// Zero bytes, every byte uninitialised (decisions §5.2). The vectors are allocated
    /// zeroed, so untouched pages cost nothing.
    pub(crate) fn new(gen: Gen) -> Memory {
        let geo = Geometry::of(gen);
        let sbuf_len = geo.partitions as usize * stride_of(geo.sbuf_active_bytes.into());
        let psum_len = if geo.psum_buf_sz == 0 {
            0
        } else {
            geo.partitions as usize * stride_of(geo.psum_active_bytes.into())
        };
        Memory {
            geo,
            sbuf: zeroed(sbuf_len),
            psum: zeroed(psum_len),
            sbuf_init: Shadow::new(sbuf_len),
            psum_init: Shadow::new(psum_len),
            none: Vec::new(),
            none_init: Shadow::new(0),
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

    /// The bytes and shadow words of `space`, mutably, with the other space's bytes.
    #[inline(always)]
    pub(crate) fn split_for_write(&mut self, space: Space) -> (&mut [u8], &mut [u64], &[u8]) {
        match space {
            Space::Sbuf => (&mut self.sbuf, &mut self.sbuf_init.words, &self.psum),
            Space::Psum => (&mut self.psum, &mut self.psum_init.words, &self.sbuf),
            Space::Hbm => (&mut self.none, &mut self.none_init.words, &self.sbuf),
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

    /// Bytes and shadow of a space, mutably.
    #[inline(always)]
    pub(crate) fn parts_mut(&mut self, space: Space) -> (&mut [u8], &mut Shadow) {
        match space {
            Space::Sbuf => (&mut self.sbuf, &mut self.sbuf_init),
            Space::Psum => (&mut self.psum, &mut self.psum_init),
            Space::Hbm => (&mut self.none, &mut self.none_init),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
