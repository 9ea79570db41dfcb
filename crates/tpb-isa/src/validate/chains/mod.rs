//! One validator chain per family, clause by clause in header order; one file per struct.
//! The dispatch is the family visitor the family list generates
//! ([`FamilyVisitor`], implemented by [`Chains`] here), so a new family does not build until
//! it has a chain.

// Issue 18a: PE, ACT and DVE Exponential.
mod act;
mod affine_select;
pub(crate) mod dma;
// Issue 17a (isa-facts-dve-pool).
mod cp_pred_scalar;
mod d4_mr;
mod s3s3d3_tt;
mod s4d4_tr;
pub use d4_mr::{memset_value_fits, SERIAL_MODE_SERIAL};
pub use s4d4_tr::{is_tensor_reduce_int_op, reduced_slots};
mod event_semaphore;
mod imm_ld;
mod immediates;
mod iota;
pub(crate) mod pe;
mod pe_other;
mod ptr_multi;
mod range_select;
// Issue 17b chains.
mod cache_reduce;
mod cross_lane;
mod ctrl_im;
mod search;
mod stt;
mod tensor_scalar;
mod ts_select;

use super::common::*;
use super::{Confidence, Ctx, Flow};
use crate::opcode::{sem, Exec, OpcodeInfo, Preamble, StructKind};
use crate::tables::{AluOp, Dtype};
use crate::wire::{
    visit_view, D4Iota, Data4d, DmaCopy2d, DmaDirect2d, DmaDirect2dXpose, DmaGatherXpose,
    DmaImmediate, DmaIndirect1d, EventSemaphore, FamilyVisitor, Header, InstView, Mem2d,
    PseudoDmaDirect2d, PseudoDmaExt, S2Bn, S2d2Ac, S2d2Rs, S2d2TsAs, S3Lw, S3d3Ac, S3d3Aq, S3d3Mm,
    S3d3Ts, S3d3TsSelect, S4d4Tsm, View, Viewed,
};
use crate::wire::{
    CtrlIm, D1Rd, D4Mr, S2s2d2Stt, S3d3CpPredScalar, S3s3d3Tt, S4d2Bn, S4d4Cr, S4d4Mr, S4d4Tr,
};
use crate::wire::{PeRegWrite, S2Convlut, S2s1d2PeSeed, S3Lt, S4d3Mm, Smx1Lw, Smx1d3Mm};
use Confidence::{Assumed, Observed};

rule!(
    OPCODE_STRUCT,
    "has_<struct>_opcode",
    "the opcode binds the struct the body holds",
    "instruction_mapping.json struct2opcode",
    Observed
);

rule!(
    EXEC_DISABLED,
    "disabled_form",
    "the header disables this form; `tpb run` refuses it",
    "isa-facts §8 (opcode table, exec column)",
    Observed,
    lint
);
rule!(
    EXEC_NOT_SIMULATED,
    "not_simulated",
    "`tpb run` does not model the state this opcode uses and refuses it",
    "opcode table, exec column",
    Assumed,
    lint
);

