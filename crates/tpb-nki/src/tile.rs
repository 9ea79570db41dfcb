//! A tile: an array in SBUF or PSUM, as NKI allocates them, or a view of one (a slice,
//! an index, a reshape, a reinterpretation) — NKI's `NkiTensor` views (nki-api §2.2): no
//! data moves, the view only changes the access pattern the compiler's packer receives.

use std::fmt;
use std::sync::Arc;
use tpb_isa::geometry::Space;
use tpb_isa::pack::{AccessPattern, Dim, DimOrder};
use tpb_isa::Dtype;

/// `shape[0]` partitions from `start_partition`; element `[p, i1, i2, …]` is at byte
/// `offset + (i1·s1 + i2·s2 + …)·size` of partition `start_partition + p`, where `s1, s2, …`
/// are the element strides of the free dims ([`Tile::strides`]; C order for an allocation).
///
/// `shape` is always partition first. A tile with legacy block dims
/// (`nl.ndarray((n, nl.par_dim(128), F))`) keeps them as free dims after the partitions and
/// shows the kernel its own order ([`Tile::user_shape`]).
#[derive(Clone, Debug)]
pub struct Tile {
    /// SBUF or PSUM.
    pub space: Space,
    /// First partition.
    pub start_partition: u32,
    /// Byte offset inside each partition of the first element.
    pub offset: u64,
    /// Element type.
    pub dtype: Dtype,
    /// The array shape, partition dimension first.
    pub shape: Vec<usize>,
    /// Element strides of the free dims `shape[1..]`, outermost first; empty for a
    /// contiguous C-order tile (what [`crate::Core::ndarray`] allocates).
    pub free_strides: Vec<i64>,
    /// HBM only: the element stride of dim 0 (`None`: C order, the product of the free
    /// dims). On chip dim 0 is the partitions.
    pub outer_stride: Option<i64>,
    /// On chip: how many block dims come before the partition dim in the kernel's shape
    /// (legacy `par_dim` after them); they are `shape[1..=blocks]` here.
    pub blocks: usize,
    /// A view whose index expressions leave its tensor, kept for a mask to bring back in
    /// bounds ([`Tile::index_affine`]); any use of it as it is fails with its message.
    pub pending: Option<Arc<Pending>>,
    /// The allocation the view belongs to (numbered by its [`crate::Core`] from 1; 0 for a
    /// tile built by hand). Views keep it. It is not part of a tile's equality (two
    /// allocations placed at the same bytes are the same view of memory); NKI's matmul
    /// accumulation groups are kept per allocation ([`crate::Core::nc_matmul`]).
    pub alloc: u64,
}

/// Equality and hash of the view of memory, whatever allocation it came from.
impl PartialEq for Tile {
    fn eq(&self, o: &Tile) -> bool {
        self.space == o.space
            && self.start_partition == o.start_partition
            && self.offset == o.offset
            && self.dtype == o.dtype
            && self.shape == o.shape
            && self.free_strides == o.free_strides
            && self.outer_stride == o.outer_stride
            && self.blocks == o.blocks
            && self.pending == o.pending
    }
}

impl Eq for Tile {}

impl std::hash::Hash for Tile {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        self.space.hash(h);
        self.start_partition.hash(h);
        self.offset.hash(h);
        self.dtype.hash(h);
        self.shape.hash(h);
        self.free_strides.hash(h);
        self.outer_stride.hash(h);
        self.blocks.hash(h);
        self.pending.hash(h);
    }
}

/// One subscript of `tile[...]` (NKI `NkiTensor.__getitem__`, nki-api §2.2 and §4.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Index {
    /// An integer (negative counts from the end). On the partition dim it keeps a size-1
    /// dim; on a free dim it drops the dim (a tile keeps at least one free dim).
    At(i64),
    /// `start:stop:step` with Python's defaults for `None`; bounds are checked, not clamped
    /// (an out-of-bounds slice is an error: NKI clamps nothing either).
    Slice {
        /// First index (`None`: 0, or the end for a negative step).
        start: Option<i64>,
        /// One past the last (`None`: the end).
        stop: Option<i64>,
        /// Step (`None`: 1).
        step: Option<i64>,
    },
    /// `nl.ds(start, size)` or an affine `nl.arange` expression `start + step·arange(size)`.
    Range {
        /// First index.
        start: i64,
        /// Elements.
        size: i64,
        /// Step between them.
        step: i64,
    },
    /// `...`: as many full slices as the other subscripts leave.
    Ellipsis,
}

/// `constant + Σ coeffs[a] · i_a` over the axes of an index grid.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Affine {
    /// The constant term.
    pub constant: i64,
    /// One coefficient per grid axis (0 where the subscript does not use the axis).
    pub coeffs: Vec<i64>,
}

/// A view whose subscripts leave its tensor: the tensor and the subscripts, kept until a
/// mask shrinks the grid back inside ([`Tile::index_affine`]).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Pending {
    /// The tensor indexed (in bounds itself).
    pub(crate) source: Tile,
    /// The index grid.
    pub(crate) grid: Vec<usize>,
    /// One subscript per dim of `source`, in the kernel's dim order.
    pub(crate) keys: Vec<Affine>,
    /// What is out of bounds.
    pub(crate) message: String,
}

