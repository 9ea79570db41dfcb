//! The published per-instruction cost formulas (docs/engines.md "Published figures"): what
//! they read of an instruction ([`Priced`]), the cases the docs distinguish (dtype,
//! location, contiguity), and N as the NKI documentation defines it — the elements per
//! partition of the instruction's **input** (of its output only where the docs say so: iota,
//! memset). Which formula prices a family is stated beside its executor
//! (`exec/family/<method>.rs`, `COST`) and read through [`Formula::of`]; the formulas and
//! their sources are [`Formula`] (`crate::formula`).
//!
//! Sources (aws-neuron/aws-neuron-sdk): [ISA-2.26] the "Estimated instruction cost" sections
//! of `general/nki/api/nki/isa/__init__.py` at Neuron 2.26.0; [ARCH1]/[ARCH2]/[ARCH3] the
//! three architecture guides and [PERF] `nki_perf_guide.rst` (commit 81ce03ae). The
//! constants live in [`crate::assumptions::TIMING_CONSTANTS`]; the formulas are evaluated by
//! [`super::Costs::instruction_cycles`].

use super::queue::EngineId;
use crate::machine::{CostShape, MemAccess, OperandShape};
use tpb_isa::geometry::Space;
use tpb_isa::opcode::{sem, OpcodeInfo, Sem};

pub use crate::formula::Formula;
use tpb_isa::{AluOp, Body, Dtype, Gen};

/// What one executed instruction looks like to the cost formulas.
#[derive(Clone, Copy, Debug)]
pub struct Priced<'a> {
    /// Its engine.
    pub engine: EngineId,
    /// Its opcode row (`None`: no row on the generation; priced as [`Formula::Assumed`]).
    pub info: Option<&'static OpcodeInfo>,
    /// Its operands.
    pub body: &'a Body,
    /// What its handler reported for the PE.
    pub shape: CostShape,
    /// Its memory operands (with [`OperandShape`]s for tensor operands).
    pub accesses: &'a [MemAccess],
    /// Elements per partition the handler reported, when no operand gives N.
    pub fallback_n: u64,
}

fn shapes(accesses: &[MemAccess], write: bool) -> impl Iterator<Item = (&MemAccess, OperandShape)> {
    accesses
        .iter()
        .filter(move |a| a.write == write)
        .filter_map(|a| a.shape.map(|s| (a, s)))
}

const fn two_byte_float(d: Dtype) -> bool {
    matches!(d, Dtype::BFLOAT16 | Dtype::FP16)
}

/// The docs' N of `p` under `formula`: the largest elements per partition among the input
/// tensors (the output for iota and memset; the handler's count when no operand has a
/// shape).
pub(crate) fn doc_n(p: &Priced<'_>, formula: Formula) -> u64 {
    let largest = |write| shapes(p.accesses, write).map(|(_, s)| s.elements).max();
    let n = if formula.n_from_output() {
        largest(true)
    } else {
        largest(false).or_else(|| largest(true))
    };
    n.unwrap_or(p.fallback_n)
}

/// The most-minor stride of some SBUF/PSUM operand exceeds 16 bytes: that read/write
/// interface runs at half bandwidth ([ARCH1] L758–763, "Access pattern").
pub(crate) fn strided(p: &Priced<'_>, limit: u64) -> bool {
    p.accesses
        .iter()
        .filter_map(|a| a.shape)
        .any(|s| s.elements > 1 && s.stride_bytes > limit)
}

/// The trn2 vector-engine performance mode ([ARCH2] "Vector Engine Performance Mode", from
/// NeuronCore-v3 on) for tensor_copy / tensor_scalar: 4× with every tensor operand bf16/fp16,
/// in SBUF and contiguous; 2× with bf16/fp16 in SBUF but not contiguous, or contiguous with
/// one operand in PSUM; else 1×.
pub(crate) fn perf_mode_speedup(p: &Priced<'_>, gen: Gen) -> u64 {
    if matches!(gen, Gen::Sunda) || p.engine != EngineId::Dve {
        return 1;
    }
    let ops: Vec<(Space, OperandShape)> = p
        .accesses
        .iter()
        .filter_map(|a| a.shape.map(|s| (a.region.space, s)))
        .collect();
    if ops.is_empty() || !ops.iter().all(|(_, s)| two_byte_float(s.dtype)) {
        return 1;
    }
    let all_sbuf = ops.iter().all(|(sp, _)| *sp == Space::Sbuf);
    let contiguous = ops.iter().all(|(_, s)| s.contiguous());
    let psum_count = ops.iter().filter(|(sp, _)| *sp == Space::Psum).count();
    match (all_sbuf, contiguous) {
        (true, true) => 4,
        (true, false) => 2,
        (false, true) if psum_count == 1 => 2,
        _ => 1,
    }
}

