//! The compiler's access-pattern packer (seed 001, "assignStaticPattern<TENSOR{N}D>";
//! isa-facts §2.2, §3; decisions §1.5).
//!
//! An access pattern is what NKI and the compiler's `bir::AccessPattern` write:
//! `Pattern[0]` is the partition dimension `[step, num]` and `Pattern[1..]` are the free
//! dimensions `[step, num]`, **outermost first**. The packer turns it into a
//! [`Tensor<N>`] (`TENSOR1D` .. `TENSOR4D`) plus the instruction's separate
//! `num_active_channels`:
//!
//! 1. `Pattern[0]` is folded into ADDR4 (it is never a `{step, num}` slot): SBUF
//!    `partition * STATE_BUF_PARTITION_SIZE + offset`, PSUM
//!    `0x2000000 + partition * 32 KiB + offset` ([`Geometry::address`]). Its `num` becomes
//!    `num_active_channels`; its `step` must be `>= 0` (the compiler's assert
//!    `Negative step in Pattern[0] not supported`) and is otherwise not encoded anywhere —
//!    the hardware walks partitions `start, start+1, …` (decisions §3.2).
//! 2. The active-dimension count is `k = 1 + #{free dims with num != 1}` (the partition
//!    dimension counts as one). If `k > N + 1` the compiler's error is raised with `k`
//!    as its `<k>` ([`PackError::IllegalDimension`]).
//! 3. The free dims are walked innermost first (`Pattern[last] .. Pattern[1]`); dims with
//!    `num == 1` are dropped and the survivors are compacted into slots `0, 1, …`
//!    (slot 0 is the innermost, fastest-varying dimension).
//! 4. Every stored step must fit the signed 16-bit step word and every stored num the
//!    unsigned 16-bit count word with `num >= 1`; unused slots are filled with
//!    `{step 1, num 1}`.
//!
//! Dropping `num == 1` dims and compacting never changes the sequence of element offsets
//! the descriptor walks (slot 0 fastest) compared with the original free dims (innermost
//! fastest): that is the invariant the compiler relies on, and the one this crate's tests
//! check as a property.
//!
//! # [`pack`] or [`pack_explicit`]? (the decisions §1.5 GOTCHA)
//!
//! Compaction *moves* dimensions between slots. That is harmless when the consumer only
//! walks the pattern, but wrong where a slot has a meaning of its own: TensorScalarPtrMulti
//! reads its scalar count W from `num_elem[3]` (seed 000 §4). A `[W=4, Z=1, Y=2, X=8]`
//! pattern packed by [`pack`] drops Z and lands W in slot 2, leaving `num_elem[3] = 1`.
//!
//! * Use [`pack`] for operands that are only walked (the compiler's behaviour; what the
//!   hardware walks is unchanged).
//! * Use [`pack_explicit`] when slot positions matter (PtrMulti's W, or any consumer that
//!   reads a particular `num_elem[i]`): the given free dims go to the slots exactly as
//!   given, innermost first, `num == 1` dims included, and only the unused outer slots are
//!   filled with `{1, 1}`. Give every dimension up to the meaningful slot (e.g. all four
//!   for PtrMulti) — a missing Z would still shift W down.
//!
//! # Checks that are our choice (ASSUMED)
//!
//! * The 1D and 2D active-dimension texts follow the 3D wording (no colon):
//!   `Illegal ISA memory access dimension <k>, which must be in range of [1, 1]D tensor
//!   for ISA mem pattern` (resp. `[1, 2]D`). Only the 3D and 4D texts are quoted by the
//!   sources (isa-facts §3.4).
//! * A byte offset at or beyond the partition stride is rejected
//!   ([`PackError::OffsetOutsidePartition`]) because it would alias into the next
//!   partition; the active-bytes limit per generation is the validator's business
//!   (decisions §2.2), not the packer's.
//! * Steps of dropped (`num == 1`) dims are not range-checked by [`pack`]: the compiler
//!   never stores them. [`pack_explicit`] stores, and therefore checks, every given dim.
//! * Check order: `Pattern[0]` step, space availability, partition range, address, active
//!   dimensions, then each stored dim innermost first (step, then num).