/// Why a view cannot be taken.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ViewError {
    /// A subscript outside the dimension (the out-of-bounds sanitizer).
    #[error("out of bounds: {0}")]
    OutOfBounds(String),
    /// A view NKI allows that no access pattern expresses (partition striding, …).
    #[error("not supported: {0}")]
    NotSupported(String),
    /// A malformed subscript, reshape or reinterpretation.
    #[error("{0}")]
    Invalid(String),
}

/// The largest count a descriptor's `num` word holds.
const MAX_NUM: u64 = u16::MAX as u64;
/// The largest step a descriptor's signed `step` word holds.
const MAX_STEP: u64 = i16::MAX as u64;

impl Tile {
    /// A contiguous C-order tile (what an allocation is).
    pub fn contiguous(
        space: Space,
        start_partition: u32,
        offset: u64,
        dtype: Dtype,
        shape: Vec<usize>,
    ) -> Tile {
        Tile {
            space,
            start_partition,
            offset,
            dtype,
            shape,
            free_strides: Vec::new(),
            outer_stride: None,
            blocks: 0,
            pending: None,
            alloc: 0,
        }
    }

    /// Partitions (`shape[0]`).
    pub fn partitions(&self) -> u32 {
        self.shape.first().copied().unwrap_or(0) as u32
    }

    /// Elements per partition (the product of the free dims).
    pub fn free_elements(&self) -> u64 {
        self.shape.iter().skip(1).map(|&d| d as u64).product()
    }

    /// Bytes per partition the view's elements occupy (elements × size).
    pub fn row_bytes(&self) -> u64 {
        self.free_elements() * self.dtype.size().unwrap_or(0) as u64
    }

    /// The element strides of the free dims, outermost first (C order when not a view).
    pub fn strides(&self) -> Vec<i64> {
        if !self.free_strides.is_empty() {
            return self.free_strides.clone();
        }
        let free = self.shape.get(1..).unwrap_or(&[]);
        let mut out = vec![0i64; free.len()];
        let mut s = 1i64;
        for (k, &d) in free.iter().enumerate().rev() {
            out[k] = s;
            s *= d as i64;
        }
        out
    }

    /// HBM: the element stride of dim 0 (on chip: 0, dim 0 being the partitions).
    pub fn dim0_stride(&self) -> i64 {
        if self.space != Space::Hbm {
            return 0;
        }
        self.outer_stride
            .unwrap_or_else(|| self.free_elements() as i64)
    }

    /// Whether the free dims (and, in HBM, dim 0) are contiguous in C order (a plain
    /// allocation, or a view that walks its bytes in order without gaps).
    pub fn is_contiguous(&self) -> bool {
        let free = self.shape.get(1..).unwrap_or(&[]);
        let mut want = 1i64;
        for (&d, &s) in free.iter().zip(self.strides().iter()).rev() {
            if d != 1 && s != want {
                return false;
            }
            want *= d as i64;
        }
        self.space != Space::Hbm || self.partitions() <= 1 || self.dim0_stride() == want
    }

    /// The tile as a host tensor (partitions × elements per partition) when it is
    /// contiguous; a strided view is read and written through [`Tile::hull`]. An HBM tensor
    /// is one flat row of all its elements from its address, `offset`.
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

    /// The element offsets (relative to [`Tile::offset`], in elements) of every element
    /// of one partition, in C order of the view.
    pub fn element_offsets(&self) -> Vec<i64> {
        let free = self.shape.get(1..).unwrap_or(&[]);
        let strides = self.strides();
        let mut out = vec![0i64];
        for (&d, &s) in free.iter().zip(&strides) {
            out = out
                .iter()
                .flat_map(|&o| (0..d as i64).map(move |k| o + k * s))
                .collect();
        }
        out
    }

    /// HBM: the element offsets (relative to [`Tile::offset`]) of every element of the
    /// view, dim 0 included, in C order.
    pub fn hbm_element_offsets(&self) -> Vec<i64> {
        let s0 = self.dim0_stride();
        let row = self.element_offsets();
        (0..i64::from(self.partitions()))
            .flat_map(|p| row.iter().map(move |&o| p * s0 + o))
            .collect()
    }

    /// The contiguous byte range of each partition the view's elements lie in: the first
    /// byte and the length, from the smallest to one past the largest element.
    pub fn hull(&self) -> (u64, u64) {
        let size = self.dtype.size().unwrap_or(1) as i64;
        let offs = self.element_offsets();
        let lo = offs.iter().copied().min().unwrap_or(0);
        let hi = offs.iter().copied().max().unwrap_or(0);
        (
            (self.offset as i64 + lo * size) as u64,
            ((hi - lo + 1) * size) as u64,
        )
    }

