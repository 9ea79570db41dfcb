//! Element numerics: dtype codecs around the FP32 hub, and the ALU ops (decisions §4).
//!
//! This module knows nothing about instructions. It offers:
//! - [`to_f32`] / [`from_f32`]: one element's raw bits ⇄ FP32 (decisions §4.1, §4.4–4.7),
//!   and the slice forms [`decode_slice_to_f32`] / [`encode_slice_from_f32`] for hot loops;
//! - [`alu_arith`] (FP32 path), [`alu_bitvec`] (raw bits), [`alu_int`] (integer band);
//! - [`simd`]: the runtime CPU-feature dispatch the slice loops run under (AVX-512, AVX2,
//!   baseline; bit-identical at every level), and how a new kernel plugs into it.
//!
//! Guarantees:
//! - No function here panics, whatever the input. A dtype without a datapath meaning
//!   (see [`is_datapath_dtype`]) decodes to NaN and encodes to 0; an op a path cannot
//!   perform is a [`NumError`].
//! - Results do not depend on the host: Rust never contracts `a * b + c` into an FMA, never
//!   flushes subnormals, and every NaN an ALU op creates is pinned to one pattern (x86 would
//!   give `0xFFC0_0000` for `0/0`, Arm `0x7FC0_0000`).
//! - Against ml_dtypes 0.6.0 / numpy 2.4.6 the codecs are bit-exact, NaN payloads included
//!   (see [`canonical_nan`]), checked by `tests/numerics.rs` on committed fixtures.

pub(crate) mod alu;
mod fp8_table;
mod minifloat;
// Issue 18a: the PE dot product in our documented order and the ACT functions.
pub mod act;
pub(crate) mod act_block;
pub mod pe;
pub mod simd;

pub use alu::{alu_arith, alu_bitvec, alu_int, alu_int_as, IntWord};
pub(crate) use alu::{max_num, min_num};

use fp8_table::Fp8EncodeTable;
use minifloat::Minifloat;
use std::fmt;
use tpb_isa::{AluOp, CodeEnum, Dtype};

/// The canonical NaN of each float dtype: the only place these patterns are decided.
///
/// Every value is the positive quiet NaN; encoders OR in the input's sign bit.
/// - FP8 and BF16: the patterns ml_dtypes 0.6.0 produces for every f32 NaN (any payload),
///   so encoding NaN is bit-exact with ml_dtypes.
/// - FP16: `0x7E00`, the VFPU's documented canonical qNaN (isa-facts §12.2), for a NaN an
///   ALU op produces (the canonical FP32 NaN). Any other f32 NaN narrows as numpy does
///   (decisions §4.4): the top 10 payload bits, kept signalling (`0x7F80_0001` → `0x7C01`,
///   `0x7FC1_2345` → `0x7E09`).
/// - FP32: the NaN that [`alu_arith`] returns whenever an op creates or propagates a NaN.
///   FP32/FP32R *outputs* are stored bit-for-bit (no conversion), so a payload that reaches
///   them untouched (e.g. through BYPASS) is kept.
///
/// Decoding: an FP8 NaN decodes to `sign | FP32` (as ml_dtypes does); BF16/FP16 NaNs widen
/// exactly as numpy/ml_dtypes widen them, payload and quiet bit kept (a signalling NaN stays
/// signalling; bf16 widening is a 16-bit shift on the hardware, decisions §4.4).
pub mod canonical_nan {
    /// FP32 / FP32R.
    pub const FP32: u32 = 0x7FC0_0000;
    /// BFLOAT16.
    pub const BF16: u32 = 0x7FC0;
    /// FP16.
    pub const FP16: u32 = 0x7E00;
    /// FP8_EXP3 (E3M4, ml_dtypes `float8_e3m4`).
    pub const E3M4: u32 = 0x78;
    /// FP8_EXP4, IEEE-like variant (ml_dtypes `float8_e4m3`).
    pub const E4M3: u32 = 0x7C;
    /// FP8_EXP4, finite-only variant (ml_dtypes `float8_e4m3fn`); its only NaN.
    pub const E4M3FN: u32 = 0x7F;
    /// FP8_EXP5 (E5M2, ml_dtypes `float8_e5m2`).
    pub const E5M2: u32 = 0x7E;
}

// The FP8 formats (decisions §4.5, isa-facts §4.2). Biases: E3M4 3, E4M3 7, E5M2 15.
pub(crate) const E3M4: Minifloat = Minifloat::new(3, 4, 3, false, canonical_nan::E3M4);
pub(crate) const E4M3: Minifloat = Minifloat::new(4, 3, 7, false, canonical_nan::E4M3);
pub(crate) const E4M3FN: Minifloat = Minifloat::new(4, 3, 7, true, canonical_nan::E4M3FN);
pub(crate) const E5M2: Minifloat = Minifloat::new(5, 2, 15, false, canonical_nan::E5M2);
// The 16-bit floats encode bit-exactly with ml_dtypes (bf16) and numpy (fp16, NaN payloads
// included): FP16 through the codec (branch-free, so slice loops vectorise), BF16 through
// `bf16_encode` (the generic codec stays as its test oracle). Both decode through the
// branch-free functions below.
#[cfg(test)]
pub(crate) const BF16: Minifloat = Minifloat::new(8, 7, 127, false, canonical_nan::BF16);
pub(crate) const FP16: Minifloat =
    Minifloat::new(5, 10, 15, false, canonical_nan::FP16).keeping_nan_payload();

