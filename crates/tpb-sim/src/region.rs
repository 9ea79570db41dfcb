//! Memory regions as text: `SPACE[pSTART..END]+OFFSET:DTYPE:SHAPE`, shared by the `tpb run`
//! command line and embedders (the Python binding).
//!
//! A region is a rectangle of on-chip memory seen as a C-ordered array: partitions
//! `START..END` (END exclusive, as in the assembly syntax), each holding the same number of
//! contiguous elements from byte `OFFSET`. The array's elements are laid out partition-major:
//! with `P = END - START` partitions and `N` elements in all, partition `START + i` holds
//! elements `i·N/P .. (i+1)·N/P`. So `sbuf[p0..128]+0x0:fp32:128x512` is a 128×512 fp32 tile,
//! one row per partition, and `…:fp32:128x4x64` is the same bytes seen as 128×4×64.
//!
//! `DTYPE` and `SHAPE` are optional in the text ([`RegionSpec`]); a region with both known is
//! a [`BoundRegion`], which [`BoundRegion::resolve`] checks against a generation's address map
//! and which [`Machine::read_region`] / [`Machine::write_region`] read and write as raw
//! little-endian element bytes.
//!
//! ```
//! use tpb_isa::{Dtype, Gen};
//! use tpb_sim::region::{RegionData, RegionSpec};
//! use tpb_sim::{Config, Machine};
//!
//! let spec = RegionSpec::parse("sbuf[p0..2]+0x400:fp32:2x3")?;
//! assert_eq!((spec.start, spec.end, spec.offset), (0, 2, 0x400));
//! let bound = spec.bind()?;
//! let tensor = bound.resolve(Gen::Cayman)?; // in range on cayman
//! assert_eq!(tensor.elems_per_partition, 3);
//!
//! let mut m = Machine::new(Config::new(Gen::Cayman));
//! let bytes: Vec<u8> = (0..6).flat_map(|i| (i as f32).to_le_bytes()).collect();
//! let data = RegionData { dtype: Dtype::FP32, shape: vec![2, 3], bytes };
//! // A region without dtype and shape takes them from the data.
//! m.write_region(&RegionSpec::parse("sbuf[p0..2]+0x400")?, &data)?;
//! assert_eq!(m.read_region(&spec)?, data);
//! # Ok::<(), tpb_sim::region::RegionError>(())
//! ```

use std::fmt;
use std::ops::Range;
use tpb_isa::geometry::{Geometry, Space, NUM_CHANNELS};
use tpb_isa::wire::memref::{parse_mem_ref_then, MemRefErrorKind, Offset};
use tpb_isa::{CodeEnum, Dtype, Gen};

use crate::machine::{HostError, HostTensor, Machine};

/// A parsed region, possibly without its dtype or shape.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RegionSpec {
    /// SBUF or PSUM.
    pub space: Space,
    /// First partition.
    pub start: u32,
    /// One past the last partition.
    pub end: u32,
    /// Byte offset inside each partition.
    pub offset: u64,
    /// Element type, if given.
    pub dtype: Option<Dtype>,
    /// Array shape (outermost first), if given.
    pub shape: Option<Vec<usize>>,
}

/// A region with its dtype and shape known: what the machine's host API reads and writes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BoundRegion {
    /// The host tensor (partitions × elements per partition).
    pub tensor: HostTensor,
    /// The array shape, outermost first; its product is partitions × elements per partition.
    pub shape: Vec<usize>,
}

/// A region's contents on the host: raw little-endian element bytes, C order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RegionData {
    /// Element type.
    pub dtype: Dtype,
    /// Array shape, outermost first.
    pub shape: Vec<usize>,
    /// `product(shape) × dtype size` bytes.
    pub bytes: Vec<u8>,
}

