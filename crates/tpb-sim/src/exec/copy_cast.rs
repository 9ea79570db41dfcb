//! Copy (0x46), Cast (0x47) and Reciprocal (0x48) (isa-facts-dve-pool §4.4, §5;
//! docs/reference/isa.md "S4D4_TR").
//!
//! ```text
//! for c in 0..num_active_channels:
//!   for k in 0..count:          # src and dst walk their own patterns (reshape allowed)
//!     Copy:       dst[c][k] = src[c][k]                         # raw bits
//!     Cast:       dst[c][k] = convert(src[c][k], in → fp32 → out)
//!     Reciprocal: dst[c][k] = convert(1 / fp32(src[c][k]), out)
//! ```

use super::elements::{commit, read_all};
use super::Cx;
use crate::assumptions::{raw_move, reciprocal_f32};
use crate::machine::FaultCause;
use crate::numerics::{from_f32, to_f32, Fp8Config};
use tpb_isa::opcode::Family;
use tpb_isa::wire::S4d4Tr;
use tpb_isa::Dtype;

/// One Cast element: raw bits when the dtypes are equal, else through FP32
/// (`copy-when-same-dtype`).
pub(crate) fn cast_element(a: Dtype, b: Dtype, raw: u64, fp8: &Fp8Config) -> u64 {
    if raw_move(a, b) {
        raw
    } else {
        u64::from(from_f32(b, to_f32(a, raw as u32, fp8), fp8))
    }
}

/// One Reciprocal element (`reciprocal-ieee`).
pub(crate) fn reciprocal_element(a: Dtype, b: Dtype, raw: u64, fp8: &Fp8Config) -> u64 {
    u64::from(from_f32(b, reciprocal_f32(to_f32(a, raw as u32, fp8)), fp8))
}

pub(super) fn execute(cx: &mut Cx<'_>, s: &S4d4Tr) -> Result<(), FaultCause> {
    let n = u32::from(s.num_active_channels);
    let (src, dst, _count) = cx.elementwise(
        (&s.src_mem_pattern, "src_mem_pattern", s.in_dtype),
        (&s.dst_mem_pattern, "dst_mem_pattern", s.out_dtype),
        n,
    )?;
    let fp8 = cx.cfg.fp8;
    let (a, b) = (s.in_dtype, s.out_dtype);
    let reciprocal = cx.info.family == Family::Reciprocal;
    let vals: Vec<u64> = read_all(&cx.st.mem, &src, n)
        .into_iter()
        .map(|x| {
            if reciprocal {
                reciprocal_element(a, b, x, &fp8)
            } else {
                cast_element(a, b, x, &fp8)
            }
        })
        .collect();
    cx.check_reads(&src, n, |_| true);
    cx.gate()?;
    commit(cx, &dst, n, &vals, |_, _| false);
    Ok(())
}