static E3M4_TABLE: [u32; 256] = E3M4.table();
static E4M3_TABLE: [u32; 256] = E4M3.table();
static E4M3FN_TABLE: [u32; 256] = E4M3FN.table();
static E5M2_TABLE: [u32; 256] = E5M2.table();

/// Which E4M3 encoding FP8_EXP4 uses. The hardware picks it at model load (isa-facts §4.2).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum E4m3Variant {
    /// IEEE-like (ml_dtypes `float8_e4m3`): max ±240, ±inf at `0x78`, NaN `0x79..=0x7F`.
    /// The default (decisions §4.5: matches Neuron's documented ±240 range).
    #[default]
    Ieee,
    /// Finite-only (ml_dtypes `float8_e4m3fn`): max ±448, no inf, NaN only `0x7F`/`0xFF`;
    /// overflow and ±inf encode to NaN unless [`Fp8Config::ocp_sat`] is set.
    FiniteOnly,
}

/// The FP8 conversion configuration (the model-load CSRs of isa-facts §4.2).
/// `Default` is ml_dtypes behaviour: no saturation, IEEE-like E4M3.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Fp8Config {
    /// Saturate FP8 outputs: finite overflow and ±inf encode to ±max; NaN stays NaN.
    /// Without it, overflow gives ±inf (NaN for finite-only E4M3), as ml_dtypes does.
    pub ocp_sat: bool,
    /// The encoding of FP8_EXP4.
    pub e4m3: E4m3Variant,
}

/// An ALU op that cannot be evaluated. The simulator reports it and changes no state
/// (decisions §3.9).
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum NumError {
    /// Integer divide or modulo by zero: a fatal fault on the hardware (decisions §4.12).
    #[error("integer divide by zero in {}", OpName(*op))]
    IntDivideByZero {
        /// The op.
        op: AluOp,
    },
    /// The op has no meaning on this path, or its semantics are not public (decisions §3.10).
    #[error("not supported: {} on the {path} path: {why}", OpName(*op))]
    Unsupported {
        /// The op.
        op: AluOp,
        /// `"arith"`, `"bitvec"` or `"integer"`.
        path: &'static str,
        /// Why, in a few words.
        why: &'static str,
    },
    /// [`alu_bitvec`] was given an element width other than 8, 16 or 32.
    #[error("bitvec element width {bits} is not 8, 16 or 32")]
    InvalidWidth {
        /// The width given.
        bits: u32,
    },
}

/// Displays an op the way the headers spell it (`CRC32`, `ADD_INT`), or its hex value.
struct OpName(AluOp);

impl fmt::Display for OpName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0.name() {
            Some(n) => f.write_str(&n.to_ascii_uppercase()),
            None => write!(f, "ALU_OP {:#04x}", self.0 .0),
        }
    }
}

/// Whether `d` has a meaning on the datapath here: the 12 plain dtypes of
/// `is_valid_dtype` plus FP32R (isa-facts §4.4). For any other code (INVALID, the 64-bit,
/// 4-bit, scale and CPTC types, unknown values) [`to_f32`] returns NaN, [`from_f32`] returns
/// 0 and the slice functions convert nothing.
pub const fn is_datapath_dtype(d: Dtype) -> bool {
    d.is_valid_dtype(true)
}

/// Element size in bytes of a datapath dtype; `None` for any other code.
pub const fn datapath_size(d: Dtype) -> Option<usize> {
    if is_datapath_dtype(d) {
        d.size()
    } else {
        None
    }
}

/// The FP8 format `d` uses under `cfg`, if `d` is an FP8 dtype.
const fn fp8_format(d: Dtype, cfg: &Fp8Config) -> Option<Minifloat> {
    Some(match d {
        Dtype::FP8_EXP3 => E3M4,
        Dtype::FP8_EXP4 => match cfg.e4m3 {
            E4m3Variant::Ieee => E4M3,
            E4m3Variant::FiniteOnly => E4M3FN,
        },
        Dtype::FP8_EXP5 => E5M2,
        _ => return None,
    })
}

/// The f32 bits of each byte of an FP8 `d` (E3M4's for any other dtype: callers pass FP8).
#[inline(always)]
pub(crate) fn fp8_decode_table(d: Dtype, cfg: &Fp8Config) -> &'static [u32; 256] {
    fp8_table(d, cfg).unwrap_or(&E3M4_TABLE)
}

