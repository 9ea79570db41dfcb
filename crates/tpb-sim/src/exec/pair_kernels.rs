//! Chunk loops of the multi-input and folding executors' dense paths (`dense`): a stage
//! between decoded values and a second tensor's bytes, decoded in the same loop, and the
//! sequential folds of the DVE accumulator. Each stage is [`kernels::with_stage`]'s element
//! function, so the values are `stage_arith`'s bit for bit; the executors' plain element
//! walks are the reference these are differentially tested against
//! (`tests/dve_fast_paths.rs`, at every SIMD level).
//!
//! The `_in` forms have no dispatch of their own: a dense executor runs its whole
//! instruction inside one `simd::vectorize` and calls them there, so that the per-level
//! code is compiled once for the instruction's loops and the level is looked up once.

use super::kernels::{self, with_stage, StageLoop};
use crate::numerics::{simd, Fp8Config};
use tpb_isa::{AluOp, Dtype};

/// `xs[i] = stage_arith(op, xs[i], y[i], rev)`, `y` the `in_dtype` elements of `bytes`
/// (as many as `xs` holds), decoded in the same loop for the float inputs; `ys` is scratch
/// for the inputs decoded into a block first (FP16 through F16C, the integers).
#[inline(always)]
pub(crate) fn combine_in(
    (op, rev): (AluOp, bool),
    xs: &mut [f32],
    (in_dtype, bytes): (Dtype, &[u8]),
    ys: &mut [f32],
    cfg: &Fp8Config,
) {
    if !crate::numerics::fusable_input(in_dtype) || in_dtype == Dtype::FP16 {
        let ys = &mut ys[..xs.len()];
        crate::numerics::decode_values(in_dtype, bytes, ys, cfg);
        with_stage(op, rev, Pairs { xs, ys });
        return;
    }
    with_stage(
        op,
        rev,
        PairBytes {
            xs,
            in_dtype,
            bytes,
            cfg,
        },
    );
}

/// TensorTensor on FP32 bytes in one loop: `out[i] = stage_arith(op, a[i], b[i], false)`,
/// FP32 in and out (no conversion: the bits are the values).
#[inline(always)]
pub(crate) fn fp32_tt_in(op: AluOp, a: &[u8], b: &[u8], out: &mut [u8]) {
    with_stage(op, false, Fp32Zip { a, b, out });
}

/// ScalarTensorTensor on FP32 bytes in one loop:
/// `out[i] = stage(op1, stage(op0, a[i], s, rev0), b[i], rev1)`, FP32 in and out.
#[inline(always)]
pub(crate) fn fp32_stt_in(
    (op0, op1): (AluOp, AluOp),
    (rev0, rev1): (bool, bool),
    s: f32,
    (a, b): (&[u8], &[u8]),
    out: &mut [u8],
) {
    with_stage(
        op0,
        rev0,
        SttOuter {
            op1,
            rev1,
            s,
            a,
            b,
            out,
        },
    );
}

/// `out[i] = f(a[i], b[i])` over FP32 bytes.
#[inline(always)]
fn fp32_zip(a: &[u8], b: &[u8], out: &mut [u8], f: impl Fn(f32, f32) -> f32) {
    let ab = a.as_chunks::<4>().0.iter().zip(b.as_chunks::<4>().0);
    for (o, (&x, &y)) in out.as_chunks_mut::<4>().0.iter_mut().zip(ab) {
        *o = f(f32::from_le_bytes(x), f32::from_le_bytes(y)).to_le_bytes();
    }
}

/// [`StageLoop`] of [`fp32_tt_in`].
struct Fp32Zip<'a> {
    a: &'a [u8],
    b: &'a [u8],
    out: &'a mut [u8],
}

impl StageLoop for Fp32Zip<'_> {
    #[inline(always)]
    fn run(self, f: impl Fn(f32, f32) -> f32 + Copy) {
        fp32_zip(self.a, self.b, self.out, f);
    }
}

/// [`StageLoop`] of [`fp32_stt_in`]'s first stage.
struct SttOuter<'a> {
    op1: AluOp,
    rev1: bool,
    s: f32,
    a: &'a [u8],
    b: &'a [u8],
    out: &'a mut [u8],
}

