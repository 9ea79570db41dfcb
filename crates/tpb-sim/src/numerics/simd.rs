//! Runtime CPU-feature dispatch for the hot loops: one plain definition of each loop,
//! compiled at every [`Level`] and picked at run time.
//!
//! # How it works
//!
//! The element loops of `numerics` and of the executors' kernels are written once, as plain
//! branch-free Rust over slices. `vectorize` runs such a loop inside a function compiled
//! for the current level's CPU features (AVX-512, or AVX2 + FMA), so that the loop, inlined
//! there, is auto-vectorised with that instruction set; at [`Level::Baseline`] it runs as
//! compiled for the build target (SSE2 on x86-64). Because every level runs the same source,
//! results are bit-identical at every level by construction, with two exceptions that use
//! instructions directly and are checked against the plain code by tests:
//!
//! - FP16 ⇄ FP32 through F16C (decisions §4.4). F16C rounds to nearest even like numpy, but
//!   quiets a signalling NaN where numpy keeps it signalling, so every block that holds a NaN
//!   has its NaN lanes redone by the plain codec (`fp16_decode_block`,
//!   `fp16_encode_block`). At [`Level::Avx512`] the 16-lane AVX-512F forms of VCVTPH2PS /
//!   VCVTPS2PH come from pulp's safe `V4` token; at [`Level::Avx2`] the 8-lane F16C forms
//!   come from `half`'s runtime-detected slice conversions (pulp's `V3` token has no F16C
//!   member); at [`Level::Baseline`] the plain branch-free codec runs.
//! - Nothing else. Rust never contracts `a * b + c` into a fused multiply-add (it has no
//!   fast-math flags), so enabling the FMA feature changes no result of a plain multiply and
//!   add; the ALUs' separate multiply-then-add rounding (decisions §4.1) is kept. Where a
//!   fused multiply-add is the documented operation (the PE's sum, `numerics::pe`), it is
//!   written as one: `f32::mul_add` (correctly rounded at every level: the FMA instruction
//!   or libm's `fmaf`) or pulp's vector `mul_add_f32s` (VFMADD), the same bits. The ACT's
//!   exp polynomial (`act_block`) is also written with `f64::mul_add`, for speed: its error
//!   bound takes one rounding per step, which every level gives (at the baseline level
//!   through libm's `fma`, slower but the same bits).
//!
//! # Why pulp
//!
//! The workspace forbids `unsafe`. Calling code compiled for CPU features the build target
//! lacks needs `unsafe` somewhere; `pulp` (0.22, the SIMD layer of the `faer` linear-algebra
//! crates) keeps all of it inside the crate: `V3::try_new()` / `V4::try_new()` return a
//! token only when the CPU has the features, and the token's safe `vectorize` runs a closure
//! inside a `#[target_feature]` function. `multiversion`'s attribute macro instead expands
//! `unsafe` calls into *our* crate (its dispatcher emits `unsafe { f(...) }` and
//! `unreachable_unchecked`, multiversion-macros 0.9.2 `dispatcher.rs`), which the workspace's
//! `unsafe_code = "forbid"` is meant to rule out;
//! `half`'s slice conversions dispatch F16C at run time but cover only FP16 and cannot fuse an
//! op into the conversion loop. So: pulp for the dispatch, `half` for F16C at the AVX2 level.
//!
//! # Choosing the level
//!
//! The default is the best level the CPU has ([`detected`]). The environment variable
//! [`ENV_VAR`] (`TPB_SIMD=baseline|avx2|avx512`), read once at first use, forces a lower
//! one (a level the CPU lacks falls back to the best one below it; an unknown name is
//! ignored). [`set_level`] and [`with_level`] force a level from code — the tests run the
//! differential suites at every [`available`] level in one process this way. The setting is
//! process-wide, like rayon's thread pool.
//!
//! # Adding a kernel
//!
//! Write the loop as plain Rust over slices (no early exits in the hot loop, no calls that
//! cannot inline), mark the functions it calls `#[inline(always)]`, and run it through
//! `vectorize` once per chunk (about 1 Ki elements), not per element, with the closure
//! itself marked `#[inline(always)]`:
//!
//! ```ignore
//! simd::vectorize(#[inline(always)] || for (o, &x) in out.iter_mut().zip(xs) { *o = x * s });
//! ```
//!
//! The attribute matters: the closure is called from one function per level, and without it
//! LLVM compiles a large closure once, for the build target, and *calls* it from each level
//! (seen in the disassembly: the AVX-512 entry was a bare `call` of a baseline-compiled
//! body, and slower than before), so nothing would be vectorised for the level.
//!
//! Then make sure the level-parametrised differential tests reach it: `tests/reference_equiv.rs`
//! runs each proptest case at one of the [`available`] levels against the plain reference
//! simulator, `tests/numerics.rs` runs the codecs at every level against the NumPy fixtures,
//! and kernel unit tests loop over the levels with [`with_level`]. Only a loop that needs an
//! instruction the compiler will not pick by itself (like F16C) gets a per-level arm, as
//! `fp16_decode_block` does, with a test against the plain code at every level.

