//! Slice loops for one ALU stage with one scalar: `x = stage(op, x, s, reversed)` over a
//! chunk. The common ops get a monomorphic loop the compiler vectorises; they reproduce
//! [`crate::numerics::alu_arith`] / [`crate::numerics::alu_bitvec`] bit for bit (canonical
//! NaN included), which the tests below check against the numerics functions. Every other
//! op goes through [`crate::assumptions`]'s stage functions element by element.
//!
//! Callers check once per instruction that the op evaluates ([`check_arith`] etc.), so the
//! per-element fallbacks cannot fail; should they, the element becomes the canonical NaN /
//! zero rather than a panic.

use crate::assumptions::{stage_arith, stage_bitvec, stage_int};
use crate::numerics::alu::{max_num, min_num};
use crate::numerics::{
    canonical_nan, decode_slice_to_f32, decode_with, encode_rows_with, encode_slice_from_f32,
    encode_with, rows_fusable, simd, Fp8Config, NumError,
};
use tpb_isa::{AluOp, Dtype};

/// [`decode_slice_to_f32`] with FP32 inlined (its bits are the value), for short chunks.
#[inline(always)]
pub(crate) fn decode(dtype: Dtype, bytes: &[u8], out: &mut [f32], cfg: &Fp8Config) {
    if dtype == Dtype::FP32 {
        simd::vectorize(
            #[inline(always)]
            || {
                for (o, &b) in out.iter_mut().zip(bytes.as_chunks::<4>().0) {
                    *o = f32::from_le_bytes(b);
                }
            },
        );
    } else {
        decode_slice_to_f32(dtype, bytes, out, cfg);
    }
}

/// [`encode_slice_from_f32`] with FP32 / FP32R inlined (stored bit for bit).
#[inline(always)]
pub(crate) fn encode(dtype: Dtype, xs: &[f32], out: &mut [u8], cfg: &Fp8Config) {
    if dtype == Dtype::FP32 || dtype == Dtype::FP32R {
        simd::vectorize(
            #[inline(always)]
            || {
                for (o, x) in out.as_chunks_mut::<4>().0.iter_mut().zip(xs) {
                    *o = x.to_le_bytes();
                }
            },
        );
    } else {
        encode_slice_from_f32(dtype, xs, out, cfg);
    }
}

/// `r`, or the canonical FP32 NaN if `r` is a NaN (what `alu_arith` returns).
#[inline(always)]
pub(crate) fn canon(r: f32) -> f32 {
    if r.is_nan() {
        f32::from_bits(canonical_nan::FP32)
    } else {
        r
    }
}

#[inline(always)]
fn map(xs: &mut [f32], f: impl Fn(f32) -> f32) {
    for x in xs {
        *x = f(*x);
    }
}

/// Checks that `op` evaluates on the arith path (the error is op-determined there).
#[inline]
pub(crate) fn check_arith(op: AluOp) -> Result<(), NumError> {
    // The ops of the fast loops in `arith` always evaluate: no ALU call per instruction.
    if matches!(
        op,
        AluOp::BYPASS | AluOp::ADD | AluOp::SUBTRACT | AluOp::MULT | AluOp::MAX | AluOp::MIN
    ) {
        return Ok(());
    }
    stage_arith(op, 1.0, 1.0, false).map(|_| ())
}

/// Checks that `op` evaluates on the bitvec path at `bits`.
pub(crate) fn check_bitvec(op: AluOp, bits: u32) -> Result<(), NumError> {
    stage_bitvec(op, 1, 1, false, bits).map(|_| ())
}

/// Checks that `op` evaluates on the integer arm for every operand: divide and modulo can
/// fail on data (divide by zero, decisions §4.12) and are refused up front (no valid
/// instruction in this slice reaches them).
pub(crate) fn check_int(op: AluOp) -> Result<(), NumError> {
    if matches!(
        op,
        AluOp::DIVIDE_INT | AluOp::MOD_INT | AluOp::MOD | AluOp::DIVIDE_UINT | AluOp::MOD_UINT
    ) {
        return Err(NumError::Unsupported {
            op,
            path: "integer",
            why: "integer divide/modulo is not reachable by a valid instruction of this slice",
        });
    }
    stage_int(op, 1, 1, false, true).map(|_| ())
}