impl StageLoop for SttOuter<'_> {
    #[inline(always)]
    fn run(self, f0: impl Fn(f32, f32) -> f32 + Copy) {
        let inner = SttInner {
            f0,
            s: self.s,
            a: self.a,
            b: self.b,
            out: self.out,
        };
        with_stage(self.op1, self.rev1, inner);
    }
}

/// [`StageLoop`] of [`fp32_stt_in`]'s second stage.
struct SttInner<'a, F> {
    f0: F,
    s: f32,
    a: &'a [u8],
    b: &'a [u8],
    out: &'a mut [u8],
}

impl<F: Fn(f32, f32) -> f32 + Copy> StageLoop for SttInner<'_, F> {
    #[inline(always)]
    fn run(self, f1: impl Fn(f32, f32) -> f32 + Copy) {
        let (f0, s) = (self.f0, self.s);
        fp32_zip(self.a, self.b, self.out, |x, y| f1(f0(x, s), y));
    }
}

/// `acc[i] = stage_arith(op, acc[i], xs[i], false)`: one more row folded into running
/// folds, element by element.
#[inline(always)]
pub(crate) fn fold_rows_in(op: AluOp, acc: &mut [f32], xs: &[f32]) {
    with_stage(op, false, Pairs { xs: acc, ys: xs });
}

/// [`StageLoop`] over two decoded chunks.
struct Pairs<'a> {
    xs: &'a mut [f32],
    ys: &'a [f32],
}

impl StageLoop for Pairs<'_> {
    #[inline(always)]
    fn run(self, f: impl Fn(f32, f32) -> f32 + Copy) {
        for (x, &y) in self.xs.iter_mut().zip(self.ys) {
            *x = f(*x, y);
        }
    }
}

/// [`StageLoop`] over decoded values and the bytes of a float input.
struct PairBytes<'a> {
    xs: &'a mut [f32],
    in_dtype: Dtype,
    bytes: &'a [u8],
    cfg: &'a Fp8Config,
}

impl StageLoop for PairBytes<'_> {
    #[inline(always)]
    fn run(self, f: impl Fn(f32, f32) -> f32 + Copy) {
        let xs = self.xs;
        match self.in_dtype {
            Dtype::BFLOAT16 => {
                for (x, &b) in xs.iter_mut().zip(self.bytes.as_chunks::<2>().0) {
                    *x = f(*x, f32::from_bits(u32::from(u16::from_le_bytes(b)) << 16));
                }
            }
            Dtype::FP8_EXP3 | Dtype::FP8_EXP4 | Dtype::FP8_EXP5 => {
                let t = crate::numerics::fp8_decode_table(self.in_dtype, self.cfg);
                for (x, &b) in xs.iter_mut().zip(self.bytes) {
                    *x = f(*x, f32::from_bits(t[usize::from(b)]));
                }
            }
            // FP32 and FP32R (the caller sends everything else to `Pairs`).
            _ => {
                for (x, &b) in xs.iter_mut().zip(self.bytes.as_chunks::<4>().0) {
                    *x = f(*x, f32::from_le_bytes(b));
                }
            }
        }
    }
}

/// Decodes the datapath `in_dtype` bytes into `xs` and applies `stage_arith(op, x, s, rev)`.
#[inline(always)]
pub(crate) fn decode_stage_in(
    (op, s, rev): (AluOp, f32, bool),
    in_dtype: Dtype,
    bytes: &[u8],
    xs: &mut [f32],
    cfg: &Fp8Config,
) {
    crate::numerics::decode_values(in_dtype, bytes, xs, cfg);
    if op != AluOp::BYPASS {
        kernels::arith_in(op, rev, xs, s);
    }
}

/// Encodes `xs` into the datapath `dtype` (`from_f32`'s bits).
#[inline(always)]
pub(crate) fn encode_in(dtype: Dtype, xs: &[f32], out: &mut [u8], cfg: &Fp8Config) {
    crate::numerics::encode_f32_values::<false>(
        crate::numerics::simd::token(),
        dtype,
        xs,
        out,
        cfg,
    );
}

