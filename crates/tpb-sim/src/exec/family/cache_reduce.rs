//! TensorScalarCacheReduce / CacheCumulative (0x9a/0xe6), isa-facts-dve-pool §12: the family's
//! executor, `FamilyVisitor::cache_reduce` (the generated impl calls this).

use super::*;

/// Its cost formula (docs/engines.md "Published figures"): `max(MIN_II, N)` (ISA-2.26).
pub(in super::super) const COST: Formula = Formula::MinIi { perf_mode: false };

pub(in super::super) fn execute(
    cx: &mut Cx<'_>,
    row: Row,
    sem: sem::CacheReduce,
    s: &S3d3Ts,
) -> Executed {
    let cumulative = match sem {
        sem::CacheReduce::Reduce => false,
        sem::CacheReduce::Cumulative => true,
    };
    exec::cache_reduce::execute(cx, s, row, cumulative)
}