/// Runs the chain of the view's opcode. `body_kind` is the struct the caller's body holds
/// (a view's is always the opcode's; an owned instruction may hold another). Inlined so the
/// verdict loop holds the whole chain, as the pre-issue-16 hand-written verdict did.
#[inline(always)]
pub(crate) fn check<const M: u8>(
    cx: &mut Ctx<M>,
    v: &InstView<'_>,
    body_kind: Option<StructKind>,
) -> Flow {
    let info = v.info();
    // DMA_COPY2D / DMA_IMMEDIATE have their own wait band at bytes 4..12, and the 0xDA
    // record's bytes 1..12 are its own fields, `flags` @1 first (isa-facts-pe-act-dma §3.6,
    // §3.10): the preamble's checks read a zero EVENTS there, and no word length at byte 1.
    static NO_EVENTS: [u8; 64] = [0; 64];
    let no_events = || crate::wire::Events::view(&NO_EVENTS);
    match info.map(|r| r.kind.preamble()) {
        Some(Preamble::OwnWaitBand) => header_and_events(cx, v.header(), no_events(), true, true)?,
        Some(Preamble::OwnFields) => header_and_events(cx, v.header(), no_events(), true, false)?,
        Some(Preamble::Common) | None => {
            header_and_events(cx, v.header(), v.events(), info.is_some(), true)?
        }
    }
    let Some(info) = info else { return Ok(()) };
    if !cx.check(&OPCODE_STRUCT, body_kind == Some(info.kind), || {
        detail(
            Loc::field(crate::wire::FieldMeta {
                name: "body",
                offset: 12,
                size: 52,
            }),
            format!("{:?}", body_kind.map(StructKind::header_name)),
            info.kind.header_name(),
        )
    })? {
        return Ok(());
    }
    // `validate` and `tpb run` agree: an opcode the table marks disabled or not simulated
    // is reported (as a lint: the bundle is well formed) with the reason `run` gives.
    let refusal = match info.exec {
        Exec::Disabled(why) => Some((&EXEC_DISABLED, why)),
        Exec::NotSupported(why) => Some((&EXEC_NOT_SIMULATED, why)),
        _ => None,
    };
    if let Some((rule, why)) = refusal {
        cx.check(rule, false, || {
            detail(
                at!(Header.opcode).under("header."),
                format!("{:#04x} ({})", info.value, info.display),
                why,
            )
        })?;
    }
    // The family's chain (the visitor the family list generates: a family without a chain
    // does not build). A view's body is always its opcode's struct.
    visit_view(&mut Chains { cx, inst: v }, v).unwrap_or(Ok(()))
}

/// The validator as a [`FamilyVisitor`]: one chain per family, over views. Each family's
/// handler (`family/<method>.rs`) matches its behaviour variant without a catch-all (a
/// one-behaviour family by an irrefutable pattern), so a new variant does not build until its
/// clauses are decided; no chain reads the opcode byte, so an alias row validates exactly as
/// its twin.
struct Chains<'c, 'a, const M: u8> {
    cx: &'c mut Ctx<M>,
    inst: &'c InstView<'a>,
}

/// The visitor impl and the module of each family's handler (`family/<method>.rs`, named
/// by the family list), generated: a new family does not build until its file exists and
/// defines `check` over its struct's view and behaviour variant.
macro_rules! chains_by_family {
    ($( $F:ident, $method:ident, $S:ident, $doc:literal; )*) => {
        /// One file per family: its handler, binding the behaviour variant.
        mod family {
            #[allow(unused_imports)]
            use super::*;
            #[allow(unused_imports)]
            use crate::validate::chains as chain;
            $( pub(super) mod $method; )*
        }

        impl<'a, const M: u8> FamilyVisitor<'a, Viewed> for Chains<'_, 'a, M> {
            type Output = Flow;
            $(
                #[inline]
                fn $method(
                    &mut self,
                    row: Row,
                    v: sem::$F,
                    s: View<'a, crate::wire::$S>,
                ) -> Flow {
                    family::$method::check(self.cx, self.inst, row, v, s)
                }
            )*
        }
    };
}
crate::for_each_family!(chains_by_family);

type Row = &'static OpcodeInfo;

fn four_byte(d: Dtype) -> bool {
    d.size() == Some(4)
}
fn names(pred: impl Fn(AluOp) -> bool) -> String {
    AluOp::TABLE
        .iter()
        .map(|r| AluOp(r.value))
        .filter(|o| pred(*o))
        .map(|o| o.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}
fn data_count_text(d: &Data4d) -> String {
    let dims: Vec<String> = d.num_elem.iter().map(|n| n.to_string()).collect();
    format!("{} ({})", d.element_count(), dims.join("×"))
}