/// The sequential fold `acc = stage_arith(op, x, acc, false)` over `xs` in order (the cache
/// ops' `op1(tmp, acc)`; STT's accumulate is this with ADD, which commutes); with
/// `running`, each `x` is replaced by the accumulator after it. Returns the accumulator.
///
/// For ADD, SUBTRACT, MULT, MAX and MIN the chain skips the canonical-NaN pin of each step
/// and pins what leaves it instead (the values written with `running`, and the result), so
/// that a step's latency is the op's alone: the arithmetic ops keep a NaN once it appears,
/// whatever its payload, and `max_num` / `min_num` look at NaN-ness only, so every step's
/// value is the pinned chain's up to the bits of a NaN (checked against the plain walks in
/// `tests/dve_fast_paths.rs`, NaN payloads included).
pub(crate) fn fold(op: AluOp, xs: &mut [f32], acc: f32, running: bool) -> f32 {
    use crate::numerics::alu::{max_num, min_num};
    if xs.is_empty() {
        return acc; // no step: not even a pin
    }
    match op {
        AluOp::ADD => chain(xs, acc, running, |x, a| x + a),
        AluOp::SUBTRACT => chain(xs, acc, running, |x, a| x - a),
        AluOp::MULT => chain(xs, acc, running, |x, a| x * a),
        // Not running: the order does not matter (see `join`).
        AluOp::MAX if !running => {
            join::<true>(xs, |_| true).map_or(acc, |m| kernels::canon(max_num(m, acc)))
        }
        AluOp::MIN if !running => {
            join::<false>(xs, |_| true).map_or(acc, |m| kernels::canon(min_num(m, acc)))
        }
        AluOp::MAX => chain(xs, acc, running, max_num),
        AluOp::MIN => chain(xs, acc, running, min_num),
        _ => {
            let mut l = Fold { xs, acc, running };
            with_stage(op, false, &mut l);
            l.acc
        }
    }
}

/// The unpinned chain of [`fold`].
#[inline(always)]
fn chain(xs: &mut [f32], mut acc: f32, running: bool, f: impl Fn(f32, f32) -> f32) -> f32 {
    if running {
        for x in xs.iter_mut() {
            acc = f(*x, acc);
            *x = kernels::canon(acc);
        }
    } else {
        for &x in xs.iter() {
            acc = f(x, acc);
        }
    }
    kernels::canon(acc)
}

struct Fold<'a> {
    xs: &'a mut [f32],
    acc: f32,
    running: bool,
}

impl StageLoop for &mut Fold<'_> {
    #[inline(always)]
    fn run(self, f: impl Fn(f32, f32) -> f32 + Copy) {
        let mut acc = self.acc;
        if self.running {
            for x in self.xs.iter_mut() {
                acc = f(*x, acc);
                *x = acc;
            }
        } else {
            for &x in self.xs.iter() {
                acc = f(x, acc);
            }
        }
        self.acc = acc;
    }
}

/// TensorTensorScan's recurrence over a chunk (`scan_step`, isa-facts-dve-pool Q16):
/// `r = stage(op1, stage(op0, x[i], r, rev0), y[i], rev1)`, `x[i] = r`; returns `r`.
pub(crate) fn scan(
    (op0, op1): (AluOp, AluOp),
    (rev0, rev1): (bool, bool),
    xs: &mut [f32],
    ys: &[f32],
    r: f32,
) -> f32 {
    let mut l = ScanOuter {
        op1,
        rev1,
        xs,
        ys,
        r,
    };
    with_stage(op0, rev0, &mut l);
    l.r
}

struct ScanOuter<'a> {
    op1: AluOp,
    rev1: bool,
    xs: &'a mut [f32],
    ys: &'a [f32],
    r: f32,
}

impl StageLoop for &mut ScanOuter<'_> {
    #[inline(always)]
    fn run(self, f0: impl Fn(f32, f32) -> f32 + Copy) {
        let mut inner = ScanInner {
            f0,
            xs: &mut *self.xs,
            ys: self.ys,
            r: self.r,
        };
        with_stage(self.op1, self.rev1, &mut inner);
        self.r = inner.r;
    }
}

struct ScanInner<'a, F> {
    f0: F,
    xs: &'a mut [f32],
    ys: &'a [f32],
    r: f32,
}

