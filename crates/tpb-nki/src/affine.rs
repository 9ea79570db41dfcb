//! Index expressions as subscripts: `t[i_p, i_f1 * F2 + i_f2]`, `x[i_h + i_kh, i_w]`,
//! `out[jf, ip]` (legacy `nl.arange` / `nl.mgrid`, nki-api §4.2).
//!
//! Each subscript is an affine form `c + Σ k_a · i_a` over the axes `i_a ∈ 0..grid[a]` of
//! one index grid (the broadcast shape of the expressions, as NumPy broadcasts them). The
//! view has the grid's shape, axis 0 its partitions; since every dim's address is affine in
//! the grid indices, so is the view's: axis `a` walks `Σ_d k_{d,a} · stride_d` elements, one
//! `[step, num]` pair per axis, whatever the sums, scales or placements. A transposing
//! subscript (`out[jf, ip]`: the tensor's rows follow the view's free axis) is such a view:
//! in HBM it is a strided DMA; on chip it would move data across partitions, which an
//! engine cannot, and is refused.
//!
//! A subscript that leaves its tensor (the last tile of a ragged loop, `a[i * 128 + ix, iy]`
//! on 250 rows) is not refused at once: the view is kept *pending* with its subscripts, and
//! a mask that shrinks it ([`Tile::index`] with ranges) brings it back in bounds. A pending
//! view used as it is fails with the out-of-bounds message ([`Tile::check`]).

use crate::tile::{to_internal, Affine, Index, Pending, Tile, ViewError};
use std::sync::Arc;
use tpb_isa::geometry::Space;

impl Affine {
    /// The constant `c` (an integer subscript among index expressions).
    pub fn constant(c: i64, rank: usize) -> Affine {
        Affine {
            constant: c,
            coeffs: vec![0; rank],
        }
    }

    /// The smallest and largest value over the grid.
    fn range(&self, grid: &[usize]) -> (i64, i64) {
        self.coeffs
            .iter()
            .zip(grid)
            .fold((self.constant, self.constant), |(lo, hi), (&k, &n)| {
                let span = k * (n as i64 - 1);
                (lo + span.min(0), hi + span.max(0))
            })
    }

    /// The grid axes the form moves with (coefficient non-zero and more than one index).
    fn axes<'a>(&'a self, grid: &'a [usize]) -> impl Iterator<Item = usize> + 'a {
        (0..self.coeffs.len()).filter(|&a| self.coeffs[a] != 0 && grid[a] > 1)
    }
}

impl Pending {
    /// `view[full]` of the pending view: ranges and integers on the grid's axes substituted
    /// into the subscripts, then the tensor indexed again (in bounds, or still pending).
    pub(crate) fn index(&self, full: &[Index]) -> Result<Tile, ViewError> {
        let mut grid = Vec::with_capacity(self.grid.len());
        let mut keys: Vec<Affine> = self
            .keys
            .iter()
            .map(|k| Affine::constant(k.constant, 0))
            .collect();
        for (a, key) in full.iter().enumerate() {
            let n = self.grid[a] as i64;
            let (first, count, step, kept) = match *key {
                Index::At(i) => {
                    let j = if i < 0 { i + n } else { i };
                    if !(0..n).contains(&j) {
                        return Err(ViewError::OutOfBounds(format!(
                            "index {i} on axis {a} of size {n}"
                        )));
                    }
                    (j, 1, 1, false)
                }
                other => {
                    let (first, count, step) = crate::tile::resolve(other, n, a)?;
                    (first, count, step, true)
                }
            };
            if kept {
                grid.push(count as usize);
            }
            for (k, old) in keys.iter_mut().zip(&self.keys) {
                k.constant += old.coeffs[a] * first;
                if kept {
                    k.coeffs.push(old.coeffs[a] * step);
                }
            }
        }
        if grid.is_empty() {
            grid.push(1);
            for k in &mut keys {
                k.coeffs.push(0);
            }
        }
        self.source.index_affine(&grid, &keys)
    }
}

