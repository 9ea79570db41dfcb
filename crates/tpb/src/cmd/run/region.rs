//! Memory regions of `tpb run` bindings: `SPACE[pSTART..END]+OFFSET:DTYPE:SHAPE`.
//!
//! A region is a rectangle of on-chip memory seen as a C-ordered array: partitions
//! `START..END` (END exclusive, as in the assembly syntax), each holding the same number of
//! contiguous elements from byte `OFFSET`. The array's elements are laid out partition-major:
//! with `P = END - START` partitions and `N` elements in all, partition `START + i` holds
//! elements `i·N/P .. (i+1)·N/P`. So `sbuf[p0..128]+0x0:fp32:128x512` is a 128×512 fp32 tile,
//! one row per partition, and `…:fp32:128x4x64` is the same bytes seen as 128×4×64.
//!
//! `DTYPE` and `SHAPE` are optional where a `.npy` file supplies them (`.in`, `.expect` with
//! a file); `.out`, `.show` and inline `.expect` values need both.

use std::fmt;
use tpb_isa::geometry::Space;
use tpb_isa::wire::memref::{parse_mem_ref_then, MemRefErrorKind, Offset};
use tpb_isa::{CodeEnum, Dtype};
use tpb_sim::HostTensor;

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
pub struct Bound {
    /// The host tensor (partitions × elements per partition).
    pub tensor: HostTensor,
    /// The array shape, outermost first; its product is partitions × elements per partition.
    pub shape: Vec<usize>,
}

impl RegionSpec {
    /// Parses `SPACE[pSTART..END]+OFFSET` followed by optional `:DTYPE` and `:SHAPE` parts
    /// (a part starting with a digit is the shape). `[pN]` is the single partition N; the `p`
    /// and the `+OFFSET` may be left out. Numbers are decimal or `0x` hex, `_` allowed.
    pub fn parse(text: &str) -> Result<RegionSpec, String> {
        let s = text.trim();
        let bad = |why: String| format!("region `{s}`: {why}");
        let (m, suffix) = parse_mem_ref_then(s, ':', number).map_err(|e| match e.kind {
            MemRefErrorKind::NoBracket => bad(
                "expected SPACE[pSTART..END]+OFFSET, e.g. sbuf[p0..128]+0x400:fp32:128x512".into(),
            ),
            MemRefErrorKind::UnknownSpace => bad(format!(
                "unknown space `{}`; expected sbuf or psum",
                s[e.span].to_ascii_lowercase()
            )),
            MemRefErrorKind::Unclosed => bad("missing `]`".into()),
        })?;
        let space = m.space;
        let start = m.start.value;
        let end = match &m.end {
            Some(e) => e.value,
            None => start.and_then(|a| a.checked_add(1)),
        };
        let (Some(start), Some(end)) = (start, end) else {
            // The partition text as written, after the optional `p`.
            let inside = &s[m.p.map_or(m.inside.start, |p| p + 1)..m.inside.end];
            return Err(bad(format!(
                "partition range `{inside}` is not START..END (END exclusive) or one partition N"
            )));
        };
        if start >= end || end > u64::from(u32::MAX) {
            return Err(bad(format!(
                "partition range {start}..{end} is empty (END is exclusive)"
            )));
        }
        let offset = match m.offset {
            Offset::Absent => 0,
            Offset::Malformed(head) => {
                return Err(bad(format!(
                    "expected `+OFFSET` or `:` after `]`, found `{}`",
                    &s[head]
                )))
            }
            Offset::Given(off) => off
                .value
                .ok_or_else(|| bad(format!("`{}` is not a byte offset", &s[off.span])))?,
        };
        let parts = suffix.into_iter().flat_map(|rest| rest.split(':'));
        let mut spec = RegionSpec {
            space,
            start: start as u32,
            end: end as u32,
            offset,
            dtype: None,
            shape: None,
        };
        for part in parts {
            let part = part.trim();
            if part.starts_with(|c: char| c.is_ascii_digit()) {
                if spec.shape.is_some() {
                    return Err(bad("the shape is given twice".into()));
                }
                spec.shape = Some(parse_shape(part).map_err(bad)?);
            } else {
                if spec.dtype.is_some() {
                    return Err(bad("the dtype is given twice".into()));
                }
                spec.dtype = Some(parse_dtype(part).map_err(bad)?);
            }
        }
        Ok(spec)
    }

    /// Number of partitions.
    pub fn partitions(&self) -> u32 {
        self.end - self.start
    }

