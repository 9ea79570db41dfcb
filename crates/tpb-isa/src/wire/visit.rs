//! The family visitor, generated from the one family list (`for_each_family!`, the wasmtime
//! Pulley `for_each_op!` → `OpVisitor` pattern): one method per family, taking the opcode's
//! row, its [`sem`](crate::opcode::sem) variant and its body. The validator implements it
//! over zero-copy [`View`]s, the simulator over owned structs; a family without a handler is
//! one compile error in each `impl`, and [`visit_view`] / [`visit_owned`] are the only
//! dispatches on the family.

use super::{Body, InstView, View};
use crate::opcode::{sem, OpcodeInfo, Sem};

/// How a visitor receives bodies: [`Owned`] (`&S`) or [`Viewed`] ([`View<S>`]).
pub trait Bodies {
    /// The body of struct `S`.
    type Of<'a, S: 'a>;
}

/// Bodies as owned structs, `&'a S` (the simulator).
#[derive(Debug)]
pub enum Owned {}

impl Bodies for Owned {
    type Of<'a, S: 'a> = &'a S;
}

/// Bodies as zero-copy views, `View<'a, S>` (the validator).
#[derive(Debug)]
pub enum Viewed {}

impl Bodies for Viewed {
    type Of<'a, S: 'a> = View<'a, S>;
}

macro_rules! family_visitor {
    ($( $F:ident, $method:ident, $S:ident, $doc:literal; )*) => {
        /// One handler per instruction family (generated from the family list).
        pub trait FamilyVisitor<'a, B: Bodies> {
            /// What a handler returns.
            type Output;
            $(
                #[doc = concat!($doc, ": `", stringify!($S), "` bodies.")]
                fn $method(
                    &mut self,
                    row: &'static OpcodeInfo,
                    sem: sem::$F,
                    body: B::Of<'a, super::$S>,
                ) -> Self::Output;
            )*
        }

        /// Calls the handler of the view's family (`None`: an opcode not modelled on the
        /// view's generation, whose body is opaque).
        #[inline]
        pub fn visit_view<'a, V: FamilyVisitor<'a, Viewed>>(
            v: &mut V,
            inst: &InstView<'a>,
        ) -> Option<V::Output> {
            let row = inst.info()?;
            // A view's body is always its row's struct (the family's), so one dispatch on
            // the row suffices.
            Some(match row.sem {
                $( Sem::$F(sem) => v.$method(row, sem, View::new(inst.bytes())), )*
            })
        }

        /// Calls the handler of `row`'s family on `body` (`None`: the body holds another
        /// struct than the family's).
        #[inline]
        pub fn visit_owned<'a, V: FamilyVisitor<'a, Owned>>(
            v: &mut V,
            row: &'static OpcodeInfo,
            body: &'a Body,
        ) -> Option<V::Output> {
            match (row.sem, body) {
                $( (Sem::$F(sem), Body::$S(s)) => Some(v.$method(row, sem, s)), )*
                _ => None,
            }
        }

        /// The operand struct of each family, by the family's name (for typed constructors).
        pub mod family_body {
            $( #[doc = $doc] pub type $F = super::super::$S; )*
        }
    };
}
crate::for_each_family!(family_visitor);