impl Tile {
    /// `tile[k_0, k_1, …]` with index-expression subscripts over `grid` (module docs): the
    /// view has `grid`'s shape, its axis 0 the partitions. `keys` are in the kernel's dim
    /// order; missing trailing dims become extra grid axes taken whole. Out of bounds gives
    /// a pending view ([`Tile::check`]); a view no access pattern expresses (a partition
    /// index that moves with a free axis on chip, a partition step other than 1) is refused.
    pub fn index_affine(&self, grid: &[usize], keys: &[Affine]) -> Result<Tile, ViewError> {
        self.check()?;
        let user = self.user_shape();
        if keys.len() > user.len() {
            return Err(ViewError::Invalid(format!(
                "too many indices: {} for a {}-dimensional tensor {self}",
                keys.len(),
                user.len()
            )));
        }
        if grid.is_empty() || grid.contains(&0) {
            return Err(ViewError::Invalid(format!(
                "index grid {grid:?}: every axis needs at least one index"
            )));
        }
        if let Some(k) = keys.iter().find(|k| k.coeffs.len() != grid.len()) {
            return Err(ViewError::Invalid(format!(
                "an index expression over {} axes on the {}-axis grid {grid:?}",
                k.coeffs.len(),
                grid.len()
            )));
        }
        // Dims not subscripted are taken whole, as extra trailing grid axes.
        let mut grid = grid.to_vec();
        let mut keys = keys.to_vec();
        for &n in &user[keys.len()..] {
            grid.push(n);
            for k in &mut keys {
                k.coeffs.push(0);
            }
            let mut unit = Affine::constant(0, grid.len());
            unit.coeffs[grid.len() - 1] = 1;
            keys.push(unit);
        }
        let outside: Vec<String> = keys
            .iter()
            .zip(&user)
            .enumerate()
            .filter_map(|(d, (k, &n))| {
                let (lo, hi) = k.range(&grid);
                (lo < 0 || hi >= n as i64).then(|| {
                    format!("dim {d} of size {n} indexed {lo}..={hi} by the index expression")
                })
            })
            .collect();
        if !outside.is_empty() {
            return Ok(Tile {
                shape: if grid.len() < 2 {
                    vec![grid[0], 1]
                } else {
                    grid.clone()
                },
                free_strides: Vec::new(),
                outer_stride: None,
                blocks: 0,
                pending: Some(Arc::new(Pending {
                    source: self.clone(),
                    message: format!("{} of {self}", outside.join(", ")),
                    grid,
                    keys,
                })),
                ..self.clone()
            });
        }
        if self.space == Space::Hbm {
            return Ok(self.affine_hbm(&grid, &keys));
        }
        self.affine_on_chip(&grid, &keys)
    }

    /// [`Tile::index_affine`] in HBM: every dim an ordinary strided dim.
    fn affine_hbm(&self, grid: &[usize], keys: &[Affine]) -> Tile {
        let strides = self.all_strides();
        let size = self.dtype.size().unwrap_or(1) as i64;
        let offset: i64 = keys.iter().zip(&strides).map(|(k, s)| k.constant * s).sum();
        let mut axis_steps: Vec<i64> = (0..grid.len())
            .map(|a| {
                keys.iter()
                    .zip(&strides)
                    .map(|(k, s)| k.coeffs[a] * s)
                    .sum()
            })
            .collect();
        let mut shape = grid.to_vec();
        if shape.len() < 2 {
            shape.push(1);
            axis_steps.push(1);
        }
        Tile {
            offset: (self.offset as i64 + offset * size) as u64,
            shape,
            free_strides: axis_steps[1..].to_vec(),
            outer_stride: Some(axis_steps[0]),
            blocks: 0,
            pending: None,
            ..self.clone()
        }
    }

