//! LDTAGS (0x06, isa-facts-pe-act-dma §1.10.2): the family's validator chain,
//! `FamilyVisitor::load_tags` (the generated impl calls this).

use super::*;

pub(in super::super) fn check<const M: u8>(
    cx: &mut Ctx<M>,
    _: &InstView<'_>,
    _: Row,
    sem::LoadTags::LoadTags: sem::LoadTags,
    _: View<'_, S3Lt>,
) -> Flow {
    chain::pe_other::check_unpublished(cx)
}