use std::fmt;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::Mutex;

/// An instruction-set level the hot loops are compiled for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Level {
    /// The build target's own instruction set (SSE2 on x86-64): the plain code.
    Baseline,
    /// x86-64-v3: AVX2, FMA (the PE's fused sum step only, see the module docs), BMI; F16C
    /// for FP16.
    Avx2,
    /// x86-64-v4: AVX-512 F/BW/CD/DQ/VL.
    Avx512,
}

/// The environment variable that forces a level: `baseline`, `avx2` or `avx512`.
pub const ENV_VAR: &str = "TPB_SIMD";

impl Level {
    /// Every level, lowest first.
    pub const ALL: [Level; 3] = [Level::Baseline, Level::Avx2, Level::Avx512];

    /// The level's name as [`ENV_VAR`] spells it.
    pub const fn name(self) -> &'static str {
        match self {
            Level::Baseline => "baseline",
            Level::Avx2 => "avx2",
            Level::Avx512 => "avx512",
        }
    }

    /// The level named `s` (case-insensitive), if any.
    pub fn from_name(s: &str) -> Option<Level> {
        Level::ALL
            .into_iter()
            .find(|l| l.name().eq_ignore_ascii_case(s.trim()))
    }

    /// Whether this CPU can run the level.
    pub fn is_available(self) -> bool {
        match self {
            Level::Baseline => true,
            #[cfg(target_arch = "x86_64")]
            Level::Avx2 => {
                pulp::x86::V3::try_new().is_some() && std::arch::is_x86_feature_detected!("f16c")
            }
            #[cfg(target_arch = "x86_64")]
            Level::Avx512 => Level::Avx2.is_available() && pulp::x86::V4::try_new().is_some(),
            #[cfg(not(target_arch = "x86_64"))]
            _ => false,
        }
    }

    const fn code(self) -> u8 {
        match self {
            Level::Baseline => 1,
            Level::Avx2 => 2,
            Level::Avx512 => 3,
        }
    }
}

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A level this CPU cannot run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("SIMD level {level} is not available on this CPU (best: {best})")]
pub struct UnavailableLevel {
    /// The level asked for.
    pub level: Level,
    /// The best level this CPU has.
    pub best: Level,
}

/// The best level this CPU has.
pub fn detected() -> Level {
    Level::ALL
        .into_iter()
        .rev()
        .find(|l| l.is_available())
        .unwrap_or(Level::Baseline)
}

/// The levels this CPU can run, lowest first.
pub fn available() -> Vec<Level> {
    Level::ALL
        .into_iter()
        .filter(|l| l.is_available())
        .collect()
}

/// 0: not chosen yet; else [`Level::code`].
static CURRENT: AtomicU8 = AtomicU8::new(0);

/// The level at start-up: [`detected`], lowered by [`ENV_VAR`].
fn initial() -> Level {
    let best = detected();
    let asked = std::env::var(ENV_VAR)
        .ok()
        .and_then(|s| Level::from_name(&s));
    match asked {
        Some(l) => Level::ALL
            .into_iter()
            .rev()
            .find(|&c| c <= l && c.is_available())
            .unwrap_or(Level::Baseline),
        None => best,
    }
}

