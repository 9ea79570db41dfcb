//! One validator chain per operand struct, clause by clause in header order; one file per
//! struct. The dispatch matches the opcode table's [`Family`] without a catch-all, so a new
//! family does not build until it has a chain.

mod affine_select;
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
use super::{Confidence, Ctx};
use crate::opcode::{Exec, Family, StructKind};
use crate::tables::{AluOp, Dtype};
use crate::wire::{Body, Data4d, Header, Instruction};
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

pub(crate) fn check<const M: u8>(cx: &mut Ctx<M>, inst: &Instruction) {
    let gen = cx.gen;
    let info = inst.header.opcode.info(gen);
    header_and_events(cx, &inst.header, &inst.events, info.is_some());
    let Some(info) = info else { return };
    if !cx.check(&OPCODE_STRUCT, inst.body.kind() == Some(info.kind), || {
        detail(
            Loc::field(crate::wire::FieldMeta {
                name: "body",
                offset: 12,
                size: 52,
            }),
            format!("{:?}", inst.body.kind().map(StructKind::header_name)),
            info.kind.header_name(),
        )
    }) {
        return;
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
        });
    }
    let b = &inst.body;
    // Exhaustive over the table's families: the body matches (checked just above).
    match info.family {
        Family::PtrMulti => {
            if let Body::S4d4Tsm(s) = b {
                ptr_multi::check(cx, info, s)
            }
        }
        Family::ImmLd => {
            if let Body::S2Bn(s) = b {
                imm_ld::check(cx, info, s)
            }
        }
        Family::AffineSelect => {
            if let Body::S2d2TsAs(s) = b {
                affine_select::check(cx, s)
            }
        }
        Family::Iota => {
            if let Body::D4Iota(s) = b {
                iota::check(cx, s)
            }
        }
        Family::TensorScalar => {
            if let Body::S3d3Ts(s) = b {
                tensor_scalar::check(cx, info, s)
            }
        }
        Family::TsSelect => {
            if let Body::S3d3TsSelect(s) = b {
                ts_select::check(cx, s)
            }
        }
        Family::RangeSelect => {
            if let Body::S2d2Rs(s) = b {
                range_select::check(cx, s)
            }
        }
        Family::EventSemaphore => {
            if let Body::EventSemaphore(s) = b {
                event_semaphore::check(cx, inst, s)
            }
        }
        Family::BatchNormParamLoad => {
            if let Body::S2Bn(s) = b {
                imm_ld::check_batch_norm_param_load(cx, s)
            }
        }
        Family::MatchValueLoad => {
            if let Body::S2Bn(s) = b {
                imm_ld::check_match_value_load(cx, s)
            }
        }
        // Issue 17b families.
        Family::ScalarTensorTensor | Family::TensorTensorScan | Family::SelectReduce => {
            if let Body::S2s2d2Stt(s) = b {
                stt::check(cx, info, s)
            }
        }
        Family::CacheReduce => {
            if let Body::S3d3Ts(s) = b {
                cache_reduce::check(cx, s)
            }
        }
        Family::DveReadAccumulator => {
            if let Body::D1Rd(s) = b {
                cache_reduce::check_read_accumulator(cx, s)
            }
        }
        Family::LoadMaskSelect => {
            if let Body::CtrlIm(s) = b {
                ctrl_im::check(cx, s)
            }
        }
        Family::CrossLaneReduce => {
            if let Body::S4d4Cr(s) = b {
                cross_lane::check(cx, info, s)
            }
        }
        Family::Search => match b {
            Body::S4d2Bn(s) => search::check_bn(cx, info, s),
            Body::S4d4Mr(s) => search::check_mr(cx, s),
            _ => {}
        },
        // Issue 17a (isa-facts-dve-pool).
        Family::TensorTensor | Family::TensorTensorBf16 | Family::CopyCastPredicated => {
            if let Body::S3s3d3Tt(s) = b {
                s3s3d3_tt::check(cx, info, s)
            }
        }
        Family::CopyPredicatedScalar => {
            if let Body::S3d3CpPredScalar(s) = b {
                cp_pred_scalar::check(cx, s)
            }
        }
        Family::CopyCast
        | Family::Reciprocal
        | Family::TensorReduce
        | Family::StreamShuffle
        | Family::StreamTranspose => {
            if let Body::S4d4Tr(s) = b {
                s4d4_tr::check(cx, info, s)
            }
        }
        Family::Memset | Family::DveReadIndices => {
            if let Body::D4Mr(s) = b {
                d4_mr::check(cx, info, s)
            }
        }
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