/// Why a region's text is malformed (the part after `region \`TEXT\`: `).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RegionSyntax {
    /// No `SPACE[` at the start.
    #[error("expected SPACE[pSTART..END]+OFFSET, e.g. sbuf[p0..128]+0x400:fp32:128x512")]
    NoBracket,
    /// The space is neither sbuf nor psum.
    #[error("unknown space `{0}`; expected sbuf or psum")]
    UnknownSpace(String),
    /// No closing `]`.
    #[error("missing `]`")]
    Unclosed,
    /// The partition text is not `START..END` or `N`.
    #[error("partition range `{0}` is not START..END (END exclusive) or one partition N")]
    Partitions(String),
    /// `START >= END` or END too large.
    #[error("partition range {start}..{end} is empty (END is exclusive)")]
    EmptyPartitions {
        /// First partition as written.
        start: u64,
        /// End as written.
        end: u64,
    },
    /// Something other than `+OFFSET` or `:` after `]`.
    #[error("expected `+OFFSET` or `:` after `]`, found `{0}`")]
    AfterBracket(String),
    /// The offset is not a number.
    #[error("`{0}` is not a byte offset")]
    Offset(String),
    /// An unknown or non-datapath dtype name.
    #[error(transparent)]
    Dtype(#[from] DtypeNameError),
    /// A shape dimension that is not a positive number.
    #[error("shape `{shape}`: `{dim}` is not a dimension (1 or more)")]
    Dimension {
        /// The shape text.
        shape: String,
        /// The bad dimension.
        dim: String,
    },
    /// Two shapes.
    #[error("the shape is given twice")]
    ShapeTwice,
    /// Two dtypes.
    #[error("the dtype is given twice")]
    DtypeTwice,
    /// `END` beyond what any machine has.
    #[error("partition range {start}..{end} goes beyond the 128 partitions")]
    PartitionsBeyond {
        /// First partition as written.
        start: u64,
        /// End as written.
        end: u64,
    },
    /// Nothing between two `:` or after the last one.
    #[error("an empty part after `:` (a `:` too many?)")]
    EmptyPart,
}

/// An unknown dtype name (regions and `--dtype` accept the 12 plain datapath types and fp32r).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "unknown dtype `{0}`; expected one of int8, uint8, int16, uint16, bfloat16 (bf16), \
     fp16, int32, uint32, fp32, fp32r, fp8_exp3 (e3m4), fp8_exp4 (e4m3), fp8_exp5 (e5m2)"
)]
pub struct DtypeNameError(pub String);

/// A region that cannot be parsed, bound, resolved, read or written. Nothing is changed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RegionError {
    /// The text is malformed.
    #[error("region `{text}`: {why}")]
    Syntax {
        /// The region text (trimmed).
        text: String,
        /// What is wrong.
        why: RegionSyntax,
    },
    /// The region's dtype differs from the data's.
    #[error("the array is {given} but region {region} is {declared}")]
    DtypeMismatch {
        /// The region.
        region: RegionSpec,
        /// Its dtype.
        declared: Dtype,
        /// The data's dtype.
        given: Dtype,
    },
    /// The region's shape differs from the data's.
    #[error(
        "the array has shape {} but region {region} says {}",
        ShapeText(given),
        ShapeText(declared)
    )]
    ShapeMismatch {
        /// The region.
        region: RegionSpec,
        /// Its shape.
        declared: Vec<usize>,
        /// The data's shape.
        given: Vec<usize>,
    },
    /// Binding needs both dtype and shape.
    #[error("region {region} needs its dtype and shape, e.g. {}:fp32:{}x512", region.place(), region.partitions())]
    Incomplete {
        /// The region.
        region: RegionSpec,
    },
    /// The shape's element count overflows.
    #[error("region {region}: the shape is too large")]
    TooLarge {
        /// The region.
        region: RegionSpec,
    },
    /// The element count is zero or not a multiple of the partition count.
    #[error("region {region}: {count} elements do not split evenly over {partitions} partitions")]
    Uneven {
        /// The region.
        region: RegionSpec,
        /// Elements in the shape.
        count: u64,
        /// Partitions in the region.
        partitions: u64,
    },
    /// The data's byte length does not match its dtype and shape.
    #[error("{got} bytes given for {count} {dtype} elements")]
    Length {
        /// Bytes given.
        got: u64,
        /// Elements in the shape.
        count: u64,
        /// Element type.
        dtype: Dtype,
    },
    /// The region is outside the generation's memory.
    #[error("region {region}: {error} on {gen}")]
    Host {
        /// The region.
        region: RegionSpec,
        /// The generation.
        gen: Gen,
        /// What the address map refuses.
        error: HostError,
    },
}

