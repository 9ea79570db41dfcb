//! CrossLaneReduce 0x7c / 0x7d (struct S4D4_CR): fold across partitions (isa-facts-dve-pool
//! §8.4; order and numerics: assumption `cross-lane-reduce`).
//!
//! ```text
//! ALL:        dst[0]    = fold(src[c][k] for c in 0..n for k in 0..count)
//! PARTITIONS: dst[k]    = fold(src[c][k] for c in 0..n)          (dst in one partition)
//! ```

use super::access::Access;
use super::dense::{self, CHUNK};
use super::lanes::{gather_all, record_write, scatter};
use super::{kernels, pair_kernels, Cx, Role};
use crate::assumptions::cross_lane_fold;
use crate::numerics::{bf16_to_f32_bits, decode_values, from_f32, simd, to_f32};
use crate::report::FaultCause;
use tpb_isa::wire::S4d4Cr;
use tpb_isa::{AluOp, Dtype, ReduceAxis, ReduceOp};

const SBUF_ONLY_READ: Role = Role {
    write: false,
    psum: false,
};
const SBUF_ONLY_WRITE: Role = Role {
    write: true,
    psum: false,
};

pub(super) fn execute(cx: &mut Cx<'_>, s: &S4d4Cr, bitvec: bool) -> Result<(), FaultCause> {
    let n = u32::from(s.num_active_channels);
    let src = cx.tensor(
        &s.src_mem_pattern,
        "src_mem_pattern",
        s.in_dtype,
        SBUF_ONLY_READ,
        n,
    )?;
    let dst = cx.tensor(
        &s.dst_mem_pattern,
        "dst_mem_pattern",
        s.out_dtype,
        SBUF_ONLY_WRITE,
        1,
    )?;
    let count = src.count();
    let all = s.reduce_axis == ReduceAxis::ALL;
    let want = if all { 1 } else { count };
    if dst.count() != want {
        return Err(FaultCause::OutOfRange {
            operand: "dst_mem_pattern",
            detail: format!("{} elements, the reduction gives {want}", dst.count()),
        });
    }
    cx.limit(count, n)?;
    cx.check_reads(&src, n, |_| true);
    cx.gate()?;
    let fp8 = cx.cfg.fp8;
    let arith = matches!(
        s.reduce_op,
        ReduceOp::ADD | ReduceOp::AVERAGE | ReduceOp::MAX
    );
    let datapath = dense::datapath(&[s.in_dtype, s.out_dtype]);
    if !bitvec && !all && arith && datapath && dense::readable(&src) {
        // PARTITIONS in one pass over the rows (`dense`): the running folds of every element
        // side by side, channel after channel — the assumed order (channels ascending) for
        // each element, computed across elements at once.
        let folds = partition_folds(cx, s, &src, n);
        let out_dtype = s.out_dtype;
        let written = dense::write_each_channel(&mut cx.st.mem, &dst, 1, |_, out| {
            kernels::encode(out_dtype, &folds, out, &fp8);
        });
        if !written {
            let out: Vec<u32> = folds
                .iter()
                .map(|&v| from_f32(out_dtype, v, &fp8))
                .collect();
            scatter(&mut cx.st.mem, &dst, 0, &out);
        }
        record_write(cx.out, &dst, 1, want);
        cx.out.elements = count * u64::from(n);
        return Ok(());
    }
    let rows = gather_all(&cx.st.mem, &src, n);
    // Values in fold order: fp32 bits on the arith path, raw bits on the bitvec path.
    let value = |raw: u32| {
        if bitvec {
            raw
        } else {
            to_f32(s.in_dtype, raw, &fp8).to_bits()
        }
    };
    let folds: Vec<u32> = if all {
        let xs: Vec<u32> = rows.iter().flatten().map(|&r| value(r)).collect();
        vec![cross_lane_fold(s.reduce_op, s.scale.value(), &xs)]
    } else {
        (0..count as usize)
            .map(|k| {
                let xs: Vec<u32> = rows.iter().map(|r| value(r[k])).collect();
                cross_lane_fold(s.reduce_op, s.scale.value(), &xs)
            })
            .collect()
    };
    let out: Vec<u32> = folds
        .into_iter()
        .map(|v| {
            if bitvec {
                v
            } else {
                from_f32(s.out_dtype, f32::from_bits(v), &fp8)
            }
        })
        .collect();
    scatter(&mut cx.st.mem, &dst, 0, &out);
    record_write(cx.out, &dst, 1, want);
    cx.out.elements = count * u64::from(n);
    Ok(())
}

