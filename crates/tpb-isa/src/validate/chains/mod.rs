//! One validator chain per operand struct, clause by clause in header order; one file per
//! struct. The dispatch matches the opcode table's [`Family`] without a catch-all, so a new
//! family does not build until it has a chain.

mod affine_select;
mod event_semaphore;
mod imm_ld;
mod immediates;
mod iota;
mod ptr_multi;
mod range_select;
mod tensor_scalar;
mod ts_select;

use super::common::*;
use super::{Confidence, Ctx, Flow};
use crate::opcode::{Exec, Family, StructKind};
use crate::tables::{AluOp, Dtype};
use crate::wire::{BodyView, Data4d, Header, InstView};
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
/// (a view's is always the opcode's; an owned instruction may hold another).
pub(crate) fn check<const M: u8>(
    cx: &mut Ctx<M>,
    v: &InstView<'_>,
    body_kind: Option<StructKind>,
) -> Flow {
    let info = v.info();
    header_and_events(cx, v.header(), v.events(), info.is_some())?;
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
    // Exhaustive over the table's families.
    match (info.family, v.body()) {
        (Family::PtrMulti, BodyView::S4d4Tsm(s)) => ptr_multi::check(cx, info, &s),
        (Family::ImmLd, BodyView::S2Bn(s)) => imm_ld::check(cx, info, &s),
        (Family::AffineSelect, BodyView::S2d2TsAs(s)) => affine_select::check(cx, &s),
        (Family::Iota, BodyView::D4Iota(s)) => iota::check(cx, &s),
        (Family::TensorScalar, BodyView::S3d3Ts(s)) => tensor_scalar::check(cx, info, &s),
        (Family::TsSelect, BodyView::S3d3TsSelect(s)) => ts_select::check(cx, &s),
        (Family::RangeSelect, BodyView::S2d2Rs(s)) => range_select::check(cx, &s),
        (Family::EventSemaphore, BodyView::EventSemaphore(s)) => event_semaphore::check(cx, v, &s),
        (Family::BatchNormParamLoad, BodyView::S2Bn(s)) => {
            imm_ld::check_batch_norm_param_load(cx, &s)
        }
        (Family::MatchValueLoad, BodyView::S2Bn(s)) => imm_ld::check_match_value_load(cx, &s),
        _ => Ok(()),
    }
}

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
