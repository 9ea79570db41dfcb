//! TensorScalarImmLd{Arith,Bitvec} (0x70 / 0x71): load up to eight scalars per channel into
//! the DVE flops for the next TensorScalarPtrMulti (isa-facts §6, seed 000 §5b).
//!
//! ```text
//! for c in 0..num_active_channels:
//!     for i in 0..W:                       # W = num_elem[0] · num_elem[1], 1..=8
//!         x = src[c][i]                    # element order, slot 0 fastest
//!         flop[c][i] = fp32_bits(to_f32(x))   if Arith     # converted to FP32
//!                    = zero_extend(bits(x))   if Bitvec    # raw bits
//!     loaded[c] = W; kind[c] = Arith | Bitvec
//! ```

use super::access::{bytes_to_raw, Cursor};
use super::{Cx, Role};
use crate::assumptions::{imm_ld_slot, FLOP_SLOTS};
use crate::numerics::to_f32;
use crate::report::FaultCause;
use crate::state::FlopKind;
use tpb_isa::wire::S2Bn;

/// `bitvec`: load raw bits (…Bitvec) rather than fp32 values.
pub(super) fn execute(cx: &mut Cx<'_>, s: &S2Bn, bitvec: bool) -> Result<(), FaultCause> {
    let kind = if bitvec {
        FlopKind::Bitvec
    } else {
        FlopKind::Arith
    };
    let n = u32::from(s.num_active_channels);
    let role = Role::READ;
    let src = cx.tensor(&s.src_mem_pattern, "src_mem_pattern", s.dtype, role, n)?;
    let w = src.count();
    if w == 0 || w > FLOP_SLOTS as u64 {
        return Err(FaultCause::OutOfRange {
            operand: "src_mem_pattern",
            detail: format!("{w} scalars per channel; the flops hold 1..={FLOP_SLOTS}"),
        });
    }
    let w = w as usize;
    cx.check_reads(&src, n, |_| true);
    cx.gate()?;

    let fp8 = cx.cfg.fp8;
    for c in 0..n {
        let mut raw = [0u32; FLOP_SLOTS];
        let mut cur = Cursor::new(&src.dims);
        let base = cx.st.mem.part_base(src.space, src.part0 + c);
        let data = cx.st.mem.data(src.space);
        for r in &mut raw[..w] {
            let i = base + src.byte(cur.run().0) as usize;
            bytes_to_raw(src.size, &data[i..i + src.size], std::slice::from_mut(r));
            cur.advance(1);
        }
        let f = &mut cx.st.flops[c as usize];
        for (i, &x) in raw[..w].iter().enumerate() {
            f.slots[imm_ld_slot(i)] = match kind {
                FlopKind::Arith => to_f32(s.dtype, x, &fp8).to_bits(),
                FlopKind::Bitvec => x,
            };
        }
        f.loaded = w as u8;
        f.kind = Some(kind);
    }
    cx.out.elements = w as u64 * u64::from(n);
    cx.out.flops_loaded = Some((n, w as u32));
    Ok(())
}