    /// The access pattern that walks the view in order ([`free_pattern`] of its free dims).
    /// An error when the view is pending ([`Tile::check`]) or a count has no split into
    /// descriptor words.
    pub fn access_pattern(&self) -> Result<AccessPattern, ViewError> {
        self.check()?;
        let free = self.shape.get(1..).unwrap_or(&[]);
        let dims = free_pattern(free.iter().copied().zip(self.strides())).ok_or_else(|| {
            ViewError::NotSupported(format!(
                "{self}: {} elements per partition in a dim whose count has no split into \
                 descriptor counts of at most 65535 (a step of at most 32767 times a count)",
                self.free_elements()
            ))
        })?;
        Ok(AccessPattern::new(
            self.space,
            self.start_partition,
            i64::from(self.partitions()),
            self.offset,
        )
        .with_free(dims, DimOrder::OutermostFirst))
    }

    /// The whole tile as a DMA view (`[[step, count], …]` outermost first; on chip the first
    /// pair is the partition dimension and the others follow the view's strides). An error
    /// when the view is pending ([`Tile::check`]).
    pub fn dma_view(&self) -> Result<crate::dma::DmaView, ViewError> {
        use crate::dma::{DmaPlace, DmaView};
        self.check()?;
        let free = self.shape.get(1..).unwrap_or(&[]);
        let free = free.iter().zip(self.strides()).map(|(&d, s)| [s, d as i64]);
        if self.space == Space::Hbm {
            let mut pattern = vec![[self.dim0_stride(), self.partitions() as i64]];
            pattern.extend(free);
            return Ok(DmaView::new(
                DmaPlace::Hbm(self.offset),
                self.dtype,
                pattern,
            ));
        }
        let mut pattern = vec![[1, self.partitions() as i64]];
        pattern.extend(free);
        let place = DmaPlace::on_chip(self.space, self.start_partition, self.offset);
        Ok(DmaView::new(place, self.dtype, pattern))
    }

    /// The region in `tpb run`'s syntax, `sbuf[p0..128]+0x400:bf16:128x512` (a strided
    /// view is shown by its hull).
    pub fn region(&self) -> String {
        self.to_string()
    }

    /// `tile[index]` (NKI semantics, nki-api §2.2): integers, slices, `nl.ds` ranges and
    /// `...` in the kernel's dim order ([`Tile::user_shape`]); missing trailing subscripts
    /// are full slices. On chip an integer on the partition dim keeps a size-1 dim and the
    /// partition step must be 1 (an operand's partitions are contiguous, nki-semantics §1.7);
    /// integers drop free and block dims, keeping at least one free dim. In HBM an integer
    /// drops its dim, as NumPy does (`x[b, 0:128, 0:8]` is `[128, 8]`), keeping at least one.
    pub fn index(&self, keys: &[Index]) -> Result<Tile, ViewError> {
        let full = self.expand(keys)?;
        self.index_full(&full)
    }

    /// [`Tile::index`], but a slice or range that runs past its dim is clipped to it (as
    /// NumPy clips slices) instead of failing; the out-of-bounds message comes back with the
    /// view when something was clipped (the sanitizer's warning mode). An integer out of
    /// bounds, or a range starting outside its dim, still fails.
    pub fn index_clipped(&self, keys: &[Index]) -> Result<(Tile, Option<String>), ViewError> {
        let full = self.expand(keys)?;
        match self.index_full(&full) {
            Err(ViewError::OutOfBounds(msg)) => {
                let clipped: Vec<Index> = full
                    .iter()
                    .zip(&self.user_shape())
                    .map(|(&k, &n)| clip(k, n as i64))
                    .collect();
                let t = self.index_full(&clipped)?;
                Ok((t, Some(format!("out of bounds: {msg} (clipped)"))))
            }
            other => other.map(|t| (t, None)),
        }
    }

    /// The shape as the kernel sees it: block dims first, then the partitions, then the
    /// other free dims (the same as [`Tile::shape`] without block dims).
    pub fn user_shape(&self) -> Vec<usize> {
        to_user(&self.shape, self.blocks)
    }

    /// The subscripts with `...` and missing trailing dims expanded to full slices.
    fn expand(&self, keys: &[Index]) -> Result<Vec<Index>, ViewError> {
        let rank = self.shape.len();
        let ellipses = keys.iter().filter(|k| **k == Index::Ellipsis).count();
        if ellipses > 1 {
            return Err(ViewError::Invalid(
                "an index can only have a single ellipsis ('...')".into(),
            ));
        }
        let given = keys.len() - ellipses;
        if given > rank {
            return Err(ViewError::Invalid(format!(
                "too many indices: {given} for a {rank}-dimensional tensor {self}"
            )));
        }
        let mut full: Vec<Index> = Vec::with_capacity(rank);
        for k in keys {
            if *k == Index::Ellipsis {
                full.extend(std::iter::repeat_n(FULL, rank - given));
            } else {
                full.push(*k);
            }
        }
        while full.len() < rank {
            full.push(FULL);
        }
        Ok(full)
    }

