//! A run of bundle bytes whose field names differ per generation (the PE structs' middle:
//! `S3D3_MM` bytes 34..48 and `S3_LW` bytes 34..64, isa-facts-pe-act-dma §1.3–§1.4).
//!
//! The bytes are kept verbatim (decoding stays total and lossless); a per-generation table of
//! [`Sub`] fields names them. Text form: `[name:value,…]` with every named sub-field of the
//! generation in wire order, then any non-zero unnamed byte as `rsvNN:0xHH` (NN = its
//! absolute offset). Reading accepts any subset; what is not written stays zero.

use crate::gen::Gen;
use crate::tables::{CodeEnum, Dtype};
use crate::wire::field::parse_int;

/// How a sub-field's value is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SubKind {
    /// A decimal count.
    Num,
    /// A mask or packed bit-field, written in hex.
    Hex,
    /// An `out_dtype`: a `DTYPE` code written by name, where 0 is the default, fp32, and is
    /// written `0` (isa-facts-pe-act-dma §1.6: "out_dtype == 0 (read as FP32)"), not the
    /// `invalid` of the DTYPE table.
    OutDtype,
}

/// One named sub-field of a generation block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sub {
    /// The header's field name on this generation.
    pub name: &'static str,
    /// Absolute byte offset in the bundle.
    pub offset: usize,
    /// 1 or 2 bytes (little-endian).
    pub size: usize,
    /// How the value is written.
    pub kind: SubKind,
}

/// Shorthand for the layout tables.
pub(crate) const fn sub(name: &'static str, offset: usize, size: usize, kind: SubKind) -> Sub {
    Sub {
        name,
        offset,
        size,
        kind,
    }
}

/// The value of `sub` in `bytes` (which start at bundle offset `start`).
pub(crate) fn sub_get(bytes: &[u8], start: usize, s: &Sub) -> u16 {
    let i = s.offset - start;
    match s.size {
        2 => u16::from_le_bytes([bytes[i], bytes[i + 1]]),
        _ => u16::from(bytes[i]),
    }
}

fn sub_set(bytes: &mut [u8], start: usize, s: &Sub, v: u16) {
    let i = s.offset - start;
    match s.size {
        2 => bytes[i..i + 2].copy_from_slice(&v.to_le_bytes()),
        _ => bytes[i] = v as u8,
    }
}

fn value_text(kind: SubKind, v: u16) -> String {
    match kind {
        SubKind::Num => v.to_string(),
        SubKind::Hex => format!("{v:#x}"),
        SubKind::OutDtype if v == 0 => "0".into(),
        SubKind::OutDtype => Dtype::from_raw(v as u8).to_string(),
    }
}

/// [`value_text`] with what the value means where the text alone does not say it.
fn value_meaning(kind: SubKind, v: u16) -> String {
    match kind {
        SubKind::OutDtype if v == 0 => "0 (the default: fp32)".into(),
        _ => value_text(kind, v),
    }
}

/// The canonical text of a block.
pub(crate) fn block_text(bytes: &[u8], start: usize, subs: &[Sub]) -> String {
    let mut parts: Vec<String> = subs
        .iter()
        .map(|s| {
            format!(
                "{}:{}",
                s.name,
                value_text(s.kind, sub_get(bytes, start, s))
            )
        })
        .collect();
    for (i, &b) in bytes.iter().enumerate() {
        let off = start + i;
        if b != 0
            && !subs
                .iter()
                .any(|s| (s.offset..s.offset + s.size).contains(&off))
        {
            parts.push(format!("rsv{off}:{b:#04x}"));
        }
    }
    format!("[{}]", parts.join(","))
}

/// Parses `[name:value,…]` for `gen`'s sub-fields into `bytes`.
pub(crate) fn block_parse(
    s: &str,
    bytes: &mut [u8],
    start: usize,
    subs: &[Sub],
    gen: Gen,
) -> Result<(), String> {
    let t = s.trim();
    let inner = t
        .strip_prefix('[')
        .and_then(|r| r.strip_suffix(']'))
        .ok_or_else(|| format!("`{t}` is not a `[name:value,…]` list"))?;
    bytes.fill(0);
    let mut seen: Vec<usize> = Vec::new();
    for item in inner.split(',').map(str::trim).filter(|i| !i.is_empty()) {
        let (name, val) = item
            .split_once(':')
            .ok_or_else(|| format!("`{item}` is not `name:value`"))?;
        let (name, val) = (name.trim().to_ascii_lowercase(), val.trim());
        if let Some(off) = name
            .strip_prefix("rsv")
            .and_then(|n| n.parse::<usize>().ok())
        {
            let named = subs
                .iter()
                .any(|s| (s.offset..s.offset + s.size).contains(&off));
            if off < start || off >= start + bytes.len() || named {
                return Err(format!(
                    "`rsv{off}` is not an unnamed byte of this block on {gen}"
                ));
            }
            let v = parse_int(val)
                .filter(|v| (0..=255).contains(v))
                .ok_or_else(|| format!("`{val}` is not a byte"))?;
            bytes[off - start] = v as u8;
            continue;
        }
        let sub = subs.iter().find(|s| s.name == name).ok_or_else(|| {
            let names: Vec<_> = subs.iter().map(|s| s.name).collect();
            format!(
                "`{name}` is not a field here on {gen}; the fields are {}",
                names.join(", ")
            )
        })?;
        if seen.contains(&sub.offset) {
            return Err(format!("`{name}` is given twice"));
        }
        seen.push(sub.offset);
        let max = if sub.size == 2 { 0xFFFF } else { 0xFF };
        let v = match sub.kind {
            SubKind::OutDtype => match Dtype::parse_name(val) {
                Some(d) => i128::from(d.raw()),
                None => parse_int(val).ok_or_else(|| format!("`{val}` is not a dtype"))?,
            },
            _ => parse_int(val).ok_or_else(|| format!("`{val}` is not an integer"))?,
        };
        if !(0..=max).contains(&v) {
            return Err(format!("`{name}:{val}` does not fit {} byte(s)", sub.size));
        }
        sub_set(bytes, start, sub, v as u16);
    }
    Ok(())
}

