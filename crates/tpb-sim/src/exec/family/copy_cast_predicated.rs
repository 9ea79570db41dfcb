//! CopyPredicated / CastPredicated (0x72/0x99, isa-facts-dve-pool §2): the family's executor,
//! `FamilyVisitor::copy_cast_predicated` (the generated impl calls this).

use super::*;

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