fn fp8_table(d: Dtype, cfg: &Fp8Config) -> Option<&'static [u32; 256]> {
    Some(match d {
        Dtype::FP8_EXP3 => &E3M4_TABLE,
        Dtype::FP8_EXP4 => match cfg.e4m3 {
            E4m3Variant::Ieee => &E4M3_TABLE,
            E4m3Variant::FiniteOnly => &E4M3FN_TABLE,
        },
        Dtype::FP8_EXP5 => &E5M2_TABLE,
        _ => return None,
    })
}

/// The canonical NaN bits (positive) that [`from_f32`] emits for a float dtype under `cfg`;
/// `None` for integer and non-datapath dtypes. See [`canonical_nan`].
pub const fn canonical_nan_bits(d: Dtype, cfg: &Fp8Config) -> Option<u32> {
    match d {
        Dtype::FP32 | Dtype::FP32R => Some(canonical_nan::FP32),
        Dtype::BFLOAT16 => Some(canonical_nan::BF16),
        Dtype::FP16 => Some(canonical_nan::FP16),
        _ => match fp8_format(d, cfg) {
            Some(f) => Some(f.nan()),
            None => None,
        },
    }
}

/// The largest finite value of a float dtype under `cfg`, as element bits (the value
/// `ocp_sat` clamps to for FP8); `None` for integer and non-datapath dtypes.
pub const fn max_finite_bits(d: Dtype, cfg: &Fp8Config) -> Option<u32> {
    match d {
        Dtype::FP32 | Dtype::FP32R => Some(0x7F7F_FFFF),
        Dtype::BFLOAT16 => Some(0x7F7F),
        Dtype::FP16 => Some(0x7BFF),
        _ => match fp8_format(d, cfg) {
            Some(f) => Some(f.max_bits()),
            None => None,
        },
    }
}

/// Decodes one element to FP32: the FP32 hub's input conversion (decisions §4.1).
///
/// `bits` holds the element zero-extended (bits above the element width are ignored).
/// Integers convert exactly when |x| ≤ 2^24 and round to nearest even beyond; BF16/FP16
/// are exact (`half`); FP8 per `cfg`, exact; FP32/FP32R bits are returned as-is.
/// NaN inputs: see [`canonical_nan`]. A non-datapath dtype gives the canonical NaN.
#[inline]
pub fn to_f32(dtype: Dtype, bits: u32, cfg: &Fp8Config) -> f32 {
    match dtype {
        Dtype::UINT8 => (bits as u8) as f32,
        Dtype::INT8 => (bits as u8 as i8) as f32,
        Dtype::UINT16 => (bits as u16) as f32,
        Dtype::INT16 => (bits as u16 as i16) as f32,
        // Rust's int → float `as` rounds to nearest even.
        Dtype::UINT32 => bits as f32,
        Dtype::INT32 => (bits as i32) as f32,
        Dtype::BFLOAT16 => f32::from_bits(bf16_to_f32_bits(bits as u16)),
        Dtype::FP16 => f32::from_bits(fp16_to_f32_bits(bits as u16)),
        Dtype::FP32 | Dtype::FP32R => f32::from_bits(bits),
        _ => match fp8_table(dtype, cfg) {
            Some(t) => f32::from_bits(t[(bits & 0xFF) as usize]),
            None => f32::from_bits(canonical_nan::FP32),
        },
    }
}

/// Rounds to the nearest integer, ties to even, for finite `x` (NaN/inf pass through).
/// Adding and removing 2^23 makes the FPU round; values ≥ 2^23 are already integers.
/// (`f32::round_ties_even` is a libm call on baseline x86-64.)
#[inline(always)]
fn rint(x: f32) -> f32 {
    const TWO23: f32 = 8_388_608.0;
    let a = x.abs();
    let r = if a < TWO23 { (a + TWO23) - TWO23 } else { a };
    r.copysign(x)
}

/// Encodes FP32 into one element (decisions §4.4–4.7); the result is zero-extended.
///
/// - Floats: round to nearest even. FP8 without `cfg.ocp_sat` and BF16/FP16 do not
///   saturate: overflow gives ±inf, or NaN for finite-only E4M3. With `ocp_sat`, FP8
///   overflow and ±inf clamp to ±max. NaN gives the signed canonical NaN ([`canonical_nan`]).
/// - FP32 and FP32R: the f32 bits as-is (FP32R is stored as FP32, decisions §4.7).
/// - Integers: round to nearest even, saturate to the type's range, NaN → 0; two's
///   complement bits of the type's width (e.g. INT8 −5 → `0xFB`).
/// - A non-datapath dtype gives 0.
#[inline]
pub fn from_f32(dtype: Dtype, x: f32, cfg: &Fp8Config) -> u32 {
    // Rust's float → int `as` saturates and maps NaN to 0: exactly the rule wanted.
    match dtype {
        Dtype::UINT8 => rint(x) as u8 as u32,
        Dtype::INT8 => rint(x) as i8 as u8 as u32,
        Dtype::UINT16 => rint(x) as u16 as u32,
        Dtype::INT16 => rint(x) as i16 as u16 as u32,
        Dtype::UINT32 => rint(x) as u32,
        Dtype::INT32 => rint(x) as i32 as u32,
        Dtype::BFLOAT16 => bf16_encode::<false>(x.to_bits()),
        Dtype::FP16 => FP16.encode(x.to_bits(), false),
        Dtype::FP32 | Dtype::FP32R => x.to_bits(),
        _ => match fp8_format(dtype, cfg) {
            Some(f) => f.encode(x.to_bits(), cfg.ocp_sat),
            None => 0,
        },
    }
}

