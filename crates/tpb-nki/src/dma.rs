//! Building DMA requests for the kernel layer: "copy this access pattern of HBM (or SBUF/PSUM)
//! to that one" as the real DMAMEMCPY 0xB8 bundle (isa-facts-pe-act-dma §3.4), in tpb's DMA
//! address map (assumption `dma-address-map`).
//!
//! A view is a place, a dtype and an access pattern `[[step, count], …]` outermost first, steps
//! in elements (NKI's `.ap()` form); on chip, one pair is the partition dimension (step in
//! partitions): the first, or a later one in a transposing read (`DmaView::permuted`). The
//! builder does what a DMA encoder does (C:dma-encoding): dims of count 1
//! are dropped, the innermost contiguous dims fold into the element (`elem_size` = dtype bytes
//! × their counts, at most 64 KiB), and the remaining dims (at most two) become the byte
//! steps and counts of the pattern. The dtypes may differ: the DMA then casts through fp32
//! (NKI `dma_copy`, §3.5).
//!
//! ```
//! use tpb_isa::{geometry::Space, Dtype, Gen};
//! use tpb_nki::dma::{dma_copy_instruction, DmaOptions, DmaPlace, DmaView};
//! use tpb_sim::{Config, HostTensor, Machine};
//!
//! let g = Gen::Cayman;
//! // nl.load of a (128, 512) fp32 HBM tensor at 0x10000 into an SBUF tile at offset 0.
//! let hbm = DmaView::new(DmaPlace::Hbm(0x10000), Dtype::FP32, vec![[512, 128], [1, 512]]);
//! let sbuf = DmaView::new(DmaPlace::on_chip(Space::Sbuf, 0, 0), Dtype::FP32, vec![[1, 128], [1, 512]]);
//! let inst = dma_copy_instruction(g, &sbuf, &hbm, DmaOptions::signal(3)).unwrap();
//! let mut m = Machine::new(Config::new(g));
//! m.write_hbm(0x10000, &vec![0u8; 128 * 512 * 4]).unwrap();
//! m.step(&inst).unwrap();
//! assert_eq!(m.semaphores()[3], 1);
//! ```

use tpb_isa::geometry::{Geometry, Space};
use tpb_isa::validate::{validate, Report};
use tpb_isa::wire::{Addr8, DmaDirect2d, DmaPattern};
use tpb_isa::{Body, DgeComputeOp, Dtype, Gen, Instruction, Opcode};

/// Where a view starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DmaPlace {
    /// An HBM byte address.
    Hbm(u64),
    /// On chip: space, first partition, byte offset in the partition.
    OnChip {
        /// SBUF or PSUM.
        space: Space,
        /// First partition.
        partition: u32,
        /// Byte offset inside the partition.
        offset: u64,
    },
}

impl DmaPlace {
    /// An on-chip place.
    pub const fn on_chip(space: Space, partition: u32, offset: u64) -> DmaPlace {
        DmaPlace::OnChip {
            space,
            partition,
            offset,
        }
    }
}

/// A memory view for a DMA: place, dtype, and `[[step, count], …]` outermost first (element
/// steps; on chip the pair at `partition_dim`, the first unless a transposing view moved it,
/// is the partition dimension, its step in partitions).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DmaView {
    /// Where element 0 is.
    pub place: DmaPlace,
    /// The element type.
    pub dtype: Dtype,
    /// The access pattern.
    pub pattern: Vec<[i64; 2]>,
    /// On chip: the index in `pattern` of the partition dimension (0 from [`DmaView::new`]).
    pub partition_dim: usize,
}

impl DmaView {
    /// A view (on chip, its first pair is the partition dimension).
    pub fn new(place: DmaPlace, dtype: Dtype, pattern: Vec<[i64; 2]>) -> DmaView {
        DmaView {
            place,
            dtype,
            pattern,
            partition_dim: 0,
        }
    }

    /// The same view walked in the order `order` (indices into `pattern`, outermost first):
    /// a transposing read, whose partition dimension may then come later than first.
    pub fn permuted(&self, order: &[usize]) -> Option<DmaView> {
        let mut seen = vec![false; self.pattern.len()];
        for &k in order {
            if k >= seen.len() || std::mem::replace(&mut seen[k], true) {
                return None;
            }
        }
        if order.len() != self.pattern.len() {
            return None;
        }
        Some(DmaView {
            place: self.place,
            dtype: self.dtype,
            pattern: order.iter().map(|&k| self.pattern[k]).collect(),
            partition_dim: order.iter().position(|&k| k == self.partition_dim)?,
        })
    }

