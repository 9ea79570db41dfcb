//! Tile allocation in SBUF and PSUM: every partition has the same layout, so one free list
//! of byte ranges per space serves all partitions. First fit at [`TILE_ALIGN`]-byte
//! alignment (PSUM tiles that fit one bank do not straddle a bank); freed ranges merge with
//! their neighbours; a PSUM tile larger than a bank starts on a bank boundary (nki-api §2.1:
//! PSUM allocations start at a bank boundary). Our choice: the compiler's allocator is not
//! public. Tiles placed by the kernel (`address=`) are pinned: they take their bytes from
//! the free list, may overlap each other (the kernel manages that space), and go back when
//! the last one over them is freed.

use std::collections::BTreeMap;
use std::ops::Range;

/// Tiles start at offsets aligned to this many bytes.
pub const TILE_ALIGN: u64 = 64;

/// The bytes of one PSUM bank per partition (nki-api §2.4: 8 banks × 2 KiB).
pub const PSUM_BANK_BYTES: u64 = 2048;

/// A free list over `0..total` bytes per partition.
#[derive(Clone, Debug)]
pub struct Arena {
    total: u64,
    /// Free ranges, sorted and disjoint.
    free: Vec<Range<u64>>,
    /// Whether allocations that fit a bank must stay inside one (PSUM).
    banked: bool,
    /// Pinned [`TILE_ALIGN`]-byte blocks (by index) and how many pinned tiles cover each.
    pinned: BTreeMap<u64, u32>,
}

impl Arena {
    /// An empty arena of `total` bytes per partition.
    pub fn new(total: u64, banked: bool) -> Arena {
        Arena {
            total,
            free: if total > 0 {
                std::iter::once(0..total).collect()
            } else {
                Vec::new()
            },
            banked,
            pinned: BTreeMap::new(),
        }
    }

    /// Bytes per partition in all.
    pub fn total(&self) -> u64 {
        self.total
    }

    /// Bytes per partition still free (possibly fragmented).
    pub fn free_bytes(&self) -> u64 {
        self.free.iter().map(|r| r.end - r.start).sum()
    }

    /// The largest allocation that would succeed now.
    pub fn largest_free(&self) -> u64 {
        self.free
            .iter()
            .map(|r| r.end - r.start.next_multiple_of(TILE_ALIGN).min(r.end))
            .max()
            .unwrap_or(0)
    }

    /// Allocates `bytes` (> 0) per partition; the start, or `None` when nothing fits.
    pub fn alloc(&mut self, bytes: u64) -> Option<u64> {
        let size = bytes.next_multiple_of(TILE_ALIGN);
        let (k, at) = self.free.iter().enumerate().find_map(|(k, r)| {
            let mut at = r.start.next_multiple_of(TILE_ALIGN);
            if self.banked && size <= PSUM_BANK_BYTES {
                let bank_end = (at / PSUM_BANK_BYTES + 1) * PSUM_BANK_BYTES;
                if at + size > bank_end {
                    at = bank_end;
                }
            } else if self.banked {
                at = at.next_multiple_of(PSUM_BANK_BYTES);
            }
            (at + size <= r.end).then_some((k, at))
        })?;
        let r = self.free.remove(k);
        if at + size < r.end {
            self.free.insert(k, at + size..r.end);
        }
        if r.start < at {
            self.free.insert(k, r.start..at);
        }
        Some(at)
    }

    /// The pinned blocks `start..start + bytes` covers.
    fn blocks(start: u64, bytes: u64) -> Range<u64> {
        start / TILE_ALIGN..(start + bytes).div_ceil(TILE_ALIGN)
    }

    /// Pins `start..start + bytes` (an `address=` tile): every block must be free or pinned
    /// already. On a conflict nothing changes and the first block in use by a placed tile
    /// comes back.
    pub fn pin(&mut self, start: u64, bytes: u64) -> Result<(), Range<u64>> {
        let blocks = Self::blocks(start, bytes);
        let span = |b: u64| b * TILE_ALIGN..(b + 1) * TILE_ALIGN;
        let is_free = |b: u64| {
            let r = span(b);
            self.free
                .iter()
                .any(|f| f.start <= r.start && r.end <= f.end)
        };
        if let Some(b) = blocks
            .clone()
            .find(|b| !self.pinned.contains_key(b) && !is_free(*b))
        {
            return Err(span(b));
        }
        for b in blocks {
            if !self.pinned.contains_key(&b) {
                self.take(span(b));
            }
            *self.pinned.entry(b).or_insert(0) += 1;
        }
        Ok(())
    }

