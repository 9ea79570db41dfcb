//! CopyPredicated / CastPredicated (0x72/0x99, isa-facts-dve-pool §2): the family's executor,
//! `FamilyVisitor::copy_cast_predicated` (the generated impl calls this).

use super::*;

/// Its cost formula (docs/engines.md "Published figures"): `max(MIN_II, N)` or `max(MIN_II, 2N)` by operand location (ISA-2.26).
pub(in super::super) const COST: Formula = Formula::Predicated;

pub(in super::super) fn execute(
    cx: &mut Cx<'_>,
    _: Row,
    sem: sem::CopyCastPredicated,
    s: &S3s3d3Tt,
) -> Executed {
    // Copy moves raw bits (equal dtypes); Cast converts unless the dtypes are equal
    // (`copy-when-same-dtype`): one element function serves both.
    match sem {
        sem::CopyCastPredicated::Copy | sem::CopyCastPredicated::Cast => {
            exec::predicated::execute_tensor(cx, s)
        }
    }
}
