//! StreamTranspose (0x6b): a 32 element × 32 channel transpose (isa-facts-dve-pool §15;
//! assumption `stream-transpose-map`).
//!
//! ```text
//! for ch in 0..num_active_channels: for k in 0..dst_count:
//!   dst[ch][k] = src[32·(ch/32) + k%32][32·(k/32) + ch%32]
//! ```

use super::elements::{commit, read_all};
use super::{Cx, Role};
use crate::assumptions::stream_transpose_source;
use crate::report::FaultCause;
use tpb_isa::wire::S4d4Tr;

pub(super) fn execute(cx: &mut Cx<'_>, s: &S4d4Tr) -> Result<(), FaultCause> {
    let n = u32::from(s.num_active_channels);
    let src = cx.tensor(
        &s.src_mem_pattern,
        "src_mem_pattern",
        s.in_dtype,
        Role::READ,
        n,
    )?;
    let dst = cx.tensor(
        &s.dst_mem_pattern,
        "dst_mem_pattern",
        s.out_dtype,
        Role::WRITE,
        n,
    )?;
    let (sc, dc) = (src.count(), dst.count());
    if !n.is_multiple_of(32) || !sc.is_multiple_of(32) || dc > sc {
        return Err(FaultCause::OutOfRange {
            operand: "dst_mem_pattern",
            detail: format!(
                "{n} channels × {sc} src elements → {dc} dst elements: needs channels and src \
                 elements in whole 32s and dst ≤ src"
            ),
        });
    }
    cx.limit(sc, n)?;
    let xs = read_all(&cx.st.mem, &src, n);
    let mut vals = Vec::with_capacity((dc * u64::from(n)) as usize);
    for ch in 0..n {
        for k in 0..dc {
            let (c, e) = stream_transpose_source(ch, k);
            vals.push(xs[(u64::from(c) * sc + e) as usize]);
        }
    }
    cx.check_reads(&src, n, |_| true);
    cx.gate()?;
    commit(cx, &dst, n, &vals, |_, _| false);
    Ok(())
}
