//! Copy / Cast (0x46/0x47, isa-facts-dve-pool §4): the family's executor,
//! `FamilyVisitor::copy_cast` (the generated impl calls this).

use super::*;

/// Its cost formula (docs/engines.md "Published figures"): `max(MIN_II, N)` with the trn2 performance mode (ISA-2.26; ARCH2).
pub(in super::super) const COST: Formula = Formula::MinIi { perf_mode: true };

pub(in super::super) fn execute(
    cx: &mut Cx<'_>,
    _: Row,
    sem: sem::CopyCast,
    s: &S4d4Tr,
) -> Executed {
    match sem {
        sem::CopyCast::Copy | sem::CopyCast::Cast => exec::copy_cast::execute(cx, s, false),
    }
}