/// The level the hot loops run at now.
#[inline]
pub fn level() -> Level {
    match CURRENT.load(Ordering::Relaxed) {
        1 => Level::Baseline,
        2 => Level::Avx2,
        3 => Level::Avx512,
        _ => {
            let l = initial();
            CURRENT.store(l.code(), Ordering::Relaxed);
            l
        }
    }
}

/// Forces `level` for the whole process (it must be [`Level::is_available`]).
pub fn set_level(level: Level) -> Result<(), UnavailableLevel> {
    if !level.is_available() {
        return Err(UnavailableLevel {
            level,
            best: detected(),
        });
    }
    CURRENT.store(level.code(), Ordering::Relaxed);
    Ok(())
}

/// Runs `f` with `level` forced, then restores the previous level. Calls from several
/// threads are serialised, so that each `f` runs at its own level (code that does not
/// call this sees whichever level is current).
pub fn with_level<R>(level: Level, f: impl FnOnce() -> R) -> Result<R, UnavailableLevel> {
    static LOCK: Mutex<()> = Mutex::new(());
    let _guard = LOCK.lock().unwrap_or_else(|e| e.into_inner());
    let before = self::level();
    set_level(level)?;
    struct Restore(Level);
    impl Drop for Restore {
        fn drop(&mut self) {
            CURRENT.store(self.0.code(), Ordering::Relaxed);
        }
    }
    let _restore = Restore(before);
    Ok(f())
}

/// The current level with its CPU-feature token.
#[derive(Clone, Copy)]
pub(crate) enum Token {
    Baseline,
    #[cfg(target_arch = "x86_64")]
    Avx2(pulp::x86::V3),
    #[cfg(target_arch = "x86_64")]
    Avx512(pulp::x86::V4),
}

/// The token of the current [`level`] (an atomic load and pulp's cached feature check).
#[inline(always)]
pub(crate) fn token() -> Token {
    match level() {
        #[cfg(target_arch = "x86_64")]
        Level::Avx512 => pulp::x86::V4::try_new().map_or(Token::Baseline, Token::Avx512),
        #[cfg(target_arch = "x86_64")]
        Level::Avx2 => pulp::x86::V3::try_new().map_or(Token::Baseline, Token::Avx2),
        _ => Token::Baseline,
    }
}

/// Runs `f` compiled for the current level's CPU features (see the module docs): `f` and
/// everything it inlines is vectorised for AVX-512 or AVX2, or runs as built.
#[inline(always)]
pub(crate) fn vectorize<R>(f: impl FnOnce() -> R) -> R {
    vectorize_with(token(), f)
}

/// [`vectorize`] at the level of a token the caller already holds: no second feature check
/// (the shared block codecs of `numerics` are called once per block).
#[inline(always)]
pub(crate) fn vectorize_with<R>(t: Token, f: impl FnOnce() -> R) -> R {
    match t {
        #[cfg(target_arch = "x86_64")]
        Token::Avx512(v) => v.vectorize(f),
        #[cfg(target_arch = "x86_64")]
        Token::Avx2(v) => v.vectorize(f),
        Token::Baseline => f(),
    }
}

/// Elements per FP16 block of the block codecs.
pub(crate) const FP16_BLOCK: usize = 64;

