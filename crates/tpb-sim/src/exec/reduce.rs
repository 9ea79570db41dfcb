//! TensorReduce (0x42 Arith / 0x52 Bitvec) and sunda's bf16 pair (0x8c/0x8d)
//! (isa-facts-dve-pool §7.4, §7.5; assumption `reduce-geometry`).
//!
//! ```text
//! R = product of src.num_elem[slots op_dim reduces]      # X = slot 0, XY = 0..1, …
//! for c in 0..num_active_channels:
//!   for j in 0..count / R:                              # the kept index, slot 0 fastest
//!     v = fold(op, src[c][j*R .. (j+1)*R])              # element order
//!     dst[c][j] = convert(negated ? -v : v)
//! ```

use super::elements::{commit, read_all};
use super::{num_fault, Cx, Role};
use crate::assumptions::{tt_int_operand, tt_int_result, unsupported_64bit};
use crate::machine::FaultCause;
use crate::numerics::{alu_arith, alu_bitvec, alu_int_as, from_f32, to_f32, Fp8Config, NumError};
use tpb_isa::validate::reduced_slots;
use tpb_isa::wire::S4d4Tr;
use tpb_isa::{AluOp, Dtype};

/// Folds one reduced group of raw elements into one raw output (`reduce-geometry`).
pub(crate) fn reduce_group(
    op: AluOp,
    bitvec: bool,
    negated: bool,
    (a, b): (Dtype, Dtype),
    xs: &[u64],
    fp8: &Fp8Config,
) -> Result<u64, NumError> {
    let signed = matches!(a, Dtype::INT8 | Dtype::INT16 | Dtype::INT32);
    if bitvec {
        let bits = 8 * a.size().unwrap_or(4) as u32;
        let mut acc = xs[0] as u32;
        for &x in &xs[1..] {
            acc = alu_bitvec(op, acc, x as u32, bits)?;
        }
        return Ok(u64::from(acc));
    }
    if matches!(
        op,
        AluOp::AMAX_INT | AluOp::AMIN_INT | AluOp::AMAX_UINT | AluOp::AMIN_UINT
    ) {
        let key = |x: u64| -> i64 {
            let v = tt_int_operand(a, x);
            if matches!(op, AluOp::AMAX_INT | AluOp::AMIN_INT) {
                i64::from(v as i32)
            } else {
                i64::from(v)
            }
        };
        let max = matches!(op, AluOp::AMAX_INT | AluOp::AMAX_UINT);
        let mut best = 0usize;
        for (i, &x) in xs.iter().enumerate() {
            let (k, kb) = (key(x), key(xs[best]));
            if (max && k > kb) || (!max && k < kb) {
                best = i;
            }
        }
        return Ok(tt_int_result(b, best as u32));
    }
    if op.is_valid_int_aluop() {
        let mut acc = tt_int_operand(a, xs[0]);
        for &x in &xs[1..] {
            acc = alu_int_as(op, acc, tt_int_operand(a, x), signed)?;
        }
        if negated {
            acc = acc.wrapping_neg();
        }
        return Ok(tt_int_result(b, acc));
    }
    let mut acc = to_f32(a, xs[0] as u32, fp8);
    for &x in &xs[1..] {
        acc = alu_arith(op, acc, to_f32(a, x as u32, fp8))?;
    }
    if negated {
        acc = -acc;
    }
    Ok(u64::from(from_f32(b, acc, fp8)))
}

pub(super) fn execute(cx: &mut Cx<'_>, s: &S4d4Tr) -> Result<(), FaultCause> {
    let n = u32::from(s.num_active_channels);
    let display = cx.info.display;
    for d in [s.in_dtype, s.out_dtype] {
        if d == Dtype::INT64 || d == Dtype::UINT64 {
            return Err(unsupported_64bit(display));
        }
    }
    let slots = reduced_slots(s.op_dim).ok_or_else(|| FaultCause::Unsupported {
        what: format!("{display}: op_dim {} is not a reduce axis", s.op_dim),
    })?;
    let src = cx.tensor(
        &s.src_mem_pattern,
        "src_mem_pattern",
        s.in_dtype,
        Role::READ,
        n,
    )?;
    let dst = cx.tensor(
        &s.dst_mem_pattern,
        "dst_mem_pattern",
        s.out_dtype,
        Role::WRITE,
        n,
    )?;
    let group: u64 = s.src_mem_pattern.num_elem[..slots]
        .iter()
        .map(|&m| u64::from(m))
        .product();
    let count = src.count();
    if group == 0 || dst.count() * group != count {
        return Err(FaultCause::OutOfRange {
            operand: "dst_mem_pattern",
            detail: format!(
                "{} outputs for {count} inputs reduced in groups of {group}",
                dst.count()
            ),
        });
    }
    cx.limit(count, n)?;
    let fp8 = cx.cfg.fp8;
    let xs = read_all(&cx.st.mem, &src, n);
    let vals = xs
        .chunks(group as usize)
        .map(|g| {
            reduce_group(
                s.op,
                cx.info.is_bitvec(),
                s.negated != 0,
                (s.in_dtype, s.out_dtype),
                g,
                &fp8,
            )
        })
        .collect::<Result<Vec<u64>, _>>()
        .map_err(num_fault)?;
    cx.check_reads(&src, n, |_| true);
    cx.gate()?;
    commit(cx, &dst, n, &vals, |_, _| false);
    Ok(())
}