/// Decodes little-endian elements of `dtype` from `bytes` into `out` (see [`to_f32`]).
///
/// Converts `min(bytes.len() / size, out.len())` elements and returns that count; trailing
/// bytes of a partial element are ignored. A non-datapath dtype converts nothing (returns 0).
pub fn decode_slice_to_f32(dtype: Dtype, bytes: &[u8], out: &mut [f32], cfg: &Fp8Config) -> usize {
    let Some(size) = datapath_size(dtype) else {
        return 0;
    };
    let n = (bytes.len() / size).min(out.len());
    let (bytes, out) = (&bytes[..n * size], &mut out[..n]);
    simd::vectorize(
        #[inline(always)]
        || decode_values(dtype, bytes, out, cfg),
    );
    n
}

/// The loops of [`decode_slice_to_f32`]: `out` holds one element per `size` bytes of a
/// datapath `dtype`. No dispatch of its own: callers run it inside `simd::vectorize`.
#[inline(always)]
pub(crate) fn decode_values(dtype: Dtype, bytes: &[u8], out: &mut [f32], cfg: &Fp8Config) {
    // One monomorphic loop per dtype: `to_f32` inlines with a constant dtype and folds.
    match dtype {
        Dtype::FP8_EXP3 | Dtype::FP8_EXP4 | Dtype::FP8_EXP5 => {
            let t = fp8_table(dtype, cfg).unwrap_or(&E3M4_TABLE);
            for (o, &b) in out.iter_mut().zip(bytes) {
                *o = f32::from_bits(t[b as usize]);
            }
        }
        Dtype::UINT8 => decode_loop(bytes, out, |[b]| to_f32(Dtype::UINT8, b as u32, cfg)),
        Dtype::INT8 => decode_loop(bytes, out, |[b]| to_f32(Dtype::INT8, b as u32, cfg)),
        Dtype::UINT16 => decode_loop(bytes, out, |b| {
            to_f32(Dtype::UINT16, u16::from_le_bytes(b) as u32, cfg)
        }),
        Dtype::INT16 => decode_loop(bytes, out, |b| {
            to_f32(Dtype::INT16, u16::from_le_bytes(b) as u32, cfg)
        }),
        Dtype::BFLOAT16 => decode_loop(bytes, out, |b| {
            f32::from_bits(bf16_to_f32_bits(u16::from_le_bytes(b)))
        }),
        Dtype::FP16 => {
            let t = simd::token();
            let blocks = bytes.as_chunks::<2>().0.chunks(simd::FP16_BLOCK);
            for (o, b) in out.chunks_mut(simd::FP16_BLOCK).zip(blocks) {
                simd::fp16_decode_block(t, b, o);
            }
        }
        Dtype::UINT32 => decode_loop(bytes, out, |b| {
            to_f32(Dtype::UINT32, u32::from_le_bytes(b), cfg)
        }),
        Dtype::INT32 => decode_loop(bytes, out, |b| {
            to_f32(Dtype::INT32, u32::from_le_bytes(b), cfg)
        }),
        // FP32 and FP32R (datapath_size excluded everything else).
        _ => decode_loop(bytes, out, f32::from_le_bytes),
    }
}

/// FP16 elements of `bytes` decoded into `out` at `t`'s SIMD level: the decoder that the
/// fused loops share instead of each inlining its own (see [`encode_values`]).
#[inline(never)]
fn decode_fp16s(t: simd::Token, bytes: &[u8], out: &mut [f32]) {
    simd::vectorize_with(
        t,
        #[inline(always)]
        || {
            let blocks = bytes.as_chunks::<2>().0.chunks(simd::FP16_BLOCK);
            for (o, b) in out.chunks_mut(simd::FP16_BLOCK).zip(blocks) {
                simd::fp16_decode_block(t, b, o);
            }
        },
    );
}

#[inline(always)]
fn decode_loop<const N: usize>(bytes: &[u8], out: &mut [f32], dec: impl Fn([u8; N]) -> f32) {
    for (o, c) in out.iter_mut().zip(bytes.chunks_exact(N)) {
        let mut a = [0u8; N];
        a.copy_from_slice(c);
        *o = dec(a);
    }
}

/// BF16 bits → f32 bits: the hardware's 16-bit shift (decisions §4.4), exact, NaN payloads
/// and all.
#[inline(always)]
pub(crate) fn bf16_to_f32_bits(b: u16) -> u32 {
    u32::from(b) << 16
}

