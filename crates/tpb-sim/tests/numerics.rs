//! Bit-exact checks of `tpb_sim::numerics` against committed ml_dtypes / numpy fixtures
//! (`tests/fixtures/numerics`, written by `tools/gen_numerics_fixtures.py`; CI needs no
//! Python). Comparisons are bit for bit, NaN payloads included; the only allowances are
//! the deliberate differences listed in `deliberate_differences_from_ml_dtypes`.

use std::path::PathBuf;
use tpb_isa::Dtype;
use tpb_sim::numerics::{
    canonical_nan, canonical_nan_bits, datapath_size, decode_slice_to_f32, encode_slice_from_f32,
    from_f32, is_datapath_dtype, max_finite_bits, simd, to_f32, E4m3Variant, Fp8Config,
};

/// `decode_slice_to_f32` at every SIMD level this CPU has (`numerics::simd`): the slices of
/// each level must be equal, and the first is returned (checked against the fixtures).
fn decode_at_every_level(dt: Dtype, bytes: &[u8], out: &mut [f32], cfg: &Fp8Config) -> usize {
    let mut first: Option<(usize, Vec<u32>)> = None;
    for level in simd::available() {
        let n = simd::with_level(level, || decode_slice_to_f32(dt, bytes, out, cfg)).unwrap();
        let got: Vec<u32> = out.iter().map(|x| x.to_bits()).collect();
        match &first {
            None => first = Some((n, got)),
            Some((n0, want)) => {
                assert_eq!((n, &got), (*n0, want), "{dt:?} decoded at {level} differs");
            }
        }
    }
    first.map_or(0, |(n, _)| n)
}

const IEEE: Fp8Config = Fp8Config {
    ocp_sat: false,
    e4m3: E4m3Variant::Ieee,
};
const FN: Fp8Config = Fp8Config {
    ocp_sat: false,
    e4m3: E4m3Variant::FiniteOnly,
};
const SAT: Fp8Config = Fp8Config {
    ocp_sat: true,
    e4m3: E4m3Variant::Ieee,
};
const FN_SAT: Fp8Config = Fp8Config {
    ocp_sat: true,
    e4m3: E4m3Variant::FiniteOnly,
};

/// (fixture name, dtype, config) for the four FP8 encodings ml_dtypes defines.
const FP8: [(&str, Dtype, Fp8Config); 4] = [
    ("e3m4", Dtype::FP8_EXP3, IEEE),
    ("e4m3", Dtype::FP8_EXP4, IEEE),
    ("e4m3fn", Dtype::FP8_EXP4, FN),
    ("e5m2", Dtype::FP8_EXP5, IEEE),
];

fn fixture(name: &str) -> Vec<u8> {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/numerics")
        .join(name);
    std::fs::read(&p).unwrap_or_else(|e| {
        panic!(
            "{}: {e} (regenerate with tools/gen_numerics_fixtures.py)",
            p.display()
        )
    })
}

