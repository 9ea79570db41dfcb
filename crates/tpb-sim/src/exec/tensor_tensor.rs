//! TensorTensor (0x41 Arith / 0x51 Bitvec) and sunda's bf16 trio (0x8a/0x8b/0x8f)
//! (isa-facts-dve-pool §1.5, §1.7; docs/reference/isa.md "S3S3D3_TT").
//!
//! ```text
//! for c in 0..num_active_channels:
//!   for k in 0..count:                       # each operand walks its own pattern
//!     dst[c][k] = op(src0[c][k], src1[c][k])  # operand order as written
//! ```
//! Arith: both inputs → FP32, the op in FP32, → out_dtype (decisions §4.1); an int-aluop
//! runs on the 32-bit integer path (assumption `tt-int-operands`); Bitvec: raw bits.

use super::elements::{commit, read_all};
use super::{num_fault, Cx, Role};
use crate::assumptions::{tt_int_operand, tt_int_result, unsupported_64bit};
use crate::machine::FaultCause;
use crate::numerics::{alu_arith, alu_bitvec, alu_int_as, from_f32, to_f32};
use tpb_isa::opcode::Family;
use tpb_isa::wire::S3s3d3Tt;
use tpb_isa::{AluOp, Dtype};

/// The element function of one TensorTensor-family instruction.
#[derive(Clone, Copy)]
pub(crate) enum TtPath {
    /// FP32 hub.
    Arith,
    /// 32-bit integer band; `signed` from the dtypes.
    Int { signed: bool },
    /// Raw bits of this width.
    Bitvec { bits: u32 },
}

/// Chooses the path (§1.5) for `op` on the given dtypes.
pub(crate) fn tt_path(bitvec: bool, op: AluOp, lo: Dtype, out: Dtype) -> TtPath {
    if bitvec {
        TtPath::Bitvec {
            bits: 8 * out.size().unwrap_or(4) as u32,
        }
    } else if op.is_valid_int_aluop() {
        TtPath::Int {
            signed: matches!(lo, Dtype::INT8 | Dtype::INT16 | Dtype::INT32),
        }
    } else {
        TtPath::Arith
    }
}

/// One element: `op(a, b)` from raw input bits to raw output bits.
pub(crate) fn tt_element(
    path: TtPath,
    op: AluOp,
    (lo, a): (Dtype, u64),
    (hi, b): (Dtype, u64),
    out: Dtype,
    fp8: &crate::numerics::Fp8Config,
) -> Result<u64, crate::numerics::NumError> {
    Ok(match path {
        TtPath::Arith => {
            let r = alu_arith(op, to_f32(lo, a as u32, fp8), to_f32(hi, b as u32, fp8))?;
            u64::from(from_f32(out, r, fp8))
        }
        TtPath::Int { signed } => {
            let r = alu_int_as(op, tt_int_operand(lo, a), tt_int_operand(hi, b), signed)?;
            tt_int_result(out, r)
        }
        TtPath::Bitvec { bits } => u64::from(alu_bitvec(op, a as u32, b as u32, bits)?),
    })
}

pub(super) fn execute(cx: &mut Cx<'_>, s: &S3s3d3Tt) -> Result<(), FaultCause> {
    let n = u32::from(s.num_active_channels);
    let (lo, hi) = (s.in0_in1_dtype.lo(), s.in0_in1_dtype.hi());
    for d in [lo, hi, s.out_dtype] {
        if d == Dtype::INT64 || d == Dtype::UINT64 {
            return Err(unsupported_64bit(cx.info.display));
        }
    }
    let s0 = cx.tensor(&s.src0_mem_pattern, "src0_mem_pattern", lo, Role::READ, n)?;
    let s1 = cx.tensor(&s.src1_mem_pattern, "src1_mem_pattern", hi, Role::READ, n)?;
    let d = cx.tensor(
        &s.dst_mem_pattern,
        "dst_mem_pattern",
        s.out_dtype,
        Role::WRITE,
        n,
    )?;
    let count = s0.count();
    for a in [&s1, &d] {
        if a.count() != count {
            return Err(FaultCause::OutOfRange {
                operand: a.name,
                detail: format!("{} elements for src0's {count}", a.count()),
            });
        }
    }
    cx.limit(count, n)?;
    let bf16 = cx.info.family == Family::TensorTensorBf16;
    let path = if bf16 {
        TtPath::Arith
    } else {
        tt_path(cx.info.is_bitvec(), s.op, lo, s.out_dtype)
    };
    let (a, b) = (read_all(&cx.st.mem, &s0, n), read_all(&cx.st.mem, &s1, n));
    let fp8 = cx.cfg.fp8;
    let vals = a
        .iter()
        .zip(&b)
        .map(|(&x, &y)| tt_element(path, s.op, (lo, x), (hi, y), s.out_dtype, &fp8))
        .collect::<Result<Vec<u64>, _>>()
        .map_err(num_fault)?;
    cx.check_reads(&s0, n, |_| true);
    cx.check_reads(&s1, n, |_| true);
    cx.gate()?;
    commit(cx, &d, n, &vals, |_, _| false);
    Ok(())
}
