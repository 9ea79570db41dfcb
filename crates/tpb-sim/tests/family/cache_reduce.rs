//! TensorScalarCacheReduce / CacheCumulative (0x9a/0xe6), isa-facts-dve-pool §12: the family's test
//! generator and plain reference (the generated `generator` arm and reference
//! `FamilyVisitor::cache_reduce` call these).

use super::*;

/// The family's random generator, if it has one.
pub(crate) fn generator() -> Option<Make> {
    Some(gen::gen_cache_reduce)
}

/// The family's plain reference.
pub(crate) fn reference(
    r: &mut Ref<'_>,
    _: Row,
    v: sem::CacheReduce,
    s: &wire::S3d3Ts,
) -> Done {
    let cumulative = match v {
        sem::CacheReduce::Reduce => false,
        sem::CacheReduce::Cumulative => true,
    };
    reference::dve_state::cache_reduce_ref(r.pre, r.st, s, cumulative, r.warns, r.strict)
}
