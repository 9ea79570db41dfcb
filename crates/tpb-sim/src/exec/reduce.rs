//! TensorReduce (0x42 Arith / 0x52 Bitvec), TransposeTensorReduce (0x83/0x84: the
//! StreamTranspose move first, assumption `transpose-reduce-order`) and sunda's bf16 pair
//! (0x8c/0x8d) (isa-facts-dve-pool §7.4, §7.5; assumption `reduce-geometry`).
//!
//! ```text
//! R = product of src.num_elem[slots op_dim reduces]      # X = slot 0, XY = 0..1, …
//! for c in 0..num_active_channels:
//!   for j in 0..count / R:                              # the kept index, slot 0 fastest
//!     v = fold(op, src[c][j*R .. (j+1)*R])              # element order
//!     dst[c][j] = convert(negated ? -v : v)
//! ```

use super::access::Access;
use super::dense::{self, CHUNK};
use super::elements::{commit, read_all};
use super::lanes::record_write;
use super::{kernels, num_fault, pair_kernels, Cx, Role};
use crate::assumptions::{
    stream_transpose_source, tt_int_operand, tt_int_result, unsupported_64bit,
};
use crate::report::FaultCause;

use crate::numerics::{
    alu_arith, alu_bitvec, alu_int_as, bf16_to_f32_bits, canonical_nan, decode_values, from_f32,
    simd, to_f32, Fp8Config, NumError,
};
use tpb_isa::opcode::OpcodeInfo;
use tpb_isa::validate::reduced_slots;
use tpb_isa::wire::S4d4Tr;
use tpb_isa::{AluOp, Dtype};

