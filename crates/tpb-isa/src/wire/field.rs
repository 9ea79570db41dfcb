//! The `Field` trait: how one typed field is read from and written to its bytes and which
//! written form it has ([`TextRef`]), and the object-safe [`FieldDyn`] view the explainer
//! and the text syntax walk generically.

use crate::gen::Gen;
use crate::opcode::Opcode;
use crate::tables::CodeEnum;
use crate::wire::{Addr4, Data4d, DtypePair, F32Bits, ImmVal};

/// The first `N` bytes of `b`, zero-filled where `b` is shorter: field reads are total on
/// short input (bundle parsing always passes exactly `SIZE` bytes, the fast path).
#[inline(always)]
pub fn le_bytes<const N: usize>(b: &[u8]) -> [u8; N] {
    match b.first_chunk::<N>() {
        Some(a) => *a,
        None => {
            let mut a = [0u8; N];
            a[..b.len()].copy_from_slice(b);
            a
        }
    }
}

/// Writes as much of `bytes` as fits into `b` (field writes are total on short output).
#[inline(always)]
pub fn put_bytes(b: &mut [u8], bytes: &[u8]) {
    let n = b.len().min(bytes.len());
    b[..n].copy_from_slice(&bytes[..n]);
}

/// A fixed-size little-endian wire field.
pub trait Field: Copy + Default + PartialEq + std::fmt::Debug + 'static {
    /// Size in bytes.
    const SIZE: usize;
    /// Reads the field from its `SIZE` bytes; missing bytes read as zero and extra bytes
    /// are ignored, so `read` never panics.
    fn read(b: &[u8]) -> Self;
    /// Writes the field into its `SIZE` bytes; a shorter buffer gets the bytes that fit.
    fn write(&self, b: &mut [u8]);
    /// Canonical text form (what `disasm` prints for the field).
    fn to_text(&self, gen: Gen) -> String;
    /// Parses the text form; the error says what was expected.
    fn parse_text(s: &str, gen: Gen) -> Result<Self, String>;
    /// Sub-fields for the annotated dump: (suffix, offset within the field, size, value).
    fn parts(&self, gen: Gen) -> Vec<(String, usize, usize, String)> {
        vec![(String::new(), 0, Self::SIZE, self.to_text(gen))]
    }
    /// What the text form looks like, for error messages.
    fn expected() -> String;
    /// The field's value as the text layer reads it: which written form it has. Required
    /// (issue 16 item 3): a new field type does not build until it says how it is written,
    /// and the text layer's printers and setters match [`TextRef`] exhaustively (on a
    /// known type the match folds to one arm).
    fn text_ref(&self) -> TextRef<'_>;
}