    /// Binds the region to an array of `dtype` and `shape` (from a file): the region's own
    /// dtype and shape, where given, must agree.
    pub fn bind_to(&self, dtype: Dtype, shape: &[usize]) -> Result<Bound, String> {
        if let Some(d) = self.dtype {
            if d != dtype {
                return Err(format!("the array is {dtype} but region {self} is {d}"));
            }
        }
        if let Some(s) = &self.shape {
            if s.as_slice() != shape {
                return Err(format!(
                    "the array has shape {} but region {self} says {}",
                    ShapeText(shape),
                    ShapeText(s)
                ));
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
    pub fn bind(&self) -> Result<Bound, String> {
        let (Some(dtype), Some(shape)) = (self.dtype, &self.shape) else {
            return Err(format!(
                "region {self} needs its dtype and shape, e.g. {}:fp32:{}x512",
                self.place(),
                self.partitions()
            ));
        };
        let count = shape
            .iter()
            .try_fold(1u64, |acc, &d| acc.checked_mul(d as u64))
            .ok_or_else(|| format!("region {self}: the shape is too large"))?;
        let parts = u64::from(self.partitions());
        if count == 0 || count % parts != 0 {
            return Err(format!(
                "region {self}: {count} elements do not split evenly over {parts} partitions"
            ));
        }
        Ok(Bound {
            tensor: HostTensor::new(
                self.space,
                self.start,
                self.partitions(),
                self.offset,
                dtype,
                count / parts,
            ),
            shape: shape.clone(),
        })
    }

    /// The place without dtype and shape: `sbuf[p0..128]+0x400`.
    pub fn place(&self) -> String {
        format!(
            "{}[p{}..{}]+{:#x}",
            self.space.name(),
            self.start,
            self.end,
            self.offset
        )
    }
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

impl Bound {
    /// The region spec this binding came from, fully specified.
    pub fn spec(&self) -> RegionSpec {
        let t = &self.tensor;
        RegionSpec {
            space: t.space,
            start: t.start_partition,
            end: t.start_partition + t.partitions,
            offset: t.byte_offset,
            dtype: Some(t.dtype),
            shape: Some(self.shape.clone()),
        }
    }

    /// Elements in the region.
    pub fn count(&self) -> u64 {
        self.tensor.elems_per_partition * u64::from(self.tensor.partitions)
    }

    /// Element size in bytes (bound regions always have a sized dtype).
    pub fn elem_size(&self) -> usize {
        self.tensor.dtype.size().unwrap_or(1)
    }
}

impl fmt::Display for Bound {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.spec().fmt(f)
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
pub fn parse_dtype(s: &str) -> Result<Dtype, String> {
    let s = s.trim();
    let d = if s.starts_with(|c: char| c.is_ascii_alphabetic()) {
        Dtype::parse_name(s)
    } else {
        None
    };
    match d {
        Some(d) if d.is_valid_dtype(true) => Ok(d),
        _ => Err(format!(
            "unknown dtype `{s}`; expected one of int8, uint8, int16, uint16, bfloat16 (bf16), \
             fp16, int32, uint32, fp32, fp32r, fp8_exp3 (e3m4), fp8_exp4 (e4m3), fp8_exp5 (e5m2)"
        )),
    }
}

/// Parses `128x512` into dimensions, each at least 1.
fn parse_shape(s: &str) -> Result<Vec<usize>, String> {
    s.split(['x', 'X'])
        .map(|d| {
            number(d)
                .and_then(|n| usize::try_from(n).ok())
                .filter(|&n| n > 0)
                .ok_or_else(|| {
                    format!("shape `{s}`: `{}` is not a dimension (1 or more)", d.trim())
                })
        })
        .collect()
}

/// A non-negative number: decimal or `0x` hex, `_` separators allowed.
pub fn number(s: &str) -> Option<u64> {
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
        assert!(r.bind().unwrap_err().contains("needs its dtype and shape"));
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
        ] {
            let e = RegionSpec::parse(text).unwrap_err();
            assert!(e.contains(want), "{text}: {e}");
        }
        let e = RegionSpec::parse("sbuf[p0..3]:fp32:4")
            .unwrap()
            .bind()
            .unwrap_err();
        assert!(e.contains("do not split evenly over 3"), "{e}");
    }

    #[test]
    fn binding_to_an_array_checks_agreement() {
        let r = RegionSpec::parse("sbuf[p0..2]:fp32").unwrap();
        let b = r.bind_to(Dtype::FP32, &[2, 3]).unwrap();
        assert_eq!(b.to_string(), "sbuf[p0..2]+0x0:fp32:2x3");
        assert!(r
            .bind_to(Dtype::INT32, &[2, 3])
            .unwrap_err()
            .contains("is int32"));
        let r = RegionSpec::parse("sbuf[p0..2]:6").unwrap();
        assert!(r
            .bind_to(Dtype::FP32, &[2, 3])
            .unwrap_err()
            .contains("says 6"));
    }
}
