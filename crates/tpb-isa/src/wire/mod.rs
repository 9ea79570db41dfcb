//! Wire formats: every struct as named offsets + a typed value with exact `parse`/`emit`.
//!
//! Decoding is total and lossless: any 64 bytes decode to an [`Instruction`] that
//! re-encodes to the same bytes (decisions §1.1). Legality is [`crate::validate`]'s job.

pub mod addr8;
// Issue 18a structs: PE and ACT.
mod act;
mod bodies;
mod build;
// Issue 17b structs (one module each).
mod ctrl_im;
mod d1_rd;
// Issue 17a: the DVE/POOL compute structs, one module per struct.
mod d4_mr;
pub mod descriptor;
mod dma;
pub mod field;
pub mod gen_block;
pub mod memref;
mod pe;
mod pe_other;
mod s2s2d2_stt;
mod s3d3_cp_pred_scalar;
mod s3s3d3_tt;
mod s4d2_bn;
mod s4d4_cr;
mod s4d4_mr;
mod s4d4_tr;
mod view;
mod visit;

pub use act::*;
pub use addr8::{Addr8, Addr8Form, DmaLoc, DmaPattern, DMA_ONCHIP_WINDOW};
pub use bodies::*;
pub use build::{op, BuildError, TypedOpcode};
pub use ctrl_im::*;
pub use d1_rd::*;
pub use d4_mr::D4Mr;
pub use descriptor::{
    Addr4, AddrForm, Data4d, DtypePair, F32Bits, ImmVal, Tensor, Tensor1, Tensor2, Tensor3, Tensor4,
};
pub use dma::*;
pub use field::{Bytes, EnumValue, Field, FieldDyn, TensorRef, TextRef, TextWriter};
pub use pe::*;
pub use pe_other::*;
pub use s2s2d2_stt::*;
pub use s3d3_cp_pred_scalar::S3d3CpPredScalar;
pub use s3s3d3_tt::S3s3d3Tt;
pub use s4d2_bn::*;
pub use s4d4_cr::*;
pub use s4d4_mr::*;
pub use s4d4_tr::S4d4Tr;
pub use view::{BodyView, InstView, View};
pub use visit::{family_body, visit_owned, visit_view, Bodies, FamilyVisitor, Owned, Viewed};

use crate::gen::Gen;
use crate::opcode::{Opcode, OpcodeInfo, StructKind};
use thiserror::Error;

/// `TPB_INST_NBYTES`: every instruction is one 64-byte bundle (isa-facts §1.1).
pub const BUNDLE_BYTES: usize = 64;

/// One field of a wire struct: its header name, absolute byte offset in the bundle and size.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FieldMeta {
    /// The header's field name.
    pub name: &'static str,
    /// Absolute byte offset within the 64-byte bundle.
    pub offset: usize,
    /// Size in bytes.
    pub size: usize,
}

impl FieldMeta {
    /// The byte range within the bundle.
    pub const fn range(&self) -> std::ops::Range<usize> {
        self.offset..self.offset + self.size
    }

    /// The field called `name` in `layout`, if any. Usable in constants, so a layout lookup
    /// written as `const F: FieldMeta = match FieldMeta::find(..) { Some(f) => f, None =>
    /// panic!(..) }` fails the build when the field does not exist.
    pub const fn find(layout: &'static [FieldMeta], name: &str) -> Option<FieldMeta> {
        let mut i = 0;
        while i < layout.len() {
            if str_eq(layout[i].name, name) {
                return Some(layout[i]);
            }
            i += 1;
        }
        None
    }
}

