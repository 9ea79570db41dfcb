//! TensorTensor (0x41 Arith / 0x51 Bitvec) and sunda's bf16 trio (0x8a/0x8b/0x8f)
//! (isa-facts-dve-pool §1.5, §1.7; docs/reference/isa.md "S3S3D3_TT").
//!
//! ```text
//! for c in 0..num_active_channels:
//!   for k in 0..count:                       # each operand walks its own pattern
//!     dst[c][k] = op(src0[c][k], src1[c][k])  # operand order as written
//! ```
//! Arith: both inputs → FP32, the op in FP32, → out_dtype (decisions §4.1); an int-aluop
//! runs on the 32-bit integer path (assumption `tt-int-operands`), on INT64/UINT64 on the
//! 64-bit path (numerics::int64); Bitvec: raw bits.

use super::access::Access;
use super::dense::{self, CHUNK};
use super::elements::{commit, read_all};
use super::lanes::record_write;
use super::{num_fault, pair_kernels, Cx, Role};
use crate::assumptions::{tt_int_operand, tt_int_result, unsupported_64bit};
use crate::numerics::{alu_arith, alu_bitvec, alu_int_as, decode_values, from_f32, simd, to_f32};
use crate::report::FaultCause;
use tpb_isa::opcode::OpcodeInfo;
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
    /// The 64-bit integer band (all three operands INT64 or all UINT64).
    Int64 { signed: bool },
    /// 64-bit bitvec: one dtype, or a 64-bit value shifted by a uint32 count.
    Bitvec64,
}

fn is_64(d: Dtype) -> bool {
    d == Dtype::INT64 || d == Dtype::UINT64
}

/// The 64-bit path (§1.5), where the facts give one: an int-aluop on three INT64 or three
/// UINT64 operands, or a bitvec op on one 64-bit dtype (or a shift by a uint32 count).
fn wide_path(bitvec: bool, op: AluOp, (lo, hi, out): (Dtype, Dtype, Dtype)) -> Option<TtPath> {
    if bitvec {
        let same = lo == out && hi == out;
        let shift = op.is_shift_op() && lo == out && hi == Dtype::UINT32;
        return (is_64(out) && (same || shift)).then_some(TtPath::Bitvec64);
    }
    (op.is_valid_int_aluop() && is_64(out) && lo == out && hi == out).then_some(TtPath::Int64 {
        signed: out == Dtype::INT64,
    })
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
        TtPath::Int64 { signed } => alu_int_as::<u64>(op, a, b, signed)?,
        TtPath::Bitvec64 => alu_bitvec::<u64>(op, a, b, 64)?,
    })
}