/// FP16 bits → f32 bits as numpy widens: exact, and a NaN keeps its payload and quiet bit
/// (`half`, like the F16C instruction, would set the quiet bit of a signalling NaN).
/// Branch-free: rebias the exponent, fix up inf/NaN, and let the FPU normalise subnormals
/// (subtracting 2^-14 from 2^-14 + m·2^-24 is exact), so slice loops vectorise.
#[inline(always)]
pub(crate) fn fp16_to_f32_bits(h: u16) -> u32 {
    const SHIFTED_EXP: u32 = 0x7C00 << 13;
    let h = u32::from(h);
    let a = (h & 0x7FFF) << 13;
    let exp = a & SHIFTED_EXP;
    let normal = a + ((127 - 15) << 23);
    let infnan = normal + ((128 - 16) << 23);
    let sub = (f32::from_bits(normal + (1 << 23)) - f32::from_bits(113 << 23)).to_bits();
    let o = if exp == SHIFTED_EXP {
        infnan
    } else if exp == 0 {
        sub
    } else {
        normal
    };
    o | ((h & 0x8000) << 16)
}

/// Encodes `xs` into little-endian elements of `dtype` in `out` (see [`from_f32`]).
///
/// Converts `min(xs.len(), out.len() / size)` elements and returns that count; bytes past
/// them are left untouched. A non-datapath dtype converts nothing (returns 0).
pub fn encode_slice_from_f32(dtype: Dtype, xs: &[f32], out: &mut [u8], cfg: &Fp8Config) -> usize {
    let Some(size) = datapath_size(dtype) else {
        return 0;
    };
    let n = xs.len().min(out.len() / size);
    encode_f32s::<false>(simd::token(), dtype, &xs[..n], &mut out[..n * size], cfg);
    n
}

/// [`encode_slice_from_f32`] of `f(x)` for each `x` of `xs` (decoded values, ramp
/// integers, …): an op or conversion fused into the encoder's loop. `CANON_NAN`: see
/// [`encode_bytes_with`].
#[inline(always)]
pub(crate) fn encode_with<T: Copy, const CANON_NAN: bool>(
    dtype: Dtype,
    xs: &[T],
    out: &mut [u8],
    cfg: &Fp8Config,
    f: impl Fn(T) -> f32,
) -> usize {
    let Some(size) = datapath_size(dtype) else {
        return 0;
    };
    let n = xs.len().min(out.len() / size);
    let (xs, out) = (&xs[..n], &mut out[..n * size]);
    simd::vectorize(
        #[inline(always)]
        || encode_values::<_, CANON_NAN>(dtype, xs, f, out, cfg),
    );
    n
}

/// [`decode_slice_to_f32`] of the inputs of [`fusable_input`] with `f` applied to each
/// value in the same loop; other inputs decode nothing (returns 0).
#[inline(always)]
pub(crate) fn decode_with(
    in_dtype: Dtype,
    bytes: &[u8],
    out: &mut [f32],
    cfg: &Fp8Config,
    f: impl Fn(f32) -> f32,
) -> usize {
    let Some(size) = datapath_size(in_dtype).filter(|_| fusable_input(in_dtype)) else {
        return 0;
    };
    let n = (bytes.len() / size).min(out.len());
    let (bytes, out) = (&bytes[..n * size], &mut out[..n]);
    simd::vectorize(
        #[inline(always)]
        || match in_dtype {
            Dtype::BFLOAT16 => {
                for (o, &b) in out.iter_mut().zip(bytes.as_chunks::<2>().0) {
                    *o = f(f32::from_bits(bf16_to_f32_bits(u16::from_le_bytes(b))));
                }
            }
            Dtype::FP16 => {
                decode_values(in_dtype, bytes, out, cfg);
                out.iter_mut().for_each(|x| *x = f(*x));
            }
            Dtype::FP8_EXP3 | Dtype::FP8_EXP4 | Dtype::FP8_EXP5 => {
                let t = fp8_table(in_dtype, cfg).unwrap_or(&E3M4_TABLE);
                for (o, &b) in out.iter_mut().zip(bytes) {
                    *o = f(f32::from_bits(t[usize::from(b)]));
                }
            }
            // FP32 and FP32R.
            _ => {
                for (o, &b) in out.iter_mut().zip(bytes.as_chunks::<4>().0) {
                    *o = f(f32::from_le_bytes(b));
                }
            }
        },
    );
    n
}

/// [`encode_slice_from_f32`] of `f(x)` for each little-endian `in_dtype` element `x` of
/// `bytes`, without an intermediate f32 buffer: the executors' fused decode → op → encode,
/// for the inputs of [`fusable_input`] (any other input converts nothing). With
/// `CANON_NAN`, a NaN `f(x)` is encoded as the canonical f32 NaN ([`canonical_nan`]) would
/// be, so `f` need not pin it. Converts `min(bytes.len() / in size, out.len() / size)`
/// elements and returns that count.
#[inline(always)]
pub(crate) fn encode_bytes_with<const CANON_NAN: bool>(
    in_dtype: Dtype,
    bytes: &[u8],
    dtype: Dtype,
    out: &mut [u8],
    cfg: &Fp8Config,
    f: impl Fn(f32) -> f32,
) -> usize {
    let (Some(size_in), Some(size)) = (datapath_size(in_dtype), datapath_size(dtype)) else {
        return 0;
    };
    let n = (bytes.len() / size_in).min(out.len() / size);
    let row = std::iter::once(((), bytes, out));
    if encode_rows_with::<(), CANON_NAN>(in_dtype, dtype, cfg, row, move |(), x| f(x)) {
        n
    } else {
        0
    }
}