impl RegionSpec {
    /// Parses `SPACE[pSTART..END]+OFFSET` followed by optional `:DTYPE` and `:SHAPE` parts
    /// (a part starting with a digit is the shape). `[pN]` is the single partition N; the `p`
    /// and the `+OFFSET` may be left out. Numbers are decimal or `0x` hex, `_` allowed.
    ///
    /// ```
    /// use tpb_sim::region::RegionSpec;
    /// let r = RegionSpec::parse("psum[3]:bf16")?;
    /// assert_eq!((r.start, r.end, r.offset, &r.shape), (3, 4, 0, &None));
    /// assert_eq!(r.to_string(), "psum[p3..4]+0x0:bfloat16");
    /// # Ok::<(), tpb_sim::region::RegionError>(())
    /// ```
    pub fn parse(text: &str) -> Result<RegionSpec, RegionError> {
        let s = text.trim();
        let bad = |why: RegionSyntax| RegionError::Syntax {
            text: s.to_string(),
            why,
        };
        if let Some(spec) = parse_hbm(s).map_err(bad)? {
            return spec.with_suffix(s);
        }
        let (m, suffix) = parse_mem_ref_then(s, ':', parse_number).map_err(|e| match e.kind {
            MemRefErrorKind::NoBracket => bad(RegionSyntax::NoBracket),
            MemRefErrorKind::UnknownSpace => bad(RegionSyntax::UnknownSpace(
                s.get(e.span).unwrap_or_default().to_ascii_lowercase(),
            )),
            MemRefErrorKind::Unclosed => bad(RegionSyntax::Unclosed),
        })?;
        let start = m.start.value;
        let end = match &m.end {
            Some(e) => e.value,
            None => start.and_then(|a| a.checked_add(1)),
        };
        let (Some(start), Some(end)) = (start, end) else {
            // The partition text as written, after the optional `p`.
            let from = m.p.map_or(m.inside.start, |p| p + 1);
            let inside = s.get(from..m.inside.end).unwrap_or_default();
            return Err(bad(RegionSyntax::Partitions(inside.to_string())));
        };
        if end > u64::from(u32::MAX) {
            return Err(bad(RegionSyntax::PartitionsBeyond { start, end }));
        }
        if start >= end {
            return Err(bad(RegionSyntax::EmptyPartitions { start, end }));
        }
        let offset = match m.offset {
            Offset::Absent => 0,
            Offset::Malformed(head) => {
                let found = s.get(head).unwrap_or_default().to_string();
                return Err(bad(RegionSyntax::AfterBracket(found)));
            }
            Offset::Given(off) => off.value.ok_or_else(|| {
                bad(RegionSyntax::Offset(
                    s.get(off.span).unwrap_or_default().to_string(),
                ))
            })?,
        };
        RegionSpec {
            space: m.space,
            start: start as u32,
            end: end as u32,
            offset,
            dtype: None,
            shape: None,
        }
        .with_parts(s, suffix)
    }

    /// The `:DTYPE:SHAPE` parts after an HBM place (`hbm+0x100:fp32:4x8`).
    fn with_suffix(self, s: &str) -> Result<RegionSpec, RegionError> {
        let suffix = s.split_once(':').map(|(_, rest)| rest);
        self.with_parts(s, suffix)
    }

    /// Reads the optional `DTYPE` and `SHAPE` parts (`rest` is what follows the first `:`).
    fn with_parts(mut self, s: &str, suffix: Option<&str>) -> Result<RegionSpec, RegionError> {
        let bad = |why: RegionSyntax| RegionError::Syntax {
            text: s.to_string(),
            why,
        };
        let spec = &mut self;
        for part in suffix.into_iter().flat_map(|rest| rest.split(':')) {
            let part = part.trim();
            if part.is_empty() {
                return Err(bad(RegionSyntax::EmptyPart));
            }
            if part.starts_with(|c: char| c.is_ascii_digit()) {
                if spec.shape.is_some() {
                    return Err(bad(RegionSyntax::ShapeTwice));
                }
                spec.shape = Some(parse_shape(part).map_err(bad)?);
            } else {
                if spec.dtype.is_some() {
                    return Err(bad(RegionSyntax::DtypeTwice));
                }
                spec.dtype = Some(parse_dtype(part).map_err(|e| bad(e.into()))?);
            }
        }
        Ok(self)
    }

    /// Number of partitions.
    pub fn partitions(&self) -> u32 {
        self.end - self.start
    }