use crate::gen::Gen;
use crate::geometry::{Geometry, Space};
use crate::wire::descriptor::{Addr4, Tensor};
use crate::wire::field::{parse_int, Field};
use thiserror::Error;

/// One `[step, num]` pair of an access pattern, wide so that out-of-range values can be
/// reported rather than truncated.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Dim {
    /// Step in elements (signed; the descriptor word is `i16`).
    pub step: i64,
    /// Element count (the descriptor word is `u16`, and must be `>= 1`).
    pub num: i64,
}

impl Dim {
    /// A `[step, num]` pair.
    pub const fn new(step: i64, num: i64) -> Dim {
        Dim { step, num }
    }
}

impl From<[i64; 2]> for Dim {
    fn from([step, num]: [i64; 2]) -> Dim {
        Dim { step, num }
    }
}

/// The order in which a list of free dims is given.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum DimOrder {
    /// Outermost first, as NKI and `bir::AccessPattern` write `Pattern[1..]` (the default).
    #[default]
    OutermostFirst,
    /// Innermost first, as the descriptor slots are laid out (slot 0 first).
    InnermostFirst,
}

/// An access pattern: the partition dimension `Pattern[0]`, a byte offset within the start
/// partition, and the free dimensions `Pattern[1..]`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct AccessPattern {
    /// SBUF or PSUM.
    pub space: Space,
    /// The first partition touched.
    pub start_partition: u32,
    /// `Pattern[0]`: `num` is the partition count (becomes `num_active_channels`), `step`
    /// must be `>= 0` and is not encoded.
    pub partition: Dim,
    /// Byte offset within the start partition.
    pub offset: u64,
    /// `Pattern[1..]`: the free dims, **outermost first** (`free[0]` is `Pattern[1]`).
    pub free: Vec<Dim>,
}

impl AccessPattern {
    /// A pattern over partitions `start_partition .. start_partition + partitions` (partition
    /// step 1) at byte `offset`, with no free dims yet.
    pub fn new(space: Space, start_partition: u32, partitions: i64, offset: u64) -> Self {
        AccessPattern {
            space,
            start_partition,
            partition: Dim::new(1, partitions),
            offset,
            free: Vec::new(),
        }
    }

    /// Replaces the free dims with `dims`, given in `order`.
    pub fn with_free<D: Into<Dim>>(
        mut self,
        dims: impl IntoIterator<Item = D>,
        order: DimOrder,
    ) -> Self {
        self.free = dims.into_iter().map(Into::into).collect();
        if order == DimOrder::InnermostFirst {
            self.free.reverse();
        }
        self
    }

    /// The free dims innermost first, each with its `Pattern` index (1 = outermost free dim).
    pub fn innermost_first(&self) -> impl Iterator<Item = (usize, Dim)> + '_ {
        self.free.iter().enumerate().rev().map(|(i, d)| (i + 1, *d))
    }

    /// The active-dimension count `1 + #{free dims with num != 1}` (seed 001, "The runtime
    /// range check"); `<k>` of the compiler's error.
    pub fn active_dims(&self) -> usize {
        1 + self.free.iter().filter(|d| d.num != 1).count()
    }
}

/// A packed descriptor and what the instruction carries beside it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Packed<const N: usize> {
    /// The `TENSOR{N}D` descriptor.
    pub tensor: Tensor<N>,
    /// The partition count (`Pattern[0].num`), carried by the instruction's
    /// `num_active_channels` byte, not by the descriptor.
    pub num_active_channels: u8,
    /// The active-dimension count `k` (partition dim + free dims with `num != 1`).
    pub active_dims: usize,
    /// For each slot, the `Pattern` index of the free dim stored there (1 = outermost), or
    /// `None` for a `{1, 1}` fill.
    pub slot_source: [Option<usize>; N],
}

impl<const N: usize> Packed<N> {
    /// The descriptor's `4 + 4N` wire bytes.
    pub fn bytes(&self) -> Vec<u8> {
        let mut b = vec![0u8; <Tensor<N> as Field>::SIZE];
        self.tensor.write(&mut b);
        b
    }
}