/// tensor_tensor's N-cost condition ([ISA-2.26] table; [ARCH2] 2× lift from trn2 on).
pub(crate) fn tensor_tensor_single_pass(p: &Priced<'_>, gen: Gen) -> bool {
    let ins: Vec<(Space, OperandShape)> = shapes(p.accesses, false)
        .map(|(a, s)| (a.region.space, s))
        .collect();
    let outs: Vec<OperandShape> = shapes(p.accesses, true).map(|(_, s)| s).collect();
    let spaces = |sp: Space| ins.iter().filter(|(x, _)| *x == sp).count();
    if spaces(Space::Psum) == 1 && spaces(Space::Sbuf) == 1 {
        return true;
    }
    let all_sbuf = !ins.is_empty() && ins.iter().all(|(x, _)| *x == Space::Sbuf);
    let dtypes = || {
        ins.iter()
            .map(|(_, s)| s.dtype)
            .chain(outs.iter().map(|s| s.dtype))
    };
    let op = match p.body {
        Body::S3s3d3Tt(t) => Some(t.op),
        _ => None,
    };
    let bf16_op = match p.info.map(|i| i.sem) {
        Some(Sem::TensorTensorBf16(_)) => true,
        _ => op.is_some_and(|o| matches!(o, AluOp::ADD | AluOp::MULT | AluOp::SUBTRACT)),
    };
    let isa = all_sbuf
        && dtypes().all(|d| d == Dtype::BFLOAT16)
        && bf16_op
        && ins.iter().all(|(_, s)| s.contiguous());
    let lift = !matches!(gen, Gen::Sunda) && all_sbuf && dtypes().all(two_byte_float);
    isa || lift
}

/// scalar_tensor_tensor's N-cost condition [ISA-2.26].
pub(crate) fn stt_single_pass(p: &Priced<'_>, n: u64) -> bool {
    let Body::S2s2d2Stt(s) = p.body else {
        return false;
    };
    let (d0, d1) = (s.in0_in1_dtype.lo(), s.in0_in1_dtype.hi());
    d0 == Dtype::BFLOAT16
        && d1 == Dtype::BFLOAT16
        && s.op0 == AluOp::SUBTRACT
        && s.op1 == AluOp::MULT
        && n.is_multiple_of(2)
}

/// tensor_copy_predicated's N-cost condition: its two inputs sit one in SBUF, one in PSUM
/// [ISA-2.26].
pub(crate) fn predicated_single_pass(p: &Priced<'_>) -> bool {
    let mut spaces = shapes(p.accesses, false).map(|(a, _)| a.region.space);
    let first = spaces.next();
    spaces.any(|s| Some(s) != first)
}

/// memset's N/2 condition: zero into bf16/fp16 [ISA-2.26].
pub(crate) fn memset_half(p: &Priced<'_>) -> bool {
    match p.body {
        Body::D4Mr(m) => two_byte_float(m.dtype) && m.set_value == 0,
        _ => false,
    }
}

/// tensor_reduce's N/2 condition: bf16 in and out, add or max [ISA-2.26].
pub(crate) fn reduce_half(p: &Priced<'_>) -> bool {
    match (p.info.map(|i| i.sem), p.body) {
        (Some(Sem::TensorReduce(sem::TensorReduce::AddBf16 | sem::TensorReduce::MaxBf16)), _) => {
            true
        }
        (_, Body::S4d4Tr(t)) => {
            t.in_dtype == Dtype::BFLOAT16
                && t.out_dtype == Dtype::BFLOAT16
                && matches!(t.op, AluOp::ADD | AluOp::MAX)
        }
        _ => false,
    }
}
