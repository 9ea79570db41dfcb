//! StreamShuffle (0x6a, isa-facts-dve-pool §14.1): the family's executor,
//! `FamilyVisitor::stream_shuffle` (the generated impl calls this).

use super::*;

/// Its cost formula (docs/engines.md "Published figures"): `max(MIN_II, N)` (ISA-2.26).
pub(in super::super) const COST: Formula = Formula::MinIi { perf_mode: false };

pub(in super::super) fn execute(
    cx: &mut Cx<'_>,
    _: Row,
    sem::StreamShuffle::StreamShuffle: sem::StreamShuffle,
    s: &S4d4Tr,
) -> Executed {
    exec::stream_shuffle::execute(cx, s) // by the LoadMaskSelect table (Q20)
}