impl<F: Fn(f32, f32) -> f32 + Copy> StageLoop for &mut ScanInner<'_, F> {
    #[inline(always)]
    fn run(self, f1: impl Fn(f32, f32) -> f32 + Copy) {
        let (f0, mut r) = (self.f0, self.r);
        for (x, &y) in self.xs.iter_mut().zip(self.ys) {
            r = f1(f0(*x, r), y);
            *x = r;
        }
        self.r = r;
    }
}

/// Lanes of [`join`]: independent running results the compiler keeps in one vector.
const JOIN_LANES: usize = 16;

/// The `max_num` (`MAX`) or `min_num` fold as integer keys: both order the numbers totally
/// with −0 below +0 and ignore a NaN (a NaN results only when every value is one), so the
/// fold is the maximum (minimum) under that order whatever the order of the steps. It is
/// computed on integer keys that sort as that order (the sign-magnitude bits turned two's
/// complement; a NaN is the bottom) in [`JOIN_LANES`] independent lanes, which the compiler
/// keeps in one vector register (fixed-size blocks, no branch).
#[derive(Clone, Copy)]
pub(crate) struct KeyLanes<const MAX: bool> {
    m: [i32; JOIN_LANES],
}

impl<const MAX: bool> KeyLanes<MAX> {
    /// The key of every NaN (i32::MIN and i32::MAX are keys of NaN bit patterns only).
    pub(crate) const BOTTOM: i32 = if MAX { i32::MIN } else { i32::MAX };

    /// No value folded yet.
    pub(crate) const fn new() -> Self {
        Self {
            m: [Self::BOTTOM; JOIN_LANES],
        }
    }

    /// The key of `x` (a bijection on the bits of non-NaN values).
    #[inline(always)]
    pub(crate) fn key(x: f32) -> i32 {
        let i = x.to_bits() as i32;
        if x.is_nan() {
            Self::BOTTOM
        } else {
            i ^ (((i >> 31) as u32) >> 1) as i32
        }
    }

    /// The value of key `k` (the canonical NaN for the bottom).
    #[inline(always)]
    pub(crate) fn value(k: i32) -> f32 {
        if k == Self::BOTTOM {
            f32::from_bits(crate::numerics::canonical_nan::FP32)
        } else {
            f32::from_bits((k ^ (((k >> 31) as u32) >> 1) as i32) as u32)
        }
    }

    /// The larger (`MAX`) or smaller of two keys.
    #[inline(always)]
    pub(crate) fn pick(a: i32, b: i32) -> i32 {
        if MAX {
            a.max(b)
        } else {
            a.min(b)
        }
    }

    /// Folds in one value.
    #[inline(always)]
    pub(crate) fn one(&mut self, x: f32) {
        self.m[0] = Self::pick(self.m[0], Self::key(x));
    }

    /// Folds in every value of `xs`.
    #[inline(always)]
    pub(crate) fn all(&mut self, xs: &[f32]) {
        let (blocks, rest) = xs.as_chunks::<JOIN_LANES>();
        for b in blocks {
            for (m, &x) in self.m.iter_mut().zip(b) {
                *m = Self::pick(*m, Self::key(x));
            }
        }
        rest.iter().for_each(|&x| self.one(x));
    }

    /// Folds in every `S`-byte element of `bytes`, decoded by `dec` (in the same loop).
    #[inline(always)]
    pub(crate) fn all_bytes<const S: usize>(&mut self, bytes: &[u8], dec: impl Fn([u8; S]) -> f32) {
        let (els, _) = bytes.as_chunks::<S>();
        let (blocks, rest) = els.as_chunks::<JOIN_LANES>();
        for b in blocks {
            for (m, &x) in self.m.iter_mut().zip(b) {
                *m = Self::pick(*m, Self::key(dec(x)));
            }
        }
        rest.iter().for_each(|&x| self.one(dec(x)));
    }

    /// The fold's key so far ([`Self::BOTTOM`] if every value was a NaN or none came).
    #[inline(always)]
    pub(crate) fn best(&self) -> i32 {
        self.m.into_iter().fold(Self::BOTTOM, Self::pick)
    }

    /// The fold of the values so far (the canonical NaN if every one was a NaN; call
    /// after at least one value).
    #[inline(always)]
    pub(crate) fn result(&self) -> f32 {
        Self::value(self.best())
    }
}