    /// The partition range.
    pub fn partition_range(&self) -> Range<u32> {
        self.start..self.end
    }

    /// Binds the region to an array of `dtype` and `shape` (from a file): the region's own
    /// dtype and shape, where given, must agree.
    pub fn bind_to(&self, dtype: Dtype, shape: &[usize]) -> Result<BoundRegion, RegionError> {
        if let Some(d) = self.dtype {
            if d != dtype {
                return Err(RegionError::DtypeMismatch {
                    region: self.clone(),
                    declared: d,
                    given: dtype,
                });
            }
        }
        if let Some(s) = &self.shape {
            if s.as_slice() != shape {
                return Err(RegionError::ShapeMismatch {
                    region: self.clone(),
                    declared: s.clone(),
                    given: shape.to_vec(),
                });
            }
        }
        RegionSpec {
            dtype: Some(dtype),
            shape: Some(shape.to_vec()),
            ..self.clone()
        }
        .bind()
    }

    /// Binds a region that names its own dtype and shape (an error says both are needed).
    pub fn bind(&self) -> Result<BoundRegion, RegionError> {
        let (Some(dtype), Some(shape)) = (self.dtype, &self.shape) else {
            return Err(RegionError::Incomplete {
                region: self.clone(),
            });
        };
        let count = shape
            .iter()
            .try_fold(1u64, |acc, &d| acc.checked_mul(d as u64))
            .ok_or_else(|| RegionError::TooLarge {
                region: self.clone(),
            })?;
        let parts = u64::from(self.partitions());
        if count == 0 || !count.is_multiple_of(parts) {
            return Err(RegionError::Uneven {
                region: self.clone(),
                count,
                partitions: parts,
            });
        }
        Ok(BoundRegion {
            tensor: HostTensor::at(self.space, self.partition_range())
                .offset(self.offset)
                .elements(dtype, count / parts),
            shape: shape.clone(),
        })
    }

    /// The place without dtype and shape: `sbuf[p0..128]+0x400`, or `hbm+0x1000` (HBM is
    /// flat: the address alone).
    pub fn place(&self) -> String {
        if self.space == Space::Hbm {
            return format!("hbm+{:#x}", self.offset);
        }
        format!(
            "{}[p{}..{}]+{:#x}",
            self.space.name(),
            self.start,
            self.end,
            self.offset
        )
    }
}

/// `hbm+ADDRESS` (or `hbm` for address 0) before any `:`: an HBM region, one flat row
/// (partition 0). `None` when the text does not start with `hbm`.
fn parse_hbm(s: &str) -> Result<Option<RegionSpec>, RegionSyntax> {
    let place = s.split(':').next().unwrap_or_default().trim();
    let Some(rest) = place
        .get(..3)
        .filter(|h| h.eq_ignore_ascii_case("hbm"))
        .map(|_| &place[3..])
    else {
        return Ok(None);
    };
    let offset = match rest.trim() {
        "" => 0,
        r => match r.strip_prefix('+') {
            Some(o) => parse_number(o.trim()).ok_or_else(|| RegionSyntax::Offset(o.into()))?,
            None => return Err(RegionSyntax::AfterBracket(r.into())),
        },
    };
    Ok(Some(RegionSpec {
        space: Space::Hbm,
        start: 0,
        end: 1,
        offset,
        dtype: None,
        shape: None,
    }))
}

impl fmt::Display for RegionSpec {
    /// The canonical text: `sbuf[p0..128]+0x400:fp32:128x512` (parts only where known).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.place())?;
        if let Some(d) = self.dtype {
            write!(f, ":{d}")?;
        }
        if let Some(s) = &self.shape {
            write!(f, ":{}", ShapeText(s))?;
        }
        Ok(())
    }
}

impl BoundRegion {
    /// The region spec this binding came from, fully specified.
    pub fn spec(&self) -> RegionSpec {
        let t = &self.tensor;
        RegionSpec {
            space: t.space,
            start: t.start_partition,
            end: t.start_partition.saturating_add(t.partitions),
            offset: t.byte_offset,
            dtype: Some(t.dtype),
            shape: Some(self.shape.clone()),
        }
    }

    /// Elements in the region.
    pub fn count(&self) -> u64 {
        self.tensor
            .elems_per_partition
            .saturating_mul(u64::from(self.tensor.partitions))
    }

