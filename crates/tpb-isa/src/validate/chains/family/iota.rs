//! Iota (0x7E, isa-facts §9): the family's validator chain, `FamilyVisitor::iota` (the generated
//! impl calls this).

use super::*;

// The cases of the family's rules (`tests/validate_clauses.rs` reads the `//~` lines).
//~ rule d4_iota_reserved_zero: reserved0..reserved2 are zero
//~   pass sunda: iota src_data_pattern=0:[[1,512],[1,1],[1,1],[1,1]] out_dtype=int32 channel_multiplier=512 dst_mem_pattern=sbuf[p0..128]+0x0:[[1,512],[1,1],[1,1],[1,1]]
//~   fail sunda: iota src_data_pattern=0:[[1,512],[1,1],[1,1],[1,1]] reserved0=01 out_dtype=int32 channel_multiplier=512 dst_mem_pattern=sbuf[p0..128]+0x0:[[1,512],[1,1],[1,1],[1,1]]
//~
//~ rule d4_iota_same_src_dst_count: d4d_element_count(src) == t4d_element_count(dst)
//~   pass sunda: iota src_data_pattern=0:[[1,512],[1,1],[1,1],[1,1]] out_dtype=int32 channel_multiplier=512 dst_mem_pattern=sbuf[p0..128]+0x0:[[1,512],[1,1],[1,1],[1,1]]
//~   fail sunda: iota src_data_pattern=0:[[1,513],[1,1],[1,1],[1,1]] out_dtype=int32 channel_multiplier=512 dst_mem_pattern=sbuf[p0..128]+0x0:[[1,512],[1,1],[1,1],[1,1]]

pub(in super::super) fn check<const M: u8>(
    cx: &mut Ctx<M>,
    _: &InstView<'_>,
    _: Row,
    sem::Iota::Iota: sem::Iota,
    s: View<'_, D4Iota>,
) -> Flow {
    chain::iota::check(cx, &s)
}