/// The fold of `max_num` (`max`) or `min_num` over the `ys[i]` whose `keep[i]` holds, or
/// `None` if none does ([`KeyLanes`]: the order of the steps does not matter). A caller
/// folds the result into its accumulator with one more `alu_arith` step, which pins a NaN
/// to the canonical one: the same bits as the sequential fold (checked against it in
/// `tests/dve_fast_paths.rs` and `exec::reduce`'s tests).
#[inline(always)]
pub(crate) fn join<const MAX: bool>(ys: &[f32], keep: impl Fn(usize) -> bool) -> Option<f32> {
    let mut lanes = KeyLanes::<MAX>::new();
    let mut any = false;
    let (blocks, rest) = ys.as_chunks::<JOIN_LANES>();
    simd::vectorize(
        #[inline(always)]
        || {
            for (b, block) in blocks.iter().enumerate() {
                let mut kept = false;
                for (j, (m, &y)) in lanes.m.iter_mut().zip(block).enumerate() {
                    let k = keep(b * JOIN_LANES + j);
                    kept |= k;
                    let key = KeyLanes::<MAX>::key(y);
                    *m = KeyLanes::<MAX>::pick(*m, if k { key } else { KeyLanes::<MAX>::BOTTOM });
                }
                any |= kept;
            }
        },
    );
    let base = blocks.len() * JOIN_LANES;
    for (j, &y) in rest.iter().enumerate() {
        if keep(base + j) {
            any = true;
            lanes.one(y);
        }
    }
    any.then(|| lanes.result())
}

/// `keep[i]` = whether the `size`-byte element `i` of `bytes` is nonzero (a predicate's raw
/// bits, as the plain walks test them).
#[inline(always)]
pub(crate) fn nonzero_in(size: usize, bytes: &[u8], keep: &mut [bool]) {
    match size {
        1 => keep.iter_mut().zip(bytes).for_each(|(k, &b)| *k = b != 0),
        2 => keep
            .iter_mut()
            .zip(bytes.as_chunks::<2>().0)
            .for_each(|(k, &b)| *k = u16::from_ne_bytes(b) != 0),
        _ => keep
            .iter_mut()
            .zip(bytes.as_chunks::<4>().0)
            .for_each(|(k, &b)| *k = u32::from_ne_bytes(b) != 0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::numerics::alu::{max_num, min_num};

    /// The lane-parallel join against the sequential `alu_arith` fold from each lane's
    /// first kept value, bit for bit, over ±0, ±inf, NaNs of both signs and payloads,
    /// subnormals and random masks, at every SIMD level.
    #[test]
    fn join_matches_the_sequential_fold() {
        let pool = [
            0.0f32,
            -0.0,
            1.5,
            -1.5,
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::NAN,
            f32::from_bits(0xFFC1_2345),
            f32::from_bits(0x7F80_0001),
            f32::from_bits(1),
            f32::from_bits(0x8000_0001),
            f32::MAX,
            f32::MIN,
        ];
        let mut state = 0x9E37_79B9u32;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            state
        };
        for level in simd::available() {
            simd::with_level(level, || {
                for len in [0usize, 1, 5, 16, 17, 40, 100] {
                    for _ in 0..200 {
                        let ys: Vec<f32> = (0..len)
                            .map(|_| pool[next() as usize % pool.len()])
                            .collect();
                        let keep: Vec<bool> = (0..len).map(|_| next() % 3 != 0).collect();
                        for (max, f) in [(true, max_num as fn(f32, f32) -> f32), (false, min_num)] {
                            let join = |ys: &[f32], keep: &dyn Fn(usize) -> bool| {
                                if max {
                                    join::<true>(ys, keep)
                                } else {
                                    join::<false>(ys, keep)
                                }
                            };
                            let kept: Vec<f32> = ys
                                .iter()
                                .zip(&keep)
                                .filter(|p| *p.1)
                                .map(|p| *p.0)
                                .collect();
                            let want = kept.split_first().map(|(&first, rest)| {
                                kernels::canon(rest.iter().fold(first, |a, &y| f(a, y)))
                            });
                            let got = join(&ys, &|i| keep[i]).map(kernels::canon);
                            assert_eq!(
                                got.map(f32::to_bits),
                                want.map(f32::to_bits),
                                "{level} max {max} {ys:?} {keep:?}"
                            );
                        }
                    }
                }
            })
            .unwrap();
        }
    }
}
