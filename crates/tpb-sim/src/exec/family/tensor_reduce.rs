//! TensorReduce, TransposeTensorReduce and sunda's bf16 pair (0x42/0x52/0x83/0x84/0x8c/0x8d, isa-
//! facts-dve-pool §7): the family's executor, `FamilyVisitor::tensor_reduce` (the generated impl
//! calls this).

use super::*;

/// Its cost formula (docs/engines.md "Published figures"): `N/2` or `N` (ISA-2.26).
pub(in super::super) const COST: Formula = Formula::Reduce;

pub(in super::super) fn execute(
    cx: &mut Cx<'_>,
    row: Row,
    sem: sem::TensorReduce,
    s: &S4d4Tr,
) -> Executed {
    use sem::TensorReduce as V;
    let (bitvec, transpose) = match sem {
        V::Arith | V::AddBf16 | V::MaxBf16 => (false, false),
        V::Bitvec => (true, false),
        V::TransposeArith => (false, true),
        V::TransposeBitvec => (true, true),
    };
    exec::reduce::execute(cx, s, row, bitvec, transpose)
}
