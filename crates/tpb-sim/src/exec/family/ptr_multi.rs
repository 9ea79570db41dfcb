//! TensorScalarPtrMulti, incl. the sunda Dual form (0x4F/0x5F/0x87/0x88, seed 000 §5b, isa-facts
//! §8): the family's executor, `FamilyVisitor::ptr_multi` (the generated impl calls this).

use super::*;

/// Its cost formula (docs/engines.md "Published figures"): `max(MIN_II, N)` with the trn2 performance mode (ISA-2.26; ARCH2).
pub(in super::super) const COST: Formula = Formula::MinIi { perf_mode: true };

pub(in super::super) fn execute(
    cx: &mut Cx<'_>,
    row: Row,
    sem: sem::PtrMulti,
    s: &S4d4Tsm,
) -> Executed {
    use sem::PtrMulti as V;
    let (dual, bitvec) = match sem {
        V::MultiArith => (false, false),
        V::MultiBitvec => (false, true),
        V::DualArith => (true, false),
        V::DualBitvec => return Err(not_executed(row)), // disabled (isa-facts §8)
    };
    exec::ptr_multi::execute(cx, s, dual, bitvec)
}
