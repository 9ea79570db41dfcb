//! TensorScalarCacheReduce / CacheCumulative (0x9a/0xe6), isa-facts-dve-pool §12: the family's
//! validator chain, `FamilyVisitor::cache_reduce` (the generated impl calls this).

use super::*;

pub(in super::super) fn check<const M: u8>(
    cx: &mut Ctx<M>,
    _: &InstView<'_>,
    _: Row,
    v: sem::CacheReduce,
    s: View<'_, S3d3Ts>,
) -> Flow {
    // The two cache ops share every clause (isa-facts-dve-pool §12.3).
    match v {
        sem::CacheReduce::Reduce | sem::CacheReduce::Cumulative => {
            chain::cache_reduce::check(cx, &s)
        }
    }
}