    /// Element size in bytes (bound regions always have a sized dtype; 1 otherwise).
    pub fn elem_size(&self) -> usize {
        self.tensor.dtype.size().unwrap_or(1)
    }

    /// Checks the region against `gen`'s address map (the space exists, partitions inside
    /// 0..128, bytes inside a partition's active bytes, a byte-sized dtype) and returns the
    /// host tensor the machine reads and writes.
    pub fn resolve(&self, gen: Gen) -> Result<HostTensor, RegionError> {
        self.tensor
            .check(gen)
            .map(|_| self.tensor)
            .map_err(|error| RegionError::Host {
                region: self.spec(),
                gen,
                error,
            })
    }
}

impl fmt::Display for BoundRegion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.spec().fmt(f)
    }
}

impl HostTensor {
    /// Checks the tensor against `gen`'s address map; returns (row bytes, total bytes).
    pub fn check(&self, gen: Gen) -> Result<(u64, u64), HostError> {
        let geo = Geometry::of(gen);
        if self.space == Space::Psum && geo.psum_buf_sz == 0 {
            return Err(HostError::NoSuchSpace {
                gen,
                space: self.space,
            });
        }
        let size = self.dtype.size().ok_or(HostError::Dtype(self.dtype))?;
        if self.space == Space::Hbm {
            // HBM is flat: the rows follow one another; the machine checks its size (and
            // names it in an overflow error, `Machine::host_check`).
            let row = self.elems_per_partition.checked_mul(size as u64);
            let total = row.and_then(|r| r.checked_mul(u64::from(self.partitions)));
            return match (row, total) {
                (Some(row), Some(total)) if self.start_partition == 0 => Ok((row, total)),
                _ => Err(HostError::HbmSpan {
                    start: self.byte_offset,
                    size: None,
                }),
            };
        }
        let end_p = u64::from(self.start_partition) + u64::from(self.partitions);
        if end_p > u64::from(NUM_CHANNELS) {
            return Err(HostError::Partitions {
                start: u64::from(self.start_partition),
                end: end_p,
                max: NUM_CHANNELS,
            });
        }
        let active = u64::from(geo.active_bytes(self.space));
        let row = self.elems_per_partition.checked_mul(size as u64);
        let end_b = row.and_then(|r| r.checked_add(self.byte_offset));
        match (row, end_b) {
            // row ≤ active bytes and partitions ≤ 128, so the product fits.
            (Some(row), Some(end)) if end <= active => Ok((row, row * u64::from(self.partitions))),
            _ => Err(HostError::Bytes {
                space: self.space,
                start: self.byte_offset,
                end: end_b.unwrap_or(u64::MAX),
                active,
            }),
        }
    }
}

impl Machine {
    /// Checks a bound region against this machine — the generation's address map and, for
    /// HBM, the configured size (named in the error, also when the region's byte count
    /// passes 2^64) — and returns its host tensor. [`Machine::read_region`] and
    /// [`Machine::write_region`] check this first; an embedder that gathers the data itself
    /// calls it before gathering, so a region that cannot fit costs nothing.
    pub fn resolve_region(&self, bound: &BoundRegion) -> Result<HostTensor, RegionError> {
        let t = bound.tensor;
        let checked = self.host_check(&t).and_then(|(_, total)| {
            if t.space == Space::Hbm {
                self.hbm_check(&t, total)
            } else {
                Ok(())
            }
        });
        checked.map(|()| t).map_err(|error| RegionError::Host {
            region: bound.spec(),
            gen: self.gen(),
            error,
        })
    }

    /// Reads a region that names its dtype and shape.
    pub fn read_region(&self, region: &RegionSpec) -> Result<RegionData, RegionError> {
        let bound = region.bind()?;
        let tensor = self.resolve_region(&bound)?;
        let bytes = self
            .read_tensor(&tensor)
            .map_err(|error| RegionError::Host {
                region: region.clone(),
                gen: self.gen(),
                error,
            })?;
        Ok(RegionData {
            dtype: tensor.dtype,
            shape: bound.shape,
            bytes,
        })
    }

