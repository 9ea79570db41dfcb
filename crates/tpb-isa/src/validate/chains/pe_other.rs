//! The PE's other instructions (isa-facts-pe-act-dma §1.10): PE_MANAGE_SEED's quoted clauses;
//! for the rest, whose validators are not public, a lint saying the body was not checked.

use super::super::common::*;
use super::super::{Confidence, Ctx, Flow};
use crate::gen::Gen;
use crate::tables::{CodeEnum, PeSeedMode};
use crate::wire::{FieldMeta, S2s1d2PeSeed, View};
use Confidence::{Assumed, Observed};

rule!(
    PE_BODY_NOT_CHECKED,
    "pe_body_not_checked",
    "the instruction's validator is not public: tpb checks its header only",
    "isa-facts-pe-act-dma §1.10",
    Assumed,
    lint
);
rule!(
    PE_SEED_NC_V4,
    "pe_seed_nc_v4",
    "PE_MANAGE_SEED is valid on v4 only (`nc == V4`; the v5 header keeps the struct)",
    "isa-facts-pe-act-dma §1.10.3",
    Observed
);
rule!(
    PE_SEED_SHAPE,
    "pe_seed_shape",
    "num_active_rows = 16 and num_active_cols = 128",
    "isa-facts-pe-act-dma §1.10.3, §1.12",
    Observed
);
rule!(
    PE_SEED_MODE,
    "is_valid_enum",
    "mode ∈ PE_SEED_MODE {none, load_seed, save_seed}",
    "isa-facts-pe-act-dma §1.10.3, decision 16",
    Observed
);

/// The body (bytes 12..64) as a location.
const BODY: Loc = Loc::field(FieldMeta {
    name: "body",
    offset: 12,
    size: 52,
});

/// An instruction whose validator is not public: a lint, the header having been checked.
#[inline(always)]
pub(super) fn check_unpublished<const M: u8>(cx: &mut Ctx<M>) -> Flow {
    cx.check(&PE_BODY_NOT_CHECKED, false, || {
        detail(
            BODY,
            "not checked",
            "a body the public validator would accept",
        )
    })?;
    Ok(())
}

/// PE_MANAGE_SEED 0x08 (§1.10.3).
#[inline(always)]
pub(super) fn check_pe_manage_seed<const M: u8>(
    cx: &mut Ctx<M>,
    s: &View<'_, S2s1d2PeSeed>,
) -> Flow {
    let gen = cx.gen;
    cx.check(&PE_SEED_NC_V4, gen == Gen::Mariana, || {
        detail(BODY, gen, "mariana")
    })?;
    let mode = s.mode();
    cx.check(&PE_SEED_MODE, mode.is_valid(gen), || {
        detail(
            at!(S2s1d2PeSeed.mode),
            mode.described_on(gen),
            enum_names::<PeSeedMode>(gen),
        )
    })?;
    let (rows, cols) = (s.num_active_rows(), s.num_active_cols());
    cx.check(&PE_SEED_SHAPE, (rows, cols) == (16, 128), || {
        detail2(
            at!(S2s1d2PeSeed.num_active_rows),
            at!(S2s1d2PeSeed.num_active_cols),
            format!("{rows} rows, {cols} columns"),
            "16 rows, 128 columns",
        )
    })?;
    Ok(())
}
