//! TensorReduce, TransposeTensorReduce and sunda's bf16 pair (0x42/0x52/0x83/0x84/0x8c/0x8d, isa-
//! facts-dve-pool §7): the family's validator chain, `FamilyVisitor::tensor_reduce` (the generated
//! impl calls this).

use super::*;

pub(in super::super) fn check<const M: u8>(
    cx: &mut Ctx<M>,
    _: &InstView<'_>,
    _: Row,
    v: sem::TensorReduce,
    s: View<'_, S4d4Tr>,
) -> Flow {
    chain::s4d4_tr::check_reduce(cx, v, &s)
}