    /// Writes `data` into a region (its dtype and shape, where the region gives them, must
    /// agree with the data's). Returns the bound region; the bytes become initialised.
    pub fn write_region(
        &mut self,
        region: &RegionSpec,
        data: &RegionData,
    ) -> Result<BoundRegion, RegionError> {
        let bound = region.bind_to(data.dtype, &data.shape)?;
        let tensor = self.resolve_region(&bound)?;
        let want = tensor.len().unwrap_or(u64::MAX);
        if data.bytes.len() as u64 != want {
            return Err(RegionError::Length {
                got: data.bytes.len() as u64,
                count: bound.count(),
                dtype: data.dtype,
            });
        }
        self.write_tensor(&tensor, &data.bytes)
            .map_err(|error| RegionError::Host {
                region: bound.spec(),
                gen: self.gen(),
                error,
            })?;
        Ok(bound)
    }
}

/// A shape as regions write it: `128x512`, `512` for one dimension, `scalar` for a 0-d array.
pub struct ShapeText<'a>(pub &'a [usize]);

impl fmt::Display for ShapeText<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_empty() {
            return f.write_str("scalar");
        }
        for (i, d) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str("x")?;
            }
            write!(f, "{d}")?;
        }
        Ok(())
    }
}

/// Parses a dtype name for a region or `--dtype`: any datapath type (the 12 plain types and
/// fp32r), by name or alias.
pub fn parse_dtype(s: &str) -> Result<Dtype, DtypeNameError> {
    let s = s.trim();
    let d = if s.starts_with(|c: char| c.is_ascii_alphabetic()) {
        Dtype::parse_name(s)
    } else {
        None
    };
    match d {
        Some(d) if d.is_valid_dtype(true) => Ok(d),
        _ => Err(DtypeNameError(s.to_string())),
    }
}

/// Parses `128x512` into dimensions, each at least 1.
fn parse_shape(s: &str) -> Result<Vec<usize>, RegionSyntax> {
    s.split(['x', 'X'])
        .map(|d| {
            parse_number(d)
                .and_then(|n| usize::try_from(n).ok())
                .filter(|&n| n > 0)
                .ok_or_else(|| RegionSyntax::Dimension {
                    shape: s.to_string(),
                    dim: d.trim().to_string(),
                })
        })
        .collect()
}

