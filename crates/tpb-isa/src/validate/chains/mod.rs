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

/// The validator as a [`FamilyVisitor`]: one chain per family, over views. Each handler
/// matches its family's behaviour variant without a catch-all (a one-behaviour family by an
/// irrefutable pattern), so a new variant does not build here until its clauses are decided;
/// no chain reads the opcode byte, so an alias row validates exactly as its twin.
struct Chains<'c, 'a, const M: u8> {
    cx: &'c mut Ctx<M>,
    inst: &'c InstView<'a>,
}

impl<'a, const M: u8> FamilyVisitor<'a, Viewed> for Chains<'_, 'a, M> {
    type Output = Flow;

    fn tensor_scalar(&mut self, _: Row, v: sem::TensorScalar, s: View<'a, S3d3Ts>) -> Flow {
        tensor_scalar::check(self.cx, v, &s)
    }
    fn ptr_multi(&mut self, _: Row, v: sem::PtrMulti, s: View<'a, S4d4Tsm>) -> Flow {
        ptr_multi::check(self.cx, v, &s)
    }
    fn imm_ld(&mut self, _: Row, v: sem::ImmLd, s: View<'a, S2Bn>) -> Flow {
        imm_ld::check(self.cx, v, &s)
    }
    fn batch_norm_param_load(
        &mut self,
        _: Row,
        sem::BatchNormParamLoad::BatchNormParamLoad: sem::BatchNormParamLoad,
        s: View<'a, S2Bn>,
    ) -> Flow {
        imm_ld::check_batch_norm_param_load(self.cx, &s)
    }
    fn match_value_load(
        &mut self,
        _: Row,
        sem::MatchValueLoad::MatchValueLoad: sem::MatchValueLoad,
        s: View<'a, S2Bn>,
    ) -> Flow {
        imm_ld::check_match_value_load(self.cx, &s)
    }
    fn iota(&mut self, _: Row, sem::Iota::Iota: sem::Iota, s: View<'a, D4Iota>) -> Flow {
        iota::check(self.cx, &s)
    }
    fn affine_select(
        &mut self,
        _: Row,
        sem::AffineSelect::AffineSelect: sem::AffineSelect,
        s: View<'a, S2d2TsAs>,
    ) -> Flow {
        affine_select::check(self.cx, &s)
    }
    fn ts_select(
        &mut self,
        _: Row,
        sem::TsSelect::TsSelect: sem::TsSelect,
        s: View<'a, S3d3TsSelect>,
    ) -> Flow {
        ts_select::check(self.cx, &s)
    }
    fn range_select(
        &mut self,
        _: Row,
        sem::RangeSelect::RangeSelect: sem::RangeSelect,
        s: View<'a, S2d2Rs>,
    ) -> Flow {
        range_select::check(self.cx, &s)
    }
    fn event_semaphore(
        &mut self,
        _: Row,
        sem::EventSemaphore::EventSemaphore: sem::EventSemaphore,
        s: View<'a, EventSemaphore>,
    ) -> Flow {
        event_semaphore::check(self.cx, self.inst, &s)
    }
    // Issue 18a.
    fn load_weights(
        &mut self,
        _: Row,
        sem::LoadWeights::LoadWeights: sem::LoadWeights,
        s: View<'a, S3Lw>,
    ) -> Flow {
        pe::check_load_weights(self.cx, &s)
    }
    fn matmul(&mut self, _: Row, sem::Matmul::Matmul: sem::Matmul, s: View<'a, S3d3Mm>) -> Flow {
        pe::check_matmul(self.cx, &s)
    }
    fn activate(
        &mut self,
        _: Row,
        sem::Activate::Activate: sem::Activate,
        s: View<'a, S3d3Ac>,
    ) -> Flow {
        act::check_activate(self.cx, &s)
    }
    fn activate_quantize(
        &mut self,
        _: Row,
        sem::ActivateQuantize::ActivateQuantize: sem::ActivateQuantize,
        s: View<'a, S3d3Aq>,
    ) -> Flow {
        act::check_activate_quantize(self.cx, &s)
    }
    fn act_read_accumulator(
        &mut self,
        _: Row,
        sem::ActReadAccumulator::ActReadAccumulator: sem::ActReadAccumulator,
        s: View<'a, D1Rd>,
    ) -> Flow {
        act::check_act_read_accumulator(self.cx, &s)
    }
    fn activate2(
        &mut self,
        _: Row,
        sem::Activate2::Activate2: sem::Activate2,
        s: View<'a, S2d2Ac>,
    ) -> Flow {
        act::check_activate2(self.cx, &s)
    }
    fn exponential(
        &mut self,
        _: Row,
        sem::Exponential::Exponential: sem::Exponential,
        s: View<'a, S3d3Ts>,
    ) -> Flow {
        act::check_exponential(self.cx, &s)
    }
    // Issues 17a and 17b: the chains read the owned struct (one load of the 52 body bytes).
    // The DMA / MEM_2D chains read owned structs (a copy of the view's 52 bytes).
    fn dma_memcpy(
        &mut self,
        _: Row,
        sem::DmaMemcpy::Direct2d: sem::DmaMemcpy,
        s: View<'a, DmaDirect2d>,
    ) -> Flow {
        dma::check_memcpy(self.cx, &s.owned())
    }
    fn pseudo_dma(
        &mut self,
        _: Row,
        sem::PseudoDma::Lowered: sem::PseudoDma,
        s: View<'a, PseudoDmaDirect2d>,
    ) -> Flow {
        dma::check_pseudo(self.cx, &s.owned())
    }
    fn pseudo_ext(
        &mut self,
        _: Row,
        sem::PseudoExt::Extension: sem::PseudoExt,
        s: View<'a, PseudoDmaExt>,
    ) -> Flow {
        dma::check_pseudo_ext(self.cx, &s.owned())
    }
    fn dma_indirect(
        &mut self,
        _: Row,
        sem::DmaIndirect::Indirect1d: sem::DmaIndirect,
        s: View<'a, DmaIndirect1d>,
    ) -> Flow {
        dma::check_indirect(self.cx, &s.owned())
    }
    fn dma_transpose(
        &mut self,
        _: Row,
        sem::DmaTranspose::Transpose: sem::DmaTranspose,
        s: View<'a, DmaDirect2dXpose>,
    ) -> Flow {
        dma::check_transpose(self.cx, &s.owned())
    }
    fn dma_gather_transpose(
        &mut self,
        _: Row,
        sem::DmaGatherTranspose::GatherTranspose: sem::DmaGatherTranspose,
        s: View<'a, DmaGatherXpose>,
    ) -> Flow {
        dma::check_gather_transpose(self.cx, &s.owned())
    }
    fn dma_memcpy2(
        &mut self,
        _: Row,
        sem::DmaMemcpy2::Copy2d: sem::DmaMemcpy2,
        s: View<'a, DmaCopy2d>,
    ) -> Flow {
        dma::check_copy2d(self.cx, &s.owned())
    }
    fn dma_immediate(
        &mut self,
        _: Row,
        sem::DmaImmediate::Descriptors: sem::DmaImmediate,
        s: View<'a, DmaImmediate>,
    ) -> Flow {
        dma::check_immediate(self.cx, &s.owned())
    }
    fn mem2d(&mut self, _: Row, v: sem::Mem2d, s: View<'a, Mem2d>) -> Flow {
        dma::check_mem2d(self.cx, v, &s.owned())
    }
    // Issue 17a.
    fn tensor_tensor(&mut self, _: Row, v: sem::TensorTensor, s: View<'a, S3s3d3Tt>) -> Flow {
        s3s3d3_tt::check_tensor_tensor(self.cx, v, &s)
    }
    fn tensor_tensor_bf16(
        &mut self,
        _: Row,
        v: sem::TensorTensorBf16,
        s: View<'a, S3s3d3Tt>,
    ) -> Flow {
        s3s3d3_tt::check_bf16(self.cx, v, &s)
    }
    fn copy_cast_predicated(
        &mut self,
        _: Row,
        v: sem::CopyCastPredicated,
        s: View<'a, S3s3d3Tt>,
    ) -> Flow {
        s3s3d3_tt::check_predicated(self.cx, v, &s)
    }
    fn copy_predicated_scalar(
        &mut self,
        _: Row,
        sem::CopyPredicatedScalar::CopyPredicatedScalar: sem::CopyPredicatedScalar,
        s: View<'a, S3d3CpPredScalar>,
    ) -> Flow {
        cp_pred_scalar::check(self.cx, &s)
    }
    fn copy_cast(&mut self, _: Row, v: sem::CopyCast, s: View<'a, S4d4Tr>) -> Flow {
        s4d4_tr::check_copy_cast(self.cx, v, &s)
    }
    fn reciprocal(
        &mut self,
        _: Row,
        sem::Reciprocal::Reciprocal: sem::Reciprocal,
        s: View<'a, S4d4Tr>,
    ) -> Flow {
        s4d4_tr::check_reciprocal(self.cx, &s)
    }
    fn memset(&mut self, _: Row, sem::Memset::Memset: sem::Memset, s: View<'a, D4Mr>) -> Flow {
        d4_mr::check(self.cx, d4_mr::MrChain::Memset, &s)
    }
    fn dve_read_indices(
        &mut self,
        _: Row,
        sem::DveReadIndices::DveReadIndices: sem::DveReadIndices,
        s: View<'a, D4Mr>,
    ) -> Flow {
        d4_mr::check(self.cx, d4_mr::MrChain::ReadIndices, &s)
    }
    fn tensor_reduce(&mut self, _: Row, v: sem::TensorReduce, s: View<'a, S4d4Tr>) -> Flow {
        s4d4_tr::check_reduce(self.cx, v, &s)
    }
    fn stream_shuffle(
        &mut self,
        _: Row,
        sem::StreamShuffle::StreamShuffle: sem::StreamShuffle,
        s: View<'a, S4d4Tr>,
    ) -> Flow {
        s4d4_tr::check_stream_shuffle(self.cx, &s)
    }
    fn stream_transpose(
        &mut self,
        _: Row,
        sem::StreamTranspose::StreamTranspose: sem::StreamTranspose,
        s: View<'a, S4d4Tr>,
    ) -> Flow {
        s4d4_tr::check_stream_transpose(self.cx, &s)
    }
    fn scalar_tensor_tensor(
        &mut self,
        _: Row,
        v: sem::ScalarTensorTensor,
        s: View<'a, S2s2d2Stt>,
    ) -> Flow {
        let bitvec = match v {
            sem::ScalarTensorTensor::Arith => false,
            sem::ScalarTensorTensor::Bitvec => true,
        };
        stt::check(self.cx, stt::SttChain::Stt { bitvec }, &s)
    }
    fn tensor_tensor_scan(
        &mut self,
        _: Row,
        sem::TensorTensorScan::Arith: sem::TensorTensorScan,
        s: View<'a, S2s2d2Stt>,
    ) -> Flow {
        stt::check(self.cx, stt::SttChain::Scan, &s)
    }
    fn select_reduce(
        &mut self,
        _: Row,
        sem::SelectReduce::SelectReduce: sem::SelectReduce,
        s: View<'a, S2s2d2Stt>,
    ) -> Flow {
        stt::check(self.cx, stt::SttChain::Select, &s)
    }
    fn cache_reduce(&mut self, _: Row, v: sem::CacheReduce, s: View<'a, S3d3Ts>) -> Flow {
        // The two cache ops share every clause (isa-facts-dve-pool §12.3).
        match v {
            sem::CacheReduce::Reduce | sem::CacheReduce::Cumulative => {
                cache_reduce::check(self.cx, &s)
            }
        }
    }
    fn dve_read_accumulator(
        &mut self,
        _: Row,
        sem::DveReadAccumulator::DveReadAccumulator: sem::DveReadAccumulator,
        s: View<'a, D1Rd>,
    ) -> Flow {
        cache_reduce::check_read_accumulator(self.cx, &s)
    }
    fn search(&mut self, _: Row, v: sem::Search, s: View<'a, S4d2Bn>) -> Flow {
        search::check_bn(self.cx, v, &s)
    }
    fn match_replace8(
        &mut self,
        _: Row,
        sem::MatchReplace8::MatchReplace8: sem::MatchReplace8,
        s: View<'a, S4d4Mr>,
    ) -> Flow {
        search::check_mr(self.cx, &s)
    }
    fn cross_lane_reduce(&mut self, _: Row, v: sem::CrossLaneReduce, s: View<'a, S4d4Cr>) -> Flow {
        cross_lane::check(self.cx, v, &s)
    }
    fn load_mask_select(
        &mut self,
        _: Row,
        sem::LoadMaskSelect::LoadMaskSelect: sem::LoadMaskSelect,
        s: View<'a, CtrlIm>,
    ) -> Flow {
        ctrl_im::check(self.cx, &s)
    }
}

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
