//! StreamTranspose (0x6b, isa-facts-dve-pool §15): the family's executor,
//! `FamilyVisitor::stream_transpose` (the generated impl calls this).

use super::*;

/// Its cost formula (docs/engines.md "Published figures"): `max(MIN_II, N)` (ISA-2.26).
pub(in super::super) const COST: Formula = Formula::MinIi { perf_mode: false };

pub(in super::super) fn execute(
    cx: &mut Cx<'_>,
    _: Row,
    sem::StreamTranspose::StreamTranspose: sem::StreamTranspose,
    s: &S4d4Tr,
) -> Executed {
    exec::stream_transpose::execute(cx, s)
}
