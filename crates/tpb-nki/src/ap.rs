//! `tensor.ap(pattern, offset)`: NKI's raw access pattern (nki-api §2.2; the NKI access
//! pattern deep dive, "Semantics of the Access Pattern").
//!
//! The tensor is read as its flat row-major storage: element `[w, z, y, x]` of the view is
//! flat element `offset + w·step_w + z·step_z + y·step_y + x·step_x`, and the view's shape is
//! the pattern's counts. On chip the first pair is the partition dim and its step must be
//! the tensor's elements per partition (partitions are contiguous: a step that skips
//! partitions is refused), so the flat offset picks a start partition and an offset in it.
//! `offset` counts from the view's first element (0.6.0: `offset=None` keeps the view's
//! base; an explicit offset is added to it). `dtype` reinterprets the bytes, the pattern and
//! offset then counting elements of that dtype.

use crate::tile::{Tile, ViewError};
use tpb_isa::geometry::Space;
use tpb_isa::Dtype;

impl Tile {
    /// `view.ap(pattern, offset, dtype)` over the storage of `root`, the allocation `self`
    /// is a view of (module docs). Every element the pattern walks must lie in `root`.
    pub fn ap(
        &self,
        root: &Tile,
        pattern: &[[i64; 2]],
        offset: Option<i64>,
        dtype: Option<Dtype>,
    ) -> Result<Tile, ViewError> {
        self.check()?;
        let bad = |m: String| ViewError::Invalid(format!("ap: {m}"));
        if self.blocks > 0 || root.blocks > 0 {
            return Err(ViewError::NotSupported(
                "ap of a tile with block dims (NKI 0.6.0 has none): index the block first".into(),
            ));
        }
        if self.space != root.space {
            return Err(bad(format!("{self} is not a view of {root}")));
        }
        let dtype = dtype.unwrap_or(self.dtype);
        let size = dtype
            .size()
            .ok_or_else(|| bad(format!("{dtype} has no byte size")))? as i64;
        let Some((&[_, first_num], _)) = pattern.split_first() else {
            return Err(bad("an empty pattern (give [[step, num], ...])".into()));
        };
        if let Some(&[step, num]) = pattern.iter().find(|p| p[1] < 1) {
            return Err(bad(format!("[{step}, {num}]: a count is at least 1")));
        }
        let root_bytes = root.row_bytes() as i64
            * if root.space == Space::Hbm {
                i64::from(root.partitions())
            } else {
                1
            };
        if root_bytes % size != 0 {
            return Err(bad(format!(
                "{root}'s {root_bytes} bytes{} are not a whole number of {dtype} elements",
                if root.space == Space::Hbm {
                    ""
                } else {
                    " per partition"
                }
            )));
        }
        let rel = self.offset as i64 - root.offset as i64;
        if rel % size != 0 {
            return Err(bad(format!(
                "{self} starts {rel} bytes into {root}: not on a {dtype} element"
            )));
        }
        let extent = |pairs: &[[i64; 2]]| {
            pairs.iter().fold((0i64, 0i64), |(lo, hi), &[s, n]| {
                let span = s * (n - 1);
                (lo + span.min(0), hi + span.max(0))
            })
        };
        let shape: Vec<usize> = pattern.iter().map(|p| p[1] as usize).collect();
        let steps: Vec<i64> = pattern.iter().map(|p| p[0]).collect();
        let oob = |m: String| ViewError::OutOfBounds(format!("ap {pattern:?}: {m} of {root}"));
        if self.space == Space::Hbm {
            let n = root_bytes / size;
            let flat0 = rel / size + offset.unwrap_or(0);
            let (lo, hi) = extent(pattern);
            if flat0 + lo < 0 || flat0 + hi >= n {
                return Err(oob(format!(
                    "flat elements {}..={} outside 0..{n}",
                    flat0 + lo,
                    flat0 + hi
                )));
            }
            let (shape, free) = at_least_2d(shape, steps[1..].to_vec());
            return Ok(Tile {
                offset: (root.offset as i64 + flat0 * size) as u64,
                dtype,
                shape,
                free_strides: free,
                outer_stride: Some(steps[0]),
                pending: None,
                ..root.clone()
            });
        }
        let per_partition = root_bytes / size;
        let step0 = steps[0];
        if first_num > 1 && step0 != per_partition {
            return Err(ViewError::NotSupported(format!(
                "ap {pattern:?}: the partition pair's step {step0} must be the tensor's \
                 {per_partition} elements per partition (partitions are contiguous; a step \
                 that skips partitions is not an access pattern)"
            )));
        }
        let parts = i64::from(self.start_partition) - i64::from(root.start_partition);
        let flat0 = parts * per_partition + rel / size + offset.unwrap_or(0);
        let (p0, e0) = (
            flat0.div_euclid(per_partition),
            flat0.rem_euclid(per_partition),
        );
        if p0 < 0 || p0 + first_num > i64::from(root.partitions()) {
            return Err(oob(format!(
                "partitions {p0}..{} outside 0..{}",
                p0 + first_num,
                root.partitions()
            )));
        }
        let (lo, hi) = extent(&pattern[1..]);
        if e0 + lo < 0 || e0 + hi >= per_partition {
            return Err(oob(format!(
                "elements {}..={} of each partition outside 0..{per_partition}",
                e0 + lo,
                e0 + hi
            )));
        }
        let (shape, free) = at_least_2d(shape, steps[1..].to_vec());
        Ok(Tile {
            start_partition: root.start_partition + p0 as u32,
            offset: (root.offset as i64 + e0 * size) as u64,
            dtype,
            shape,
            free_strides: free,
            outer_stride: None,
            pending: None,
            ..root.clone()
        })
    }
}