/// Whether [`encode_rows_with`] (and [`encode_bytes_with`]) convert `in_dtype` to `dtype`.
#[inline(always)]
pub(crate) fn rows_fusable(in_dtype: Dtype, dtype: Dtype) -> bool {
    fusable_input(in_dtype) && datapath_size(in_dtype).is_some() && datapath_size(dtype).is_some()
}

/// [`encode_bytes_with`] over many rows in one dispatched call: each row is `(key, input
/// bytes, output bytes)` and its elements become `f(key, x)`. One call per instruction
/// instead of one per row keeps the per-row cost to the row's own loop (the dispatch, the
/// dtype matches and the table look-ups happen once). Converts nothing, consuming no row,
/// and returns `false` when [`rows_fusable`] does not hold.
#[inline(always)]
pub(crate) fn encode_rows_with<'r, K: Copy, const CANON_NAN: bool>(
    in_dtype: Dtype,
    dtype: Dtype,
    cfg: &Fp8Config,
    rows: impl Iterator<Item = (K, &'r [u8], &'r mut [u8])>,
    f: impl Fn(K, f32) -> f32,
) -> bool {
    let (Some(size_in), Some(size)) = (datapath_size(in_dtype), datapath_size(dtype)) else {
        return false;
    };
    if !rows_fusable(in_dtype, dtype) {
        return false;
    }
    // One row's elements: the common prefix of its input and output.
    let cut = move |bytes: &'r [u8], out: &'r mut [u8]| {
        let n = (bytes.len() / size_in).min(out.len() / size);
        (&bytes[..n * size_in], &mut out[..n * size])
    };
    // `as_chunks`: a slice of arrays, so the loads are plain vector loads.
    simd::vectorize(
        #[inline(always)]
        || match in_dtype {
            Dtype::BFLOAT16 => {
                for (key, bytes, out) in rows {
                    let (bytes, out) = cut(bytes, out);
                    let xs = bytes.as_chunks::<2>().0;
                    let get = |b| f(key, f32::from_bits(bf16_to_f32_bits(u16::from_le_bytes(b))));
                    encode_values::<_, CANON_NAN>(dtype, xs, get, out, cfg);
                }
            }
            Dtype::FP16 => {
                // Blocks decoded into L1 by the shared decoder (F16C where the level has
                // it), the op in place, then the encoder over the block (the shared one,
                // with no second copy, for FP16 and integer outputs).
                let t = simd::token();
                let mut vals = [0f32; ENCODE_BLOCK];
                for (key, bytes, out) in rows {
                    let (bytes, out) = cut(bytes, out);
                    let xs = bytes.chunks(ENCODE_BLOCK * 2);
                    for (x, o) in xs.zip(out.chunks_mut(ENCODE_BLOCK * size)) {
                        let v = &mut vals[..x.len() / 2];
                        decode_fp16s(t, x, v);
                        v.iter_mut().for_each(|x| *x = f(key, *x));
                        encode_f32_values::<CANON_NAN>(t, dtype, v, o, cfg);
                    }
                }
            }
            Dtype::FP8_EXP3 | Dtype::FP8_EXP4 | Dtype::FP8_EXP5 => {
                let t = fp8_table(in_dtype, cfg).unwrap_or(&E3M4_TABLE);
                for (key, bytes, out) in rows {
                    let (bytes, out) = cut(bytes, out);
                    let get = |b: u8| f(key, f32::from_bits(t[usize::from(b)]));
                    encode_values::<_, CANON_NAN>(dtype, bytes, get, out, cfg);
                }
            }
            // FP32 and FP32R.
            _ => {
                for (key, bytes, out) in rows {
                    let (bytes, out) = cut(bytes, out);
                    let xs = bytes.as_chunks::<4>().0;
                    let get = |b| f(key, f32::from_le_bytes(b));
                    encode_values::<_, CANON_NAN>(dtype, xs, get, out, cfg);
                }
            }
        },
    );
    true
}

/// Whether [`encode_bytes_with`] and [`decode_with`] read `in_dtype`: the float inputs
/// (FP32, BF16, FP16, FP8).
pub(crate) const fn fusable_input(in_dtype: Dtype) -> bool {
    matches!(
        in_dtype,
        Dtype::FP32
            | Dtype::FP32R
            | Dtype::BFLOAT16
            | Dtype::FP16
            | Dtype::FP8_EXP3
            | Dtype::FP8_EXP4
            | Dtype::FP8_EXP5
    )
}