/// `x = stage_arith(op, x, s, rev)` for every element.
pub(crate) fn arith(op: AluOp, rev: bool, xs: &mut [f32], s: f32) {
    simd::vectorize(
        #[inline(always)]
        || arith_in(op, rev, xs, s),
    );
}

/// [`arith`] without a dispatch of its own, for loops already inside `simd::vectorize`.
#[inline(always)]
pub(crate) fn arith_in(op: AluOp, rev: bool, xs: &mut [f32], s: f32) {
    with_stage(op, rev, MapScalar { xs, s });
}

/// A loop over a chunk that applies one ALU stage per element, given the stage as a
/// closure (see [`with_stage`]).
pub(crate) trait StageLoop {
    /// Runs the loop with `f(data, other) = stage_arith(op, data, other, rev)`.
    fn run(self, f: impl Fn(f32, f32) -> f32 + Copy);
}

/// Calls `l.run` with the element function of `stage_arith(op, _, _, rev)` (the one
/// definition, [`crate::assumptions::stage_arith`]): a monomorphic closure for the common
/// ops, which the loop inlines and the compiler vectorises, bit for bit the same as
/// `stage_arith` (canonical NaN included; checked by `fast_arith_loops_match_numerics`);
/// every other op through `stage_arith` itself, element by element. Callers check the op
/// once per instruction ([`check_arith`]), so the fallback cannot fail; should it, the
/// element becomes the canonical NaN.
#[inline(always)]
pub(crate) fn with_stage(op: AluOp, rev: bool, l: impl StageLoop) {
    match (op, rev) {
        (AluOp::BYPASS, _) => l.run(|x, _| x),
        (AluOp::ADD, _) => l.run(|x, s| canon(x + s)),
        (AluOp::SUBTRACT, false) => l.run(|x, s| canon(x - s)),
        (AluOp::SUBTRACT, true) => l.run(|x, s| canon(s - x)),
        (AluOp::MULT, _) => l.run(|x, s| canon(x * s)),
        (AluOp::DIVIDE, false) => l.run(|x, s| canon(x / s)),
        (AluOp::DIVIDE, true) => l.run(|x, s| canon(s / x)),
        (AluOp::MAX, false) => l.run(|x, s| canon(max_num(x, s))),
        (AluOp::MAX, true) => l.run(|x, s| canon(max_num(s, x))),
        (AluOp::MIN, false) => l.run(|x, s| canon(min_num(x, s))),
        (AluOp::MIN, true) => l.run(|x, s| canon(min_num(s, x))),
        _ => l.run(move |x, s| {
            stage_arith(op, x, s, rev).unwrap_or(f32::from_bits(canonical_nan::FP32))
        }),
    }
}

/// [`StageLoop`] of [`arith`]: every element against one scalar.
struct MapScalar<'a> {
    xs: &'a mut [f32],
    s: f32,
}

impl StageLoop for MapScalar<'_> {
    #[inline(always)]
    fn run(self, f: impl Fn(f32, f32) -> f32 + Copy) {
        let s = self.s;
        map(self.xs, move |x| f(x, s));
    }
}

/// Whether [`bytes_fused`] and [`f32_fused`] handle `op`.
pub(crate) fn fusable(op: AluOp) -> bool {
    matches!(op, AluOp::BYPASS | AluOp::ADD | AluOp::MULT)
}

/// The stage `stage_arith(op, x, s, rev)` as a [`fusable`] op of the scalar, negated when
/// the flag says so, where that computes it bit for bit: the fusable ops themselves (ADD
/// and MULT ignore `rev`), and `x - s` as `x + (-s)` (IEEE 754 defines subtraction as the
/// addition of the negated operand, and a negation is exact; the canonical NaN is pinned
/// either way). `s - x` has no such form (it is `(-x) + s`, a change of the data).
pub(crate) fn fused_stage(op: AluOp, rev: bool) -> Option<(AluOp, bool)> {
    match (op, rev) {
        (AluOp::BYPASS | AluOp::ADD | AluOp::MULT, _) => Some((op, false)),
        (AluOp::SUBTRACT, false) => Some((AluOp::ADD, true)),
        _ => None,
    }
}

