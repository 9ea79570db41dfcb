//! `D4_MR`: Memset 0x49 (`memset_set_value_type`, `d4_mr_zero_serialization`, …) and
//! `is_valid_dve_read_indices` 0xe9 (isa-facts-dve-pool §6.3, §13.2; docs/reference/isa.md
//! "D4_MR").

use super::super::common::*;
use super::super::{Confidence, Ctx, Flow};
use crate::tables::Dtype;
use crate::wire::D4Mr;
use crate::wire::View;
use Confidence::{Assumed, Observed};

/// `REG_SERIAL_MODE::Serial`: only the name is public; 0 is ASSUMED (isa-facts-dve-pool Q6:
/// the compiler never writes byte 36 and its output must validate).
pub const SERIAL_MODE_SERIAL: u8 = 0;

rule!(
    MR_RESERVED,
    "d4_mr_reserved_zero",
    "reserved0..reserved3 are zero",
    "isa-facts-dve-pool §6.3",
    Observed
);
rule!(
    MR_SERIAL,
    "d4_mr_zero_serialization",
    "serialization_mode == Serial (value 0 ASSUMED, Q6)",
    "isa-facts-dve-pool §6.3, Q6",
    Assumed
);
rule!(
    MR_SET_VALUE,
    "memset_set_value_type",
    "set_value fits the dtype: 32-bit types any, 16-bit types high half 0, 8-bit types high 3 bytes 0 (not FP32R)",
    "isa-facts-dve-pool §6.3",
    Observed
);
rule!(
    MR_COUNT,
    "d4_mr_dst_element_count",
    "dst_element_count == the dst pattern's element count (Q6)",
    "isa-facts-dve-pool Q6",
    Assumed
);
rule!(
    RI_DTYPE,
    "is_valid_dtype_dve_read_indices",
    "dtype ∈ {UINT16, UINT32}",
    "isa-facts-dve-pool §13.2",
    Observed
);
rule!(
    RI_COUNT,
    "dve_read_indices_elem_count_8",
    "dst_element_count == 8",
    "isa-facts-dve-pool §13.2",
    Observed
);
rule!(
    RI_SET_VALUE,
    "dve_read_indices_set_value_zero",
    "set_value == 0",
    "isa-facts-dve-pool §13.2",
    Observed
);

rule!(
    MR_UNKNOWN,
    "memset (unknown clauses)",
    "not public: the channel-range constant, the dst tensor4d_valid flags (PSUM and SBUF allowed here) and the dst_element_count rule (Q6)",
    "isa-facts-dve-pool §6.3, Q6",
    Assumed,
    lint
);

/// `memset_set_value_type` (`d4_mr.h:124-140`).
pub fn memset_value_fits(d: Dtype, v: u32) -> bool {
    match d {
        Dtype::FP32 | Dtype::UINT32 | Dtype::INT32 => true,
        Dtype::UINT16 | Dtype::INT16 | Dtype::BFLOAT16 | Dtype::FP16 => v & 0xFFFF_0000 == 0,
        Dtype::UINT8 | Dtype::INT8 | Dtype::FP8_EXP3 | Dtype::FP8_EXP4 | Dtype::FP8_EXP5 => {
            v & 0xFFFF_FF00 == 0
        }
        _ => false,
    }
}

/// Which of the two `D4_MR` chains runs (from the row's behaviour, `chains/family/`).
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum MrChain {
    /// Memset (0x49).
    Memset,
    /// DveReadIndices (0xe9).
    ReadIndices,
}

pub(super) fn check<const M: u8>(cx: &mut Ctx<M>, chain: MrChain, s: &View<'_, D4Mr>) -> Flow {
    if chain == MrChain::Memset {
        // `tpb explain` lists what is not known about this chain (a lint that always holds).
        cx.check(&MR_UNKNOWN, true, || {
            detail(at!(D4Mr.dtype), s.dtype(), "see isa-facts-dve-pool Q6")
        })?;
    }
    reserved_zero(cx, &MR_RESERVED, at!(D4Mr.reserved0), &s.reserved0().0)?;
    reserved_zero(cx, &MR_RESERVED, at!(D4Mr.reserved1), &s.reserved1().0)?;
    reserved_zero(cx, &MR_RESERVED, at!(D4Mr.reserved2), &s.reserved2().0)?;
    reserved_zero(cx, &MR_RESERVED, at!(D4Mr.reserved3), &s.reserved3().0)?;
    cx.check(
        &MR_SERIAL,
        s.serialization_mode() == SERIAL_MODE_SERIAL,
        || {
            detail(
                at!(D4Mr.serialization_mode),
                s.serialization_mode(),
                "0 (Serial)",
            )
        },
    )?;
    let read_indices = chain == MrChain::ReadIndices;
    if read_indices {
        cx.check(
            &RI_DTYPE,
            matches!(s.dtype(), Dtype::UINT16 | Dtype::UINT32),
            || detail(at!(D4Mr.dtype), s.dtype(), "uint16, uint32"),
        )?;
    } else {
        dtype_out(cx, s.dtype(), at!(D4Mr.dtype))?;
        cx.check(
            &MR_SET_VALUE,
            memset_value_fits(s.dtype(), s.set_value()),
            || {
                detail(
                    at!(D4Mr.set_value),
                    format!("{:#x} for {}", s.set_value(), s.dtype()),
                    "fp32/int32/uint32: any; 16-bit types < 0x10000; 8-bit types < 0x100",
                )
            },
        )?;
    }
    let n = s.num_active_channels();
    channel_range(cx, n, at!(D4Mr.num_active_channels))?;
    let dst = &s.dst_mem_pattern();
    let dst_at = at!(D4Mr.dst_mem_pattern);
    start_addr_active_channels(cx, dst.start_addr, n, dst_at)?;
    tensor_valid(
        cx,
        dst,
        Operand {
            at: dst_at,
            dtype: s.dtype(),
            write: true,
            psum: true,
            sbuf: true,
        },
    )?;
    if read_indices {
        cx.check(&RI_COUNT, s.dst_element_count() == 8, || {
            detail(at!(D4Mr.dst_element_count), s.dst_element_count(), "8")
        })?;
        cx.check(&RI_SET_VALUE, s.set_value() == 0, || {
            detail(at!(D4Mr.set_value), s.set_value(), "0")
        })?;
    } else {
        let ok = dst.start_addr.shape_from_register()
            || u64::from(s.dst_element_count()) == dst.element_count();
        cx.check(&MR_COUNT, ok, || {
            detail(
                at!(D4Mr.dst_element_count),
                s.dst_element_count(),
                format!("the dst pattern's count {}", count_text(dst)),
            )
        })?;
    }
    Ok(())
}