/// A non-negative number: decimal or `0x` hex, `_` separators allowed.
pub fn parse_number(s: &str) -> Option<u64> {
    let t: String = s.trim().chars().filter(|&c| c != '_').collect();
    if let Some(h) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        u64::from_str_radix(h, 16).ok()
    } else if t.bytes().all(|b| b.is_ascii_digit()) {
        t.parse().ok()
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Config;

    #[test]
    fn parses_every_part() {
        let r = RegionSpec::parse("sbuf[p0..128]+0x400:fp32:128x512").unwrap();
        assert_eq!(
            (r.space, r.start, r.end, r.offset),
            (Space::Sbuf, 0, 128, 0x400)
        );
        assert_eq!(r.dtype, Some(Dtype::FP32));
        assert_eq!(r.shape, Some(vec![128, 512]));
        assert_eq!(r.to_string(), "sbuf[p0..128]+0x400:fp32:128x512");
        let b = r.bind().unwrap();
        assert_eq!(b.tensor.elems_per_partition, 512);
        assert_eq!(b.count(), 65536);
    }

    #[test]
    fn optional_parts_and_spellings() {
        let r = RegionSpec::parse(" PSUM[3]:128:bf16 ").unwrap();
        assert_eq!((r.space, r.start, r.end, r.offset), (Space::Psum, 3, 4, 0));
        assert_eq!(r.dtype, Some(Dtype::BFLOAT16));
        assert_eq!(r.shape, Some(vec![128]));
        let r = RegionSpec::parse("sbuf[0..2]+1_024").unwrap();
        assert_eq!((r.end, r.offset, r.dtype, &r.shape), (2, 1024, None, &None));
        assert!(r
            .bind()
            .unwrap_err()
            .to_string()
            .contains("needs its dtype and shape"));
    }

    #[test]
    fn errors_say_what_is_wrong() {
        for (text, want) in [
            ("dram[p0..1]", "unknown space"),
            ("sbuf", "expected SPACE"),
            ("sbuf[p0..1", "missing `]`"),
            ("sbuf[p4..4]", "empty"),
            ("sbuf[pa..b]", "START..END"),
            ("sbuf[p0..1]0x10", "expected `+OFFSET`"),
            ("sbuf[p0..1]+zz", "not a byte offset"),
            ("sbuf[p0..1]:fp33", "unknown dtype `fp33`"),
            ("sbuf[p0..1]:uint64", "unknown dtype"),
            ("sbuf[p0..1]:4x0", "not a dimension"),
            ("sbuf[p0..1]:4:5", "shape is given twice"),
            ("sbuf[p0..1]:fp32:fp16", "dtype is given twice"),
            // Issue 8 item 9: name the real problem.
            ("sbuf[p0..1]:fp32:", "empty part after `:`"),
            ("sbuf[p0..1]::fp32", "empty part after `:`"),
            ("sbuf[p0..4294967296]", "goes beyond the 128 partitions"),
        ] {
            let e = RegionSpec::parse(text).unwrap_err().to_string();
            assert!(e.contains(want), "{text}: {e}");
            assert!(e.starts_with(&format!("region `{}`: ", text.trim())), "{e}");
        }
        let e = RegionSpec::parse("sbuf[p0..3]:fp32:4")
            .unwrap()
            .bind()
            .unwrap_err();
        assert!(e.to_string().contains("do not split evenly over 3"), "{e}");
    }

    #[test]
    fn binding_to_an_array_checks_agreement() {
        let r = RegionSpec::parse("sbuf[p0..2]:fp32").unwrap();
        let b = r.bind_to(Dtype::FP32, &[2, 3]).unwrap();
        assert_eq!(b.to_string(), "sbuf[p0..2]+0x0:fp32:2x3");
        let e = r.bind_to(Dtype::INT32, &[2, 3]).unwrap_err().to_string();
        assert!(e.contains("is int32"), "{e}");
        let r = RegionSpec::parse("sbuf[p0..2]:6").unwrap();
        let e = r.bind_to(Dtype::FP32, &[2, 3]).unwrap_err().to_string();
        assert!(e.contains("says 6"), "{e}");
    }

    // isa-facts §2.2: maverick has no PSUM; cayman has 224 KiB active SBUF per partition.
    #[test]
    fn resolve_checks_the_generations_address_map() {
        let psum = RegionSpec::parse("psum[p0..1]:fp32:4")
            .unwrap()
            .bind()
            .unwrap();
        assert!(psum.resolve(Gen::Cayman).is_ok());
        let e = psum.resolve(Gen::Maverick).unwrap_err().to_string();
        assert!(e.contains("maverick has no psum"), "{e}");
        let edge = RegionSpec::parse("sbuf[p0..1]+0x37ffc:fp32:1")
            .unwrap()
            .bind()
            .unwrap();
        assert!(edge.resolve(Gen::Cayman).is_ok());
        let past = RegionSpec::parse("sbuf[p127..128]+0x38000:fp32:1")
            .unwrap()
            .bind()
            .unwrap();
        assert!(past.resolve(Gen::Cayman).is_err());
        assert!(past.resolve(Gen::Mariana).is_ok());
    }

    #[test]
    fn read_and_write_round_trip_with_checks() {
        let mut m = Machine::new(Config::new(Gen::Cayman));
        let data = RegionData {
            dtype: Dtype::BFLOAT16,
            shape: vec![4, 2],
            bytes: (0u8..16).collect(),
        };
        let r = RegionSpec::parse("sbuf[p1..5]+0x10").unwrap();
        let b = m.write_region(&r, &data).unwrap();
        assert_eq!(b.to_string(), "sbuf[p1..5]+0x10:bfloat16:4x2");
        assert_eq!(m.read_region(&b.spec()).unwrap(), data);
        // A short buffer, a dtype disagreement and an incomplete read region change nothing.
        let short = RegionData {
            bytes: vec![0; 15],
            ..data.clone()
        };
        assert!(matches!(
            m.write_region(&r, &short),
            Err(RegionError::Length { got: 15, .. })
        ));
        let fp32 = RegionSpec::parse("sbuf[p1..5]+0x10:fp32").unwrap();
        assert!(matches!(
            m.write_region(&fp32, &data),
            Err(RegionError::DtypeMismatch { .. })
        ));
        assert!(matches!(
            m.read_region(&r),
            Err(RegionError::Incomplete { .. })
        ));
        assert_eq!(m.read_region(&b.spec()).unwrap(), data);
    }
}