/// The encoder behind both slice forms: encodes `get(x)` for each `x` of `xs`; `out` holds
/// exactly one element per `x`. `CANON_NAN`: see [`encode_bytes_with`] (integers map
/// every NaN to 0 anyway). No dispatch of its own: callers run it inside `simd::vectorize`.
///
/// BF16, FP32 and FP8 outputs are fused into the caller's loop (their encoders are a few
/// operations or a table look-up, so a pass through memory would cost a visible share).
/// Every other output (FP16, the integers) goes through a block of f32 values in L1 and the
/// one shared encoder [`encode_f32s`]: compiled once per NaN rule and level instead of once
/// per caller, input dtype and level, which was half of the crate's release build time
/// (docs/python.md, "Build time from source").
#[inline(always)]
pub(crate) fn encode_values<T: Copy, const CANON_NAN: bool>(
    dtype: Dtype,
    xs: &[T],
    get: impl Fn(T) -> f32,
    out: &mut [u8],
    cfg: &Fp8Config,
) {
    let fp8 = fp8_format(dtype, cfg).and_then(|f| Fp8EncodeTable::of(f, cfg.ocp_sat, CANON_NAN));
    match (dtype, fp8) {
        (_, Some(t)) => t.encode_loop(xs, get, out),
        (Dtype::BFLOAT16, _) => encode_loop(xs, &get, out, |x| {
            (bf16_encode::<CANON_NAN>(x.to_bits()) as u16).to_le_bytes()
        }),
        (Dtype::FP32 | Dtype::FP32R, _) if CANON_NAN => encode_loop(xs, &get, out, |x| {
            let nan = f32::from_bits(canonical_nan::FP32);
            if x.is_nan() { nan } else { x }.to_le_bytes()
        }),
        (Dtype::FP32 | Dtype::FP32R, _) => encode_loop(xs, &get, out, f32::to_le_bytes),
        _ => {
            let Some(size) = datapath_size(dtype) else {
                return;
            };
            let t = simd::token();
            let mut vals = [0f32; ENCODE_BLOCK];
            for (x, o) in xs
                .chunks(ENCODE_BLOCK)
                .zip(out.chunks_mut(ENCODE_BLOCK * size))
            {
                let v = &mut vals[..x.len()];
                for (v, &x) in v.iter_mut().zip(x) {
                    *v = get(x);
                }
                encode_f32s::<CANON_NAN>(t, dtype, v, o, cfg);
            }
        }
    }
}

/// Values per block of [`encode_values`]' shared path: the call and its dispatch are a few
/// dozen instructions, against a few per element.
const ENCODE_BLOCK: usize = 512;

/// [`encode_values`] of f32 values as they are: the fused encoders for BF16, FP32 and FP8,
/// the shared one without a copy for the others (at `t`'s level: [`simd::token`]).
#[inline(always)]
pub(crate) fn encode_f32_values<const CANON_NAN: bool>(
    t: simd::Token,
    dtype: Dtype,
    xs: &[f32],
    out: &mut [u8],
    cfg: &Fp8Config,
) {
    match dtype {
        Dtype::BFLOAT16
        | Dtype::FP32
        | Dtype::FP32R
        | Dtype::FP8_EXP3
        | Dtype::FP8_EXP4
        | Dtype::FP8_EXP5 => encode_values::<f32, CANON_NAN>(dtype, xs, |x| x, out, cfg),
        _ => encode_f32s::<CANON_NAN>(t, dtype, xs, out, cfg),
    }
}

/// The shared encoder: [`encode_each`] of `xs` as they are, at `t`'s SIMD level. Never
/// inlined, so that it is compiled once per NaN rule (see [`encode_values`]).
#[inline(never)]
fn encode_f32s<const CANON_NAN: bool>(
    t: simd::Token,
    dtype: Dtype,
    xs: &[f32],
    out: &mut [u8],
    cfg: &Fp8Config,
) {
    simd::vectorize_with(
        t,
        #[inline(always)]
        || encode_each::<CANON_NAN>(t, dtype, xs, out, cfg),
    );
}

