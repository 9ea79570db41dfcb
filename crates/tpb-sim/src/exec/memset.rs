//! Memset (0x49): fill the dst pattern with `set_value`'s raw bits (isa-facts-dve-pool §6.4;
//! docs/reference/isa.md "D4_MR").
//!
//! ```text
//! for c in 0..num_active_channels: for k in 0..count: dst[c][k] = low bytes of set_value
//! ```

use super::elements::commit;
use super::{Cx, Role};
use crate::machine::FaultCause;
use tpb_isa::wire::D4Mr;

pub(super) fn execute(cx: &mut Cx<'_>, s: &D4Mr) -> Result<(), FaultCause> {
    let n = u32::from(s.num_active_channels);
    let dst = cx.tensor(
        &s.dst_mem_pattern,
        "dst_mem_pattern",
        s.dtype,
        Role::WRITE,
        n,
    )?;
    let count = dst.count();
    cx.limit(count, n)?;
    cx.gate()?;
    let vals = vec![u64::from(s.set_value); (count * u64::from(n)) as usize];
    commit(cx, &dst, n, &vals, |_, _| false);
    Ok(())
}