    /// [`Tile::index`] on one subscript per dim (the kernel's dim order).
    fn index_full(&self, full: &[Index]) -> Result<Tile, ViewError> {
        if let Some(p) = &self.pending {
            return p.index(full);
        }
        if self.space == Space::Hbm {
            return self.index_hbm(full);
        }
        let full = to_internal(full, self.blocks);
        let rank = self.shape.len();
        let size = self.dtype.size().unwrap_or(1) as i64;
        let strides = self.strides();
        let mut start_partition = self.start_partition;
        let mut offset = self.offset as i64;
        let mut shape = Vec::with_capacity(rank);
        let mut free_strides = Vec::with_capacity(rank);
        let mut blocks = 0;
        for (dim, key) in full.iter().enumerate() {
            let n = self.shape[dim] as i64;
            let (first, count, step) = resolve(*key, n, user_dim(dim, self.blocks))?;
            if dim == 0 {
                if count > 1 && step != 1 {
                    return Err(ViewError::NotSupported(format!(
                        "partition step {step}: an operand's partitions are contiguous \
                         (nki-semantics §1.7: no partition striding inside one operand)"
                    )));
                }
                start_partition += first as u32;
                shape.push(count as usize);
                continue;
            }
            let s = strides[dim - 1];
            offset += first * s * size;
            if !matches!(key, Index::At(_)) {
                shape.push(count as usize);
                free_strides.push(s * step);
                blocks += usize::from(dim <= self.blocks);
            }
        }
        if shape.len() < 2 {
            shape.push(1);
            free_strides.push(1);
        }
        if offset < 0 {
            return Err(ViewError::OutOfBounds(format!(
                "the view starts before its tile ({offset} bytes)"
            )));
        }
        Ok(Tile {
            space: self.space,
            start_partition,
            offset: offset as u64,
            dtype: self.dtype,
            shape,
            free_strides,
            outer_stride: None,
            blocks,
            pending: None,
            alloc: self.alloc,
        })
    }

    /// [`Tile::index_full`] of an HBM tensor: every dim is an ordinary strided dim (any
    /// step); an integer drops its dim (NumPy), leaving at least one.
    fn index_hbm(&self, full: &[Index]) -> Result<Tile, ViewError> {
        let size = self.dtype.size().unwrap_or(1) as i64;
        let strides = self.all_strides();
        let mut offset = self.offset as i64;
        let mut shape = Vec::with_capacity(full.len());
        let mut kept = Vec::with_capacity(full.len());
        for (dim, key) in full.iter().enumerate() {
            let (first, count, step) = resolve(*key, self.shape[dim] as i64, dim)?;
            offset += first * strides[dim] * size;
            if !matches!(key, Index::At(_)) {
                shape.push(count as usize);
                kept.push(strides[dim] * step);
            }
        }
        if shape.is_empty() {
            shape.push(1);
            kept.push(1);
        }
        if offset < 0 {
            return Err(ViewError::OutOfBounds(format!(
                "the view starts before its tensor ({offset} bytes)"
            )));
        }
        Ok(Tile {
            space: Space::Hbm,
            start_partition: 0,
            offset: offset as u64,
            dtype: self.dtype,
            shape,
            free_strides: kept[1..].to_vec(),
            outer_stride: Some(kept[0]),
            blocks: 0,
            pending: None,
            alloc: self.alloc,
        })
    }

    /// Refuses `what` on a pending view or a tile with block dims (index them first: NKI's
    /// block dims are addressed one block at a time).
    fn plain_view(&self, what: &str) -> Result<(), ViewError> {
        self.check()?;
        if self.blocks > 0 {
            return Err(ViewError::NotSupported(format!(
                "{what} of a tile with {} block dim(s) before its partition dim: index the \
                 block dims first (t[i])",
                self.blocks
            )));
        }
        Ok(())
    }

    /// Indices `start..start + len` of free dim `axis` (partition-first order; in range, as
    /// the caller cut them from the view's own shape).
    pub(crate) fn along(&self, axis: usize, start: usize, len: usize) -> Tile {
        let size = self.dtype.size().unwrap_or(1) as i64;
        let strides = self.strides();
        let mut shape = self.shape.clone();
        shape[axis] = len;
        Tile {
            offset: (self.offset as i64 + start as i64 * strides[axis - 1] * size) as u64,
            shape,
            free_strides: strides,
            ..self.clone()
        }
    }

    /// Every dim's element stride, dim 0 included (on chip dim 0's is 0: the partitions).
    pub(crate) fn all_strides(&self) -> Vec<i64> {
        std::iter::once(self.dim0_stride())
            .chain(self.strides())
            .collect()
    }