/// [`decode`] → [`arith`] → [`encode`] in one pass over the input bytes, for the ops of
/// [`fusable`] (ADD and MULT ignore `rev`) and the inputs of
/// [`crate::numerics::fusable_input`]: no f32 buffer between the stages, and the encoder
/// pins NaN results (what `canon` does in [`arith`]).
#[inline]
pub(crate) fn bytes_fused(
    op: AluOp,
    s: f32,
    in_dtype: Dtype,
    input: &[u8],
    dtype: Dtype,
    out: &mut [u8],
    cfg: &Fp8Config,
) {
    rows_fused(op, in_dtype, dtype, cfg, std::iter::once((s, input, out)));
}

/// [`bytes_fused`] over many rows `(scalar, input bytes, output bytes)` in one dispatched
/// call ([`encode_rows_with`]); `false` (no row consumed) for a pair of dtypes outside
/// [`rows_fusable`].
#[inline]
pub(crate) fn rows_fused<'r>(
    op: AluOp,
    in_dtype: Dtype,
    dtype: Dtype,
    cfg: &Fp8Config,
    rows: impl Iterator<Item = (f32, &'r [u8], &'r mut [u8])>,
) -> bool {
    let (i, o) = (in_dtype, dtype);
    match op {
        AluOp::ADD => encode_rows_with::<_, true>(i, o, cfg, rows, |s, x| x + s),
        AluOp::MULT => encode_rows_with::<_, true>(i, o, cfg, rows, |s, x| x * s),
        _ => encode_rows_with::<_, false>(i, o, cfg, rows, |_, x| x),
    }
}

/// [`bytes_fused`] for two stages of [`fusable`] ops (TensorScalar's op0 then op1 with
/// scalars `s0`, `s1`): decode → op0 → op1 → encode in one pass over the input bytes.
/// Rust rounds `x * s0 + s1` twice (never an FMA), as the staged path does, and the encoder
/// pins a NaN result, so the NaN pinned between the stages changes nothing. `false`
/// (nothing done) as for [`rows_fused2`].
#[inline]
#[allow(clippy::too_many_arguments)] // the two stages' ops and scalars, as in `bytes_fused`
pub(crate) fn bytes_fused2(
    (op0, s0): (AluOp, f32),
    (op1, s1): (AluOp, f32),
    in_dtype: Dtype,
    input: &[u8],
    dtype: Dtype,
    out: &mut [u8],
    cfg: &Fp8Config,
) -> bool {
    let row = std::iter::once(((s0, s1), input, out));
    rows_fused2(op0, op1, in_dtype, dtype, cfg, row)
}

/// [`bytes_fused2`] over many rows `((s0, s1), input bytes, output bytes)` in one dispatched
/// call; `false` (no row consumed) when the ops are not both [`fusable`] or the dtypes are
/// outside [`rows_fusable`].
#[inline]
pub(crate) fn rows_fused2<'r>(
    op0: AluOp,
    op1: AluOp,
    in_dtype: Dtype,
    dtype: Dtype,
    cfg: &Fp8Config,
    rows: impl Iterator<Item = ((f32, f32), &'r [u8], &'r mut [u8])>,
) -> bool {
    let (i, o) = (in_dtype, dtype);
    if !(fusable(op0) && fusable(op1) && rows_fusable(i, o)) {
        return false;
    }
    match (op0, op1) {
        (AluOp::MULT, AluOp::ADD) => {
            encode_rows_with::<_, true>(i, o, cfg, rows, |(s0, s1), x| x * s0 + s1)
        }
        (AluOp::ADD, AluOp::MULT) => {
            encode_rows_with::<_, true>(i, o, cfg, rows, |(s0, s1), x| (x + s0) * s1)
        }
        (AluOp::MULT, AluOp::MULT) => {
            encode_rows_with::<_, true>(i, o, cfg, rows, |(s0, s1), x| x * s0 * s1)
        }
        (AluOp::ADD, AluOp::ADD) => {
            encode_rows_with::<_, true>(i, o, cfg, rows, |(s0, s1), x| x + s0 + s1)
        }
        (AluOp::BYPASS, op) => rows_fused(op, i, o, cfg, rows.map(|((_, s1), a, b)| (s1, a, b))),
        (op, AluOp::BYPASS) => rows_fused(op, i, o, cfg, rows.map(|((s0, _), a, b)| (s0, a, b))),
        _ => false,
    }
}