/// Why an access pattern cannot be packed. Texts the compiler defines are reproduced
/// exactly (isa-facts §3.4); the others name the `Pattern` index and the value.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum PackError {
    /// `Pattern[0].step < 0` (the compiler's assert).
    #[error("Negative step in Pattern[0] not supported (Pattern[0] step = {step})")]
    NegativePartitionStep {
        /// The offending step.
        step: i64,
    },
    /// The space does not exist on the generation (PSUM on maverick).
    #[error("{} is not available on {gen} (its size is 0)", space.name())]
    SpaceUnavailable {
        /// The generation.
        gen: Gen,
        /// The space asked for.
        space: Space,
    },
    /// An engine operand in HBM: ADDR4 reaches only SBUF and PSUM (isa-facts §2.1); only
    /// DMA (ADDR8) reaches HBM.
    #[error(
        "hbm has no ADDR4 address: an engine operand is in SBUF or PSUM; use a DMA to reach HBM"
    )]
    NotOnChip,
    /// `Pattern[0].num` is not in `1..=128`.
    #[error("Pattern[0] num (partition count) {count} is not in 1..=128")]
    PartitionCount {
        /// The offending count.
        count: i64,
    },
    /// `start + count > 128`.
    #[error(
        "partitions {start}..{} exceed the 128 partitions (start {start} + count {count} > 128)",
        u64::from(*start) + u64::from(*count)
    )]
    PartitionRange {
        /// The start partition.
        start: u32,
        /// The partition count.
        count: u32,
    },
    /// The folded address does not fit 32 bits (the ADDR4 encoder's assert).
    #[error("memory address out of uint32 range (address {addr:#x})")]
    AddressOutOfRange {
        /// The folded address.
        addr: u64,
    },
    /// The byte offset is at or beyond the partition stride (ASSUMED check).
    #[error(
        "byte offset {offset:#x} is outside the {} partition ({stride:#x} bytes per partition on {gen})",
        space.name()
    )]
    OffsetOutsidePartition {
        /// The generation.
        gen: Gen,
        /// The space.
        space: Space,
        /// The offending offset.
        offset: u64,
        /// The partition stride.
        stride: u32,
    },
    /// More active dimensions than `N + 1` (the compiler's error; `active` is `<k>`).
    #[error("{}", illegal_dimension_text(*active, *n))]
    IllegalDimension {
        /// `k = 1 + #{free dims with num != 1}`.
        active: usize,
        /// The descriptor's dimensionality N.
        n: usize,
    },
    /// More free dims than slots given to [`pack_explicit`].
    #[error(
        "{given} free dims given but TENSOR{n}D has {n} slots (pack_explicit keeps every dim)"
    )]
    TooManyExplicitDims {
        /// Free dims given.
        given: usize,
        /// Slots available.
        n: usize,
    },
    /// A stored step does not fit the signed 16-bit step word.
    #[error(
        "Pattern[{dim}] step {step} does not fit the signed 16-bit step word (-32768..=32767)"
    )]
    StepRange {
        /// `Pattern` index (1 = outermost free dim).
        dim: usize,
        /// The offending step.
        step: i64,
    },
    /// A stored num is 0 (the zero-rejecting count guard).
    #[error("Pattern[{dim}] num is 0; a count must be at least 1")]
    ZeroNum {
        /// `Pattern` index (1 = outermost free dim).
        dim: usize,
    },
    /// A stored num does not fit the unsigned 16-bit count word.
    #[error("Pattern[{dim}] num {num} does not fit the unsigned 16-bit count word (1..=65535)")]
    NumRange {
        /// `Pattern` index (1 = outermost free dim).
        dim: usize,
        /// The offending num.
        num: i64,
    },
}

/// The compiler's active-dimension error text for a `TENSOR{n}D` packer with `<k> = active`.
///
/// 4D and 3D are quoted from libwalrus (isa-facts §3.4; the 4D text has a colon after
/// "dimension", the 3D text has none). 1D and 2D are ASSUMED to follow the 3D wording.
pub fn illegal_dimension_text(active: usize, n: usize) -> String {
    let colon = if n == 4 { ":" } else { "" };
    format!(
        "Illegal ISA memory access dimension{colon} {active}, which must be in range of [1, {n}]D tensor for ISA mem pattern"
    )
}