    /// Elements the view walks.
    pub fn elements(&self) -> u128 {
        self.pattern
            .iter()
            .map(|p| u128::try_from(p[1]).unwrap_or(0))
            .product()
    }
}

/// What the request signals and how it combines (defaults: no semaphore, plain copy,
/// priority class 0).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct DmaOptions {
    /// The semaphore the DGE bumps when the data has landed.
    pub semaphore: u8,
    /// The increment (0: none).
    pub sem_increment: u8,
    /// `DGE_COMPUTE_OP` (B op= A).
    pub compute_op: DgeComputeOp,
    /// `priority_class` (0..=4).
    pub priority: u8,
}

impl DmaOptions {
    /// Add 1 to `semaphore` when the data has landed.
    pub const fn signal(semaphore: u8) -> DmaOptions {
        DmaOptions {
            semaphore,
            sem_increment: 1,
            compute_op: DgeComputeOp::NONE,
            priority: 0,
        }
    }
}

/// Why a view cannot become a DMA request.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum DmaBuildError {
    /// A dtype without a byte size.
    #[error("{operand}: dtype {dtype} has no byte size")]
    Dtype {
        /// `src` or `dst`.
        operand: &'static str,
        /// The dtype.
        dtype: Dtype,
    },
    /// The two views hold different element counts (NKI: equal element counts).
    #[error("dst has {dst} elements, src {src}: a DMA copy needs equal element counts")]
    Count {
        /// dst elements.
        dst: u128,
        /// src elements.
        src: u128,
    },
    /// A view that does not fit DMA_DIRECT2D (what, and why).
    #[error("{operand}: {detail}")]
    Shape {
        /// `src` or `dst`.
        operand: &'static str,
        /// What does not fit.
        detail: String,
    },
    /// The built bundle fails validation (every failing rule).
    #[error("the DMA request is invalid on {}: {}", report.gen, report.failures().map(|f| f.to_string()).collect::<Vec<_>>().join("; "))]
    Invalid {
        /// The validator's report.
        report: Report,
    },
}

/// The most bytes one DMA element (`elem_size`) holds: 64 KiB, written as 0 (isa-facts-pe-act-dma
/// §3.4).
const MAX_ELEM_BYTES: u64 = 1 << 16;

/// The most elements one request may walk (the simulator's limit: each run is resolved and
/// checked before the first write); a larger copy is split into several requests by its
/// caller.
use tpb_sim::MAX_DMA_ELEMENTS;

/// A folded side: address, `(byte step, count)` innermost first (two slots), element bytes.
type Folded = (Addr8, [(i64, u64); 2], u64);

fn fold(gen: Gen, v: &DmaView, operand: &'static str) -> Result<Folded, DmaBuildError> {
    let shape = |detail: String| DmaBuildError::Shape { operand, detail };
    let size = v.dtype.size().ok_or(DmaBuildError::Dtype {
        operand,
        dtype: v.dtype,
    })? as i64;
    let (addr, partition_stride) = match v.place {
        DmaPlace::Hbm(a) => (Addr8::hbm(a), 0),
        DmaPlace::OnChip {
            space,
            partition,
            offset,
        } => (
            u32::try_from(offset)
                .ok()
                .and_then(|o| Addr8::on_chip(gen, space, partition, o)),
            i64::from(Geometry::of(gen).stride(space)),
        ),
    };
    let addr = addr.ok_or_else(|| shape(format!("{:?} is outside {gen}'s DMA map", v.place)))?;
    let mut dims: Vec<(i64, u64)> = Vec::new();
    for (k, &[step, count]) in v.pattern.iter().enumerate() {
        let count = u64::try_from(count)
            .ok()
            .filter(|&c| c > 0)
            .ok_or_else(|| shape(format!("count {count} in dim {k} is not positive")))?;
        let unit = if k == v.partition_dim && partition_stride != 0 {
            partition_stride
        } else {
            size
        };
        let bytes = step
            .checked_mul(unit)
            .ok_or_else(|| shape(format!("step {step} in dim {k} overflows")))?;
        if count > 1 {
            dims.push((bytes, count));
        }
    }
    // Fold the innermost contiguous dims into the element; a contiguous dim too long to
    // fold whole folds its largest divisor that fits 64 KiB (`[n·k, k]` → a k-element run
    // walked n times: the same bytes in the same order).
    let mut elem = size as u64;
    while let Some(&(step, count)) = dims.last() {
        if step != elem as i64 {
            break;
        }
        if elem * count <= MAX_ELEM_BYTES {
            elem *= count;
            dims.pop();
            continue;
        }
        let k = (2..=MAX_ELEM_BYTES / elem)
            .rev()
            .find(|&k| count.is_multiple_of(k))
            .unwrap_or(1);
        if k > 1 {
            elem *= k;
            let last = dims.len() - 1;
            dims[last] = (elem as i64, count / k);
        }
        break;
    }
    if dims.len() > 2 {
        return Err(shape(format!(
            "{} non-contiguous dims remain after folding the contiguous ones into {elem}-byte \
             elements; DMA_DIRECT2D has two (split the copy)",
            dims.len()
        )));
    }
    let walked: u64 = dims.iter().map(|d| d.1).product();
    if walked > MAX_DMA_ELEMENTS {
        return Err(shape(format!(
            "walks {walked} {elem}-byte elements, more than the simulator's {MAX_DMA_ELEMENTS} \
             per request (split the copy)"
        )));
    }
    let mut slots = [(0i64, 1u64); 2];
    for (slot, &(step, count)) in slots.iter_mut().zip(dims.iter().rev()) {
        if i32::try_from(step).is_err() || count > u64::from(u16::MAX) {
            return Err(shape(format!(
                "byte step {step} or count {count} does not fit the i32/u16 DMA fields"
            )));
        }
        *slot = (step, count);
    }
    Ok((addr, slots, elem))
}

