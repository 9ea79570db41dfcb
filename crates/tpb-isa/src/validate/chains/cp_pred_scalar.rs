//! `S3D3_CP_PRED_SCALAR`: `is_valid_copy_predicated_scalar` (0xe8)
//! (isa-facts-dve-pool §3.3; docs/reference/isa.md "S3D3_CP_PRED_SCALAR").

use super::super::common::*;
use super::super::{Confidence, Ctx, Flow};
use super::immediates::imm_by_src;
use crate::tables::ImmSrc;
use crate::wire::S3d3CpPredScalar;
use crate::wire::View;
use Confidence::{Assumed, Observed};

rule!(
    CPS_RESERVED,
    "s3d3_cp_pred_scalar_reserved_zero",
    "reserved0 and reserved1 are zero",
    "isa-facts-dve-pool §3.3",
    Observed
);
rule!(
    CPS_COUNT,
    "same_element_count_t3d",
    "pred and dst have the same element count",
    "isa-facts-dve-pool §3.3",
    Observed
);
rule!(
    CPS_PRED_DTYPE,
    "is_valid_int_dtype_datapath",
    "pred_dtype ∈ {INT8, INT16, INT32, UINT8, UINT16, UINT32}",
    "isa-facts-dve-pool §3.3",
    Observed
);
rule!(
    CPS_IN_DTYPE,
    "is_valid_dtype",
    "in_dtype and out_dtype are plain datapath types (no FP32R)",
    "isa-facts-dve-pool §3.3",
    Observed
);
rule!(
    CPS_SAME_DTYPE,
    "has_same_inout_dtype",
    "in_dtype == out_dtype",
    "isa-facts-dve-pool §3.3",
    Observed
);
rule!(
    CPS_REVERSED,
    "has_valid_reversed_pred",
    "reversed_pred ∈ {0, 1}",
    "isa-facts-dve-pool §3.3",
    Observed
);

rule!(
    CPS_UNKNOWN,
    "is_valid_copy_predicated_scalar (unknown clauses)",
    "not public: the patterns' PSUM/SBUF flags (both allowed here, Q1) and the inline scalar's byte layout (Q7)",
    "isa-facts-dve-pool §3.3, Q1, Q7",
    Assumed,
    lint
);

pub(super) fn check<const M: u8>(cx: &mut Ctx<M>, s: &View<'_, S3d3CpPredScalar>) -> Flow {
    // `tpb explain` lists what is not known about this chain (a lint that always holds).
    cx.check(&CPS_UNKNOWN, true, || {
        detail(
            at!(S3d3CpPredScalar.src0_imm),
            s.src0_imm().0,
            "see isa-facts-dve-pool Q1, Q7",
        )
    })?;
    reserved_zero(
        cx,
        &CPS_RESERVED,
        at!(S3d3CpPredScalar.reserved0),
        &s.reserved0().0,
    )?;
    reserved_zero(
        cx,
        &CPS_RESERVED,
        at!(S3d3CpPredScalar.reserved1),
        &s.reserved1().0,
    )?;
    let n = s.num_active_channels();
    // `has_valid_immediates`: an inline value always passes.
    if s.src0_imm_src() != ImmSrc::INSTRUCTION {
        imm_by_src(
            cx,
            s.src0_imm_src(),
            s.src0_imm(),
            at!(S3d3CpPredScalar.src0_imm_src),
            at!(S3d3CpPredScalar.src0_imm),
            true,
            s.in_dtype(),
            n,
        )?;
    }
    let (p, d) = (&s.pred_mem_pattern(), &s.dst_mem_pattern());
    let (p_at, d_at) = (
        at!(S3d3CpPredScalar.pred_mem_pattern),
        at!(S3d3CpPredScalar.dst_mem_pattern),
    );
    let place = |at, dtype, write| Operand {
        at,
        dtype,
        write,
        // The PSUM/SBUF flags are not public (Q1, ASSUMED): both allowed.
        psum: true,
        sbuf: true,
    };
    tensor_valid(cx, p, place(p_at, s.pred_dtype(), false))?;
    tensor_valid(cx, d, place(d_at, s.out_dtype(), true))?;
    start_addr_active_channels(cx, p.start_addr, n, p_at)?;
    start_addr_active_channels(cx, d.start_addr, n, d_at)?;
    cx.check(&CPS_COUNT, p.element_count() == d.element_count(), || {
        detail(
            d_at.num_elem::<3>(),
            count_text(d),
            format!("pred count {}", count_text(p)),
        )
    })?;
    cx.check(&CPS_PRED_DTYPE, s.pred_dtype().is_int_datapath(), || {
        detail(
            at!(S3d3CpPredScalar.pred_dtype),
            s.pred_dtype(),
            "int8, int16, int32, uint8, uint16, uint32",
        )
    })?;
    for (dt, at) in [
        (s.in_dtype(), at!(S3d3CpPredScalar.in_dtype)),
        (s.out_dtype(), at!(S3d3CpPredScalar.out_dtype)),
    ] {
        cx.check(&CPS_IN_DTYPE, dt.is_valid_dtype(false), || {
            detail(at, dt, PLAIN_DTYPES)
        })?;
    }
    cx.check(&CPS_SAME_DTYPE, s.in_dtype() == s.out_dtype(), || {
        detail2(
            at!(S3d3CpPredScalar.in_dtype),
            at!(S3d3CpPredScalar.out_dtype),
            format!("{} -> {}", s.in_dtype(), s.out_dtype()),
            "in_dtype == out_dtype",
        )
    })?;
    cx.check(&CPS_REVERSED, s.reversed_pred() <= 1, || {
        detail(
            at!(S3d3CpPredScalar.reversed_pred),
            s.reversed_pred(),
            "0, 1",
        )
    })?;
    channel_range(cx, n, at!(S3d3CpPredScalar.num_active_channels))?;
    Ok(())
}