/// [`arith`] (a [`fusable`] op) → [`encode`] in one pass over decoded values.
#[inline]
pub(crate) fn f32_fused(
    op: AluOp,
    s: f32,
    xs: &[f32],
    dtype: Dtype,
    out: &mut [u8],
    cfg: &Fp8Config,
) {
    match op {
        AluOp::ADD => encode_with::<_, true>(dtype, xs, out, cfg, move |x| x + s),
        AluOp::MULT => encode_with::<_, true>(dtype, xs, out, cfg, move |x| x * s),
        _ => encode_with::<_, false>(dtype, xs, out, cfg, move |x| x),
    };
}

/// [`decode`] then [`arith`] with a [`fusable`] op in one pass, for the inputs of
/// [`crate::numerics::fusable_input`]; `false` (nothing done) for any other input.
#[inline]
pub(crate) fn decode_fused(
    op: AluOp,
    s: f32,
    in_dtype: Dtype,
    input: &[u8],
    xs: &mut [f32],
    cfg: &Fp8Config,
) -> bool {
    if !crate::numerics::fusable_input(in_dtype) {
        return false;
    }
    match op {
        AluOp::ADD => decode_with(in_dtype, input, xs, cfg, move |x| canon(x + s)),
        AluOp::MULT => decode_with(in_dtype, input, xs, cfg, move |x| canon(x * s)),
        _ => decode_with(in_dtype, input, xs, cfg, move |x| x),
    };
    true
}

/// `x = stage_bitvec(op, x, s, rev, bits)` for every element (`bits` = 8, 16 or 32).
pub(crate) fn bitvec(op: AluOp, rev: bool, xs: &mut [u32], s: u32, bits: u32) {
    let mask = if bits >= 32 {
        u32::MAX
    } else {
        (1u32 << bits) - 1
    };
    let s = s & mask;
    simd::vectorize(
        #[inline(always)]
        || match op {
            AluOp::BYPASS => xs.iter_mut().for_each(|x| *x &= mask),
            AluOp::BITWISE_AND => xs.iter_mut().for_each(|x| *x &= s),
            AluOp::BITWISE_OR => xs.iter_mut().for_each(|x| *x = (*x | s) & mask),
            AluOp::BITWISE_XOR => xs.iter_mut().for_each(|x| *x = (*x ^ s) & mask),
            _ => xs
                .iter_mut()
                .for_each(|x| *x = stage_bitvec(op, *x, s, rev, bits).unwrap_or(0)),
        },
    );
}

