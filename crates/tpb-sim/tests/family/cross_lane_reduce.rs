//! CrossLaneReduce (0x7c/0x7d), isa-facts-dve-pool §8: the family's test generator and plain
//! reference (the generated `generator` arm and reference `FamilyVisitor::cross_lane_reduce` call
//! these).

use super::*;

/// The family's random generator, if it has one.
pub(crate) fn generator() -> Option<Make> {
    Some(gen::gen_cross_lane_reduce)
}

/// The family's plain reference.
pub(crate) fn reference(
    r: &mut Ref<'_>,
    _: Row,
    v: sem::CrossLaneReduce,
    s: &wire::S4d4Cr,
) -> Done {
    let bitvec = match v {
        sem::CrossLaneReduce::Arith => false,
        sem::CrossLaneReduce::Bitvec => true,
    };
    reference::dve_state::cross_lane_reduce_ref(r.pre, r.st, s, bitvec, r.warns, r.strict)
}