/// Folds the partition dim into ADDR4 and checks it; returns (ADDR4, num_active_channels).
fn fold_partition(gen: Gen, ap: &AccessPattern) -> Result<(Addr4, u8), PackError> {
    let g = Geometry::of(gen);
    if ap.partition.step < 0 {
        return Err(PackError::NegativePartitionStep {
            step: ap.partition.step,
        });
    }
    // HBM has no ADDR4 form (an engine operand is on chip; DMA uses ADDR8).
    if ap.space == Space::Hbm {
        return Err(PackError::NotOnChip);
    }
    if ap.space == Space::Psum && g.psum_buf_sz == 0 {
        return Err(PackError::SpaceUnavailable {
            gen,
            space: ap.space,
        });
    }
    let count = ap.partition.num;
    if !(1..=i64::from(g.partitions)).contains(&count) {
        return Err(PackError::PartitionCount { count });
    }
    let count = count as u32;
    if u64::from(ap.start_partition) + u64::from(count) > u64::from(g.partitions) {
        return Err(PackError::PartitionRange {
            start: ap.start_partition,
            count,
        });
    }
    let stride = g.stride(ap.space);
    let base = match ap.space {
        Space::Sbuf => 0,
        Space::Psum | Space::Hbm => u64::from(g.psum_base),
    };
    let addr = base
        .saturating_add(u64::from(ap.start_partition) * u64::from(stride))
        .saturating_add(ap.offset);
    if addr > u64::from(u32::MAX) {
        return Err(PackError::AddressOutOfRange { addr });
    }
    if ap.offset >= u64::from(stride) {
        return Err(PackError::OffsetOutsidePartition {
            gen,
            space: ap.space,
            offset: ap.offset,
            stride,
        });
    }
    // Checked above against the same geometry, so `address` cannot refuse it.
    let Some(a) = g.address(ap.space, ap.start_partition, ap.offset as u32) else {
        return Err(PackError::AddressOutOfRange { addr });
    };
    debug_assert_eq!(u64::from(a), addr);
    Ok((Addr4(a), count as u8))
}

/// Range-checks one stored dim (step sign-preserving into i16, num into 1..=u16::MAX).
fn store_words(dim: usize, d: Dim) -> Result<(i16, u16), PackError> {
    let step = i16::try_from(d.step).map_err(|_| PackError::StepRange { dim, step: d.step })?;
    if d.num == 0 {
        return Err(PackError::ZeroNum { dim });
    }
    let num = u16::try_from(d.num).map_err(|_| PackError::NumRange { dim, num: d.num })?;
    Ok((step, num))
}

const fn assert_n<const N: usize>() {
    assert!(
        N >= 1 && N <= 4,
        "TENSOR1D..TENSOR4D exists only for N = 1..=4"
    );
}

/// Packs `ap` into a `TENSOR{N}D` exactly as the compiler's `assignStaticPattern` does
/// (seed 001): partition folded into ADDR4, `num == 1` free dims dropped, survivors
/// compacted innermost first into slots `0, 1, …`, unused slots `{1, 1}`, at most `N + 1`
/// active dimensions. See the module docs for when to use [`pack_explicit`] instead.
///
/// `N` must be 1..=4 (checked at compile time).
pub fn pack<const N: usize>(gen: Gen, ap: &AccessPattern) -> Result<Packed<N>, PackError> {
    const { assert_n::<N>() };
    let (start_addr, num_active_channels) = fold_partition(gen, ap)?;
    let active = ap.active_dims();
    if active > N + 1 {
        return Err(PackError::IllegalDimension { active, n: N });
    }
    let mut out = Packed {
        tensor: Tensor {
            start_addr,
            ..Tensor::default()
        },
        num_active_channels,
        active_dims: active,
        slot_source: [None; N],
    };
    let survivors = ap.innermost_first().filter(|(_, d)| d.num != 1);
    for (slot, (dim, d)) in survivors.enumerate() {
        let (step, num) = store_words(dim, d)?;
        out.tensor.step_elem[slot] = step;
        out.tensor.num_elem[slot] = num;
        out.slot_source[slot] = Some(dim);
    }
    Ok(out)
}

