//! TensorScalarCacheReduce / CacheCumulative (0x9a/0xe6), isa-facts-dve-pool §12: the family's
//! executor, `FamilyVisitor::cache_reduce` (the generated impl calls this).

use super::*;

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