/// Decodes up to [`FP16_BLOCK`] little-endian FP16 elements of `bytes` into `out` (as many
/// as both hold), bit-exact with [`super::fp16_to_f32_bits`] (decisions §4.4), through
/// F16C where the level has it.
#[inline(always)]
pub(crate) fn fp16_decode_block(t: Token, bytes: &[[u8; 2]], out: &mut [f32]) {
    let n = bytes.len().min(out.len()).min(FP16_BLOCK);
    let (bytes, out) = (&bytes[..n], &mut out[..n]);
    match t {
        #[cfg(target_arch = "x86_64")]
        Token::Avx512(v) => {
            use pulp::bytemuck::cast;
            use std::arch::x86_64::__m256i;
            let (blocks, rest) = bytes.as_chunks::<16>();
            let (outs, out_rest) = out.as_chunks_mut::<16>();
            for (o, b) in outs.iter_mut().zip(blocks) {
                let h: __m256i = cast(*b);
                *o = cast(v.avx512f._mm512_cvtph_ps(h));
            }
            for (o, b) in out_rest.iter_mut().zip(rest) {
                *o = f32::from_bits(super::fp16_to_f32_bits(u16::from_le_bytes(*b)));
            }
        }
        #[cfg(target_arch = "x86_64")]
        Token::Avx2(_) => {
            let mut h = [0u16; FP16_BLOCK];
            for (h, b) in h.iter_mut().zip(bytes) {
                *h = u16::from_le_bytes(*b);
            }
            use half::slice::{HalfBitsSliceExt, HalfFloatSliceExt};
            h[..n]
                .reinterpret_cast::<half::f16>()
                .convert_to_f32_slice(out);
        }
        _ => {
            for (o, b) in out.iter_mut().zip(bytes) {
                *o = f32::from_bits(super::fp16_to_f32_bits(u16::from_le_bytes(*b)));
            }
            return;
        }
    }
    // F16C quiets signalling NaNs; numpy keeps them (rare: only blocks holding a NaN).
    if out.iter().fold(false, |a, x| a | x.is_nan()) {
        for (o, b) in out.iter_mut().zip(bytes) {
            if o.is_nan() {
                *o = f32::from_bits(super::fp16_to_f32_bits(u16::from_le_bytes(*b)));
            }
        }
    }
}