fn pattern((addr, slots, _): &Folded) -> DmaPattern<2> {
    DmaPattern {
        addr: *addr,
        step_elem: slots.map(|s| s.0 as i32),
        num_elem: slots.map(|s| s.1 as u16),
    }
}

/// The DMAMEMCPY that copies `src` to `dst` (a cast through fp32 where the dtypes differ),
/// validated for `gen`.
pub fn dma_copy_instruction(
    gen: Gen,
    dst: &DmaView,
    src: &DmaView,
    opts: DmaOptions,
) -> Result<Instruction, DmaBuildError> {
    let (de, se) = (dst.elements(), src.elements());
    if de != se {
        return Err(DmaBuildError::Count { dst: de, src: se });
    }
    let s = fold(gen, src, "src")?;
    let d = fold(gen, dst, "dst")?;
    let elem_field = |e: u64| if e == 1 << 16 { 0 } else { e as u16 };
    let mut inst = Instruction::new(Opcode::DMA_MEMCPY, gen);
    inst.body = Body::DmaDirect2d(DmaDirect2d {
        dma_configs: opts.priority,
        semaphore: opts.semaphore,
        sem_increment: opts.sem_increment,
        compute_op: opts.compute_op,
        src: pattern(&s),
        src_elem_size: elem_field(s.2),
        dst: pattern(&d),
        dst_elem_size: elem_field(d.2),
        in_dtype: src.dtype,
        out_dtype: dst.dtype,
        ..DmaDirect2d::default()
    });
    let report = validate(&inst, gen);
    if !report.is_valid() {
        return Err(DmaBuildError::Invalid { report });
    }
    Ok(inst)
}

#[cfg(test)]
mod tests {
    use super::*;

    // §3.4: the contiguous rows fold into one element; the partition dim becomes a byte step
    // of the partition stride (tpb's map).
    #[test]
    fn load_folds_rows_into_elements() {
        let g = Gen::Cayman;
        let hbm = DmaView::new(
            DmaPlace::Hbm(0x100),
            Dtype::BFLOAT16,
            vec![[64, 4], [1, 64]],
        );
        let sb = DmaView::new(
            DmaPlace::on_chip(Space::Sbuf, 2, 0x40),
            Dtype::BFLOAT16,
            vec![[1, 4], [1, 64]],
        );
        let i = dma_copy_instruction(g, &sb, &hbm, DmaOptions::default()).unwrap();
        let Body::DmaDirect2d(s) = i.body else {
            panic!()
        };
        // HBM rows are contiguous too: the whole 4 × 128 bytes is one element.
        assert_eq!((s.src_elem_size, s.src.num_elem), (512, [1, 1]));
        assert_eq!((s.dst_elem_size, s.dst.num_elem), (128, [4, 1]));
        assert_eq!(s.dst.step_elem[0], 1 << 18);
        // A strided HBM view (every other column) keeps 2-byte elements.
        let strided = DmaView::new(DmaPlace::Hbm(0), Dtype::BFLOAT16, vec![[128, 4], [2, 64]]);
        let i = dma_copy_instruction(g, &sb, &strided, DmaOptions::default()).unwrap();
        let Body::DmaDirect2d(s) = i.body else {
            panic!()
        };
        assert_eq!(
            (s.src_elem_size, s.src.step_elem, s.src.num_elem),
            (2, [4, 256], [64, 4])
        );
    }