/// A 64-bit fold's result in `out`: its low bits (an integer dtype, by the validator).
fn tt_int_result64(out: Dtype, r: u64) -> u64 {
    match out.size() {
        Some(8) => r,
        _ => tt_int_result(out, r as u32),
    }
}

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
        let signed_op = matches!(op, AluOp::AMAX_INT | AluOp::AMIN_INT);
        let key = |x: u64| -> i128 {
            match a {
                Dtype::INT64 | Dtype::UINT64 if signed_op => i128::from(x as i64),
                Dtype::INT64 | Dtype::UINT64 => i128::from(x),
                _ => {
                    let v = tt_int_operand(a, x);
                    if signed_op {
                        i128::from(v as i32)
                    } else {
                        i128::from(v)
                    }
                }
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
    if a == Dtype::INT64 || a == Dtype::UINT64 {
        let signed = a == Dtype::INT64;
        let mut acc = xs[0];
        for &x in &xs[1..] {
            acc = alu_int_as::<u64>(op, acc, x, signed)?;
        }
        if negated {
            acc = acc.wrapping_neg();
        }
        return Ok(tt_int_result64(b, acc));
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

/// StreamTranspose's move over `n` channels of `count` elements (channel-major).
fn transposed(xs: &[u64], n: u32, count: u64) -> Vec<u64> {
    let mut out = Vec::with_capacity(xs.len());
    for ch in 0..n {
        for k in 0..count {
            let (c, e) = stream_transpose_source(ch, k);
            out.push(xs[(u64::from(c) * count + e) as usize]);
        }
    }
    out
}

/// Executes the reduce (`bitvec`: 0x52/0x84; `transpose`: 0x83/0x84 move the source as
/// StreamTranspose first); `row` names the opcode in messages.
pub(super) fn execute(
    cx: &mut Cx<'_>,
    s: &S4d4Tr,
    row: &'static OpcodeInfo,
    bitvec: bool,
    transpose: bool,
) -> Result<(), FaultCause> {
    let n = u32::from(s.num_active_channels);
    let display = row.display;
    let wide = [s.in_dtype, s.out_dtype]
        .iter()
        .any(|&d| d == Dtype::INT64 || d == Dtype::UINT64);
    // The 64-bit arm (§7.1 engine predicate): an integer op on 64-bit integers.
    let int_op = s.op.is_valid_int_aluop() || matches!(s.op.0, 0xDE..=0xE1);
    if wide && (bitvec || !int_op) {
        return Err(unsupported_64bit(display));
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
    let float_fold = !bitvec && !int_op && !wide;
    if float_fold && !transpose && src.dims.is_dense() {
        // Validate the op once (the FP32 fold fails only on the op, never on a value).
        alu_arith(s.op, 0.0, 0.0).map_err(num_fault)?;
        let vals = dense_float_reduce(cx, &src, n, group as usize, s, &fp8);
        cx.check_reads(&src, n, |_| true);
        cx.gate()?;
        let per = dst.count() as usize;
        let out_dtype = s.out_dtype;
        let written = dense::readable(&dst)
            && dense::datapath(&[out_dtype])
            && dense::write_each_channel(&mut cx.st.mem, &dst, n, |c, out| {
                let c = c as usize;
                kernels::encode(out_dtype, &vals[c * per..(c + 1) * per], out, &fp8);
            });
        if written {
            record_write(cx.out, &dst, n, per as u64);
        } else {
            let raw: Vec<u64> = vals
                .iter()
                .map(|&v| u64::from(from_f32(out_dtype, v, &fp8)))
                .collect();
            commit(cx, &dst, n, &raw, |_, _| false);
        }
        return Ok(());
    }
    let mut xs = read_all(&cx.st.mem, &src, n);
    if transpose {
        // TransposeTensorReduce: StreamTranspose's 32 × 32 move first (Q10,
        // `transpose-reduce-order`), then the same reduce over the moved elements.
        if !n.is_multiple_of(32) || !count.is_multiple_of(32) {
            return Err(FaultCause::OutOfRange {
                operand: "src_mem_pattern",
                detail: format!(
                    "{n} channels × {count} elements: the transpose needs both in whole 32s"
                ),
            });
        }
        xs = transposed(&xs, n, count);
    }
    let vals = xs
        .chunks(group as usize)
        .map(|g| {
            reduce_group(
                s.op,
                bitvec,
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

/// The FP32 fold over a contiguous source, in one SIMD dispatch: each group folded straight
/// from its bytes (MAX / MIN as integer keys in independent lanes, `KeyLanes`, FP32 and BF16
/// decoded in the same loop; other dtypes and ops through an L1 chunk of decoded values),
/// each group's result negated if asked; no per-channel buffer. The same values as
/// [`reduce_group`] (checked by `dense_fold_matches_the_plain_fold` below and
/// `tests/dve_fast_paths.rs`).
fn dense_float_reduce(
    cx: &Cx<'_>,
    src: &Access,
    n: u32,
    group: usize,
    s: &S4d4Tr,
    fp8: &Fp8Config,
) -> Vec<f32> {
    let mem = &cx.st.mem;
    let size = src.size;
    let count = src.count() as usize;
    let per = count / group;
    let mut vals = Vec::with_capacity(per * n as usize);
    let mut t = [0f32; CHUNK];
    // FP32 sums of whole batches of channels: their serial folds side by side.
    let interleaved = if s.op == AluOp::ADD
        && s.in_dtype == Dtype::FP32
        && group >= 2
        && (0..n).all(|c| dense::channel(mem, src, c).len() >= per * group * 4)
    {
        n - n % ADD_LANES as u32
    } else {
        0
    };
    if interleaved > 0 {
        vals.resize(per * interleaved as usize, 0.0);
        simd::vectorize(
            #[inline(always)]
            || {
                for (b, out) in vals.chunks_exact_mut(per * ADD_LANES).enumerate() {
                    let first = (b * ADD_LANES) as u32;
                    let rows: [&[u8]; ADD_LANES] =
                        std::array::from_fn(|j| dense::channel(mem, src, first + j as u32));
                    add_rows(&rows, group, out);
                }
            },
        );
        // alu_arith pins every NaN it creates or propagates (selects, no branch per value).
        let pinned = f32::from_bits(canonical_nan::FP32);
        let negate = s.negated != 0;
        for v in &mut vals {
            let x = if v.is_nan() { pinned } else { *v };
            *v = if negate { -x } else { x };
        }
    }
    simd::vectorize(
        #[inline(always)]
        || {
            for c in interleaved..n {
                let row = dense::channel(mem, src, c);
                for g in row.chunks_exact(group * size) {
                    let mut acc = if group == 1 {
                        // A group of one element never reaches the ALU: its NaN keeps its bits.
                        decode_values(s.in_dtype, g, &mut t[..1], fp8);
                        t[0]
                    } else {
                        let acc = fold_group(s.op, s.in_dtype, g, &mut t, fp8);
                        // alu_arith pins every NaN it creates or propagates (BYPASS none).
                        if acc.is_nan() && s.op != AluOp::BYPASS {
                            f32::from_bits(canonical_nan::FP32)
                        } else {
                            acc
                        }
                    };
                    if s.negated != 0 {
                        acc = -acc;
                    }
                    vals.push(acc);
                }
            }
        },
    );
    vals
}

/// Channels whose FP32 sums [`add_rows`] folds side by side: enough independent chains to
/// hide an addition's latency.
const ADD_LANES: usize = 8;

/// Elements of each channel [`add_rows`] reads as one block.
const ADD_BLOCK: usize = 8;

/// The FP32 sums, each in element order, of every `group` elements of each of `rows` (dense
/// FP32 channels of equal length), into `out` channel by channel: the fold of
/// [`fold_group`]'s `(ADD, FP32)` arm for [`ADD_LANES`] channels at once, so that their
/// additions overlap instead of waiting on each other. The channels are read
/// [`ADD_BLOCK`] elements at a time (one vector load each; the block is then added
/// element by element, in order, to each channel's sum): 1.6 × faster than reading one
/// element of each channel at a time (docs/benchmarks.md, "Fifth pass").
#[inline(always)]
fn add_rows(rows: &[&[u8]; ADD_LANES], group: usize, out: &mut [f32]) {
    let per = out.len() / ADD_LANES;
    let rows: [&[[u8; 4]]; ADD_LANES] = std::array::from_fn(|j| rows[j].as_chunks::<4>().0);
    let at = |j: usize, i: usize| f32::from_le_bytes(rows[j][i]);
    for g in 0..per {
        let (start, end) = (g * group, (g + 1) * group);
        let mut acc: [f32; ADD_LANES] = std::array::from_fn(|j| at(j, start));
        let mut i = start + 1;
        while i + ADD_BLOCK <= end {
            let block: [[f32; ADD_BLOCK]; ADD_LANES] = std::array::from_fn(|j| {
                let b = &rows[j][i..i + ADD_BLOCK];
                std::array::from_fn(|k| f32::from_le_bytes(b[k]))
            });
            for k in 0..ADD_BLOCK {
                for (a, b) in acc.iter_mut().zip(&block) {
                    *a += b[k];
                }
            }
            i += ADD_BLOCK;
        }
        for i in i..end {
            for (j, a) in acc.iter_mut().enumerate() {
                *a += at(j, i);
            }
        }
        for (j, a) in acc.into_iter().enumerate() {
            out[j * per + g] = a;
        }
    }
}

/// The fold of one group of two or more `dtype` elements (`bytes`) in element order, before
/// the final NaN pin ([`reduce_group`]'s FP32 arm); `t` is scratch for decoded chunks.
#[inline(always)]
fn fold_group(op: AluOp, dtype: Dtype, bytes: &[u8], t: &mut [f32; CHUNK], fp8: &Fp8Config) -> f32 {
    let bf16 = |b: [u8; 2]| f32::from_bits(bf16_to_f32_bits(u16::from_le_bytes(b)));
    match (op, dtype) {
        (AluOp::MAX, Dtype::FP32) => keys::<true, 4>(bytes, f32::from_le_bytes),
        (AluOp::MIN, Dtype::FP32) => keys::<false, 4>(bytes, f32::from_le_bytes),
        (AluOp::MAX, Dtype::BFLOAT16) => keys::<true, 2>(bytes, bf16),
        (AluOp::MIN, Dtype::BFLOAT16) => keys::<false, 2>(bytes, bf16),
        (AluOp::ADD, Dtype::FP32) => {
            let (xs, _) = bytes.as_chunks::<4>();
            let first = f32::from_le_bytes(xs[0]);
            xs[1..]
                .iter()
                .fold(first, |a, &x| a + f32::from_le_bytes(x))
        }
        _ => {
            let mut lanes = (
                pair_kernels::KeyLanes::<true>::new(),
                pair_kernels::KeyLanes::<false>::new(),
            );
            let mut acc = None;
            for b in bytes.chunks(CHUNK * dtype.size().unwrap_or(4)) {
                let xs = &mut t[..b.len() / dtype.size().unwrap_or(4)];
                decode_values(dtype, b, xs, fp8);
                match op {
                    AluOp::MAX => lanes.0.all(xs),
                    AluOp::MIN => lanes.1.all(xs),
                    _ => {
                        let (first, rest) = match acc {
                            None => (xs[0], &xs[1..]),
                            Some(a) => (a, &xs[..]),
                        };
                        acc = Some(match op {
                            AluOp::ADD => rest.iter().fold(first, |a, &x| a + x),
                            op => rest
                                .iter()
                                .fold(first, |a, &x| alu_arith(op, a, x).unwrap_or(f32::NAN)),
                        });
                    }
                }
            }
            match op {
                AluOp::MAX => lanes.0.result(),
                AluOp::MIN => lanes.1.result(),
                _ => acc.unwrap_or(f32::NAN),
            }
        }
    }
}

/// [`pair_kernels::KeyLanes`] over the `S`-byte elements of `bytes`, decoded by `dec`.
#[inline(always)]
fn keys<const MAX: bool, const S: usize>(bytes: &[u8], dec: impl Fn([u8; S]) -> f32) -> f32 {
    let mut lanes = pair_kernels::KeyLanes::<MAX>::new();
    lanes.all_bytes::<S>(bytes, dec);
    lanes.result()
}

#[cfg(test)]
mod tests {
    use crate::machine::{Config, Machine};
    use tpb_isa::geometry::Space;
    use tpb_isa::wire::{Addr4, S4d4Tr, Tensor4};
    use tpb_isa::{AluOp, Body, Dtype, Gen, Instruction, Opcode, TensorSubdim};

    /// Dense source (fast fold) against the same values read through a strided source
    /// (plain fold): every FP32-path op, negated or not, NaN/inf inputs included.
    #[test]
    fn dense_fold_matches_the_plain_fold() {
        // At every SIMD level this CPU has (MAX/MIN fold in independent lanes).
        for level in crate::numerics::simd::available() {
            crate::numerics::simd::with_level(level, dense_fold_matches_at_this_level).unwrap();
        }
    }

    fn dense_fold_matches_at_this_level() {
        let gen = Gen::Cayman;
        // A batch of channels the FP32 sum folds side by side, and a few left over.
        const CHANNELS: u32 = super::ADD_LANES as u32 + 3;
        // FP32 specials (BF16 takes their high halves): ±0, ±inf, NaNs with payloads and
        // signalling, subnormals, ties.
        let specials = [
            0u32,
            0x8000_0000,
            0x7F80_0000,
            0xFF80_0000,
            0x7FC0_0000,
            0xFFC1_0000,
            0x7F81_0000,
            0x0001_0000,
            0x8001_0000,
            0x3F80_0000,
            0xBF80_0000,
        ];
        // Groups of one, two, a few and longer than a decoded chunk; then two with values of
        // one binade only (no special to absorb the sum, so its order shows in its bits).
        let shapes = [
            (37u16, 5u16, false),
            (1, 9, false),
            (2, 40, false),
            (1100, 1, false),
        ];
        for (g, groups, mild) in shapes.into_iter().chain([(37, 5, true), (1100, 1, true)]) {
            for din in [
                Dtype::BFLOAT16,
                Dtype::FP32,
                Dtype::FP16,
                Dtype::FP8_EXP4,
                Dtype::INT16,
            ] {
                if g > 1024 && matches!(din, Dtype::FP8_EXP4 | Dtype::INT16) {
                    continue; // (the chunked decode is FP16's too; keeps the test quick)
                }
                let mut m = Machine::new(Config::new(gen));
                let size = din.size().unwrap();
                let total = u64::from(g) * u64::from(groups);
                let mut state = 0xDEAD_BEEFu32 ^ u32::from(g);
                let mut next = || {
                    state ^= state << 13;
                    state ^= state >> 17;
                    state ^= state << 5;
                    state
                };
                let raw: Vec<u8> = (0..total * 3)
                    .flat_map(|_| {
                        let r = next();
                        // Specials, values of one binade (where the order of a sum shows in
                        // its bits) and any bits.
                        let bits = match r % 3 {
                            _ if mild => 0x3F00_0000 | (next() & 0x807F_FFFF),
                            0 => specials[(r >> 8) as usize % specials.len()],
                            1 => 0x3F00_0000 | (next() & 0x807F_FFFF),
                            _ => next(),
                        };
                        match size {
                            4 => bits.to_le_bytes().to_vec(),
                            2 => ((bits >> 16) as u16).to_le_bytes().to_vec(),
                            _ => vec![(bits >> 24) as u8],
                        }
                    })
                    .collect();
                // Per channel (each its own rotation of the elements, so that channels folded
                // side by side differ): a dense copy at 0, the same elements every other slot
                // at 0x4000.
                let (mut dense_all, mut spread_all) = (Vec::new(), Vec::new());
                for c in 0..CHANNELS as usize {
                    let mut dense = raw[..total as usize * size].to_vec();
                    dense.rotate_left((c * 7 % total as usize) * size);
                    let mut spread = vec![0u8; 2 * dense.len()];
                    for (k, e) in dense.chunks(size).enumerate() {
                        spread[2 * k * size..][..size].copy_from_slice(e);
                    }
                    dense_all.extend_from_slice(&dense);
                    spread_all.extend_from_slice(&spread);
                }
                for (off, all, per) in [(0u64, &dense_all, total), (0x4000, &spread_all, 2 * total)]
                {
                    let t = crate::HostTensor::at(Space::Sbuf, 0..CHANNELS)
                        .offset(off)
                        .elements(din, per);
                    m.write_tensor(&t, all).unwrap();
                }
                for op in [
                    AluOp::ADD,
                    AluOp::MAX,
                    AluOp::MIN,
                    AluOp::MULT,
                    AluOp::SUBTRACT,
                    AluOp::BYPASS,
                    AluOp::ABSOLUTE_DIFF,
                ] {
                    for negated in [0u8, 1] {
                        let run = |m: &mut Machine, off: u32, step: i16, out: u32| {
                            let mut i = Instruction::new(Opcode::TENSOR_REDUCE_ARITH, gen);
                            if let Body::S4d4Tr(s) = &mut i.body {
                                *s = S4d4Tr {
                                    src_mem_pattern: Tensor4 {
                                        start_addr: Addr4::at(gen, Space::Sbuf, 0, off).unwrap(),
                                        step_elem: [step, step * g as i16, 1, 1],
                                        num_elem: [g, groups, 1, 1],
                                    },
                                    in_dtype: din,
                                    out_dtype: Dtype::FP32,
                                    num_active_channels: CHANNELS as u8,
                                    negated,
                                    op,
                                    op_dim: TensorSubdim::X,
                                    dst_mem_pattern: Tensor4 {
                                        start_addr: Addr4::at(gen, Space::Sbuf, 0, out).unwrap(),
                                        step_elem: [1; 4],
                                        num_elem: [groups, 1, 1, 1],
                                    },
                                    ..S4d4Tr::default()
                                };
                            }
                            m.step(&i).unwrap();
                            let t = crate::HostTensor::at(Space::Sbuf, 0..CHANNELS)
                                .offset(u64::from(out))
                                .elements(Dtype::FP32, u64::from(groups));
                            m.read_tensor(&t).unwrap()
                        };
                        let fast = run(&mut m, 0, 1, 0x10000);
                        let plain = run(&mut m, 0x4000, 2, 0x11000);
                        assert_eq!(fast, plain, "{op} {din} negated {negated} {g}x{groups}");
                    }
                }
            }
        }
    }
}