    /// Whether the block at `start` is pinned.
    pub fn is_pinned(&self, start: u64) -> bool {
        self.pinned.contains_key(&(start / TILE_ALIGN))
    }

    /// Unpins what [`Arena::pin`] pinned; blocks no pinned tile covers any more are free.
    pub fn unpin(&mut self, start: u64, bytes: u64) {
        for b in Self::blocks(start, bytes) {
            if let Some(n) = self.pinned.get_mut(&b) {
                *n -= 1;
                if *n == 0 {
                    self.pinned.remove(&b);
                    self.release(b * TILE_ALIGN, TILE_ALIGN);
                }
            }
        }
    }

    /// Removes `r` (inside one free range) from the free list.
    fn take(&mut self, r: Range<u64>) {
        if let Some(k) = self
            .free
            .iter()
            .position(|f| f.start <= r.start && r.end <= f.end)
        {
            let f = self.free.remove(k);
            if r.end < f.end {
                self.free.insert(k, r.end..f.end);
            }
            if f.start < r.start {
                self.free.insert(k, f.start..r.start);
            }
        }
    }

    /// Returns `start..start + bytes` (as allocated) to the free list.
    pub fn release(&mut self, start: u64, bytes: u64) {
        let end = (start + bytes.next_multiple_of(TILE_ALIGN)).min(self.total);
        let k = self.free.partition_point(|r| r.start < start);
        self.free.insert(k, start..end);
        // Merge with the neighbours.
        if k + 1 < self.free.len() && self.free[k].end >= self.free[k + 1].start {
            let n = self.free.remove(k + 1);
            self.free[k].end = self.free[k].end.max(n.end);
        }
        if k > 0 && self.free[k - 1].end >= self.free[k].start {
            let n = self.free.remove(k);
            self.free[k - 1].end = self.free[k - 1].end.max(n.end);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn freed_space_is_reused_and_merged() {
        let mut a = Arena::new(1024, false);
        let x = a.alloc(100).unwrap();
        let y = a.alloc(64).unwrap();
        assert_eq!((x, y), (0, 128));
        assert_eq!(a.free_bytes(), 1024 - 192);
        a.release(x, 100);
        assert_eq!(a.alloc(64), Some(0));
        a.release(0, 64);
        a.release(y, 64);
        assert_eq!(a.free_bytes(), 1024);
        assert_eq!(a.largest_free(), 1024);
        assert_eq!(a.alloc(2048), None);
    }

    // `address=` tiles: free or pinned space only; the allocator keeps clear of them.
    #[test]
    fn pinned_tiles_share_space_with_each_other_only() {
        let mut a = Arena::new(1024, false);
        let x = a.alloc(100).unwrap();
        assert_eq!(a.pin(64, 64), Err(64..128));
        assert_eq!(a.pin(256, 200), Ok(()));
        assert_eq!(a.pin(384, 64), Ok(()));
        assert!(a.is_pinned(256) && !a.is_pinned(x));
        assert_eq!(a.alloc(64), Some(128));
        assert_eq!(a.alloc(200), Some(512));
        a.unpin(256, 200);
        assert!(a.is_pinned(384));
        assert_eq!(a.alloc(128), Some(192));
        a.unpin(384, 64);
        assert_eq!(a.free_bytes(), 1024 - 128 - 64 - 256 - 128);
    }

    #[test]
    fn psum_tiles_that_fit_a_bank_stay_in_one() {
        let mut a = Arena::new(16384, true);
        assert_eq!(a.alloc(1536), Some(0));
        // 1024 bytes would straddle the first bank's end: next bank.
        assert_eq!(a.alloc(1024), Some(2048));
        assert_eq!(a.alloc(512), Some(1536));
        // Larger than a bank: from a bank boundary.
        assert_eq!(a.alloc(4096), Some(4096));
    }
}