    /// An error when the view is not usable as it is: its index expressions leave its
    /// tensor and no mask brought them back ([`Tile::index_affine`]).
    pub fn check(&self) -> Result<(), ViewError> {
        match &self.pending {
            Some(p) => Err(ViewError::OutOfBounds(p.message.clone())),
            None => Ok(()),
        }
    }
    /// `tile.reshape(shape)` (nki-api §2.2): same element count, partition dim kept, one
    /// `-1` allowed; the view's free dims must be contiguous.
    pub fn reshape(&self, shape: &[i64]) -> Result<Tile, ViewError> {
        self.plain_view("reshape")?;
        let total = i64::from(self.partitions()) * self.free_elements() as i64;
        let known: i64 = shape.iter().filter(|&&d| d != -1).product();
        let holes = shape.iter().filter(|&&d| d == -1).count();
        if holes > 1 || shape.iter().any(|&d| d < -1 || d == 0) || known == 0 {
            return Err(ViewError::Invalid(format!(
                "reshape to {shape:?}: dims must be positive, with at most one -1"
            )));
        }
        let resolved: Vec<usize> = shape
            .iter()
            .map(|&d| if d == -1 { total / known } else { d } as usize)
            .collect();
        let count: i64 = resolved.iter().map(|&d| d as i64).product();
        if count != total {
            return Err(ViewError::Invalid(format!(
                "cannot reshape {:?} ({total} elements) to {shape:?}",
                self.shape
            )));
        }
        if self.space == Space::Hbm {
            // An HBM tensor reshapes freely (NumPy's C-order reshape of a contiguous tensor).
            if !self.is_contiguous() {
                return Err(ViewError::NotSupported(format!(
                    "reshape of the strided HBM view {self}: it is not contiguous"
                )));
            }
            return Ok(Tile {
                alloc: self.alloc,
                ..Tile::contiguous(Space::Hbm, 0, self.offset, self.dtype, resolved)
            });
        }
        if resolved.first().copied() != Some(self.partitions() as usize) {
            return Err(ViewError::Invalid(format!(
                "reshape of an on-chip tile keeps the partition dim {} (got {shape:?})",
                self.partitions()
            )));
        }
        if !self.is_contiguous() {
            return Err(ViewError::NotSupported(format!(
                "reshape of the strided view {self}: its free dims are not contiguous"
            )));
        }
        Ok(Tile {
            alloc: self.alloc,
            ..Tile::contiguous(
                self.space,
                self.start_partition,
                self.offset,
                self.dtype,
                if resolved.len() < 2 {
                    vec![resolved[0], 1]
                } else {
                    resolved
                },
            )
        })
    }

    /// `tile.broadcast(dim, size)` (nki-api §2.2): a size-1 free dim read `size` times (step
    /// 0); the partition dim cannot be broadcast on chip.
    pub fn broadcast(&self, dim: usize, size: usize) -> Result<Tile, ViewError> {
        self.plain_view("broadcast")?;
        if dim == 0 || dim >= self.shape.len() {
            return Err(ViewError::Invalid(format!(
                "broadcast dim {dim}: a free dim of {self} (the partition dim cannot be broadcast)"
            )));
        }
        if self.shape[dim] != 1 || size == 0 {
            return Err(ViewError::Invalid(format!(
                "broadcast dim {dim} of size {} to {size}: only a size-1 dim broadcasts",
                self.shape[dim]
            )));
        }
        let mut strides = self.strides();
        strides[dim - 1] = 0;
        let mut shape = self.shape.clone();
        shape[dim] = size;
        Ok(Tile {
            shape,
            free_strides: strides,
            ..self.clone()
        })
    }

    /// The view with its free dims in `order` (a permutation of `1..rank`; the partition dim
    /// stays first): only the strides move, as NumPy's `transpose` of the free axes.
    pub fn permute(&self, order: &[usize]) -> Result<Tile, ViewError> {
        self.plain_view("permute")?;
        let rank = self.shape.len();
        let mut seen = vec![false; rank];
        let valid = order.len() == rank - 1
            && order
                .iter()
                .all(|&d| (1..rank).contains(&d) && !std::mem::replace(&mut seen[d], true));
        if !valid {
            return Err(ViewError::Invalid(format!(
                "permute {order:?}: a permutation of the free dims 1..{rank}"
            )));
        }
        let strides = self.strides();
        let mut shape = vec![self.shape[0]];
        shape.extend(order.iter().map(|&d| self.shape[d]));
        Ok(Tile {
            shape,
            free_strides: order.iter().map(|&d| strides[d - 1]).collect(),
            ..self.clone()
        })
    }

    /// `tile.view(dtype)` (`reinterpret_cast`, nki-api §2.2): the same bytes as another
    /// dtype; the last dim is scaled by the byte-size ratio and must be contiguous.
    pub fn view(&self, dtype: Dtype) -> Result<Tile, ViewError> {
        self.plain_view("view")?;
        let (from, to) = match (self.dtype.size(), dtype.size()) {
            (Some(a), Some(b)) => (a, b),
            _ => return Err(ViewError::Invalid(format!("{dtype} has no byte size"))),
        };
        if !self.is_contiguous() {
            return Err(ViewError::NotSupported(format!(
                "view({dtype}) of the strided view {self}"
            )));
        }
        let mut shape = self.shape.clone();
        let last = shape.len() - 1;
        let bytes = shape[last] * from;
        if last == 0 || !bytes.is_multiple_of(to) {
            return Err(ViewError::Invalid(format!(
                "view({dtype}): the last dim's {bytes} bytes are not a whole number of {to}-byte elements"
            )));
        }
        shape[last] = bytes / to;
        Ok(Tile {
            alloc: self.alloc,
            ..Tile::contiguous(self.space, self.start_partition, self.offset, dtype, shape)
        })
    }
}

