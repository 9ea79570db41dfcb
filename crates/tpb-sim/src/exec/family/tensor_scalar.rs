//! TensorScalar / TensorScalarPtr (0x43/0x53/0x44/0x54, isa-facts §7): the family's executor,
//! `FamilyVisitor::tensor_scalar` (the generated impl calls this).

use super::*;

/// Its cost formula (docs/engines.md "Published figures"): `max(MIN_II, N)` with the trn2 performance mode (ISA-2.26; ARCH2).
pub(in super::super) const COST: Formula = Formula::MinIi { perf_mode: true };

pub(in super::super) fn execute(
    cx: &mut Cx<'_>,
    _: Row,
    sem: sem::TensorScalar,
    s: &S3d3Ts,
) -> Executed {
    use sem::TensorScalar as V;
    let (pointers, bitvec) = match sem {
        V::ImmArith => (false, false),
        V::ImmBitvec => (false, true),
        V::PtrArith => (true, false),
        V::PtrBitvec => (true, true),
    };
    exec::tensor_scalar::execute(cx, s, pointers, bitvec)
}