    /// [`Tile::index_affine`] on chip: the partition subscript is `c + i_0` (or constant on a
    /// one-index axis 0); the free subscripts do not move with axis 0.
    fn affine_on_chip(&self, grid: &[usize], keys: &[Affine]) -> Result<Tile, ViewError> {
        let keys = to_internal(keys, self.blocks);
        let part = &keys[0];
        let moving: Vec<usize> = part.axes(grid).collect();
        let partition_ok = match moving.as_slice() {
            [] => grid[0] == 1,
            [0] => part.coeffs[0] == 1,
            _ => false,
        };
        if !partition_ok {
            let what = if moving.iter().any(|&a| a != 0) {
                "the tile's partition follows a free axis of the view (a transposing \
                 view: engines read each partition into itself; transpose with \
                 nisa.nc_transpose / nl.transpose, or load the transposed view from HBM)"
                    .to_string()
            } else if moving.is_empty() {
                format!(
                    "the view has {} partitions but its partition subscript is constant",
                    grid[0]
                )
            } else {
                format!(
                    "partition step {}: an operand's partitions are contiguous \
                     (nki-semantics §1.7)",
                    part.coeffs[0]
                )
            };
            return Err(ViewError::NotSupported(format!("{what} ({self})")));
        }
        if grid[0] > 1 {
            if let Some(d) = keys[1..].iter().position(|k| k.coeffs[0] != 0) {
                return Err(ViewError::NotSupported(format!(
                    "the subscript of free dim {} moves with the view's partition axis: an \
                     access pattern is the same in every partition ({self})",
                    d + 1
                )));
            }
        }
        let strides = self.strides();
        let size = self.dtype.size().unwrap_or(1) as i64;
        let offset: i64 = keys[1..]
            .iter()
            .zip(&strides)
            .map(|(k, s)| k.constant * s)
            .sum();
        let mut shape = grid.to_vec();
        let mut free_strides: Vec<i64> = (1..grid.len())
            .map(|a| {
                keys[1..]
                    .iter()
                    .zip(&strides)
                    .map(|(k, s)| k.coeffs[a] * s)
                    .sum()
            })
            .collect();
        if shape.len() < 2 {
            shape.push(1);
            free_strides.push(1);
        }
        Ok(Tile {
            start_partition: self.start_partition + part.constant as u32,
            offset: (self.offset as i64 + offset * size) as u64,
            shape,
            free_strides,
            outer_stride: None,
            blocks: 0,
            pending: None,
            ..self.clone()
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tpb_isa::Dtype;

    fn sbuf(shape: &[usize]) -> Tile {
        Tile::contiguous(Space::Sbuf, 0, 0, Dtype::FP32, shape.to_vec())
    }

    fn hbm(shape: &[usize]) -> Tile {
        Tile::contiguous(Space::Hbm, 0, 0, Dtype::FP32, shape.to_vec())
    }

    /// `c + Σ k_a i_a`.
    fn form(c: i64, k: &[i64]) -> Affine {
        Affine {
            constant: c,
            coeffs: k.to_vec(),
        }
    }

    /// The element offsets a view walks (HBM: every element, C order).
    fn walk(t: &Tile) -> Vec<i64> {
        t.hbm_element_offsets()
    }

    // nki-api §4.2: `in[i_p, i_f1 * F2 + i_f2]` on a (P, F1·F2) tile is the (P, F1, F2)
    // view of its rows; `out[i_p, i_f2 * F1 + i_f1]` the transposed placement.
    #[test]
    fn scaled_sums_of_axes_become_one_step_per_axis() {
        let t = sbuf(&[4, 12]);
        let grid = [4, 3, 4];
        let v = t
            .index_affine(&grid, &[form(0, &[1, 0, 0]), form(0, &[0, 4, 1])])
            .unwrap();
        assert_eq!((v.shape.clone(), v.strides()), (vec![4, 3, 4], vec![4, 1]));
        let w = t
            .index_affine(&grid, &[form(0, &[1, 0, 0]), form(0, &[0, 1, 3])])
            .unwrap();
        assert_eq!(w.strides(), vec![1, 3]);
        // Against NumPy: element [p, a, b] of w is t[p, b*3 + a].
        let offs = w.element_offsets();
        assert_eq!(offs[4], 1);
        assert_eq!(offs[1], 3);
    }

    // contributed maxpooling: `x[i_h + i_kh, i_w]` over an mgrid (P, K, W).
    #[test]
    fn a_sum_on_one_dim_walks_both_axes() {
        let x = hbm(&[10, 6]);
        let v = x
            .index_affine(&[8, 3, 6], &[form(0, &[1, 1, 0]), form(0, &[0, 0, 1])])
            .unwrap();
        assert_eq!((v.dim0_stride(), v.strides()), (6, vec![6, 1]));
        let offs = walk(&v);
        // [h, kh, w] -> (h + kh) * 6 + w
        assert_eq!(offs[(2 * 3 + 1) * 6 + 4], (2 + 1) * 6 + 4);
    }

    // nki-api §4.2 / sd_attention: `out[i*128 + jf, ip]` stores a (P, F) tile transposed.
    #[test]
    fn transposed_placement_in_hbm_is_a_strided_view_and_refused_on_chip() {
        let out = hbm(&[256, 64]);
        let v = out
            .index_affine(&[64, 128], &[form(128, &[0, 1]), form(0, &[1, 0])])
            .unwrap();
        assert_eq!(
            (v.shape.clone(), v.dim0_stride(), v.strides()),
            (vec![64, 128], 1, vec![64])
        );
        assert_eq!(v.offset, 128 * 64 * 4);
        let on_chip = sbuf(&[64, 128]);
        let e = on_chip
            .index_affine(&[128, 64], &[form(0, &[0, 1]), form(0, &[1, 0])])
            .unwrap_err();
        assert!(
            matches!(e, ViewError::NotSupported(ref m) if m.contains("transposing")),
            "{e}"
        );
        // A free subscript that moves with the partitions (a diagonal) is refused too.
        let e = on_chip
            .index_affine(&[64, 1], &[form(0, &[1, 0]), form(0, &[1, 0])])
            .unwrap_err();
        assert!(matches!(e, ViewError::NotSupported(_)), "{e}");
    }

    // rmsnorm tutorial: `a[i * 128 + ix, iy]` on 250 rows is out of bounds for i = 1 until
    // the mask `i * 128 + ix < 250` shrinks it to 122 rows.
    #[test]
    fn an_out_of_bounds_view_waits_for_its_mask() {
        let a = hbm(&[250, 8]);
        let grid = [128, 8];
        let v = a
            .index_affine(&grid, &[form(128, &[1, 0]), form(0, &[0, 1])])
            .unwrap();
        assert_eq!(v.shape, vec![128, 8]);
        let e = v.check().unwrap_err();
        assert!(
            e.to_string()
                .contains("dim 0 of size 250 indexed 128..=255"),
            "{e}"
        );
        assert!(v.dma_view().is_err());
        let rows = |n: i64| Index::Slice {
            start: Some(0),
            stop: Some(n),
            step: None,
        };
        let ok = v.index(&[rows(122)]).unwrap();
        assert!(ok.check().is_ok());
        assert_eq!((ok.shape.clone(), ok.offset), (vec![122, 8], 128 * 8 * 4));
        // A mask that still leaves the tensor keeps the view pending.
        assert!(v.index(&[rows(123)]).unwrap().check().is_err());
        // Out of bounds below zero works the same (`x[i_h - 1]` with `i_h >= 1`).
        let w = a
            .index_affine(&[4, 8], &[form(-1, &[1, 0]), form(0, &[0, 1])])
            .unwrap();
        assert!(w.check().is_err());
        let from1 = Index::Slice {
            start: Some(1),
            stop: None,
            step: None,
        };
        assert_eq!(w.index(&[from1]).unwrap().offset, 0);
    }

    // sd_attention: `trans_v[ip, i, if]` on a (P, n, d) tile: an integer among index
    // expressions is a constant; block dims (`q[i, ip, if]` on (n, par_dim(P), F)).
    #[test]
    fn integers_among_expressions_and_block_dims() {
        let t = sbuf(&[128, 4, 32]);
        let v = t
            .index_affine(
                &[128, 32],
                &[form(0, &[1, 0]), Affine::constant(2, 2), form(0, &[0, 1])],
            )
            .unwrap();
        assert_eq!((v.shape.clone(), v.offset), (vec![128, 32], 2 * 32 * 4));
        let mut blocks = sbuf(&[64, 3, 16]);
        blocks.blocks = 1;
        assert_eq!(blocks.user_shape(), vec![3, 64, 16]);
        let b = blocks
            .index_affine(
                &[64, 16],
                &[Affine::constant(1, 2), form(0, &[1, 0]), form(0, &[0, 1])],
            )
            .unwrap();
        assert_eq!(
            (b.shape.clone(), b.offset, b.blocks),
            (vec![64, 16], 16 * 4, 0)
        );
        assert!(matches!(
            sbuf(&[128, 128]).index_affine(&[128], &[form(0, &[1]), form(0, &[1])]),
            Err(ViewError::NotSupported(_))
        ));
    }
}
