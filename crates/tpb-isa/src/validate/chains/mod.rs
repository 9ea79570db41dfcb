//! One validator chain per operand struct, clause by clause in header order; one file per
//! struct. The dispatch matches the opcode table's [`Family`] without a catch-all, so a new
//! family does not build until it has a chain.

mod affine_select;
pub(crate) mod dma;
mod event_semaphore;
mod imm_ld;
mod immediates;
mod iota;
mod ptr_multi;
mod range_select;
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
    // DMA_COPY2D / DMA_IMMEDIATE have their own wait band at bytes 4..12, and the 0xDA
    // record's bytes 1..12 are its own fields (isa-facts-pe-act-dma §3.6, §3.10): no
    // preamble checks there.
    if info.is_some_and(|r| !r.kind.has_preamble()) {
        header_and_events(cx, &inst.header, &crate::wire::Events::default(), true);
    } else {
        header_and_events(cx, &inst.header, &inst.events, info.is_some());
    }
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
        Family::DmaMemcpy => {
            if let Body::DmaDirect2d(s) = b {
                dma::check_memcpy(cx, s)
            }
        }
        Family::PseudoDma => {
            if let Body::PseudoDmaDirect2d(s) = b {
                dma::check_pseudo(cx, s)
            }
        }
        Family::PseudoExt => {
            if let Body::PseudoDmaExt(s) = b {
                dma::check_pseudo_ext(cx, s)
            }
        }
        Family::DmaIndirect => {
            if let Body::DmaIndirect1d(s) = b {
                dma::check_indirect(cx, s)
            }
        }
        Family::DmaTranspose => {
            if let Body::DmaDirect2dXpose(s) = b {
                dma::check_transpose(cx, s)
            }
        }
        Family::DmaGatherTranspose => {
            if let Body::DmaGatherXpose(s) = b {
                dma::check_gather_transpose(cx, s)
            }
        }
        Family::DmaMemcpy2 => {
            if let Body::DmaCopy2d(s) = b {
                dma::check_copy2d(cx, s)
            }
        }
        Family::DmaImmediate => {
            if let Body::DmaImmediate(s) = b {
                dma::check_immediate(cx, s)
            }
        }
        Family::Mem2d => {
            if let Body::Mem2d(s) = b {
                dma::check_mem2d(cx, info, s)
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