/// A field's value by its written form (what [`Field::text_ref`] gives).
#[derive(Clone, Copy, Debug)]
pub enum TextRef<'a> {
    /// `TENSOR{N}D`: `ADDRESS:[[step,num],…]`.
    Tensor(TensorRef<'a>),
    /// `DATA4D`: `BASE:[[step,num],…]`.
    Data4d(&'a Data4d),
    /// An enumeration: its name (or `0x..`).
    Enum(EnumValue),
    /// An `IMM_VAL_INST_FIELD` union: a float where the struct marks it FP32, else hex.
    Imm(ImmVal),
    /// An FP32 word, as a float.
    F32(F32Bits),
    /// Decimal.
    U8(u8),
    /// Decimal.
    U16(u16),
    /// Signed decimal.
    I32(i32),
    /// Hex.
    U32(u32),
    /// `IN->OUT` dtype names.
    DtypePair(DtypePair),
    /// The opcode byte (`0x..`).
    Opcode(Opcode),
    /// A 4-byte address (`sbuf[pN]+OFF`, `reg[N]` or hex).
    Addr4(Addr4),
    /// Raw bytes as hex.
    Bytes(&'a [u8]),
    /// A value written only through its own `to_text` / `parse_text` (64-bit values, DMA
    /// addresses and patterns, the per-generation PE blocks: rare, not on a hot path).
    Own,
}

/// A `TENSOR{N}D` descriptor's parts, whatever its N.
#[derive(Clone, Copy, Debug)]
pub struct TensorRef<'a> {
    /// Start address.
    pub start_addr: Addr4,
    /// The second address of the indirect 4D form (`Tensor::indirect_addr`).
    pub indirect: Option<Addr4>,
    /// Steps, slot 0 innermost (N of them).
    pub step_elem: &'a [i16],
    /// Counts (N of them).
    pub num_elem: &'a [u16],
}

/// Object-safe view of a field, for generic walkers (explain, asm, disasm).
pub trait FieldDyn {
    /// Size in bytes.
    fn size(&self) -> usize;
    /// Canonical text.
    fn text(&self, gen: Gen) -> String;
    /// Replaces the value from text.
    fn set_text(&mut self, s: &str, gen: Gen) -> Result<(), String>;
    /// Sub-fields for the annotated dump.
    fn sub_parts(&self, gen: Gen) -> Vec<(String, usize, usize, String)>;
    /// What the text form looks like.
    fn expected_text(&self) -> String;
    /// The value by its written form ([`Field::text_ref`]).
    fn text_value(&self) -> TextRef<'_>;
    /// Replaces the value by reading its wire bytes ([`Field::read`]).
    fn set_bytes(&mut self, b: &[u8]);
    /// The type's text reader writing straight to the field's bytes
    /// ([`Field::parse_text`] then [`Field::write`]), for the assembler's tables.
    fn text_writer(&self) -> TextWriter;
}

/// Parses a field's text and writes its bytes (see [`FieldDyn::text_writer`]).
pub type TextWriter = fn(&str, Gen, &mut [u8]) -> Result<(), String>;

/// [`FieldDyn::text_writer`] of `T`.
fn write_text<T: Field>(s: &str, gen: Gen, out: &mut [u8]) -> Result<(), String> {
    T::parse_text(s, gen)?.write(out);
    Ok(())
}

impl<T: Field> FieldDyn for T {
    fn size(&self) -> usize {
        T::SIZE
    }
    fn text(&self, gen: Gen) -> String {
        self.to_text(gen)
    }
    fn set_text(&mut self, s: &str, gen: Gen) -> Result<(), String> {
        *self = T::parse_text(s, gen)?;
        Ok(())
    }
    fn sub_parts(&self, gen: Gen) -> Vec<(String, usize, usize, String)> {
        self.parts(gen)
    }
    fn expected_text(&self) -> String {
        T::expected()
    }
    fn text_value(&self) -> TextRef<'_> {
        self.text_ref()
    }
    fn set_bytes(&mut self, b: &[u8]) {
        *self = T::read(b);
    }
    fn text_writer(&self) -> TextWriter {
        write_text::<T>
    }
}

/// Parses a signed or unsigned integer in decimal, `0x` hex or `0b` binary.
pub fn parse_int(s: &str) -> Option<i128> {
    let s = s.trim();
    // Digit separators are rare: only they cost an allocation.
    if s.contains('_') {
        return parse_int_plain(&s.replace('_', ""));
    }
    parse_int_plain(s)
}

/// [`parse_int`] of trimmed text without `_`.
fn parse_int_plain(s: &str) -> Option<i128> {
    let (neg, body) = match s.strip_prefix('-') {
        Some(b) => (true, b),
        None => (false, s.strip_prefix('+').unwrap_or(s)),
    };
    // `from_str_radix` would take a sign after the prefix (`0x-5`): only digits may follow.
    let digits = |t: &str| !t.starts_with(['+', '-']);
    let v = if let Some(h) = body.strip_prefix("0x").or_else(|| body.strip_prefix("0X")) {
        i128::from_str_radix(h, 16).ok().filter(|_| digits(h))?
    } else if let Some(b) = body.strip_prefix("0b") {
        i128::from_str_radix(b, 2).ok().filter(|_| digits(b))?
    } else {
        body.parse::<i128>().ok()?
    };
    Some(if neg { -v } else { v })
}

fn int_in<T: TryFrom<i128>>(s: &str, what: &str) -> Result<T, String> {
    parse_int(s)
        .and_then(|v| T::try_from(v).ok())
        .ok_or_else(|| format!("`{s}` is not a {what}"))
}