/// A tile keeps at least one free dim (a one-pair pattern is `[num, 1]`).
fn at_least_2d(mut shape: Vec<usize>, mut free: Vec<i64>) -> (Vec<usize>, Vec<i64>) {
    if shape.len() < 2 {
        shape.push(1);
        free.push(1);
    }
    (shape, free)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sbuf(shape: &[usize]) -> Tile {
        Tile::contiguous(Space::Sbuf, 0, 0x100, Dtype::FP32, shape.to_vec())
    }

    // The deep dive's concrete example: t[0:16, 8:16] of a (16, 16) tile is
    // `t.ap([[16, 16], [1, 8]], offset=8)`.
    #[test]
    fn the_concrete_example_is_a_column_block() {
        let t = sbuf(&[16, 16]);
        let v = t.ap(&t, &[[16, 16], [1, 8]], Some(8), None).unwrap();
        let w = t
            .index(&[
                crate::Index::Slice {
                    start: Some(0),
                    stop: Some(16),
                    step: None,
                },
                crate::Index::Slice {
                    start: Some(8),
                    stop: Some(16),
                    step: None,
                },
            ])
            .unwrap();
        assert_eq!(
            (v.start_partition, v.offset, v.shape.clone(), v.strides()),
            (w.start_partition, w.offset, w.shape.clone(), w.strides())
        );
        // A flat offset past a row moves to the next partition.
        let v = t.ap(&t, &[[16, 4], [1, 16]], Some(32), None).unwrap();
        assert_eq!((v.start_partition, v.offset), (2, 0x100));
    }

    #[test]
    fn partition_skips_and_outside_elements_are_refused() {
        let t = sbuf(&[16, 32]);
        // The deep dive's illegal example: every other partition.
        assert!(matches!(
            t.ap(&t, &[[64, 8], [1, 32]], Some(0), None),
            Err(ViewError::NotSupported(_))
        ));
        assert!(matches!(
            t.ap(&t, &[[32, 16], [1, 33]], None, None),
            Err(ViewError::OutOfBounds(_))
        ));
        assert!(matches!(
            t.ap(&t, &[[32, 2]], Some(15 * 32), None),
            Err(ViewError::OutOfBounds(_))
        ));
        assert!(t.ap(&t, &[], None, None).is_err());
    }

    // Reinterpret cast: an int32 (128, 256) tile as bf16 is `[[512, 128], [1, 512]]`.
    #[test]
    fn a_dtype_reinterprets_the_counts() {
        let t = Tile::contiguous(Space::Sbuf, 0, 0, Dtype::INT32, vec![128, 256]);
        let v = t
            .ap(&t, &[[512, 128], [1, 512]], Some(0), Some(Dtype::BFLOAT16))
            .unwrap();
        assert_eq!(
            (v.dtype, v.shape.clone()),
            (Dtype::BFLOAT16, vec![128, 512])
        );
    }

    // nki-library: `q.ap([[d, n], [1, d]], offset=b * s * d + o * d)` on an HBM (bs, s, d)
    // tensor, and a transposed read `[[1, p], [p, g]]`.
    #[test]
    fn hbm_patterns_walk_the_flat_tensor() {
        let q = Tile::contiguous(Space::Hbm, 0, 0x4000, Dtype::FP32, vec![2, 8, 4]);
        let v = q
            .ap(&q, &[[4, 3], [1, 4]], Some(8 * 4 + 2 * 4), None)
            .unwrap();
        assert_eq!(v.offset, 0x4000 + (32 + 8) * 4);
        assert_eq!(v.hbm_element_offsets()[4..6], [4, 5]);
        let t = q.ap(&q, &[[1, 4], [4, 8]], None, None).unwrap();
        assert_eq!(t.hbm_element_offsets()[..3], [0, 4, 8]);
        assert!(matches!(
            q.ap(&q, &[[4, 17], [1, 4]], None, None),
            Err(ViewError::OutOfBounds(_))
        ));
        // Offset from a view's first element.
        let row = q.index(&[crate::Index::At(1)]).unwrap();
        let v = row.ap(&q, &[[4, 8], [1, 4]], None, None).unwrap();
        assert_eq!(v.offset, 0x4000 + 32 * 4);
    }
}
