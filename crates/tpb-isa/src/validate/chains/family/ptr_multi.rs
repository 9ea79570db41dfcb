//! TensorScalarPtrMulti, incl. the sunda Dual form (0x4F/0x5F/0x87/0x88, seed 000 §5b, isa-facts
//! §8): the family's validator chain, `FamilyVisitor::ptr_multi` (the generated impl calls this).

use super::*;

pub(in super::super) fn check<const M: u8>(
    cx: &mut Ctx<M>,
    _: &InstView<'_>,
    _: Row,
    v: sem::PtrMulti,
    s: View<'_, S4d4Tsm>,
) -> Flow {
    chain::ptr_multi::check(cx, v, &s)
}