/// Encodes up to [`FP16_BLOCK`] values of `xs` into little-endian FP16 elements of `out` (as
/// many as both hold), bit-exact with the plain codec (`FP16.encode_nan(x, false,
/// CANON_NAN)`, decisions §4.4), through F16C where the level has it.
#[inline(always)]
pub(crate) fn fp16_encode_block<const CANON_NAN: bool>(t: Token, xs: &[f32], out: &mut [[u8; 2]]) {
    let n = xs.len().min(out.len()).min(FP16_BLOCK);
    let (xs, out) = (&xs[..n], &mut out[..n]);
    let plain = |x: f32| -> [u8; 2] {
        (super::FP16.encode_nan(x.to_bits(), false, CANON_NAN) as u16).to_le_bytes()
    };
    match t {
        #[cfg(target_arch = "x86_64")]
        Token::Avx512(v) => {
            use pulp::bytemuck::cast;
            use std::arch::x86_64::__m512;
            // Round to nearest even, exceptions suppressed (imm8 = 0x08).
            const RNE: i32 = 0x08;
            let (blocks, rest) = xs.as_chunks::<16>();
            let (outs, out_rest) = out.as_chunks_mut::<16>();
            for (o, x) in outs.iter_mut().zip(blocks) {
                let f: __m512 = cast(*x);
                *o = cast(v.avx512f._mm512_cvtps_ph::<RNE>(f));
            }
            for (o, &x) in out_rest.iter_mut().zip(rest) {
                *o = plain(x);
            }
        }
        #[cfg(target_arch = "x86_64")]
        Token::Avx2(_) => {
            let mut h = [half::f16::ZERO; FP16_BLOCK];
            half::slice::HalfFloatSliceExt::convert_from_f32_slice(&mut h[..n], xs);
            for (o, h) in out.iter_mut().zip(&h) {
                *o = h.to_bits().to_le_bytes();
            }
        }
        _ => {
            for (o, &x) in out.iter_mut().zip(xs) {
                *o = plain(x);
            }
            return;
        }
    }
    // F16C's NaN bits differ from numpy's (and from the canonical NaN): redo NaN lanes.
    if xs.iter().fold(false, |a, x| a | x.is_nan()) {
        for (o, &x) in out.iter_mut().zip(xs) {
            if x.is_nan() {
                *o = plain(x);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for l in Level::ALL {
            assert_eq!(Level::from_name(l.name()), Some(l));
            assert_eq!(Level::from_name(&l.name().to_uppercase()), Some(l));
        }
        assert_eq!(Level::from_name("sse9"), None);
        assert!(Level::Baseline.is_available());
        assert!(available().contains(&detected()));
    }

    /// f32 inputs for the FP16 encoders: every FP16 value widened, with the bit patterns
    /// around it (RNE ties, ±1 ulp), signalling and quiet NaNs with payloads, and a sweep.
    fn fp16_encoder_inputs() -> Vec<f32> {
        let mut v = Vec::new();
        for h in 0..=u16::MAX {
            let w = super::super::fp16_to_f32_bits(h);
            for d in [0u32, 1, 0xFFF, 0x1000, 0x1001, 0x1FFF] {
                v.push(f32::from_bits(w.wrapping_add(d)));
                v.push(f32::from_bits(w.wrapping_sub(d)));
            }
        }
        v.extend(
            [
                0x7F80_0001u32,
                0xFF80_0001,
                0x7FC1_2345,
                0x7FBF_FFFF,
                0xFFC0_0000,
                0x7F80_2000,
            ]
            .map(f32::from_bits),
        );
        let mut s = 0x2545_F491u32;
        for _ in 0..300_001 {
            s ^= s << 13;
            s ^= s >> 17;
            s ^= s << 5;
            v.push(f32::from_bits(s));
        }
        v
    }

    /// The F16C paths against the plain codecs at every level this CPU has (decisions §4.4:
    /// signalling NaNs stay signalling, narrowing keeps numpy's payload bits, and the
    /// canonical-NaN encoder pins ALU NaNs), over every FP16 pattern, odd lengths and an
    /// unaligned start.
    #[test]
    fn fp16_codecs_are_bit_identical_at_every_level() {
        use super::super::{decode_slice_to_f32, encode_slice_from_f32, encode_with};
        use super::super::{fp16_to_f32_bits, Fp8Config, FP16};
        use tpb_isa::Dtype;
        let cfg = Fp8Config::default();
        let all: Vec<u8> = (0..=u16::MAX).flat_map(|h| h.to_le_bytes()).collect();
        let xs = fp16_encoder_inputs();
        let mut levels_run = 0;
        for level in available() {
            with_level(level, || {
                for start in [0usize, 1, 63] {
                    let bytes = &all[2 * start..];
                    let mut out = vec![0f32; bytes.len() / 2];
                    assert_eq!(
                        decode_slice_to_f32(Dtype::FP16, bytes, &mut out, &cfg),
                        out.len()
                    );
                    for (i, o) in out.iter().enumerate() {
                        let h = (start + i) as u16;
                        assert_eq!(o.to_bits(), fp16_to_f32_bits(h), "{level} {h:#06x}");
                    }
                }
                for xs in [&xs[..], &xs[3..1000]] {
                    let mut enc = vec![0u8; xs.len() * 2];
                    encode_slice_from_f32(Dtype::FP16, xs, &mut enc, &cfg);
                    let mut canon = vec![0u8; xs.len() * 2];
                    encode_with::<_, true>(Dtype::FP16, xs, &mut canon, &cfg, |x| x);
                    for (i, x) in xs.iter().enumerate() {
                        let got = u16::from_le_bytes([enc[2 * i], enc[2 * i + 1]]);
                        let want = FP16.encode_nan(x.to_bits(), false, false) as u16;
                        assert_eq!(got, want, "{level} {:#010x}", x.to_bits());
                        let got = u16::from_le_bytes([canon[2 * i], canon[2 * i + 1]]);
                        let want = FP16.encode_nan(x.to_bits(), false, true) as u16;
                        assert_eq!(got, want, "{level} canon {:#010x}", x.to_bits());
                    }
                }
            })
            .unwrap();
            levels_run += 1;
        }
        assert!(levels_run >= 1);
    }

    /// A level the CPU lacks is refused and changes nothing.
    #[test]
    fn unavailable_level_is_refused() {
        for l in Level::ALL {
            let r = with_level(l, level);
            match r {
                Ok(got) => assert_eq!(got, l),
                Err(e) => {
                    assert!(!l.is_available());
                    assert_eq!(e.level, l);
                }
            }
        }
    }
}
