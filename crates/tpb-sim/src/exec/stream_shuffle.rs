//! StreamShuffle (0x6a): a partition permutation inside each 32-channel group by the
//! LoadMaskSelect (0x69) table (isa-facts-dve-pool §14; assumption `stream-shuffle-mask`).
//!
//! ```text
//! table = the most recent LoadMaskSelect's 32 bytes (none: refused, Q20)
//! for ch in 0..num_active_channels:
//!   m = table[ch % 32]
//!   if m < 32: dst[ch][k] = src[32·(ch/32) + m][k] for every k   # raw bits
//!   else:      dst[ch] is not written                              # 255 and count|0x20
//! ```

use super::access::overlaps;
use super::elements::{read_channel_bytes, write_channel_bytes};
use super::Cx;
use crate::assumptions::{stream_shuffle_source, STREAM_SHUFFLE_NO_TABLE};
use crate::report::FaultCause;
use tpb_isa::wire::S4d4Tr;

pub(super) fn execute(cx: &mut Cx<'_>, s: &S4d4Tr) -> Result<(), FaultCause> {
    let n = u32::from(s.num_active_channels);
    let (src, dst, count) = cx.elementwise(
        (&s.src_mem_pattern, "src_mem_pattern", s.in_dtype),
        (&s.dst_mem_pattern, "dst_mem_pattern", s.out_dtype),
        n,
    )?;
    let table = cx
        .st
        .dve
        .mask_select
        .ok_or_else(|| FaultCause::Unsupported {
            what: STREAM_SHUFFLE_NO_TABLE.into(),
        })?;
    if !n.is_multiple_of(32) || src.size != dst.size {
        // The validator's has_multiple_32_channels and same_src_dst_type (§14.1).
        return Err(FaultCause::Unsupported {
            what: format!(
                "StreamShuffle over {n} channels of {}- to {}-byte elements: needs whole \
                 32-channel groups and in == out dtype",
                src.size, dst.size
            ),
        });
    }
    let mut read = [false; 128];
    for ch in 0..n {
        if let Some(from) = stream_shuffle_source(&table, ch) {
            read[from as usize] = true;
        }
    }
    cx.check_reads(&src, n, |c| read[c as usize]);
    cx.gate()?;
    let row = count as usize * src.size;
    let writes: Vec<(u32, u32)> = (0..n)
        .filter_map(|ch| stream_shuffle_source(&table, ch).map(|from| (ch, from)))
        .collect();
    if overlaps(&src, &dst, n) {
        // Every selected source row is copied out before the first write (in place allowed).
        let mut rows = Vec::with_capacity(row * writes.len());
        for &(_, from) in &writes {
            read_channel_bytes(&cx.st.mem, &src, from, &mut rows);
        }
        for (i, &(ch, _)) in writes.iter().enumerate() {
            write_channel_bytes(&mut cx.st.mem, &dst, ch, &rows[i * row..(i + 1) * row]);
        }
    } else {
        // Disjoint operands: one row at a time (it stays in cache), same result.
        let mut buf = Vec::with_capacity(row);
        for &(ch, from) in &writes {
            buf.clear();
            read_channel_bytes(&cx.st.mem, &src, from, &mut buf);
            write_channel_bytes(&mut cx.st.mem, &dst, ch, &buf);
        }
    }
    let out = &mut *cx.out;
    out.touch(&dst, n, true);
    out.elements = count * u64::from(n);
    out.bytes_written = count * writes.len() as u64 * dst.size as u64;
    out.written = (!writes.is_empty()).then(|| dst.region(n));
    Ok(())
}