/// An unsigned little-endian integer field written in decimal (`u8`, `u16`).
macro_rules! unsigned_decimal_field {
    ($($T:ty, $form:ident, $what:literal, $expected:literal;)*) => {$(
        impl Field for $T {
            const SIZE: usize = std::mem::size_of::<$T>();
            #[inline]
            fn read(b: &[u8]) -> Self {
                <$T>::from_le_bytes(le_bytes(b))
            }
            #[inline]
            fn write(&self, b: &mut [u8]) {
                put_bytes(b, &self.to_le_bytes());
            }
            fn to_text(&self, _: Gen) -> String {
                self.to_string()
            }
            fn parse_text(s: &str, _: Gen) -> Result<Self, String> {
                int_in(s, $what)
            }
            fn expected() -> String {
                $expected.into()
            }
            #[inline(always)]
            fn text_ref(&self) -> TextRef<'_> {
                TextRef::$form(*self)
            }
        }
    )*};
}

unsigned_decimal_field! {
    u8, U8, "u8 (0..=255)", "an integer 0..=255";
    u16, U16, "u16 (0..=65535)", "an integer 0..=65535";
}

impl Field for i32 {
    const SIZE: usize = 4;
    #[inline]
    fn read(b: &[u8]) -> Self {
        i32::from_le_bytes(le_bytes(b))
    }
    #[inline]
    fn write(&self, b: &mut [u8]) {
        put_bytes(b, &self.to_le_bytes());
    }
    fn to_text(&self, _: Gen) -> String {
        self.to_string()
    }
    fn parse_text(s: &str, _: Gen) -> Result<Self, String> {
        // `0x…` is the word's bit pattern (`0xffffffff` = -1), as for registers.
        let t = s.trim();
        if t.starts_with("0x") || t.starts_with("0X") {
            return int_in::<u32>(t, "32-bit pattern").map(|v| v as i32);
        }
        int_in(s, "32-bit signed integer")
    }
    fn expected() -> String {
        "a 32-bit signed integer, or its bits as `0x…`".into()
    }
    #[inline(always)]
    fn text_ref(&self) -> TextRef<'_> {
        TextRef::I32(*self)
    }
}

impl Field for u64 {
    const SIZE: usize = 8;
    #[inline]
    fn read(b: &[u8]) -> Self {
        u64::from_le_bytes(le_bytes(b))
    }
    #[inline]
    fn write(&self, b: &mut [u8]) {
        put_bytes(b, &self.to_le_bytes());
    }
    fn to_text(&self, _: Gen) -> String {
        format!("{self:#x}")
    }
    fn parse_text(s: &str, _: Gen) -> Result<Self, String> {
        int_in(s, "64-bit value")
    }
    fn expected() -> String {
        "a 64-bit value".into()
    }
    #[inline(always)]
    fn text_ref(&self) -> TextRef<'_> {
        TextRef::Own
    }
}

impl Field for u32 {
    const SIZE: usize = 4;
    #[inline]
    fn read(b: &[u8]) -> Self {
        u32::from_le_bytes(le_bytes(b))
    }
    #[inline]
    fn write(&self, b: &mut [u8]) {
        put_bytes(b, &self.to_le_bytes());
    }
    fn to_text(&self, _: Gen) -> String {
        format!("{self:#x}")
    }
    fn parse_text(s: &str, _: Gen) -> Result<Self, String> {
        // Accept negative numbers as their two's-complement bits (handy for values).
        match parse_int(s) {
            Some(v) if (0..=u32::MAX as i128).contains(&v) => Ok(v as u32),
            Some(v) if (i32::MIN as i128..0).contains(&v) => Ok(v as i32 as u32),
            _ => Err(format!("`{s}` is not a 32-bit value")),
        }
    }
    fn expected() -> String {
        "a 32-bit value".into()
    }
    #[inline(always)]
    fn text_ref(&self) -> TextRef<'_> {
        TextRef::U32(*self)
    }
}

/// Reserved or raw bytes, kept verbatim. Text form: hex bytes in wire order (`00ff00`).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Bytes<const N: usize>(pub [u8; N]);