const fn str_eq(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// A walker over a wire struct's fields that sees each field's type (`visit_fields`, made by
/// `wire_struct!`); the generic counterpart of the `dyn` [`FieldDyn`] lists of `fields()`.
pub trait FieldVisitor {
    /// One field: its header name, its value, and the same field of the base struct.
    fn field<T: Field>(&mut self, name: &'static str, value: &T, base: &T);
}

/// Declares a wire struct: typed fields at absolute bundle offsets, with a compile-time
/// check that the fields tile `start..end` exactly.
macro_rules! wire_struct {
    (
        $(#[$m:meta])*
        pub struct $S:ident, bytes $start:literal .. $end:literal {
            $( $(#[$fm:meta])* $f:ident : $T:ty = $off:literal $([fp32 when $src:ident])?, )*
        }
    ) => {
        $(#[$m])*
        #[derive(Clone, Copy, PartialEq, Debug, Default)]
        pub struct $S { $( $(#[$fm])* pub $f: $T, )* }

        impl $S {
            /// The field layout, in wire order.
            pub const LAYOUT: &'static [$crate::wire::FieldMeta] = &[
                $( $crate::wire::FieldMeta { name: stringify!($f), offset: $off, size: <$T as $crate::wire::Field>::SIZE }, )*
            ];

            /// Reads the struct's fields out of a bundle (never fails).
            #[inline]
            pub fn parse(b: &[u8; 64]) -> Self {
                $S { $( $f: <$T as $crate::wire::Field>::read(&b[$off..$off + <$T as $crate::wire::Field>::SIZE]), )* }
            }

            /// Writes every field into a bundle.
            #[inline]
            pub fn emit(&self, b: &mut [u8; 64]) {
                $( $crate::wire::Field::write(&self.$f, &mut b[$off..$off + <$T as $crate::wire::Field>::SIZE]); )*
            }

            /// Calls `v.field` on every field in wire order, with its static type, beside the
            /// same field of `base` (the disassembler's per-struct formatter: no `dyn`).
            #[inline(always)]
            pub fn visit_fields<V: $crate::wire::FieldVisitor>(&self, base: &Self, v: &mut V) {
                $( v.field(stringify!($f), &self.$f, &base.$f); )*
            }

            /// The fields with their layout, for generic walkers.
            pub fn fields(&self) -> Vec<(&'static $crate::wire::FieldMeta, &dyn $crate::wire::FieldDyn)> {
                Self::LAYOUT.iter().zip([ $( &self.$f as &dyn $crate::wire::FieldDyn ),* ]).collect()
            }

            /// The fields, mutably, for the assembler.
            pub fn fields_mut(&mut self) -> Vec<(&'static $crate::wire::FieldMeta, &mut dyn $crate::wire::FieldDyn)> {
                Self::LAYOUT.iter().zip([ $( &mut self.$f as &mut dyn $crate::wire::FieldDyn ),* ]).collect()
            }

            /// Whether the field `name` holds an FP32 value here: it is declared
            /// `[fp32 when SRC]` and its source field `SRC` says the instruction carries it.
            /// (Whether the opcode computes in fp32 at all is the row's: `Instruction::imm_is_fp32`.)
            pub fn fp32_field(&self, name: &str) -> bool {
                $( $( if name == stringify!($f) {
                    return self.$src == $crate::tables::ImmSrc::INSTRUCTION;
                } )? )*
                let _ = name;
                false
            }
        }

        impl<'a> $crate::wire::View<'a, $S> {
            $(
                #[doc = concat!("`", stringify!($f), "` (bytes ", stringify!($off), "..), read from the bundle.")]
                #[inline(always)]
                pub fn $f(&self) -> $T {
                    <$T as $crate::wire::Field>::read(&self.bytes()[$off..$off + <$T as $crate::wire::Field>::SIZE])
                }
            )*

            /// The owned struct, every field read through its accessor.
            pub fn owned(&self) -> $S {
                $S { $( $f: self.$f(), )* }
            }
        }

        impl $S {
            /// A zero-copy view of the struct in `b`.
            #[inline(always)]
            pub const fn view(b: &[u8; 64]) -> $crate::wire::View<'_, $S> {
                $crate::wire::View::new(b)
            }
        }

        const _: () = {
            let l = $S::LAYOUT;
            let mut pos = $start;
            let mut i = 0;
            while i < l.len() {
                assert!(l[i].offset == pos, concat!(stringify!($S), ": fields do not tile"));
                pos += l[i].size;
                i += 1;
            }
            assert!(pos == $end, concat!(stringify!($S), ": wrong total size"));
        };
    };
}
pub(crate) use wire_struct;

macro_rules! bodies {
    ($( $S:ident, $hn:literal, $what:literal; )*) => {
        /// The operand body of a bundle (bytes 12..64), by the struct its opcode binds.
        #[derive(Clone, Copy, PartialEq, Debug)]
        #[allow(clippy::large_enum_variant)]
        #[non_exhaustive]
        pub enum Body {
            $( #[doc = concat!("`", $hn, "`: ", $what, ".")] $S($S), )*
            /// Any opcode tpb does not model on the generation: raw bytes, kept verbatim.
            Opaque(Opaque),
        }

        $(
            impl From<$S> for Body {
                fn from(s: $S) -> Body {
                    Body::$S(s)
                }
            }

            impl BodyStruct for $S {
                const KIND: StructKind = StructKind::$S;
            }
        )*

        impl Body {
            /// Decodes the body for `kind` (or opaque bytes).
            #[inline]
            pub fn parse(kind: Option<StructKind>, b: &[u8; 64]) -> Body {
                match kind {
                    $( Some(StructKind::$S) => Body::$S($S::parse(b)), )*
                    None => Body::Opaque(Opaque::parse(b)),
                }
            }

            /// Writes the body into bytes 12..64.
            #[inline]
            pub fn emit(&self, b: &mut [u8; 64]) {
                match self {
                    $( Body::$S(s) => s.emit(b), )*
                    Body::Opaque(s) => s.emit(b),
                }
            }

            /// The struct this body holds (`None` for opaque).
            pub fn kind(&self) -> Option<StructKind> {
                match self {
                    $( Body::$S(_) => Some(StructKind::$S), )*
                    Body::Opaque(_) => None,
                }
            }

            /// A default (all-zero-reserved, unit-filled) body for `kind`.
            pub fn default_for(kind: Option<StructKind>) -> Body {
                match kind {
                    $( Some(StructKind::$S) => Body::$S(Default::default()), )*
                    None => Body::Opaque(Default::default()),
                }
            }

            /// The body's fields with absolute layout.
            pub fn fields(&self) -> Vec<(&'static FieldMeta, &dyn FieldDyn)> {
                match self {
                    $( Body::$S(s) => s.fields(), )*
                    Body::Opaque(s) => s.fields(),
                }
            }

            /// Whether the body field `name` holds an FP32 value (its `[fp32 when SRC]`
            /// declaration).
            pub fn fp32_field(&self, name: &str) -> bool {
                match self {
                    $( Body::$S(s) => s.fp32_field(name), )*
                    Body::Opaque(s) => s.fp32_field(name),
                }
            }

            /// The body's fields, mutably.
            pub fn fields_mut(&mut self) -> Vec<(&'static FieldMeta, &mut dyn FieldDyn)> {
                match self {
                    $( Body::$S(s) => s.fields_mut(), )*
                    Body::Opaque(s) => s.fields_mut(),
                }
            }

            /// The layout of a struct's fields (absolute bundle offsets).
            pub fn layout(kind: StructKind) -> &'static [FieldMeta] {
                match kind {
                    $( StructKind::$S => $S::LAYOUT, )*
                }
            }
        }
    };
}

/// A wire struct that is an instruction body: its [`StructKind`] is known at compile time,
/// so [`Instruction::build`] can pair it only with an opcode of that struct.
pub trait BodyStruct: Copy + Into<Body> {
    /// The struct kind.
    const KIND: StructKind;
}

crate::for_each_struct!(bodies);

/// A decoded 64-byte bundle.
#[derive(Clone, Copy, PartialEq, Debug)]
pub struct Instruction {
    /// Bytes 0..4.
    pub header: Header,
    /// Bytes 4..12.
    pub events: Events,
    /// Bytes 12..64.
    pub body: Body,
}

/// Errors reading a program binary.
#[derive(Debug, Error, PartialEq, Eq)]
#[non_exhaustive]
pub enum DecodeError {
    /// The stream is not a whole number of bundles (decisions §1.2).
    #[error(
        "program is {len} bytes, not a multiple of 64: {}",
        trailing_text(*bundles, *trailing)
    )]
    TrailingBytes {
        /// Total length.
        len: usize,
        /// Whole bundles before the tail.
        bundles: usize,
        /// Bytes left over.
        trailing: usize,
    },
    /// A single bundle was expected.
    #[error("a bundle is 64 bytes, got {0}")]
    WrongLength(usize),
}

impl Instruction {
    /// Decodes one bundle for `gen`. Total and lossless: the opcode's struct on `gen`
    /// decides the body; an opcode not modelled on `gen` (including 0x87/0x88 off sunda)
    /// gives an opaque body (decisions §1.6).
    #[inline]
    pub fn decode(b: &[u8; 64], gen: Gen) -> Instruction {
        let header = Header::parse(b);
        Instruction {
            header,
            events: Events::parse(b),
            body: Body::parse(header.opcode.info(gen).map(|r| r.kind), b),
        }
    }

    /// Decodes one bundle from a slice that must be exactly 64 bytes.
    pub fn decode_slice(b: &[u8], gen: Gen) -> Result<Instruction, DecodeError> {
        let a: &[u8; 64] = b
            .try_into()
            .map_err(|_| DecodeError::WrongLength(b.len()))?;
        Ok(Instruction::decode(a, gen))
    }

    /// Encodes the bundle (the exact inverse of [`Instruction::decode`]).
    #[inline]
    pub fn encode(&self) -> [u8; 64] {
        let mut b = [0u8; 64];
        self.header.emit(&mut b);
        self.events.emit(&mut b);
        self.body.emit(&mut b);
        b
    }

    /// A fresh instruction for `opcode` on `gen`: header word length 0x10, no events,
    /// reserved bytes zero and descriptors unit-filled, as the compiler zero-fills.
    pub fn new(opcode: Opcode, gen: Gen) -> Instruction {
        Instruction {
            header: Header {
                opcode,
                inst_word_len: INST_WORD_LEN,
                ..Default::default()
            },
            events: Events::default(),
            body: Body::default_for(opcode.info(gen).map(|r| r.kind)),
        }
    }

    /// The opcode byte.
    pub fn opcode(&self) -> Opcode {
        self.header.opcode
    }

    /// The opcode's table row on `gen`.
    pub fn info(&self, gen: Gen) -> Option<&'static OpcodeInfo> {
        self.header.opcode.info(gen)
    }

    /// Every field of the bundle (header, events, body) with absolute layout.
    pub fn fields(&self) -> Vec<(&'static FieldMeta, &dyn FieldDyn)> {
        let mut v = self.header.fields();
        v.extend(self.events.fields());
        v.extend(self.body.fields());
        v
    }
}

/// Where the trailing bytes of a program are, with bundles numbered from #0 as everywhere.
fn trailing_text(bundles: usize, trailing: usize) -> String {
    match bundles {
        0 => format!("{trailing} bytes, less than one bundle"),
        n => format!(
            "{trailing} trailing bytes at offset {:#x}, after bundle #{}",
            n * BUNDLE_BYTES,
            n - 1
        ),
    }
}

/// Decodes a program binary (a flat array of 64-byte bundles, decisions §1.2).
pub fn decode_program(bytes: &[u8], gen: Gen) -> Result<Vec<Instruction>, DecodeError> {
    if !bytes.len().is_multiple_of(BUNDLE_BYTES) {
        return Err(DecodeError::TrailingBytes {
            len: bytes.len(),
            bundles: bytes.len() / BUNDLE_BYTES,
            trailing: bytes.len() % BUNDLE_BYTES,
        });
    }
    Ok(bytes
        .chunks_exact(BUNDLE_BYTES)
        .map(|c| {
            let mut a = [0u8; BUNDLE_BYTES];
            a.copy_from_slice(c);
            Instruction::decode(&a, gen)
        })
        .collect())
}

/// Encodes instructions into a program binary.
pub fn encode_program(insts: &[Instruction]) -> Vec<u8> {
    insts.iter().flat_map(|i| i.encode()).collect()
}
