//! TensorScalarAffineSelect (0x92, seed 002 §5.5): the family's executor,
//! `FamilyVisitor::affine_select` (the generated impl calls this).

use super::*;

/// Its cost formula (docs/engines.md "Published figures"): `GPSIMD_START + N` (ISA-2.26).
pub(in super::super) const COST: Formula = Formula::GpsimdStart;

pub(in super::super) fn execute(
    cx: &mut Cx<'_>,
    _: Row,
    sem::AffineSelect::AffineSelect: sem::AffineSelect,
    s: &S2d2TsAs,
) -> Executed {
    exec::affine_select::execute(cx, s)
}