/// `x = stage_int(op, x, s, rev, signed)` for every element.
pub(crate) fn int(op: AluOp, rev: bool, xs: &mut [u32], s: u32, signed: bool) {
    xs.iter_mut()
        .for_each(|x| *x = stage_int(op, *x, s, rev, signed).unwrap_or(0));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn specials() -> Vec<f32> {
        let mut v = vec![
            0.0,
            -0.0,
            1.0,
            -1.0,
            1.5,
            -2.75,
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::NAN,
            f32::from_bits(0xFF80_0001),
            f32::from_bits(1),
            f32::from_bits(0x8000_0001),
            f32::MAX,
            f32::MIN,
            3.0e38,
            1.0e-40,
        ];
        let mut x: u32 = 0x1234_5678;
        for _ in 0..200 {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            v.push(f32::from_bits(x));
        }
        v
    }

    /// `fused_stage` names, for every op code and order it accepts, a fusable op whose
    /// stage on the (negated) scalar equals the op's own stage, bit for bit.
    #[test]
    fn fused_stages_compute_their_op() {
        let v = specials();
        let mut accepted = 0;
        for code in 0..=255u8 {
            for rev in [false, true] {
                let op = AluOp(code);
                let Some((f, negate)) = fused_stage(op, rev) else {
                    continue;
                };
                accepted += 1;
                assert!(fusable(f), "{op}");
                for &x in &v {
                    for &s in &v {
                        let want = stage_arith(op, x, s, rev).unwrap();
                        let t = if negate { -s } else { s };
                        let got = stage_arith(f, x, t, false).unwrap();
                        assert_eq!(got.to_bits(), want.to_bits(), "{op} rev {rev}: {x} {s}");
                    }
                }
            }
        }
        assert_eq!(accepted, 7, "BYPASS, ADD, MULT both ways, SUBTRACT one way");
    }

    /// The shortcut in `check_arith` agrees with evaluating the op, for every op code.
    #[test]
    fn check_arith_agrees_with_the_alu() {
        for code in 0..=255u8 {
            let op = AluOp(code);
            let want = stage_arith(op, 1.0, 1.0, false).map(|_| ());
            assert_eq!(check_arith(op), want, "{op}");
        }
    }

    #[test]
    fn fast_arith_loops_match_numerics() {
        let v = specials();
        for op in [
            AluOp::BYPASS,
            AluOp::ADD,
            AluOp::SUBTRACT,
            AluOp::MULT,
            AluOp::DIVIDE,
            AluOp::MAX,
            AluOp::MIN,
            AluOp::IS_GE,
            AluOp::ABSOLUTE_DIFF,
        ] {
            for rev in [false, true] {
                for &s in &v {
                    let mut xs = v.clone();
                    arith(op, rev, &mut xs, s);
                    for (&x, &got) in v.iter().zip(&xs) {
                        let want = stage_arith(op, x, s, rev).unwrap();
                        assert_eq!(got.to_bits(), want.to_bits(), "{op} rev {rev} {x} {s}");
                    }
                }
            }
        }
    }

    #[test]
    fn inlined_fp32_codecs_match_numerics() {
        let cfg = Fp8Config::default();
        let v = specials();
        let bytes: Vec<u8> = v.iter().flat_map(|x| x.to_le_bytes()).collect();
        let (mut a, mut b) = (vec![0f32; v.len()], vec![0f32; v.len()]);
        decode(Dtype::FP32, &bytes, &mut a, &cfg);
        decode_slice_to_f32(Dtype::FP32, &bytes, &mut b, &cfg);
        assert!(a.iter().zip(&b).all(|(x, y)| x.to_bits() == y.to_bits()));
        for d in [Dtype::FP32, Dtype::FP32R] {
            let (mut a, mut b) = (vec![0u8; bytes.len()], vec![1u8; bytes.len()]);
            encode(d, &v, &mut a, &cfg);
            encode_slice_from_f32(d, &v, &mut b, &cfg);
            assert_eq!(a, b);
        }
    }

    /// The fused paths (from FP32 and BF16 bytes, and from decoded values) against
    /// decode → arith → BYPASS → encode, bit for bit, for every datapath output dtype and FP8
    /// configuration (NaNs of both signs included).
    /// Inputs of the fused-path tests: values (specials, FP8 range edges, a ramp) and their
    /// FP32 and BF16 bytes (BF16 with the low mantissa bit flipped).
    fn fused_inputs(ramp: bool) -> (Vec<f32>, Vec<(Dtype, Vec<u8>)>) {
        let mut v = specials();
        v.extend([
            f32::from_bits(0xFFC0_0000),
            448.0,
            464.0,
            -240.0,
            57344.0,
            1e-3,
        ]);
        if ramp {
            v.extend((0..200).map(|i| (i as f32 - 100.0) * 0.37));
        }
        let fp32: Vec<u8> = v.iter().flat_map(|x| x.to_le_bytes()).collect();
        let bf16: Vec<u8> = v
            .iter()
            .flat_map(|x| ((x.to_bits() >> 16) as u16 ^ 1).to_le_bytes())
            .collect();
        // FP16: the values' f16 images with the low bit flipped, and signalling NaNs.
        let fp16: Vec<u8> = v
            .iter()
            .enumerate()
            .flat_map(|(i, x)| {
                let h = match i % 17 {
                    3 => 0x7C01,
                    4 => 0xFD55,
                    _ => half::f16::from_f32(*x).to_bits() ^ 1,
                };
                h.to_le_bytes()
            })
            .collect();
        // FP8: every byte value along the list.
        let fp8: Vec<u8> = (0..v.len()).map(|i| (i * 37 + 11) as u8).collect();
        let inputs = vec![
            (Dtype::FP32, fp32),
            (Dtype::BFLOAT16, bf16),
            (Dtype::FP16, fp16),
            (Dtype::FP8_EXP3, fp8.clone()),
            (Dtype::FP8_EXP4, fp8.clone()),
            (Dtype::FP8_EXP5, fp8),
        ];
        (v, inputs)
    }

    /// At every SIMD level this CPU has (`numerics::simd`).
    #[test]
    fn fused_paths_match_the_staged_path() {
        for level in simd::available() {
            simd::with_level(level, fused_paths_match_the_staged_path_at_this_level).unwrap();
        }
    }

    fn fused_paths_match_the_staged_path_at_this_level() {
        use crate::numerics::E4m3Variant;
        let (v, inputs) = fused_inputs(true);
        let dtypes = [
            Dtype::FP32,
            Dtype::FP32R,
            Dtype::BFLOAT16,
            Dtype::FP16,
            Dtype::FP8_EXP3,
            Dtype::FP8_EXP4,
            Dtype::FP8_EXP5,
            Dtype::UINT8,
            Dtype::INT8,
            Dtype::UINT16,
            Dtype::INT16,
            Dtype::UINT32,
            Dtype::INT32,
        ];
        for e4m3 in [E4m3Variant::Ieee, E4m3Variant::FiniteOnly] {
            for ocp_sat in [false, true] {
                let cfg = Fp8Config { ocp_sat, e4m3 };
                for dtype in dtypes {
                    let size = dtype.size().unwrap();
                    for op in [AluOp::BYPASS, AluOp::ADD, AluOp::MULT] {
                        assert!(fusable(op));
                        for (din, bytes) in inputs.iter().map(|(d, b)| (*d, b)) {
                            assert!(crate::numerics::fusable_input(din));
                            for &s in &v[..40] {
                                let mut xs = vec![0f32; v.len()];
                                decode(din, bytes, &mut xs, &cfg);
                                let decoded = xs.clone();
                                arith(op, false, &mut xs, s);
                                let mut staged = vec![0f32; v.len()];
                                assert!(decode_fused(op, s, din, bytes, &mut staged, &cfg));
                                let bits =
                                    |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
                                assert_eq!(bits(&staged), bits(&xs), "{din} {op} s {s}");
                                arith(AluOp::BYPASS, false, &mut xs, 0.0);
                                let mut want = vec![0u8; v.len() * size];
                                encode(dtype, &xs, &mut want, &cfg);
                                let mut got = vec![0xA5u8; v.len() * size];
                                bytes_fused(op, s, din, bytes, dtype, &mut got, &cfg);
                                assert_eq!(got, want, "{din}->{dtype} {op} s {s} {cfg:?}");
                                let mut got = vec![0xA5u8; v.len() * size];
                                f32_fused(op, s, &decoded, dtype, &mut got, &cfg);
                                assert_eq!(got, want, "{din}->{dtype} {op} s {s} {cfg:?}");
                                // ADD and MULT commute, so `rev` does not matter.
                                let mut rev = decoded.clone();
                                arith(op, true, &mut rev, s);
                                arith(AluOp::BYPASS, true, &mut rev, 0.0);
                                let mut w2 = vec![0u8; v.len() * size];
                                encode(dtype, &rev, &mut w2, &cfg);
                                assert_eq!(w2, want, "{din}->{dtype} {op} rev s {s}");
                            }
                        }
                    }
                }
            }
        }
    }

    /// The two-stage fused path against decode → arith(op0) → arith(op1) → encode, bit for
    /// bit, for every pair of fusable ops, FP32 and BF16 inputs, every datapath output dtype
    /// and FP8 configuration.
    /// At every SIMD level this CPU has (`numerics::simd`).
    #[test]
    fn two_stage_fused_path_matches_the_staged_path() {
        for level in simd::available() {
            simd::with_level(
                level,
                two_stage_fused_path_matches_the_staged_path_at_this_level,
            )
            .unwrap();
        }
    }

    fn two_stage_fused_path_matches_the_staged_path_at_this_level() {
        use crate::numerics::E4m3Variant;
        let (v, inputs) = fused_inputs(false);
        let ops = [AluOp::BYPASS, AluOp::ADD, AluOp::MULT];
        let dtypes = [
            Dtype::FP32,
            Dtype::BFLOAT16,
            Dtype::FP16,
            Dtype::FP8_EXP3,
            Dtype::FP8_EXP4,
            Dtype::FP8_EXP5,
            Dtype::INT8,
            Dtype::UINT16,
            Dtype::INT32,
        ];
        let scalars = [1.5f32, -0.0, f32::NAN, 3.0e38, -2.5e-3, f32::INFINITY];
        for e4m3 in [E4m3Variant::Ieee, E4m3Variant::FiniteOnly] {
            for ocp_sat in [false, true] {
                let cfg = Fp8Config { ocp_sat, e4m3 };
                for dtype in dtypes {
                    let size = dtype.size().unwrap();
                    for (din, bytes) in inputs.iter().map(|(d, b)| (*d, b)) {
                        for (op0, op1) in ops.iter().flat_map(|&a| ops.map(|b| (a, b))) {
                            for (s0, s1) in scalars.iter().zip(scalars.iter().rev()) {
                                let mut xs = vec![0f32; v.len()];
                                decode(din, bytes, &mut xs, &cfg);
                                arith(op0, false, &mut xs, *s0);
                                arith(op1, true, &mut xs, *s1);
                                let mut want = vec![0u8; v.len() * size];
                                encode(dtype, &xs, &mut want, &cfg);
                                let mut got = vec![0xA5u8; v.len() * size];
                                let stages = ((op0, *s0), (op1, *s1));
                                assert!(bytes_fused2(
                                    stages.0, stages.1, din, bytes, dtype, &mut got, &cfg
                                ));
                                assert_eq!(got, want, "{din}->{dtype} {op0} {s0} {op1} {s1}");
                            }
                        }
                    }
                }
            }
        }
        let mut out = [0u8; 4];
        let int32 = [0u8; 4];
        let stages = ((AluOp::MULT, 1.0), (AluOp::ADD, 1.0));
        let (a, b) = stages;
        assert!(!bytes_fused2(
            a,
            b,
            Dtype::INT32,
            &int32,
            Dtype::FP32,
            &mut out,
            &Fp8Config::default()
        ));
    }

    #[test]
    fn fast_bitvec_loops_match_numerics() {
        let v: Vec<u32> = (0..64u32)
            .map(|i| i.wrapping_mul(0x9E37_79B9) ^ (i << 3))
            .collect();
        for bits in [8, 16, 32] {
            for op in [
                AluOp::BYPASS,
                AluOp::BITWISE_AND,
                AluOp::BITWISE_OR,
                AluOp::BITWISE_XOR,
                AluOp::LOGICAL_SHIFT_LEFT,
                AluOp::ARITH_SHIFT_RIGHT,
            ] {
                for rev in [false, true] {
                    for &s in &v[..8] {
                        let mask = if bits == 32 {
                            u32::MAX
                        } else {
                            (1 << bits) - 1
                        };
                        let mut xs: Vec<u32> = v.iter().map(|x| x & mask).collect();
                        let orig = xs.clone();
                        bitvec(op, rev, &mut xs, s, bits);
                        for (&x, &got) in orig.iter().zip(&xs) {
                            let want = stage_bitvec(op, x, s, rev, bits).unwrap();
                            assert_eq!(got, want, "{op} {bits} rev {rev} {x:#x} {s:#x}");
                        }
                    }
                }
            }
        }
    }
}