    // A transposing read of SBUF (nki-api §3 dma_transpose): partitions innermost, stepped by
    // the partition stride of tpb's map; elements outermost. Not a permutation: None.
    #[test]
    fn a_permuted_on_chip_view_steps_partitions_inside() {
        let g = Gen::Cayman;
        let sb = DmaView::new(
            DmaPlace::on_chip(Space::Sbuf, 0, 0x40),
            Dtype::BFLOAT16,
            vec![[1, 16], [1, 64]],
        );
        let t = sb.permuted(&[1, 0]).unwrap();
        assert_eq!(
            (t.pattern.clone(), t.partition_dim),
            (vec![[1, 64], [1, 16]], 1)
        );
        assert!(sb.permuted(&[0, 0]).is_none() && sb.permuted(&[1]).is_none());
        let dst = DmaView::new(
            DmaPlace::on_chip(Space::Sbuf, 0, 0x400),
            Dtype::BFLOAT16,
            vec![[1, 64], [1, 16]],
        );
        let i = dma_copy_instruction(g, &dst, &t, DmaOptions::default()).unwrap();
        let Body::DmaDirect2d(s) = i.body else {
            panic!()
        };
        assert_eq!(
            (s.src_elem_size, s.src.step_elem, s.src.num_elem),
            (2, [1 << 18, 2], [16, 64])
        );
        assert_eq!((s.dst_elem_size, s.dst.num_elem), (32, [64, 1]));
    }

    // issue 29 item 11: a (128, 32769) fp32 row is 131076 bytes, more than one element
    // holds; its largest divisor that fits (10923 = 32769 / 3) folds instead, so the copy
    // walks 128 × 3 elements. A strided copy of 5M elements walks more than one request may.
    #[test]
    fn long_rows_fold_a_divisor_and_huge_walks_are_refused() {
        let g = Gen::Cayman;
        let hbm = DmaView::new(
            DmaPlace::Hbm(0),
            Dtype::FP32,
            vec![[32769, 128], [1, 32769]],
        );
        let sb = DmaView::new(
            DmaPlace::on_chip(Space::Sbuf, 0, 0),
            Dtype::FP32,
            vec![[1, 128], [1, 32769]],
        );
        let i = dma_copy_instruction(g, &sb, &hbm, DmaOptions::default()).unwrap();
        let Body::DmaDirect2d(s) = i.body else {
            panic!()
        };
        assert_eq!((s.src_elem_size, s.src.num_elem), (43692, [3, 128]));
        assert_eq!((s.dst_elem_size, s.dst.num_elem), (43692, [3, 128]));
        let strided = DmaView::new(DmaPlace::Hbm(0), Dtype::FP32, vec![[2000, 5000], [2, 1000]]);
        let flat = DmaView::new(DmaPlace::Hbm(1 << 26), Dtype::FP32, vec![[1, 5_000_000]]);
        let e = dma_copy_instruction(g, &flat, &strided, DmaOptions::default()).unwrap_err();
        assert!(e.to_string().contains("per request"), "{e}");
    }

    #[test]
    fn build_errors_name_the_problem() {
        let g = Gen::Cayman;
        let a = DmaView::new(DmaPlace::Hbm(0), Dtype::FP32, vec![[1, 8]]);
        let b = DmaView::new(DmaPlace::Hbm(64), Dtype::FP32, vec![[1, 4]]);
        assert_eq!(
            dma_copy_instruction(g, &a, &b, DmaOptions::default()),
            Err(DmaBuildError::Count { dst: 8, src: 4 })
        );
        let c = DmaView::new(
            DmaPlace::Hbm(0),
            Dtype::FP32,
            vec![[100, 2], [10, 2], [2, 2]],
        );
        let d = DmaView::new(DmaPlace::Hbm(4096), Dtype::FP32, vec![[1, 8]]);
        let e = dma_copy_instruction(g, &d, &c, DmaOptions::default()).unwrap_err();
        assert!(e.to_string().contains("3 non-contiguous dims"), "{e}");
        let bad = DmaOptions {
            priority: 5,
            ..DmaOptions::default()
        };
        let e = dma_copy_instruction(g, &d, &d, bad).unwrap_err();
        assert!(e.to_string().contains("is_valid_dma_configs"), "{e}");
    }
}