/// A full slice, `:`.
const FULL: Index = Index::Slice {
    start: None,
    stop: None,
    step: None,
};

/// Kernel-order items (block dims, the partitions, the rest) in partition-first order.
pub(crate) fn to_internal<T: Clone>(user: &[T], blocks: usize) -> Vec<T> {
    if blocks == 0 || user.len() <= blocks {
        return user.to_vec();
    }
    let mut out = Vec::with_capacity(user.len());
    out.push(user[blocks].clone());
    out.extend_from_slice(&user[..blocks]);
    out.extend_from_slice(&user[blocks + 1..]);
    out
}

/// Partition-first items in kernel order (the inverse of [`to_internal`]).
pub(crate) fn to_user<T: Clone>(internal: &[T], blocks: usize) -> Vec<T> {
    if blocks == 0 || internal.len() <= blocks {
        return internal.to_vec();
    }
    let mut out = Vec::with_capacity(internal.len());
    out.extend_from_slice(&internal[1..=blocks]);
    out.push(internal[0].clone());
    out.extend_from_slice(&internal[blocks + 1..]);
    out
}

/// The kernel-order position of partition-first dim `dim`.
fn user_dim(dim: usize, blocks: usize) -> usize {
    match dim {
        0 => blocks,
        d if d <= blocks => d - 1,
        d => d,
    }
}

/// The descriptor dims that walk free dims `(count, step)` (outermost first) in order, as
/// the compiler's packer receives them: size-1 dims drop, adjacent dims that walk
/// contiguously merge (`[[n·s, m], [s, n]]` → `[[s, m·n]]`), and a count too large for one
/// count word is split into `[[k·s, N/k], [s, k]]` with the largest `k` that divides `N` and
/// keeps the step in the signed step word (`k·s <= 32767`, `N/k <= 65535`). `None` when a
/// count has no such split. No dims at all is `[[1, 1]]`.
pub fn free_pattern(dims: impl IntoIterator<Item = (usize, i64)>) -> Option<Vec<Dim>> {
    let mut merged: Vec<Dim> = Vec::new();
    for (d, s) in dims {
        if d == 1 {
            continue;
        }
        match merged.last_mut() {
            Some(last) if last.step == s * d as i64 => {
                *last = Dim::new(s, last.num * d as i64);
            }
            _ => merged.push(Dim::new(s, d as i64)),
        }
    }
    if merged.is_empty() {
        merged.push(Dim::new(1, 1));
    }
    let mut split = Vec::with_capacity(merged.len() + 1);
    for d in merged {
        let n = d.num as u64;
        if n <= MAX_NUM {
            split.push(d);
            continue;
        }
        let s = d.step.unsigned_abs().max(1);
        let k = (1..=MAX_STEP / s)
            .rev()
            .find(|&k| n.is_multiple_of(k) && n / k <= MAX_NUM)?;
        split.push(Dim::new(d.step * k as i64, (n / k) as i64));
        split.push(Dim::new(d.step, k as i64));
    }
    Some(split)
}

/// A slice or range clipped to a dim of size `n` (NumPy's slice clipping; a range keeps the
/// elements that fall inside).
fn clip(key: Index, n: i64) -> Index {
    match key {
        Index::Slice { start, stop, step } => {
            let c = |v: Option<i64>| v.map(|v| v.clamp(-n, n));
            Index::Slice {
                start: c(start),
                stop: c(stop),
                step,
            }
        }
        Index::Range { start, size, step } if step > 0 && (0..n).contains(&start) => Index::Range {
            start,
            size: size.min((n - 1 - start) / step + 1),
            step,
        },
        other => other,
    }
}

/// A subscript on a dim of size `n` as (first, count, step), bounds checked.
pub(crate) fn resolve(key: Index, n: i64, dim: usize) -> Result<(i64, i64, i64), ViewError> {
    let oob = |what: String| ViewError::OutOfBounds(format!("{what} on dim {dim} of size {n}"));
    match key {
        Index::At(i) => {
            let j = if i < 0 { i + n } else { i };
            if !(0..n).contains(&j) {
                return Err(oob(format!("index {i}")));
            }
            Ok((j, 1, 1))
        }
        Index::Range { start, size, step } => {
            if size < 1 || step == 0 {
                return Err(ViewError::Invalid(format!(
                    "range start {start} size {size} step {step}: size must be >= 1, step non-zero"
                )));
            }
            let last = start + (size - 1) * step;
            if !(0..n).contains(&start) || !(0..n).contains(&last) {
                return Err(oob(format!(
                    "range {start}..={last} (start {start}, size {size}, step {step})"
                )));
            }
            Ok((start, size, step))
        }
        Index::Slice { start, stop, step } => {
            let step = step.unwrap_or(1);
            if step == 0 {
                return Err(ViewError::Invalid("slice step cannot be zero".into()));
            }
            let norm = |v: i64| if v < 0 { v + n } else { v };
            let (a, b) = if step > 0 {
                (start.map_or(0, norm), stop.map_or(n, norm))
            } else {
                (start.map_or(n - 1, norm), stop.map_or(-1, norm))
            };
            let in_range = if step > 0 {
                (0..=n).contains(&a) && (0..=n).contains(&b)
            } else {
                (-1..n).contains(&a) && (-1..n).contains(&b)
            };
            if !in_range {
                return Err(oob(format!(
                    "slice {}:{}:{step}",
                    start.map_or(String::new(), |v| v.to_string()),
                    stop.map_or(String::new(), |v| v.to_string())
                )));
            }
            let count = if step > 0 {
                (b - a + step - 1).div_euclid(step).max(0)
            } else {
                (a - b - step - 1).div_euclid(-step).max(0)
            };
            if count == 0 {
                return Err(ViewError::Invalid(format!(
                    "the slice selects no element on dim {dim} (NKI tiles are never empty)"
                )));
            }
            Ok((a, count, step))
        }
        Index::Ellipsis => Ok((0, n, 1)),
    }
}

