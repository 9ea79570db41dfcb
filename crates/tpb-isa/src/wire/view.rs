//! Zero-copy views over a 64-byte bundle (the smoltcp `Packet<&[u8]>` pattern): reading a
//! field is one load at its named offset, nothing is copied up front. The accessors come
//! from the same `wire_struct!` list as the owned structs, so there is no second layout
//! table. Like [`Instruction::decode`], a view is total: any 64 bytes give a view and every
//! accessor returns a value (issue 11: decode throughput).

use super::{Body, Events, Header, Instruction};
use crate::gen::Gen;
use crate::opcode::{Opcode, OpcodeInfo, StructKind};
use std::marker::PhantomData;

/// A view of the bundle's bytes as the wire struct `S`: one accessor per field of `S`,
/// named as the field, reading it from its offset when called.
pub struct View<'a, S> {
    bytes: &'a [u8; 64],
    layout: PhantomData<fn() -> S>,
}

impl<S> Clone for View<'_, S> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<S> Copy for View<'_, S> {}

impl<S> std::fmt::Debug for View<'_, S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "View<{}>({:02x?})",
            std::any::type_name::<S>(),
            self.bytes
        )
    }
}

impl<'a, S> View<'a, S> {
    /// A view of `bytes` as `S` (never fails: every byte pattern is some value of `S`).
    #[inline(always)]
    pub const fn new(bytes: &'a [u8; 64]) -> View<'a, S> {
        View {
            bytes,
            layout: PhantomData,
        }
    }

    /// The whole bundle the view reads from.
    #[inline(always)]
    pub const fn bytes(&self) -> &'a [u8; 64] {
        self.bytes
    }
}

macro_rules! body_views {
    ($( $S:ident, $hn:literal, $what:literal; )*) => {
        /// The operand body of a bundle as a view, by the struct its opcode binds.
        #[derive(Clone, Copy, Debug)]
        #[non_exhaustive]
        pub enum BodyView<'a> {
            $( #[doc = concat!("`", $hn, "`: ", $what, ".")] $S(View<'a, super::$S>), )*
            /// An opcode not modelled on the generation: bytes 12..64 as they are.
            Opaque(View<'a, super::Opaque>),
        }

        impl<'a> BodyView<'a> {
            /// The view of `b`'s body for `kind` (or opaque bytes).
            #[inline]
            pub fn new(kind: Option<StructKind>, b: &'a [u8; 64]) -> BodyView<'a> {
                match kind {
                    $( Some(StructKind::$S) => BodyView::$S(View::new(b)), )*
                    None => BodyView::Opaque(View::new(b)),
                }
            }

            /// The owned body, every field read through the view's accessors.
            pub fn owned(&self) -> Body {
                match self {
                    $( BodyView::$S(v) => Body::$S(v.owned()), )*
                    BodyView::Opaque(v) => Body::Opaque(v.owned()),
                }
            }
        }
    };
}
crate::for_each_struct!(body_views);

/// A decoded bundle as a view: the opcode classified for a generation, every field read
/// on demand. The owned equivalent is [`Instruction::decode`]; [`InstView::owned`] gives
/// exactly that.
#[derive(Clone, Copy, Debug)]
pub struct InstView<'a> {
    bytes: &'a [u8; 64],
    gen: Gen,
    info: Option<&'static OpcodeInfo>,
}

impl<'a> InstView<'a> {
    /// Classifies the bundle's opcode on `gen` (decisions §1.6, as [`Instruction::decode`]);
    /// total: an opcode not modelled on `gen` gives an opaque body.
    #[inline]
    pub fn new(bytes: &'a [u8; 64], gen: Gen) -> InstView<'a> {
        InstView {
            bytes,
            gen,
            info: Opcode(bytes[0]).info(gen),
        }
    }

    /// The bundle's bytes.
    #[inline(always)]
    pub const fn bytes(&self) -> &'a [u8; 64] {
        self.bytes
    }

    /// The generation the opcode was classified for.
    #[inline(always)]
    pub const fn gen(&self) -> Gen {
        self.gen
    }

    /// The opcode byte.
    #[inline(always)]
    pub const fn opcode(&self) -> Opcode {
        Opcode(self.bytes[0])
    }

    /// The opcode's table row on the generation (`None`: not modelled there).
    #[inline(always)]
    pub const fn info(&self) -> Option<&'static OpcodeInfo> {
        self.info
    }

    /// The struct the body holds (`None`: opaque).
    #[inline]
    pub fn kind(&self) -> Option<StructKind> {
        self.info.map(|r| r.kind)
    }

    /// Bytes 0..4.
    #[inline(always)]
    pub const fn header(&self) -> View<'a, Header> {
        View::new(self.bytes)
    }

    /// Bytes 4..12.
    #[inline(always)]
    pub const fn events(&self) -> View<'a, Events> {
        View::new(self.bytes)
    }

    /// Bytes 12..64, as the struct the opcode binds.
    #[inline]
    pub fn body(&self) -> BodyView<'a> {
        BodyView::new(self.kind(), self.bytes)
    }

    /// The owned instruction, equal to `Instruction::decode(bytes, gen)`.
    pub fn owned(&self) -> Instruction {
        Instruction {
            header: self.header().owned(),
            events: self.events().owned(),
            body: self.body().owned(),
        }
    }
}