/// Packs `ap` into a `TENSOR{N}D` **without** dropping or compacting: the free dims go to
/// slots `0, 1, …` innermost first exactly as given (`num == 1` dims included), the unused
/// outer slots get `{1, 1}`. Partition folding and the step/num range checks are those of
/// [`pack`]; more than `N` free dims is [`PackError::TooManyExplicitDims`].
///
/// Use this where a slot has a meaning of its own (PtrMulti's W is `num_elem[3]`;
/// decisions §1.5 GOTCHA).
pub fn pack_explicit<const N: usize>(gen: Gen, ap: &AccessPattern) -> Result<Packed<N>, PackError> {
    const { assert_n::<N>() };
    let (start_addr, num_active_channels) = fold_partition(gen, ap)?;
    if ap.free.len() > N {
        return Err(PackError::TooManyExplicitDims {
            given: ap.free.len(),
            n: N,
        });
    }
    let mut out = Packed {
        tensor: Tensor {
            start_addr,
            ..Tensor::default()
        },
        num_active_channels,
        active_dims: ap.active_dims(),
        slot_source: [None; N],
    };
    for (slot, (dim, d)) in ap.innermost_first().enumerate() {
        let (step, num) = store_words(dim, d)?;
        out.tensor.step_elem[slot] = step;
        out.tensor.num_elem[slot] = num;
        out.slot_source[slot] = Some(dim);
    }
    Ok(out)
}

/// Parses a free-dim list `[[step,num],…]` (whitespace ignored; integers in decimal, `0x`
/// hex or `0b` binary, optionally negative). Values are kept wide so [`pack`] can report
/// range errors; the order is as written (the caller says which with a [`DimOrder`]).
pub fn parse_dims(s: &str) -> Result<Vec<Dim>, String> {
    let t: String = s.chars().filter(|c| !c.is_whitespace()).collect();
    let inner = t
        .strip_prefix('[')
        .and_then(|x| x.strip_suffix(']'))
        .ok_or_else(|| format!("expected `[[step,num],...]`, got `{s}`"))?;
    let mut out = Vec::new();
    let mut rest = inner;
    while !rest.is_empty() {
        let body = rest
            .strip_prefix('[')
            .ok_or_else(|| format!("expected `[step,num]` at `{rest}`"))?;
        let (pair, tail) = body
            .split_once(']')
            .ok_or_else(|| format!("missing `]` after `[{body}`"))?;
        let (a, b) = pair
            .split_once(',')
            .ok_or_else(|| format!("expected `[step,num]`, got `[{pair}]`"))?;
        let int = |v: &str, what: &str| {
            parse_int(v)
                .and_then(|x| i64::try_from(x).ok())
                .ok_or_else(|| format!("{what} `{v}` in `[{pair}]` is not an integer"))
        };
        out.push(Dim::new(int(a, "step")?, int(b, "num")?));
        rest = match tail.strip_prefix(',') {
            Some(r) if !r.is_empty() => r,
            Some(_) => return Err(format!("trailing `,` in `{s}`")),
            None if tail.is_empty() => tail,
            None => return Err(format!("expected `,` or `]` at `{tail}`")),
        };
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_dims_forms() {
        assert_eq!(
            parse_dims(" [[64, 2], [-0x1, 64]] "),
            Ok(vec![Dim::new(64, 2), Dim::new(-1, 64)])
        );
        assert_eq!(parse_dims("[]"), Ok(vec![]));
        assert!(parse_dims("[[1,2],]").is_err());
        assert!(parse_dims("[[1,2]").is_err());
        assert!(parse_dims("[[1]]").is_err());
        assert!(parse_dims("[[1,2][3,4]]").is_err());
        assert!(parse_dims("[[a,2]]").is_err());
    }
}