impl<const N: usize> Default for Bytes<N> {
    fn default() -> Self {
        Bytes([0; N])
    }
}

impl<const N: usize> Bytes<N> {
    /// Whether every byte is zero (the `*_reserved_zero` predicates).
    pub fn is_zero(&self) -> bool {
        self.0.iter().all(|&b| b == 0)
    }
}

impl<const N: usize> Field for Bytes<N> {
    const SIZE: usize = N;
    #[inline]
    fn read(b: &[u8]) -> Self {
        Bytes(le_bytes(b))
    }
    #[inline]
    fn write(&self, b: &mut [u8]) {
        put_bytes(b, &self.0);
    }
    fn to_text(&self, _: Gen) -> String {
        hex(&self.0)
    }
    fn parse_text(s: &str, _: Gen) -> Result<Self, String> {
        let s = s.trim();
        let s = s.strip_prefix("0x").unwrap_or(s);
        let v = unhex(s).ok_or_else(|| format!("`{s}` is not hex bytes"))?;
        if v.len() != N {
            return Err(format!("expected {N} hex bytes, got {}", v.len()));
        }
        let mut a = [0u8; N];
        a.copy_from_slice(&v);
        Ok(Bytes(a))
    }
    fn expected() -> String {
        format!("{N} bytes as hex digits, e.g. {}", "00".repeat(N))
    }
    #[inline(always)]
    fn text_ref(&self) -> TextRef<'_> {
        TextRef::Bytes(&self.0)
    }
}

pub use crate::hex::encode as hex;

/// Hex digits (whitespace, `_` and a `0x` group prefix ignored) into bytes.
pub fn unhex(s: &str) -> Option<Vec<u8>> {
    crate::hex::decode(s).ok()
}

macro_rules! enum_field {
    ($($T:ident),*) => {
        /// An enumeration field's value, by its type (one variant per enumeration field
        /// type, from `for_each_enum_field!`).
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub enum EnumValue {
            $( #[doc = concat!("A `", stringify!($T), "`.")] $T($T), )*
        }
        $(
        impl Field for $T {
            const SIZE: usize = 1;
            #[inline]
            fn read(b: &[u8]) -> Self { <$T>::from_raw(u8::read(b)) }
            #[inline]
            fn write(&self, b: &mut [u8]) { self.raw().write(b) }
            // Names follow the generation (the rows' generations): a value `gen` does not
            // define is written, and read, as its number.
            fn to_text(&self, gen: Gen) -> String { self.on(gen).to_string() }
            fn parse_text(s: &str, gen: Gen) -> Result<Self, String> {
                <$T>::parse_on(s, gen)
            }
            fn expected() -> String { format!("a {} name or number", <$T>::KIND) }
            #[inline(always)]
            fn text_ref(&self) -> TextRef<'_> { TextRef::Enum(EnumValue::$T(*self)) }
        }
    )*};
}
/// Calls `$cb!` with every enumeration that is a field type (one list: the wire
/// layer's `Field` impls below and the text layer's forms and formatters; each is a
/// `tables::CodeEnum` written by name).
macro_rules! for_each_enum_field {
    ($cb:ident) => {
        $cb! {
            Dtype,
            AluOp,
            AffineSelectCmp,
            TensorSubdim,
            RevOps,
            ImmSrc,
            AccumCmd,
            PeFp32Mode,
            PeSeedMode,
            ImmSrcN,
            ReduceCmd,
            ActFunc,
            WaitMode,
            UpdateMode,
            DebugCmd,
            ReduceOp,
            ReduceAxis,
            DgeComputeOp,
            DgeOpcode,
            DataSrc
        }
    };
}
use crate::tables::{
    AccumCmd, ActFunc, AffineSelectCmp, AluOp, DataSrc, DebugCmd, DgeComputeOp, DgeOpcode, Dtype,
    ImmSrc, ImmSrcN, PeFp32Mode, PeSeedMode, ReduceAxis, ReduceCmd, ReduceOp, RevOps, TensorSubdim,
    UpdateMode, WaitMode,
};
pub(crate) use for_each_enum_field;
for_each_enum_field!(enum_field);