/// Executes TensorTensor (`bitvec`: 0x51) or, with `bf16`, sunda's trio; `row` names the
/// opcode in messages.
pub(super) fn execute(
    cx: &mut Cx<'_>,
    s: &S3s3d3Tt,
    row: &'static OpcodeInfo,
    bitvec: bool,
    bf16: bool,
) -> Result<(), FaultCause> {
    let n = u32::from(s.num_active_channels);
    let (lo, hi) = (s.in0_in1_dtype.lo(), s.in0_in1_dtype.hi());
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
    let path = if bf16 {
        TtPath::Arith
    } else if [lo, hi, s.out_dtype].iter().any(|&d| is_64(d)) {
        wide_path(bitvec, s.op, (lo, hi, s.out_dtype))
            .ok_or_else(|| unsupported_64bit(row.display))?
    } else {
        tt_path(bitvec, s.op, lo, s.out_dtype)
    };
    let fp8 = cx.cfg.fp8;
    if matches!(path, TtPath::Arith) && dense::applies(&[&s0, &s1], &d, n) {
        // Validate the op once (the FP32 path fails only on the op, never on a value).
        alu_arith(s.op, 0.0, 0.0).map_err(num_fault)?;
        cx.check_reads(&s0, n, |_| true);
        cx.check_reads(&s1, n, |_| true);
        cx.gate()?;
        if dense_arith(cx, s.op, [&s0, &s1, &d], [lo, hi, s.out_dtype], n) {
            return Ok(());
        }
    }
    let (a, b) = (read_all(&cx.st.mem, &s0, n), read_all(&cx.st.mem, &s1, n));
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

/// The FP32 path over contiguous operands (`dense`), chunk by chunk: decode src0, apply
/// `op` against src1 decoded in the same loop, encode into the destination. The same values
/// as [`tt_element`] on [`TtPath::Arith`] (checked by `dense_matches_the_plain_path` below
/// and `tests/dve_fast_paths.rs`). `false`: not taken, nothing changed.
fn dense_arith(
    cx: &mut Cx<'_>,
    op: AluOp,
    [s0, s1, d]: [&Access; 3],
    [lo, hi, out]: [Dtype; 3],
    n: u32,
) -> bool {
    let fp8 = cx.cfg.fp8;
    let count = d.count() as usize;
    let (sa, sb, sd) = (s0.size, s1.size, d.size);
    if !dense::datapath(&[lo, hi, out]) {
        return false;
    }
    let (mut t, mut u) = ([0f32; CHUNK], [0f32; CHUNK]);
    // All FP32: one loop from the input bytes to the output bytes.
    let fp32 = [lo, hi, out].iter().all(|&d| d == Dtype::FP32);
    let mem = &mut cx.st.mem;
    let done = simd::vectorize(
        #[inline(always)]
        || {
            dense::for_each_channel(
                mem,
                [s0, s1],
                d,
                n,
                #[inline(always)]
                |_, [a, b]: [&[u8]; 2], o: &mut [u8]| {
                    if fp32 {
                        pair_kernels::fp32_tt_in(op, a, b, o);
                        return;
                    }
                    for k in (0..count).step_by(CHUNK) {
                        let len = CHUNK.min(count - k);
                        let t = &mut t[..len];
                        decode_values(lo, &a[k * sa..(k + len) * sa], t, &fp8);
                        let b = (hi, &b[k * sb..(k + len) * sb]);
                        pair_kernels::combine_in((op, false), t, b, &mut u, &fp8);
                        pair_kernels::encode_in(out, t, &mut o[k * sd..(k + len) * sd], &fp8);
                    }
                },
            )
        },
    );
    if done {
        record_write(cx.out, d, n, count as u64);
    }
    done
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::machine::{Config, Machine};
    use tpb_isa::geometry::Space;
    use tpb_isa::wire::{Addr4, DtypePair, Tensor3};
    use tpb_isa::{Body, Gen, Instruction, Opcode};

    fn bits(m: &Machine, space: Space, off: u64, d: Dtype, count: u64, n: u32) -> Vec<u8> {
        let t = crate::HostTensor::at(space, 0..n)
            .offset(off)
            .elements(d, count);
        m.read_tensor(&t).unwrap()
    }

    /// The dense path against the plain element loop (strided dst forces the plain one),
    /// for every op of the FP32 path and several dtype triples, NaN/inf inputs included.
    #[test]
    fn dense_matches_the_plain_path() {
        let gen = Gen::Cayman;
        let ops = [
            AluOp::ADD,
            AluOp::SUBTRACT,
            AluOp::MULT,
            AluOp::MAX,
            AluOp::MIN,
            AluOp::IS_GE,
            AluOp::IS_NE,
            AluOp::ABSOLUTE_DIFF,
            AluOp::LOGICAL_XOR,
            AluOp::POW,
            AluOp::BYPASS,
        ];
        let triples = [
            (Dtype::FP32, Dtype::FP32, Dtype::FP32),
            (Dtype::BFLOAT16, Dtype::FP32, Dtype::BFLOAT16),
            (Dtype::FP16, Dtype::FP8_EXP4, Dtype::INT8),
            (Dtype::INT32, Dtype::UINT8, Dtype::FP8_EXP5),
        ];
        let count = 300u16;
        for (lo, hi, out) in triples {
            let mut m = Machine::new(Config::new(gen));
            let mut state = 0x1234_5678u32;
            for (off, d) in [(0u64, lo), (0x800, hi)] {
                let size = d.size().unwrap();
                let raw: Vec<u8> = (0..u64::from(count) * 4 * size as u64)
                    .map(|_| {
                        state ^= state << 13;
                        state ^= state >> 17;
                        state ^= state << 5;
                        state as u8
                    })
                    .collect();
                let t = crate::HostTensor::at(Space::Sbuf, 0..4)
                    .offset(off)
                    .elements(d, u64::from(count));
                m.write_tensor(&t, &raw).unwrap();
            }
            for op in ops {
                let t3 = |off: u32, step: i16| Tensor3 {
                    start_addr: Addr4::at(gen, Space::Sbuf, 0, off).unwrap(),
                    step_elem: [step, 1, 1],
                    num_elem: [count, 1, 1],
                };
                let mut i = Instruction::new(Opcode::TENSOR_TENSOR_ARITH, gen);
                if let Body::S3s3d3Tt(s) = &mut i.body {
                    s.in0_in1_dtype = DtypePair::new(lo, hi);
                    s.out_dtype = out;
                    s.op = op;
                    s.num_active_channels = 4;
                    s.src0_mem_pattern = t3(0, 1);
                    s.src1_mem_pattern = t3(0x800, 1);
                    s.dst_mem_pattern = t3(0x1000, 1);
                }
                m.step(&i).unwrap();
                let fast = bits(&m, Space::Sbuf, 0x1000, out, u64::from(count), 4);
                if let Body::S3s3d3Tt(s) = &mut i.body {
                    s.dst_mem_pattern = t3(0x2000, 2); // not dense: the plain loop
                }
                m.step(&i).unwrap();
                let plain = bits(&m, Space::Sbuf, 0x2000, out, 2 * u64::from(count), 4);
                let size = out.size().unwrap();
                for c in 0..4usize {
                    for k in 0..count as usize {
                        let f = &fast[(c * count as usize + k) * size..][..size];
                        let p = &plain[(c * 2 * count as usize + 2 * k) * size..][..size];
                        assert_eq!(f, p, "{op} {lo},{hi}->{out} channel {c} element {k}");
                    }
                }
            }
        }
    }
}
