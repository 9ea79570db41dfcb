//! A tile: a contiguous, partition-major array in SBUF or PSUM, as NKI allocates them.

use std::fmt;
use tpb_isa::geometry::Space;
use tpb_isa::pack::{AccessPattern, Dim, DimOrder};
use tpb_isa::Dtype;

/// `shape[0]` partitions from `start_partition`, each holding the free dims `shape[1..]`
/// (C order) contiguously from byte `offset`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Tile {
    /// SBUF or PSUM.
    pub space: Space,
    /// First partition.
    pub start_partition: u32,
    /// Byte offset inside each partition.
    pub offset: u64,
    /// Element type.
    pub dtype: Dtype,
    /// The array shape, partition dimension first.
    pub shape: Vec<usize>,
}

/// The largest count a descriptor's `num` word holds.
const MAX_NUM: u64 = u16::MAX as u64;
/// The largest step a descriptor's signed `step` word holds.
const MAX_STEP: u64 = i16::MAX as u64;

impl Tile {
    /// Partitions (`shape[0]`).
    pub fn partitions(&self) -> u32 {
        self.shape.first().copied().unwrap_or(0) as u32
    }

    /// Elements per partition (the product of the free dims).
    pub fn free_elements(&self) -> u64 {
        self.shape.iter().skip(1).map(|&d| d as u64).product()
    }

    /// Bytes per partition.
    pub fn row_bytes(&self) -> u64 {
        self.free_elements() * self.dtype.size().unwrap_or(0) as u64
    }

    /// The tile as a host tensor (partitions × elements per partition; an HBM tensor is one
    /// flat row of all its elements from its address, `offset`).
    pub fn host(&self) -> tpb_sim::HostTensor {
        if self.space == Space::Hbm {
            let n = self.shape.iter().map(|&d| d as u64).product();
            return tpb_sim::HostTensor::hbm(self.offset).elements(self.dtype, n);
        }
        let p = self.start_partition;
        tpb_sim::HostTensor::at(self.space, p..p + self.partitions())
            .offset(self.offset)
            .elements(self.dtype, self.free_elements())
    }

    /// The access pattern that walks the whole tile in order. The free dims are contiguous,
    /// so they merge into one `[1, N]` dim; an `N` too large for one count word is split
    /// into `[[k, N/k], [1, k]]` with the largest `k` that divides `N` and fits the signed
    /// step word (`k <= 32767`, `N/k <= 65535`). `None` when no such split exists.
    pub fn access_pattern(&self) -> Option<AccessPattern> {
        let n = self.free_elements();
        let dims = if n <= MAX_NUM {
            vec![Dim::new(1, n as i64)]
        } else {
            let k = (1..=MAX_STEP)
                .rev()
                .find(|&k| n.is_multiple_of(k) && n / k <= MAX_NUM)?;
            vec![Dim::new(k as i64, (n / k) as i64), Dim::new(1, k as i64)]
        };
        Some(
            AccessPattern::new(
                self.space,
                self.start_partition,
                i64::from(self.partitions()),
                self.offset,
            )
            .with_free(dims, DimOrder::OutermostFirst),
        )
    }

    /// The whole tile as a DMA view (`[[step, count], …]` outermost first, C order; on chip
    /// the first pair is the partition dimension).
    pub fn dma_view(&self) -> tpb_sim::dma::DmaView {
        use tpb_sim::dma::{DmaPlace, DmaView};
        let mut pattern = Vec::with_capacity(self.shape.len());
        let mut stride = 1i64;
        let on_chip = self.space != Space::Hbm;
        for (k, &d) in self.shape.iter().enumerate().rev() {
            if k == 0 && on_chip {
                pattern.push([1, d as i64]);
            } else {
                pattern.push([stride, d as i64]);
                stride *= d as i64;
            }
        }
        pattern.reverse();
        let place = if on_chip {
            DmaPlace::on_chip(self.space, self.start_partition, self.offset)
        } else {
            DmaPlace::Hbm(self.offset)
        };
        DmaView::new(place, self.dtype, pattern)
    }

    /// The region in `tpb run`'s syntax, `sbuf[p0..128]+0x400:bf16:128x512`.
    pub fn region(&self) -> String {
        self.to_string()
    }
}

impl fmt::Display for Tile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let shape: Vec<String> = self.shape.iter().map(|d| d.to_string()).collect();
        if self.space == Space::Hbm {
            return write!(
                f,
                "hbm+{:#x}:{}:{}",
                self.offset,
                self.dtype,
                shape.join("x")
            );
        }
        write!(
            f,
            "{}[p{}..{}]+{:#x}:{}:{}",
            self.space.name(),
            self.start_partition,
            self.start_partition + self.partitions(),
            self.offset,
            self.dtype,
            shape.join("x")
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tile(shape: &[usize]) -> Tile {
        Tile {
            space: Space::Sbuf,
            start_partition: 0,
            offset: 0x40,
            dtype: Dtype::FP32,
            shape: shape.to_vec(),
        }
    }

    #[test]
    fn contiguous_free_dims_merge_into_one() {
        let ap = tile(&[128, 4, 64]).access_pattern().unwrap();
        assert_eq!(ap.free, vec![Dim::new(1, 256)]);
        assert_eq!(ap.partition, Dim::new(1, 128));
    }

    #[test]
    fn counts_beyond_one_word_split_exactly() {
        for n in [4 * 65536, 70000, 3 * 65536] {
            let ap = tile(&[2, n]).access_pattern().unwrap();
            let got: i64 = ap.free.iter().map(|d| d.num).product();
            assert_eq!(got, n as i64);
            assert!(ap.free.iter().all(|d| d.num <= 65535));
            assert!(ap.free.iter().all(|d| d.step <= 32767), "{:?}", ap.free);
            assert_eq!(ap.free[1].step, 1);
            assert_eq!(ap.free[0].step, ap.free[1].num);
        }
    }

    #[test]
    fn a_prime_count_beyond_one_word_has_no_pattern() {
        assert!(tile(&[1, 65537]).access_pattern().is_none());
    }

    #[test]
    fn region_text_is_tpb_run_syntax() {
        assert_eq!(
            tile(&[128, 512]).region(),
            "sbuf[p0..128]+0x40:fp32:128x512"
        );
    }
}