/// The PARTITIONS fold of the arith ops over a dense source ([`cross_lane_fold`], Q13): per
/// chunk of elements (its running folds in L1), the first channel's values (AVERAGE: times
/// `scale`), then each further channel's folded in with ADD (FP32 / BF16 / FP8 decoded in
/// the same loop) or, AVERAGE, its values times `scale` added, through the stage loops,
/// which are `alu_arith`'s bit for bit; MAX over two or more channels as integer keys
/// (`KeyLanes`: maxNum's fold does not depend on the order of its steps). One SIMD dispatch
/// for the instruction. Checked against the plain walk by `tests/dve_fast_paths.rs`.
fn partition_folds(cx: &Cx<'_>, s: &S4d4Cr, src: &Access, n: u32) -> Vec<f32> {
    type Max = pair_kernels::KeyLanes<true>;
    let fp8 = cx.cfg.fp8;
    let mem = &cx.st.mem;
    let (count, size) = (src.count() as usize, src.size);
    let scale = s.scale.value();
    let mut acc = vec![0f32; count];
    let mut t = [0f32; CHUNK];
    let mut keys = [0i32; CHUNK];
    let op = if s.reduce_op == ReduceOp::MAX {
        AluOp::MAX
    } else {
        AluOp::ADD
    };
    let bf16 = |b: [u8; 2]| f32::from_bits(bf16_to_f32_bits(u16::from_le_bytes(b)));
    simd::vectorize(
        #[inline(always)]
        || {
            for (k, acc) in acc.chunks_mut(CHUNK).enumerate() {
                let len = acc.len();
                let at = k * CHUNK * size;
                let bytes = |c: u32| {
                    let row = dense::channel(mem, src, c);
                    row.get(at..at + len * size).unwrap_or(&[])
                };
                if op == AluOp::MAX && n > 1 {
                    let keys = &mut keys[..acc.len()];
                    keys.fill(Max::BOTTOM);
                    for c in 0..n {
                        let b = bytes(c);
                        let fold = |k: &mut i32, x: f32| *k = Max::pick(*k, Max::key(x));
                        match s.in_dtype {
                            Dtype::FP32 => keys
                                .iter_mut()
                                .zip(b.as_chunks::<4>().0)
                                .for_each(|(k, &x)| fold(k, f32::from_le_bytes(x))),
                            Dtype::BFLOAT16 => keys
                                .iter_mut()
                                .zip(b.as_chunks::<2>().0)
                                .for_each(|(k, &x)| fold(k, bf16(x))),
                            dtype => {
                                let t = &mut t[..len];
                                decode_values(dtype, b, t, &fp8);
                                keys.iter_mut().zip(t.iter()).for_each(|(k, &x)| fold(k, x));
                            }
                        }
                    }
                    acc.iter_mut()
                        .zip(keys.iter())
                        .for_each(|(a, &k)| *a = Max::value(k));
                    continue;
                }
                for c in 0..n {
                    let b = bytes(c);
                    match (c, s.reduce_op) {
                        (0, ReduceOp::AVERAGE) => {
                            decode_values(s.in_dtype, b, acc, &fp8);
                            kernels::arith_in(AluOp::MULT, false, acc, scale);
                        }
                        (0, _) => decode_values(s.in_dtype, b, acc, &fp8),
                        (_, ReduceOp::AVERAGE) => {
                            let t = &mut t[..acc.len()];
                            decode_values(s.in_dtype, b, t, &fp8);
                            kernels::arith_in(AluOp::MULT, false, t, scale);
                            pair_kernels::fold_rows_in(op, acc, t);
                        }
                        _ => pair_kernels::combine_in(
                            (op, false),
                            acc,
                            (s.in_dtype, b),
                            &mut t,
                            &fp8,
                        ),
                    }
                }
            }
        },
    );
    acc
}
