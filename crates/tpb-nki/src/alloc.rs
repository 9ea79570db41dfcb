//! Tile allocation in SBUF and PSUM: every partition has the same layout, so one free list
//! of byte ranges per space serves all partitions. First fit at [`TILE_ALIGN`]-byte
//! alignment (PSUM tiles that fit one bank do not straddle a bank); freed ranges merge with
//! their neighbours. Our choice: the compiler's allocator is not public.

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

    #[test]
    fn psum_tiles_that_fit_a_bank_stay_in_one() {
        let mut a = Arena::new(16384, true);
        assert_eq!(a.alloc(1536), Some(0));
        // 1024 bytes would straddle the first bank's end: next bank.
        assert_eq!(a.alloc(1024), Some(2048));
        assert_eq!(a.alloc(512), Some(1536));
    }
}