fn u32s(name: &str) -> Vec<u32> {
    let b = fixture(name);
    assert_eq!(b.len() % 4, 0, "{name}");
    b.chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

fn u16s(name: &str) -> Vec<u32> {
    let b = fixture(name);
    assert_eq!(b.len() % 2, 0, "{name}");
    b.chunks_exact(2)
        .map(|c| u16::from_le_bytes([c[0], c[1]]) as u32)
        .collect()
}

fn u8s(name: &str) -> Vec<u32> {
    fixture(name).into_iter().map(u32::from).collect()
}

/// Loads an (inputs, outputs) pair and checks they line up.
fn pairs(input: &str, output: &str, read: fn(&str) -> Vec<u32>) -> (Vec<u32>, Vec<u32>) {
    let (i, o) = (u32s(input), read(output));
    assert_eq!(i.len(), o.len(), "{input} vs {output}");
    assert!(!i.is_empty(), "{input} is empty");
    (i, o)
}

/// Fails with the first few mismatches, formatted by `show`.
fn report(what: &str, bad: Vec<String>, total: usize) {
    assert!(
        bad.is_empty(),
        "{what}: {} of {total} mismatch, e.g.\n{}",
        bad.len(),
        bad.iter().take(12).cloned().collect::<Vec<_>>().join("\n")
    );
}

fn is_nan32(b: u32) -> bool {
    b & 0x7FFF_FFFF > 0x7F80_0000
}

#[test]
fn fixture_sizes_match_manifest() {
    let m = String::from_utf8(fixture("MANIFEST.txt")).unwrap();
    let mut n = 0;
    for line in m.lines().filter(|l| !l.starts_with('#')) {
        let (name, count) = line.split_once('\t').expect("name<TAB>count");
        let width = match name.rsplit('.').next() {
            Some("u8") => 1,
            Some("u16") => 2,
            _ => 4,
        };
        let count: usize = count.parse().unwrap();
        assert_eq!(fixture(name).len(), count * width, "{name}");
        n += 1;
    }
    assert_eq!(n, 25);
}

// ---- decode: every bit pattern ----

#[test]
fn decode_fp8_exhaustive_bit_exact() {
    for (name, dt, cfg) in FP8 {
        let want = u32s(&format!("decode_{name}.u32"));
        assert_eq!(want.len(), 256);
        let bytes: Vec<u8> = (0..=255).collect();
        let mut out = vec![0f32; 256];
        assert_eq!(decode_at_every_level(dt, &bytes, &mut out, &cfg), 256);
        let bad = (0..256u32)
            .filter(|&b| {
                let got = to_f32(dt, b, &cfg).to_bits();
                got != want[b as usize] || out[b as usize].to_bits() != got
            })
            .map(|b| {
                format!(
                    "{b:#04x}: got {:#010x} want {:#010x}",
                    to_f32(dt, b, &cfg).to_bits(),
                    want[b as usize]
                )
            })
            .collect();
        report(&format!("decode {name}"), bad, 256);
    }
}

/// BF16/FP16: exact, NaNs included: a signalling NaN stays signalling, as ml_dtypes and numpy
/// keep it (decisions §4.4: bf16 widening is a bit shift on the hardware; issue 8 item 12).
#[test]
fn decode_bf16_fp16_exhaustive_bit_exact() {
    for (name, dt) in [("bf16", Dtype::BFLOAT16), ("fp16", Dtype::FP16)] {
        let want = u32s(&format!("decode_{name}.u32"));
        assert_eq!(want.len(), 65536);
        let bytes: Vec<u8> = (0..=u16::MAX).flat_map(u16::to_le_bytes).collect();
        let mut out = vec![0f32; 65536];
        assert_eq!(decode_at_every_level(dt, &bytes, &mut out, &IEEE), 65536);
        let bad = (0..65536u32)
            .filter(|&b| {
                let got = to_f32(dt, b, &IEEE).to_bits();
                got != want[b as usize] || out[b as usize].to_bits() != got
            })
            .map(|b| {
                format!(
                    "{b:#06x}: got {:#010x} (slice {:#010x}) want {:#010x}",
                    to_f32(dt, b, &IEEE).to_bits(),
                    out[b as usize].to_bits(),
                    want[b as usize]
                )
            })
            .collect();
        report(&format!("decode {name}"), bad, 65536);
        // The fixtures do hold signalling NaNs (2 signs × (2^(M−1) − 1) payloads).
        let signalling = want
            .iter()
            .filter(|&&w| is_nan32(w) && w & 0x0040_0000 == 0)
            .count();
        assert_eq!(
            signalling,
            if name == "bf16" { 2 * 63 } else { 2 * 511 },
            "{name}"
        );
    }
}

#[test]
fn decode_ints_bit_exact() {
    let (input, i32_want) = pairs("decode_int_in.u32", "decode_int32.u32", u32s);
    let u32_want = u32s("decode_uint32.u32");
    let bad = input
        .iter()
        .zip(i32_want.iter().zip(&u32_want))
        .filter(|(&x, (&wi, &wu))| {
            to_f32(Dtype::INT32, x, &IEEE).to_bits() != wi
                || to_f32(Dtype::UINT32, x, &IEEE).to_bits() != wu
        })
        .map(|(x, _)| format!("{x:#010x}"))
        .collect();
    report("decode int32/uint32", bad, input.len());
    // The narrow types are exact: compare exhaustively with Rust's own casts.
    for b in 0..=u16::MAX as u32 {
        assert_eq!(to_f32(Dtype::INT16, b, &IEEE), b as u16 as i16 as f32);
        assert_eq!(to_f32(Dtype::UINT16, b, &IEEE), b as u16 as f32);
        assert_eq!(to_f32(Dtype::INT8, b, &IEEE), b as u8 as i8 as f32);
        assert_eq!(to_f32(Dtype::UINT8, b, &IEEE), b as u8 as f32);
    }
    // 2^24 + 1 is a tie: rounds to even.
    assert_eq!(to_f32(Dtype::INT32, (1 << 24) + 1, &IEEE), 16_777_216.0);
    assert_eq!(to_f32(Dtype::INT32, (1 << 24) + 3, &IEEE), 16_777_220.0);
}

// ---- encode: probe sets ----

/// Encodes `input` with both the scalar and the slice API (at every SIMD level this CPU has)
/// and checks they agree.
fn encode_both(dt: Dtype, input: &[u32], cfg: &Fp8Config) -> Vec<u32> {
    let scalar: Vec<u32> = input
        .iter()
        .map(|&b| from_f32(dt, f32::from_bits(b), cfg))
        .collect();
    for level in simd::available() {
        simd::with_level(level, || encode_slice_matches(dt, input, cfg, &scalar)).unwrap();
    }
    scalar
}

fn encode_slice_matches(dt: Dtype, input: &[u32], cfg: &Fp8Config, scalar: &[u32]) {
    let xs: Vec<f32> = input.iter().map(|&b| f32::from_bits(b)).collect();
    let size = datapath_size(dt).unwrap();
    let mut bytes = vec![0u8; xs.len() * size];
    assert_eq!(encode_slice_from_f32(dt, &xs, &mut bytes, cfg), xs.len());
    let level = simd::level();
    for (i, c) in bytes.chunks_exact(size).enumerate() {
        let mut w = [0u8; 4];
        w[..size].copy_from_slice(c);
        assert_eq!(
            u32::from_le_bytes(w),
            scalar[i],
            "{dt:?} slice ({level}) vs scalar at {:#010x}",
            input[i]
        );
    }
}

#[test]
fn encode_fp8_bit_exact() {
    for (name, dt, cfg) in FP8 {
        let (input, want) = pairs("encode_fp8_in.u32", &format!("encode_{name}.u8"), u8s);
        let got = encode_both(dt, &input, &cfg);
        let bad = (0..input.len())
            .filter(|&i| got[i] != want[i])
            .map(|i| {
                format!(
                    "{:#010x} ({:e}): got {:#04x} want {:#04x}",
                    input[i],
                    f32::from_bits(input[i]),
                    got[i],
                    want[i]
                )
            })
            .collect();
        report(&format!("encode {name}"), bad, input.len());
    }
}

#[test]
fn encode_bf16_bit_exact() {
    let (input, want) = pairs("encode_bf16_in.u32", "encode_bf16.u16", u16s);
    let got = encode_both(Dtype::BFLOAT16, &input, &IEEE);
    let bad = (0..input.len())
        .filter(|&i| got[i] != want[i])
        .map(|i| {
            format!(
                "{:#010x}: got {:#06x} want {:#06x}",
                input[i], got[i], want[i]
            )
        })
        .collect();
    report("encode bf16", bad, input.len());
}

/// FP16: exact, NaN inputs included: numpy's payload-keeping narrowing (decisions §4.4,
/// issue 8 item 13).
#[test]
fn encode_fp16_bit_exact() {
    let (input, want) = pairs("encode_fp16_in.u32", "encode_fp16.u16", u16s);
    let got = encode_both(Dtype::FP16, &input, &IEEE);
    assert!(
        input.iter().filter(|&&x| is_nan32(x)).count() >= 10,
        "the fixture covers signalling and payload NaNs (tools: nan_probes)"
    );
    let bad = (0..input.len())
        .filter(|&i| got[i] != want[i])
        .map(|i| {
            format!(
                "{:#010x}: got {:#06x} want {:#06x}",
                input[i], got[i], want[i]
            )
        })
        .collect();
    report("encode fp16", bad, input.len());
}

#[test]
fn encode_ints_bit_exact() {
    for (name, dt, read) in [
        ("int8.u8", Dtype::INT8, u8s as fn(&str) -> Vec<u32>),
        ("uint8.u8", Dtype::UINT8, u8s),
        ("int16.u16", Dtype::INT16, u16s),
        ("uint16.u16", Dtype::UINT16, u16s),
        ("int32.u32", Dtype::INT32, u32s),
        ("uint32.u32", Dtype::UINT32, u32s),
    ] {
        let (input, want) = pairs("int_in.u32", &format!("encode_{name}"), read);
        let got = encode_both(dt, &input, &IEEE);
        let bad = (0..input.len())
            .filter(|&i| got[i] != want[i])
            .map(|i| {
                format!(
                    "{:#010x} ({}): got {:#x} want {:#x}",
                    input[i],
                    f32::from_bits(input[i]),
                    got[i],
                    want[i]
                )
            })
            .collect();
        report(&format!("encode {name}"), bad, input.len());
    }
}

/// `ocp_sat` against the fixtures: identical to ml_dtypes except that what ml_dtypes
/// overflows (±inf, or NaN from a non-NaN input for finite-only E4M3) becomes ±max.
#[test]
fn encode_fp8_ocp_sat_against_fixtures() {
    for (name, dt, cfg) in FP8 {
        let sat = Fp8Config {
            ocp_sat: true,
            ..cfg
        };
        let (input, want) = pairs("encode_fp8_in.u32", &format!("encode_{name}.u8"), u8s);
        let got = encode_both(dt, &input, &sat);
        let max = max_finite_bits(dt, &cfg).unwrap();
        // A non-NaN input that ml_dtypes turned into inf or NaN overflowed.
        let overflowed = |x: u32, w: u32| {
            let y = to_f32(dt, w, &cfg);
            y.is_infinite() || (y.is_nan() && !is_nan32(x))
        };
        let bad = (0..input.len())
            .filter(|&i| {
                let expect = if overflowed(input[i], want[i]) {
                    (want[i] & 0x80) | max
                } else {
                    want[i]
                };
                got[i] != expect
            })
            .map(|i| {
                format!(
                    "{:#010x}: got {:#04x} ml_dtypes {:#04x}",
                    input[i], got[i], want[i]
                )
            })
            .collect();
        report(&format!("encode {name} ocp_sat"), bad, input.len());
    }
}

/// Every place this module deliberately differs from ml_dtypes' defaults, stated as data.
#[test]
fn deliberate_differences_from_ml_dtypes() {
    let enc = |d, x: f32, c: &Fp8Config| from_f32(d, x, c);
    // 1. ocp_sat: overflow and ±inf clamp to ±max; NaN stays NaN (ml_dtypes: ±inf / NaN).
    let e4 = Dtype::FP8_EXP4;
    assert_eq!(enc(e4, 1e6, &SAT), 0x77); // 240
    assert_eq!(enc(e4, 248.0, &SAT), 0x77); // the overflow tie: ml_dtypes 0x78 (+inf)
    assert_eq!(enc(e4, 248.0, &IEEE), 0x78);
    assert_eq!(enc(e4, f32::NEG_INFINITY, &SAT), 0xF7);
    assert_eq!(enc(e4, f32::NAN, &SAT), 0x7C);
    assert_eq!(enc(Dtype::FP8_EXP3, 100.0, &SAT), 0x6F); // 15.5
    assert_eq!(enc(Dtype::FP8_EXP3, f32::INFINITY, &SAT), 0x6F);
    assert_eq!(enc(Dtype::FP8_EXP5, -1e9, &SAT), 0xFB); // -57344
    assert_eq!(enc(Dtype::FP8_EXP5, f32::INFINITY, &SAT), 0x7B);
    // Saturation never touches in-range values or BF16/FP16 (which have no such CSR).
    assert_eq!(enc(e4, 3.0, &SAT), enc(e4, 3.0, &IEEE));
    assert_eq!(enc(Dtype::BFLOAT16, f32::MAX, &SAT), 0x7F80);
    assert_eq!(enc(Dtype::FP16, 1e6, &SAT), 0x7C00);

    // 2. Finite-only E4M3 (float8_e4m3fn, not the default): max 448, 464 ties down to 448
    //    (microfloat 0.1.3 gets this wrong), overflow/inf → NaN, or ±448 with ocp_sat.
    assert_eq!(enc(e4, 448.0, &FN), 0x7E);
    assert_eq!(enc(e4, 464.0, &FN), 0x7E);
    assert_eq!(enc(e4, -464.0, &FN), 0xFE);
    assert_eq!(enc(e4, f32::from_bits(464f32.to_bits() + 1), &FN), 0x7F);
    assert_eq!(enc(e4, f32::INFINITY, &FN), 0x7F);
    assert_eq!(enc(e4, f32::NEG_INFINITY, &FN), 0xFF);
    assert_eq!(enc(e4, 1e6, &FN_SAT), 0x7E);
    assert_eq!(enc(e4, f32::NEG_INFINITY, &FN_SAT), 0xFE);
    assert_eq!(enc(e4, f32::NAN, &FN_SAT), 0x7F);
    assert_eq!(to_f32(e4, 0x78, &FN), 256.0); // +inf under the IEEE variant
    assert_eq!(to_f32(e4, 0x78, &IEEE), f32::INFINITY);
    assert!(to_f32(e4, 0x7C, &IEEE).is_nan());
    assert_eq!(to_f32(e4, 0x7C, &FN), 384.0);
}

/// Issue 8 items 12 and 13, decisions §4.4: NaNs follow numpy/ml_dtypes bit for bit, and only
/// an ALU-produced NaN is canonical. Reproducers from the issue.
#[test]
fn nan_bits_follow_numpy_and_ml_dtypes() {
    // Widening keeps signalling NaNs signalling (ml_dtypes / numpy).
    for (dt, h, w) in [
        (Dtype::BFLOAT16, 0x7F95, 0x7F95_0000u32),
        (Dtype::BFLOAT16, 0xFF81, 0xFF81_0000),
        (Dtype::FP16, 0x7C01, 0x7F80_2000),
        (Dtype::FP16, 0xFD55, 0xFFAA_A000),
    ] {
        assert_eq!(to_f32(dt, h, &IEEE).to_bits(), w, "{dt:?} {h:#x}");
        let mut out = [0f32; 1];
        decode_slice_to_f32(dt, &(h as u16).to_le_bytes(), &mut out, &IEEE);
        assert_eq!(out[0].to_bits(), w, "{dt:?} {h:#x} (slice)");
    }
    // FP16 narrowing keeps the top payload bits (numpy); bf16 gives ml_dtypes' canonical.
    let enc = |d, x: u32| from_f32(d, f32::from_bits(x), &IEEE);
    assert_eq!(enc(Dtype::FP16, 0x7F80_0001), 0x7C01);
    assert_eq!(enc(Dtype::FP16, 0x7FC1_2345), 0x7E09);
    assert_eq!(enc(Dtype::FP16, 0xFFC1_2345), 0xFE09);
    assert_eq!(enc(Dtype::BFLOAT16, 0x7F80_0001), 0x7FC0);
    // The canonical FP32 NaN an ALU op produces narrows to the canonical FP16 NaN.
    assert_eq!(enc(Dtype::FP16, canonical_nan::FP32), canonical_nan::FP16);
}

#[test]
fn canonical_nan_table() {
    let t = [
        (Dtype::FP32, IEEE, 0x7FC0_0000),
        (Dtype::FP32R, IEEE, 0x7FC0_0000),
        (Dtype::BFLOAT16, IEEE, 0x7FC0),
        (Dtype::FP16, IEEE, 0x7E00),
        (Dtype::FP8_EXP3, IEEE, 0x78),
        (Dtype::FP8_EXP4, IEEE, 0x7C),
        (Dtype::FP8_EXP4, FN, 0x7F),
        (Dtype::FP8_EXP5, IEEE, 0x7E),
    ];
    for (d, c, nan) in t {
        assert_eq!(canonical_nan_bits(d, &c), Some(nan), "{d:?}");
        if d != Dtype::FP32 && d != Dtype::FP32R {
            assert_eq!(from_f32(d, f32::NAN, &c), nan, "{d:?}");
            let sign = 1 << (8 * datapath_size(d).unwrap() - 1);
            assert_eq!(from_f32(d, -f32::NAN, &c), sign | nan, "{d:?}");
        }
        assert!(to_f32(d, nan, &c).is_nan());
    }
    assert_eq!(canonical_nan_bits(Dtype::INT32, &IEEE), None);
    // FP32/FP32R outputs store the bits as they are.
    assert_eq!(
        from_f32(Dtype::FP32, f32::from_bits(0xFF81_2345), &IEEE),
        0xFF81_2345
    );
    assert_eq!(from_f32(Dtype::FP32R, -1.5, &IEEE), (-1.5f32).to_bits());
}

/// No input panics; non-datapath dtypes decode to NaN, encode to 0 and convert nothing.
#[test]
fn totality_over_every_dtype_code() {
    let probes = [
        0.0,
        -0.0,
        1.5,
        -3e9,
        7e9,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        1e-45,
    ];
    let cfgs = [IEEE, FN, SAT, FN_SAT];
    let mut datapath = 0;
    for code in 0..=255u8 {
        let d = Dtype(code);
        datapath += is_datapath_dtype(d) as usize;
        for c in &cfgs {
            for bits in [0, 1, 0x80, 0xFF, 0x7FFF, 0xFFFF, 0x7FC0_0000, u32::MAX] {
                let x = to_f32(d, bits, c);
                if !is_datapath_dtype(d) {
                    assert_eq!(x.to_bits(), canonical_nan::FP32, "{d:?}");
                }
            }
            for x in probes {
                let b = from_f32(d, x, c);
                match datapath_size(d) {
                    Some(s) if s < 4 => assert!(b < 1 << (8 * s), "{d:?} {x}"),
                    Some(_) => {}
                    None => assert_eq!(b, 0, "{d:?}"),
                }
            }
            let mut out = [0f32; 3];
            let mut bytes = [0u8; 7];
            let n = decode_slice_to_f32(d, &[1, 2, 3, 4, 5, 6, 7], &mut out, c);
            let m = encode_slice_from_f32(d, &probes, &mut bytes, c);
            match datapath_size(d) {
                Some(s) => {
                    assert_eq!(n, (7 / s).min(3), "{d:?}");
                    assert_eq!(m, 7 / s, "{d:?}");
                }
                None => assert_eq!((n, m), (0, 0), "{d:?}"),
            }
        }
    }
    assert_eq!(datapath, 13); // the 12 plain dtypes + FP32R
}

#[test]
fn int_encode_rules() {
    let c = &IEEE;
    // Ties to even, saturation, NaN → 0, two's complement bits.
    assert_eq!(from_f32(Dtype::INT8, 2.5, c), 2);
    assert_eq!(from_f32(Dtype::INT8, -2.5, c), 0xFE);
    assert_eq!(from_f32(Dtype::INT8, 3.5, c), 4);
    assert_eq!(from_f32(Dtype::INT8, 127.5, c), 127);
    assert_eq!(from_f32(Dtype::INT8, -1000.0, c), 0x80);
    assert_eq!(from_f32(Dtype::UINT8, -0.6, c), 0);
    assert_eq!(from_f32(Dtype::UINT8, f32::NAN, c), 0);
    assert_eq!(from_f32(Dtype::UINT16, f32::INFINITY, c), 0xFFFF);
    assert_eq!(from_f32(Dtype::INT32, 2_147_483_648.0, c), 0x7FFF_FFFF);
    assert_eq!(from_f32(Dtype::INT32, f32::NEG_INFINITY, c), 0x8000_0000);
    assert_eq!(from_f32(Dtype::UINT32, 4_294_967_296.0, c), u32::MAX);
    assert_eq!(from_f32(Dtype::INT32, 8_388_607.5, c), 8_388_608);
    assert_eq!(from_f32(Dtype::INT32, -0.5, c), 0);
}