impl fmt::Display for Tile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let shape: Vec<String> = self.shape.iter().map(|d| d.to_string()).collect();
        if self.space == Space::Hbm {
            write!(
                f,
                "hbm+{:#x}:{}:{}",
                self.offset,
                self.dtype,
                shape.join("x")
            )?;
            if !self.is_contiguous() {
                let s: Vec<String> = std::iter::once(self.dim0_stride())
                    .chain(self.strides())
                    .map(|d| d.to_string())
                    .collect();
                write!(f, " (strides {})", s.join(","))?;
            }
            return Ok(());
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
        )?;
        if !self.is_contiguous() {
            let s: Vec<String> = self.strides().iter().map(|d| d.to_string()).collect();
            write!(f, " (strides {})", s.join(","))?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tile(shape: &[usize]) -> Tile {
        Tile::contiguous(Space::Sbuf, 0, 0x40, Dtype::FP32, shape.to_vec())
    }

    fn full() -> Index {
        Index::Slice {
            start: None,
            stop: None,
            step: None,
        }
    }

    fn sl(a: i64, b: i64) -> Index {
        Index::Slice {
            start: Some(a),
            stop: Some(b),
            step: None,
        }
    }

    // nki-api §2.2: `t[a:b, c:d]` is a view at partition a, byte offset c·size.
    #[test]
    fn a_slice_moves_the_start_and_keeps_the_row_stride() {
        let t = tile(&[128, 4, 64]);
        let v = t.index(&[sl(32, 64), Index::At(1), sl(8, 24)]).unwrap();
        assert_eq!((v.start_partition, v.shape.clone()), (32, vec![32, 16]));
        assert_eq!(v.offset, 0x40 + (64 + 8) * 4);
        let ap = v.access_pattern().unwrap();
        assert_eq!(ap.free, vec![Dim::new(1, 16)]);
        let w = t.index(&[full(), full(), sl(0, 8)]).unwrap();
        assert_eq!(
            w.access_pattern().unwrap().free,
            vec![Dim::new(64, 4), Dim::new(1, 8)]
        );
        assert!(!w.is_contiguous());
    }

    // nki-api §2.2: an integer on the partition dim keeps a size-1 dim; on the last free
    // dim the tile keeps one free dim.
    #[test]
    fn integers_keep_the_partition_dim_and_one_free_dim() {
        let t = tile(&[8, 16]);
        let v = t.index(&[Index::At(3), Index::At(-1)]).unwrap();
        assert_eq!((v.start_partition, v.shape.clone()), (3, vec![1, 1]));
        assert_eq!(v.offset, 0x40 + 15 * 4);
        let d = t
            .index(&[
                full(),
                Index::Range {
                    start: 4,
                    size: 4,
                    step: 2,
                },
            ])
            .unwrap();
        assert_eq!(d.element_offsets(), vec![0, 2, 4, 6]);
        assert_eq!(d.offset, 0x40 + 16);
    }

    #[test]
    fn out_of_bounds_and_partition_steps_are_refused() {
        let t = tile(&[8, 16]);
        assert!(matches!(
            t.index(&[sl(0, 9)]),
            Err(ViewError::OutOfBounds(_))
        ));
        assert!(matches!(
            t.index(&[full(), Index::At(16)]),
            Err(ViewError::OutOfBounds(_))
        ));
        let step2 = Index::Slice {
            start: None,
            stop: None,
            step: Some(2),
        };
        assert!(matches!(t.index(&[step2]), Err(ViewError::NotSupported(_))));
        assert!(matches!(
            t.index(&[full(), full(), full()]),
            Err(ViewError::Invalid(_))
        ));
    }

    #[test]
    fn the_warning_mode_clips_slices_and_ranges() {
        let t = tile(&[8, 16]);
        let (v, w) = t.index_clipped(&[sl(0, 9), sl(10, 20)]).unwrap();
        assert_eq!(v.shape, vec![8, 6]);
        assert!(w.unwrap().contains("slice 0:9"));
        let r = Index::Range {
            start: 12,
            size: 8,
            step: 1,
        };
        assert_eq!(t.index_clipped(&[full(), r]).unwrap().0.shape, vec![8, 4]);
        assert_eq!(t.index_clipped(&[sl(0, 4)]).unwrap().1, None);
        assert!(t.index_clipped(&[Index::At(8)]).is_err());
    }

    #[test]
    fn broadcast_is_a_zero_step() {
        let t = tile(&[4, 1]);
        let b = t.broadcast(1, 8).unwrap();
        assert_eq!(b.element_offsets(), vec![0; 8]);
        assert_eq!(b.access_pattern().unwrap().free, vec![Dim::new(0, 8)]);
        assert!(t.broadcast(0, 8).is_err());
        assert!(tile(&[4, 2]).broadcast(1, 8).is_err());
    }

    #[test]
    fn reshape_and_view_keep_bytes() {
        let t = tile(&[4, 8, 2]);
        let r = t.reshape(&[4, -1]).unwrap();
        assert_eq!(r.shape, vec![4, 16]);
        assert!(t.reshape(&[2, 32]).is_err());
        let b = t.view(Dtype::BFLOAT16).unwrap();
        assert_eq!(b.shape, vec![4, 8, 4]);
        let strided = t.index(&[full(), full(), Index::At(0)]).unwrap();
        assert!(matches!(
            strided.reshape(&[4, 8]),
            Err(ViewError::NotSupported(_))
        ));
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
        assert!(tile(&[1, 65537]).access_pattern().is_err());
    }

    #[test]
    fn region_text_is_tpb_run_syntax() {
        assert_eq!(
            tile(&[128, 512]).region(),
            "sbuf[p0..128]+0x40:fp32:128x512"
        );
    }

    // nki-api §2.2 on an HBM tensor (`a[i * 128:(i + 1) * 128, nl.ds(512, 512)]`): dim 0 is
    // an ordinary strided dim, kept as the view's outer stride, so the DMA view walks the
    // parent's rows.
    #[test]
    fn hbm_views_keep_the_row_stride() {
        let a = Tile::contiguous(Space::Hbm, 0, 0x1000, Dtype::FP32, vec![256, 1024]);
        let v = a
            .index(&[
                sl(128, 256),
                Index::Range {
                    start: 512,
                    size: 512,
                    step: 1,
                },
            ])
            .unwrap();
        assert_eq!(
            (v.start_partition, v.offset),
            (0, 0x1000 + (128 * 1024 + 512) * 4)
        );
        assert_eq!((v.shape.clone(), v.dim0_stride()), (vec![128, 512], 1024));
        assert!(!v.is_contiguous());
        assert_eq!(v.to_string(), "hbm+0x81800:fp32:128x512 (strides 1024,1)");
        assert_eq!(v.dma_view().unwrap().pattern, vec![[1024, 128], [1, 512]]);
        assert_eq!(&v.hbm_element_offsets()[510..514], &[510, 511, 1024, 1025]);
        // Whole rows are contiguous and reshape freely; a column block does not.
        let rows = a.index(&[sl(0, 2)]).unwrap();
        assert!(rows.is_contiguous());
        assert_eq!(rows.reshape(&[4, 512]).unwrap().shape, vec![4, 512]);
        assert!(matches!(v.reshape(&[-1]), Err(ViewError::NotSupported(_))));
        // A step on dim 0 is a DMA stride (no partitions in HBM); an integer drops its dim,
        // as in NumPy (nki-api §2.2; issue 27: `x[b, 0:128, 0:8]` is [128, 8]).
        let odd = a
            .index(&[Index::Slice {
                start: Some(1),
                stop: None,
                step: Some(2),
            }])
            .unwrap();
        assert_eq!((odd.shape[0], odd.dim0_stride()), (128, 2048));
        let row = a.index(&[Index::At(3)]).unwrap();
        assert_eq!(
            (row.shape.clone(), row.offset),
            (vec![1024], 0x1000 + 3 * 1024 * 4)
        );
        let x = Tile::contiguous(Space::Hbm, 0, 0, Dtype::FP32, vec![4, 256, 16]);
        let v = x.index(&[Index::At(2), sl(0, 128), sl(0, 8)]).unwrap();
        assert_eq!((v.shape.clone(), v.dim0_stride()), (vec![128, 8], 16));
        assert_eq!(
            x.index(&[Index::At(1), Index::At(2), Index::At(3)])
                .unwrap()
                .shape,
            vec![1]
        );
        assert!(matches!(
            a.index(&[sl(0, 257)]),
            Err(ViewError::OutOfBounds(_))
        ));
    }

    // NumPy's transpose of the free axes: only the strides move.
    #[test]
    fn permute_moves_free_strides() {
        let t = tile(&[4, 2, 3, 5]);
        let p = t.permute(&[3, 1, 2]).unwrap();
        assert_eq!(
            (p.shape.clone(), p.strides()),
            (vec![4, 5, 2, 3], vec![1, 15, 5])
        );
        assert_eq!(&p.element_offsets()[..3], &[0, 5, 10]);
        assert!(t.permute(&[1, 2]).is_err());
        assert!(t.permute(&[1, 1, 2]).is_err());
        assert!(t.permute(&[0, 1, 2]).is_err());
    }
}
