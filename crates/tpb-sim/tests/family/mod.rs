//! One file per instruction family, `<method>.rs` (named by the family list,
//! `tpb_isa::for_each_family!`): the family's random generator (`generator`, from
//! `tests/gen`) and its plain reference (`reference`, from `tests/reference`). The dispatch
//! over families is generated here, so a new family does not build until its file exists
//! and has both: the `generator` choice (a `Make`, or `None` saying why in its doc) and a
//! `reference` binding every behaviour variant (or an explicit `Unsupported`).
#![allow(dead_code)] // each suite uses part of it

use crate::gen::{self, Make};
use crate::reference::{self, Done, Ref, RefFault, Row};
use tpb_isa::opcode::{sem, Family, OPCODES};
use tpb_isa::{wire, Gen};

macro_rules! by_family {
    ($( $F:ident, $method:ident, $S:ident, $doc:literal; )*) => {
        $( mod $method; )*

        /// The generator of a family (`None`: checked elsewhere or refused; the family's file
        /// says which). Every test that runs generated programs (`dispatch`,
        /// `reference_equiv`, `no_panic`, `fault_atomicity`) takes its list from here.
        pub fn generator(f: Family) -> Option<Make> {
            match f {
                $( Family::$F => $method::generator(), )*
            }
        }

        impl<'a> wire::FamilyVisitor<'a, wire::Owned> for Ref<'_> {
            type Output = Done;
            $(
                fn $method(&mut self, row: Row, v: sem::$F, s: &'a wire::$S) -> Done {
                    $method::reference(self, row, v, s)
                }
            )*
        }
    };
}
tpb_isa::for_each_family!(by_family);

/// Every family with a generator, and the generations its opcodes are defined on.
pub fn generators() -> Vec<(Family, Make, Vec<Gen>)> {
    Family::ALL
        .iter()
        .filter_map(|&f| {
            let gens: Vec<Gen> = Gen::ALL
                .into_iter()
                .filter(|&g| OPCODES.iter().any(|r| r.family == f && r.gens.contains(g)))
                .collect();
            generator(f).map(|m| (f, m, gens))
        })
        .collect()
}
