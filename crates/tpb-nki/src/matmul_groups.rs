//! The PSUM views a matmul has written since anything else touched their bytes: the open
//! accumulation groups NKI's `accumulate=None` adds to (isa-facts-pe-act-dma §1.5.2; see
//! the PE calls in `pe`).

use crate::tile::Tile;
use tpb_isa::geometry::Space;
use tpb_sim::MemAccess;

/// The PSUM views a matmul wrote since anything else touched their bytes: the open
/// accumulation groups `accumulate=None` adds to.
#[derive(Clone, Debug, Default)]
pub(crate) struct MatmulGroups {
    open: Vec<Tile>,
}

impl MatmulGroups {
    /// Whether `dst` (the same view of the same allocation: NKI's "first write" is per
    /// tensor, so another tensor placed at the same bytes starts its own group) has an open
    /// group.
    pub(crate) fn is_open(&self, dst: &Tile) -> bool {
        self.open.iter().any(|t| t == dst && t.alloc == dst.alloc)
    }

    pub(crate) fn open(&mut self, dst: &Tile) {
        // The bytes hold one group: a view of another allocation over them no longer has one.
        self.open.retain(|t| t != dst);
        self.open.push(dst.clone());
    }

    /// Ends every group whose bytes overlap partitions `parts` × bytes `lo..hi` of PSUM.
    pub(crate) fn end_overlapping(&mut self, parts: std::ops::Range<u32>, lo: u64, hi: u64) {
        self.open.retain(|t| {
            let (start, len) = t.hull();
            let p0 = t.start_partition;
            let disjoint_parts = parts.end <= p0 || p0 + t.partitions() <= parts.start;
            disjoint_parts || hi <= start || start + len <= lo
        });
    }

    /// Ends the groups a write by a non-matmul instruction touches.
    pub(crate) fn end_written(&mut self, accesses: &[MemAccess]) {
        if self.open.is_empty() {
            return;
        }
        for a in accesses
            .iter()
            .filter(|a| a.write && a.region.space == Space::Psum)
        {
            let (lo, hi) = (a.region.bytes.start, a.region.bytes.end);
            self.end_overlapping(a.region.partitions.clone(), lo, hi);
        }
    }
}