/// Every encoder, one monomorphic loop per dtype: constants fold and the float encoders,
/// being branch-free, vectorise. `out` holds exactly one element per value.
#[inline(always)]
fn encode_each<const CANON_NAN: bool>(
    t: simd::Token,
    dtype: Dtype,
    xs: &[f32],
    out: &mut [u8],
    cfg: &Fp8Config,
) {
    let get = |x: f32| x;
    match (dtype, fp8_format(dtype, cfg), cfg.ocp_sat) {
        // FP8: through the shared table (one per format, saturation and NaN rule).
        (_, Some(f), sat) => match Fp8EncodeTable::of(f, sat, CANON_NAN) {
            Some(t) => t.encode_loop(xs, get, out),
            None => encode_loop(xs, get, out, |x| {
                [f.encode_nan(x.to_bits(), sat, CANON_NAN) as u8]
            }),
        },
        (Dtype::UINT8, ..) => encode_loop(xs, get, out, |x| [from_f32(Dtype::UINT8, x, cfg) as u8]),
        (Dtype::INT8, ..) => encode_loop(xs, get, out, |x| [from_f32(Dtype::INT8, x, cfg) as u8]),
        (Dtype::UINT16, ..) => encode_loop(xs, get, out, |x| {
            (from_f32(Dtype::UINT16, x, cfg) as u16).to_le_bytes()
        }),
        (Dtype::INT16, ..) => encode_loop(xs, get, out, |x| {
            (from_f32(Dtype::INT16, x, cfg) as u16).to_le_bytes()
        }),
        (Dtype::BFLOAT16, ..) => encode_loop(xs, get, out, |x| {
            (bf16_encode::<CANON_NAN>(x.to_bits()) as u16).to_le_bytes()
        }),
        (Dtype::FP16, ..) => {
            // F16C where the level has it.
            let outs = out.as_chunks_mut::<2>().0.chunks_mut(simd::FP16_BLOCK);
            for (o, x) in outs.zip(xs.chunks(simd::FP16_BLOCK)) {
                simd::fp16_encode_block::<CANON_NAN>(t, x, o);
            }
        }
        (Dtype::UINT32, ..) => encode_loop(xs, get, out, |x| {
            from_f32(Dtype::UINT32, x, cfg).to_le_bytes()
        }),
        (Dtype::INT32, ..) => encode_loop(xs, get, out, |x| {
            from_f32(Dtype::INT32, x, cfg).to_le_bytes()
        }),
        // FP32 and FP32R (datapath_size excluded everything else).
        _ if CANON_NAN => encode_loop(xs, get, out, |x| {
            let nan = f32::from_bits(canonical_nan::FP32);
            if x.is_nan() { nan } else { x }.to_le_bytes()
        }),
        _ => encode_loop(xs, get, out, f32::to_le_bytes),
    }
}

/// f32 bits → BF16 bits, round to nearest even; NaN as [`Minifloat::encode_nan`] (the sign
/// is kept unless `UNSIGNED_NAN`). BF16 has f32's exponent range, so the integer rounding
/// of the low half is exact for every non-NaN input, subnormals and overflow to ±inf
/// included: five integer operations instead of the generic minifloat encoder's dozen.
/// Checked against that encoder by the tests below.
#[inline(always)]
pub(crate) fn bf16_encode<const UNSIGNED_NAN: bool>(bits: u32) -> u32 {
    let odd = (bits >> 16) & 1;
    let r = bits.wrapping_add(0x7FFF + odd) >> 16;
    let nan = if UNSIGNED_NAN {
        canonical_nan::BF16
    } else {
        canonical_nan::BF16 | (bits >> 16 & 0x8000)
    };
    if bits & 0x7FFF_FFFF > 0x7F80_0000 {
        nan
    } else {
        r
    }
}

#[inline(always)]
fn encode_loop<T: Copy, const N: usize>(
    xs: &[T],
    get: impl Fn(T) -> f32,
    out: &mut [u8],
    enc: impl Fn(f32) -> [u8; N],
) {
    for (o, &x) in out.as_chunks_mut::<N>().0.iter_mut().zip(xs) {
        *o = enc(get(x));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The branch-free 16-bit decoders on every input bit pattern: against `half` for
    /// numbers and infinities, and the payload-keeping rule for NaNs.
    #[test]
    fn sixteen_bit_decoders_are_exact() {
        for h in 0..=u16::MAX {
            assert_eq!(bf16_to_f32_bits(h), u32::from(h) << 16);
            let want = if h & 0x7FFF > 0x7C00 {
                (u32::from(h & 0x8000) << 16) | 0x7F80_0000 | (u32::from(h & 0x3FF) << 13)
            } else {
                half::f16::from_bits(h).to_f32().to_bits()
            };
            assert_eq!(fp16_to_f32_bits(h), want, "fp16 {h:#06x}");
        }
    }

    /// The dedicated BF16 encoder against the generic minifloat codec: every 16-bit value's
    /// f32 image with nearby bit patterns (ties, ±1 ulp), and a xorshift sweep.
    #[test]
    fn bf16_encoder_matches_the_generic_codec() {
        let check = |x: u32| {
            assert_eq!(bf16_encode::<false>(x), BF16.encode(x, false), "{x:#x}");
            assert_eq!(
                bf16_encode::<true>(x),
                BF16.encode_nan(x, false, true),
                "{x:#x}"
            );
        };
        for h in 0..=u16::MAX {
            let w = u32::from(h) << 16;
            for d in [0u32, 1, 0x7FFF, 0x8000, 0x8001, 0xFFFF] {
                check(w.wrapping_add(d));
                check(w.wrapping_sub(d));
            }
        }
        let mut s = 0x2545_F491u32;
        for _ in 0..1_000_000 {
            s ^= s << 13;
            s ^= s >> 17;
            s ^= s << 5;
            check(s);
        }
    }
}