/// The annotated-dump parts (suffix, offset within the field, size, value): every named
/// sub-field, and every non-zero byte no name covers as `.rsvNN` (as the text shows it), in
/// wire order.
pub(crate) fn block_parts(
    bytes: &[u8],
    start: usize,
    subs: &[Sub],
) -> Vec<(String, usize, usize, String)> {
    let mut parts: Vec<_> = subs
        .iter()
        .map(|s| {
            (
                format!(".{}", s.name),
                s.offset - start,
                s.size,
                value_meaning(s.kind, sub_get(bytes, start, s)),
            )
        })
        .collect();
    for (i, &b) in bytes.iter().enumerate() {
        let off = start + i;
        let named = subs
            .iter()
            .any(|s| (s.offset..s.offset + s.size).contains(&off));
        if b != 0 && !named {
            parts.push((format!(".rsv{off}"), i, 1, format!("{b:#04x}")));
        }
    }
    parts.sort_by_key(|p| p.1);
    parts
}

/// Declares a generation block type: `N` verbatim bytes at bundle offset `START`, named by
/// the table function `$subs(gen)`.
macro_rules! gen_block {
    ($(#[$m:meta])* $T:ident, $start:literal, $n:literal, $subs:path) => {
        $(#[$m])*
        #[derive(Clone, Copy, PartialEq, Eq, Debug)]
        pub struct $T(pub [u8; $n]);

        impl Default for $T {
            fn default() -> Self {
                $T([0; $n])
            }
        }

        impl $T {
            /// Bundle offset of the first byte.
            pub const START: usize = $start;

            /// The named sub-fields on `gen`.
            pub fn subs(gen: $crate::gen::Gen) -> &'static [$crate::wire::gen_block::Sub] {
                $subs(gen)
            }

            /// The value of the sub-field `name` on `gen` (`None`: no such field there).
            pub fn get(&self, gen: $crate::gen::Gen, name: &str) -> Option<u16> {
                Self::subs(gen)
                    .iter()
                    .find(|s| s.name == name)
                    .map(|s| $crate::wire::gen_block::sub_get(&self.0, $start, s))
            }

            /// Sets the sub-field `name` on `gen`; false if the field does not exist there.
            pub fn set(&mut self, gen: $crate::gen::Gen, name: &str, v: u16) -> bool {
                match Self::subs(gen).iter().find(|s| s.name == name) {
                    Some(s) => {
                        let i = s.offset - $start;
                        if s.size == 2 {
                            self.0[i..i + 2].copy_from_slice(&v.to_le_bytes());
                        } else {
                            self.0[i] = v as u8;
                        }
                        true
                    }
                    None => false,
                }
            }

            /// Bundle offsets of the non-zero bytes that no sub-field of `gen` names (the
            /// reserved bytes that must be zero).
            pub fn nonzero_unnamed(&self, gen: $crate::gen::Gen) -> Vec<usize> {
                let subs = Self::subs(gen);
                (0..$n)
                    .filter(|&i| self.0[i] != 0)
                    .map(|i| i + $start)
                    .filter(|&o| !subs.iter().any(|s| (s.offset..s.offset + s.size).contains(&o)))
                    .collect()
            }
        }

        impl $crate::wire::Field for $T {
            const SIZE: usize = $n;
            #[inline(always)]
            fn text_ref(&self) -> $crate::wire::field::TextRef<'_> {
                // Named sub-fields per generation: their own text.
                $crate::wire::field::TextRef::Own
            }
            #[inline]
            fn read(b: &[u8]) -> Self {
                $T($crate::wire::field::le_bytes(b))
            }
            #[inline]
            fn write(&self, b: &mut [u8]) {
                $crate::wire::field::put_bytes(b, &self.0);
            }
            fn to_text(&self, gen: $crate::gen::Gen) -> String {
                $crate::wire::gen_block::block_text(&self.0, $start, Self::subs(gen))
            }
            fn parse_text(s: &str, gen: $crate::gen::Gen) -> Result<Self, String> {
                let mut v = $T::default();
                $crate::wire::gen_block::block_parse(s, &mut v.0, $start, Self::subs(gen), gen)?;
                Ok(v)
            }
            fn parts(&self, gen: $crate::gen::Gen) -> Vec<(String, usize, usize, String)> {
                $crate::wire::gen_block::block_parts(&self.0, $start, Self::subs(gen))
            }
            fn expected() -> String {
                "`[name:value,…]` with this generation's field names".into()
            }
        }
    };
}
pub(crate) use gen_block;
